"""GET /v1/sources and GET /v1/sources/<id>: the documents the claims are quoted from."""
from __future__ import annotations

from flask import Blueprint

from . import check_id, json_response, read_args
from .routes import PathParam, route
from ..state import get_kb

bp = Blueprint("sources", __name__)


@route(bp, "get", "/v1/sources", tag="knowledge", errors=(400, 500, 503), summary="The source documents.",
       ok=("The sources (without their text).", "sources"))
def sources():
    read_args()
    return json_response(get_kb().sources().to_json())


@route(bp, "get", "/v1/sources/<sid>", tag="knowledge", params=(PathParam("sid", "A source id, e.g. S000."),),
       errors=(400, 404, 500, 503), summary="One source document with its verbatim text.",
       ok=("The source.", "source"))
def source(sid: str):
    read_args()
    return json_response(get_kb().source(check_id(sid)).to_json())
