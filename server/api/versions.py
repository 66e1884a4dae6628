"""GET /v1/versions: the KB releases, oldest first."""
from __future__ import annotations

from flask import Blueprint

from . import json_response, read_args, shaped
from ..state import get_kb

bp = Blueprint("versions", __name__)


@bp.get("/v1/versions")
def versions():
    read_args()
    return json_response(shaped("versions", get_kb().versions()))
