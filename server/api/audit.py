"""GET /v1/audit[?source=&kind=&format=claimreview&kb_version=&without=]: every claim checked, as findings
(``without``: as if those sources were removed, from the ATMS labels);
GET /v1/audit/gaps[?kb_version=]: the reference facts that would decide the unverifiable claims."""
from __future__ import annotations

from flask import Blueprint

from . import KB_VERSION, SOURCE, WITHOUT, Param, cached_json, json_response, read_args
from .routes import route
from ..state import engine_method
from gpukb.engine.core.terms import FINDING_KINDS

bp = Blueprint("audit", __name__)

KINDS = FINDING_KINDS
FORMATS = ("json", "claimreview")


@route(bp, "get", "/v1/audit", tag="audit", errors=(400, 404, 422, 500, 501, 503),
       params=(SOURCE, Param("kind", KINDS, schema={"$ref": "#/components/schemas/FindingKind"}),
               Param("format", FORMATS, default="json"), KB_VERSION, WITHOUT),
       summary="Audit findings, optionally of one source or one kind; format=claimreview gives schema.org "
               "ClaimReview JSON-LD.",
       ok=("The findings.", {"application/json": "audit", "application/ld+json": "claimreview"}))
def audit():
    args = read_args()
    fn = engine_method("audit", "the audit")
    fmt = "claimreview" if args["format"] == "claimreview" else None
    extra = {"without": args["without"]} if args["without"] is not None else {}
    key = ("audit", args["source"], args["kind"], fmt, args["kb_version"],
           None if args["without"] is None else tuple(args["without"]))
    return cached_json(key, lambda: fn(source=args["source"], kind=args["kind"], kb_version=args["kb_version"],
                                       fmt=fmt, **extra).to_json(),
                       mimetype="application/ld+json" if fmt == "claimreview" else "application/json")


@route(bp, "get", "/v1/audit/gaps", tag="audit", params=(KB_VERSION,), errors=(400, 404, 500, 503),
       operation_id="auditGaps", ok=("The gaps.", "gaps"),
       summary="The reference facts that would decide the unverifiable claims, by subject and attribute, most "
               "claims first; with the count of unverifiable claims by reason.")
def audit_gaps():
    args = read_args()
    return json_response(engine_method("audit_gaps", "the audit's gaps")(kb_version=args["kb_version"]).to_json())
