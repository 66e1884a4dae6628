"""GET /v1/claims[?source=&kb_version=] and GET /v1/claims/<id>: what the sources say, quoted."""
from __future__ import annotations

from flask import Blueprint

from . import KB_VERSION, SOURCE, check_id, json_response, read_args
from .routes import PathParam, route
from ..state import get_kb

bp = Blueprint("claims", __name__)


@route(bp, "get", "/v1/claims", tag="knowledge", params=(SOURCE, KB_VERSION), errors=(400, 404, 500, 503),
       summary="Every claim of a release, optionally of one source, with its audit status.",
       ok=("The claims.", "claims"))
def claims():
    args = read_args()
    return json_response(get_kb().claims(source=args["source"], kb_version=args["kb_version"]).to_json())


@route(bp, "get", "/v1/claims/<cid>", tag="knowledge", errors=(400, 404, 500, 503),
       params=(PathParam("cid", "A claim id (S000-C001) or id@version."), KB_VERSION),
       summary="One claim with its audit findings and every version of it.", ok=("The claim.", "claim"))
def claim(cid: str):
    args = read_args()
    return json_response(get_kb().claim(check_id(cid), kb_version=args["kb_version"]).to_json())
