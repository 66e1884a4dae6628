"""GET /health: the service is up, with the latest KB release, its size and which KB is served.

``kb_digest`` names the exact KB, rules and code this worker serves (the digest its snapshot is bound
to); under ``gpukb serve``, ``reload`` says which generation that is, when it was loaded, and the last
KB change the server refused (``last_error``), cleared once the files are back in a good state.
"""
from __future__ import annotations

from flask import Blueprint, current_app

from gpukb.engine.models import OMIT, Health

from . import json_response, read_args
from .routes import route
from ..state import get_kb, reload_status

bp = Blueprint("health", __name__)


@route(bp, "get", "/health", tag="service", summary="The service is up; the latest KB release and its size.",
       ok=("Up.", "health"))
def health():
    read_args()
    kb = get_kb()
    v = kb.versions()
    latest = v.latest
    counts = next((r.get("counts") or {} for r in v.versions if r.name == latest), {})
    digest = current_app.config.get("GPUKB_DIGEST")
    return json_response(Health.of(status="ok", kb_version=latest, claims=counts.get("claims"), rules=counts.get("rules"),
                                   kb_digest=str(digest)[:16] if digest else OMIT, reload=reload_status() or OMIT).to_json())
