"""GET /v1/diff?from=A&to=B: what changed between two KB releases, and which conclusions it moved."""
from __future__ import annotations

from flask import Blueprint

from . import Param, json_response, read_args, shaped
from ..state import engine_method

bp = Blueprint("diff", __name__)


@bp.get("/v1/diff")
def diff():
    args = read_args(Param("from", required=True), Param("to", required=True))
    fn = engine_method("diff", "comparing releases")
    return json_response(shaped("diff", fn(args["from"], args["to"])))
