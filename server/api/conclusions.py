"""GET /v1/conclusions/<id>[/explain]: why (or why not) a conclusion holds, in four formats."""
from __future__ import annotations

from flask import Blueprint

from . import LANG, Param, check_id, json_response, read_args, shaped, text_response
from ..state import engine_method

bp = Blueprint("conclusions", __name__)

FORMATS = ("json", "text", "prov", "dot")


def _explain(cid: str, fmt: str, lang: str):
    fn = engine_method("explain", "explaining conclusions")
    result = fn(check_id(cid), fmt, lang)
    if fmt in ("text", "dot"):
        return text_response(result if isinstance(result, str) else str(result))
    return json_response(shaped("prov" if fmt == "prov" else "explain", result))


@bp.get("/v1/conclusions/<cid>/explain")
def explain(cid: str):
    args = read_args(Param("format", FORMATS), LANG)
    return _explain(cid, args["format"] or "json", args["lang"] or "en")


@bp.get("/v1/conclusions/<cid>")
def conclusion(cid: str):
    args = read_args(LANG)
    return _explain(cid, "json", args["lang"] or "en")
