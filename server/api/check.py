"""POST /v1/check {"text": ..., "lang": "en"|"zh", "kb_version": ...}: the claims a text states, each
judged by the audit's rules with its evidence and, where it is wrong, a correction."""
from __future__ import annotations

import json

from flask import Blueprint

from gpukb.engine.models import BODIES

from . import cached_json, read_args, read_json_object
from .routes import route
from ..engine_gate import within_budget
from ..errors import BadInput, Issue
from ..state import engine_method

bp = Blueprint("check", __name__)
FIELDS = BODIES["check"].keys()           # ("text", "lang", "kb_version")


@route(bp, "post", "/v1/check", tag="answers", body="check",
       errors={400: None, 404: None, 413: "The text is longer than 20,000 characters.", 500: None, 503: None},
       summary="The checkable claims of a text (English or Chinese), each audited by the audit's rules, with "
               "evidence, a link to its proof and, where wrong, a correction.",
       ok=("The claims found, their statuses and the passages not understood.", "check"))
def check():
    read_args()
    body = read_json_object()
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise BadInput(f"unknown field {unknown[0][:60]!r} in the body",
                       [Issue(f"unknown field {k[:60]!r}", field=k[:60], allowed=list(FIELDS)) for k in unknown])
    if "text" not in body:
        raise BadInput("the body needs a 'text'", [Issue("required", field="text")])
    for k in ("lang", "kb_version"):
        if body.get(k) is not None and not isinstance(body[k], str):
            raise BadInput(f"{k} must be a string", [Issue(f"expected a string, got {type(body[k]).__name__}", field=k)])
    fn = engine_method("check", "checking texts")
    key = ("check", id(getattr(fn, "__self__", fn)), json.dumps(body, sort_keys=True, ensure_ascii=False))
    return cached_json(key, lambda: within_budget(
        lambda: fn(body["text"], lang=body.get("lang"), kb_version=body.get("kb_version"))).to_json())
