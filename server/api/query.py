"""POST /v1/query[?without=]: a sizing question as a JSON object whose keys are the CLI flags in snake_case
(``without``: source ids taken away; the answer says whether the conclusion still holds);
POST /v1/solve: the same object with ``target`` (batch, seq_len or params): the largest value that fits."""
from __future__ import annotations

from flask import Blueprint

import json

from . import WITHOUT, cached_json, read_args, read_json_object
from ..state import get_kb

bp = Blueprint("query", __name__)


@bp.post("/v1/query")
def query():
    args = read_args(WITHOUT)
    body = read_json_object()
    kb = get_kb()
    if args["without"] is not None:
        key = ("query", id(kb), json.dumps(body, sort_keys=True, default=str), args["without"])
        return cached_json(key, lambda: kb.query(body, without=args["without"]))
    key = ("query", id(kb), json.dumps(body, sort_keys=True, default=str))
    return cached_json(key, lambda: kb.query(body))


@bp.post("/v1/solve")
def solve():
    read_args()
    body = read_json_object()
    target = body.pop("target", None)
    kb = get_kb()
    key = ("solve", id(kb), json.dumps({**body, "target": target}, sort_keys=True, default=str))
    return cached_json(key, lambda: kb.solve(body, str(target) if target is not None else "", body.pop("lang", None) or "en"))
