"""GET /openapi.json: the OpenAPI 3.1 description of this API, generated from the answer models
(:mod:`gpukb.server.openapi_spec`; server/openapi.json is the same document, committed)."""
from __future__ import annotations

from flask import Blueprint

from . import json_response, read_args
from .routes import route
from ..openapi_spec import document

bp = Blueprint("openapi", __name__)


def load_spec() -> dict:
    """The served document."""
    return document()


@route(bp, "get", "/openapi.json", tag="service", summary="This document.",
       ok=("The OpenAPI 3.1 description of the API.",
           {"application/json": {"type": "object", "required": ["openapi", "info", "paths"]}}))
def openapi():
    read_args()
    return json_response(load_spec())
