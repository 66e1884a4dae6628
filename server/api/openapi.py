"""GET /openapi.json: the OpenAPI 3.1 description of this API, generated from the answer models
(:mod:`gpukb.server.openapi_spec`; server/openapi.json is the same document, committed)."""
from __future__ import annotations

from flask import Blueprint

from . import json_response, read_args
from ..openapi_spec import document

bp = Blueprint("openapi", __name__)


def load_spec() -> dict:
    """The served document."""
    return document()


@bp.get("/openapi.json")
def openapi():
    read_args()
    return json_response(load_spec())
