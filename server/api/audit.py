"""GET /v1/audit[?source=&kind=&format=claimreview&kb_version=&without=]: every claim checked, as findings
(``without``: as if those sources were removed, from the ATMS labels);
GET /v1/audit/gaps[?kb_version=]: the reference facts that would decide the unverifiable claims."""
from __future__ import annotations

from flask import Blueprint

from . import KB_VERSION, WITHOUT, Param, json_response, read_args, shaped
from ..state import engine_method
from gpukb.engine.core.terms import FINDING_KINDS

bp = Blueprint("audit", __name__)

KINDS = FINDING_KINDS
FORMATS = ("json", "claimreview")


@bp.get("/v1/audit")
def audit():
    args = read_args(Param("source"), Param("kind", KINDS), Param("format", FORMATS), KB_VERSION, WITHOUT)
    fn = engine_method("audit", "the audit")
    fmt = "claimreview" if args["format"] == "claimreview" else None
    extra = {"without": args["without"]} if args["without"] is not None else {}
    result = fn(source=args["source"], kind=args["kind"], kb_version=args["kb_version"], fmt=fmt, **extra)
    if fmt == "claimreview":
        return json_response(shaped("claimreview", result), mimetype="application/ld+json")
    return json_response(shaped("audit", result))


@bp.get("/v1/audit/gaps")
def audit_gaps():
    args = read_args(KB_VERSION)
    return json_response(shaped("gaps", engine_method("audit_gaps", "the audit's gaps")(kb_version=args["kb_version"])))
