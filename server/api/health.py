"""GET /health: the service is up, with the latest KB release and its size."""
from __future__ import annotations

from flask import Blueprint

from . import json_response, read_args
from ..state import get_kb, reload_status

bp = Blueprint("health", __name__)


@bp.get("/health")
def health():
    read_args()
    kb = get_kb()
    v = kb.versions()
    latest = v["latest"]
    counts = next((r.get("counts") or {} for r in v["versions"] if r.get("name") == latest), {})
    body = {"status": "ok", "kb_version": latest, "claims": counts.get("claims"), "rules": counts.get("rules")}
    reload = reload_status()
    if reload:
        body["reload"] = reload
    return json_response(body)
