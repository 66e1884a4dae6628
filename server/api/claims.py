"""GET /v1/claims[?source=&kb_version=] and GET /v1/claims/<id>: what the sources say, quoted."""
from __future__ import annotations

from flask import Blueprint

from . import KB_VERSION, Param, check_id, json_response, read_args, shaped
from ..state import get_kb

bp = Blueprint("claims", __name__)


@bp.get("/v1/claims")
def claims():
    args = read_args(Param("source"), KB_VERSION)
    return json_response(shaped("claims", get_kb().claims(source=args["source"], kb_version=args["kb_version"])))


@bp.get("/v1/claims/<cid>")
def claim(cid: str):
    args = read_args(KB_VERSION)
    return json_response(shaped("claim", get_kb().claim(check_id(cid), kb_version=args["kb_version"])))
