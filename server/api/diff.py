"""GET /v1/diff?from=A&to=B: what changed between two KB releases, and which conclusions it moved."""
from __future__ import annotations

from flask import Blueprint

from . import Param, json_response, read_args
from .routes import route
from ..state import engine_method

bp = Blueprint("diff", __name__)


@route(bp, "get", "/v1/diff", tag="knowledge", errors=(400, 422, 500, 501, 503),
       params=(Param("from", required=True, description="The older release name."),
               Param("to", required=True, description="The newer release name.")),
       summary="What changed between two releases: facts added, revised and retired, rules changed, and the "
               "conclusions that moved, each with its cause.",
       ok=("The differences.", "diff"))
def diff():
    args = read_args()
    fn = engine_method("diff", "comparing releases")
    return json_response(fn(args["from"], args["to"]).to_json())
