"""GET /v1/versions: the KB releases, oldest first."""
from __future__ import annotations

from flask import Blueprint

from . import json_response, read_args
from .routes import route
from ..state import get_kb

bp = Blueprint("versions", __name__)


@route(bp, "get", "/v1/versions", tag="knowledge", errors=(400, 500, 503), summary="The KB releases, oldest first.",
       ok=("The releases.", "versions"))
def versions():
    read_args()
    return json_response(get_kb().versions().to_json())
