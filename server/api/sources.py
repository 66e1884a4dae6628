"""GET /v1/sources and GET /v1/sources/<id>: the documents the claims are quoted from."""
from __future__ import annotations

from flask import Blueprint

from . import check_id, json_response, read_args, shaped
from ..state import get_kb

bp = Blueprint("sources", __name__)


@bp.get("/v1/sources")
def sources():
    read_args()
    return json_response(shaped("sources", get_kb().sources()))


@bp.get("/v1/sources/<sid>")
def source(sid: str):
    read_args()
    return json_response(shaped("source", get_kb().source(check_id(sid))))
