"""GET /v1/conclusions/<id>[/explain]: why (or why not) a conclusion holds, in four formats."""
from __future__ import annotations

from flask import Blueprint

from . import LANG, Param, check_id, json_response, read_args, text_response
from .routes import PathParam, route
from ..state import engine_method

bp = Blueprint("conclusions", __name__)

FORMATS = ("json", "text", "prov", "dot")
CID = PathParam("cid", "A conclusion id as returned in conclusion_id (Q-...), or a derived fact id.",
                component="ConclusionId")
ERRORS = (400, 404, 422, 500, 501, 503)


def _explain(cid: str, fmt: str, lang: str):
    fn = engine_method("explain", "explaining conclusions")
    result = fn(check_id(cid), fmt, lang)
    if fmt in ("text", "dot"):
        return text_response(result if isinstance(result, str) else str(result))
    return json_response(result.to_json())


@route(bp, "get", "/v1/conclusions/<cid>/explain", tag="explanations", errors=ERRORS,
       params=(CID, Param("format", FORMATS, default="json", description="json (default) and prov are JSON; text "
                          "and dot are text/plain."), LANG),
       summary="Why (or why not) a conclusion holds: a proof tree as JSON, indented text, W3C PROV-JSON or "
               "Graphviz DOT.",
       ok=("The explanation in the requested format.", {
           "application/json": ("explain", "prov"),
           "text/plain": {"type": "string", "description": "Indented text (format=text) or a Graphviz digraph "
                                                           "(format=dot)."}}))
def explain(cid: str):
    args = read_args()
    return _explain(cid, args["format"] or "json", args["lang"] or "en")


@route(bp, "get", "/v1/conclusions/<cid>", tag="explanations", params=(CID, LANG), errors=ERRORS,
       summary="A conclusion with its proof tree (the same as explain?format=json).",
       ok=("The explanation.", "explain"))
def conclusion(cid: str):
    args = read_args()
    return _explain(cid, "json", args["lang"] or "en")
