"""GET /openapi.json: the hand-written OpenAPI 3.1 description of this API (server/openapi.json)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from flask import Blueprint

from . import json_response, read_args

bp = Blueprint("openapi", __name__)

SPEC = Path(__file__).resolve().parent.parent / "openapi.json"


@lru_cache(maxsize=1)
def load_spec() -> dict:
    return json.loads(SPEC.read_text(encoding="utf-8"))


@bp.get("/openapi.json")
def openapi():
    read_args()
    return json_response(load_spec())
