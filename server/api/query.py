"""POST /v1/query[?without=]: a sizing question as a JSON object whose keys are the CLI flags in snake_case
(``without``: source ids taken away; the answer says whether the conclusion still holds);
POST /v1/solve: the same object with ``target`` (batch, seq_len or params): the largest value that fits."""
from __future__ import annotations

from flask import Blueprint

import json

from . import WITHOUT, cached_json, read_args, read_json_object
from .routes import route
from ..state import get_kb

bp = Blueprint("query", __name__)


@route(bp, "post", "/v1/query", tag="answers", params=(WITHOUT,), errors=(400, 413, 415, 422, 500, 503),
       body="query", example={"params": 13000000000, "method": "full", "gpu": "T4"},
       summary="Size a training or inference scenario: does it fit, how much memory, how many GPUs, what to change.",
       ok=("The sizing answer.", "query"))
def query():
    args = read_args()
    body = read_json_object()
    kb = get_kb()
    if args["without"] is not None:
        key = ("query", id(kb), json.dumps(body, sort_keys=True, default=str), args["without"])
        return cached_json(key, lambda: kb.query(body, without=args["without"]).to_json())
    key = ("query", id(kb), json.dumps(body, sort_keys=True, default=str))
    return cached_json(key, lambda: kb.query(body).to_json())


@route(bp, "post", "/v1/solve", tag="answers", body="solve", errors=(400, 500, 503),
       summary="The largest batch, sequence length or model (target) that fits the rest of a query body; each "
               "bound links to its proof.",
       ok=("The largest value that fits and the first that does not.", "solve"))
def solve():
    read_args()
    body = read_json_object()
    target = body.pop("target", None)
    kb = get_kb()
    key = ("solve", id(kb), json.dumps({**body, "target": target}, sort_keys=True, default=str))
    return cached_json(key, lambda: kb.solve(body, str(target) if target is not None else "", body.pop("lang", None) or "en").to_json())
