"""POST /v1/query: a sizing question as a JSON object whose keys are the CLI flags in snake_case."""
from __future__ import annotations

from flask import Blueprint

from . import json_response, read_args, read_json_object
from ..state import get_kb

bp = Blueprint("query", __name__)


@bp.post("/v1/query")
def query():
    read_args()
    body = read_json_object()
    return json_response(get_kb().query(body))
