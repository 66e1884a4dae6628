"""Where the API finds its engine: one :class:`engine.service.GpuKB` per app, built by the factory.

The engine never changes under a running app: a KB reload is done by the serving master, which starts
new workers on the new KB and stops the old ones (:mod:`server.rollout`). What the master knows, the
generation being served and the last change it refused, is in a state file (``GPUKB_STATE``) that
/health reports.
"""
from __future__ import annotations

import re
from typing import Any

from flask import current_app

from gpukb.engine.service.state import GpuKB

from .errors import NotImplementedYet
from .generations import read_state

EXTENSION = "gpukb"


def get_kb() -> GpuKB:
    """The engine of the current app (see :func:`server.create_app`)."""
    return current_app.extensions[EXTENSION]


def reload_status() -> dict[str, Any]:
    """What /health says about reloads: when this KB was loaded, and the last refused change (cleared
    once the files are back in a good state)."""
    state = read_state(current_app.config.get("GPUKB_STATE"))
    gen = state.get("generation") or {}
    refused = state.get("refused") or {}
    out: dict[str, Any] = {}
    if gen.get("loaded_at"):
        out["loaded_at"] = gen["loaded_at"]
    if gen.get("number") is not None:
        out["generation"] = gen["number"]
    if refused:
        out["last_error"] = relative_paths(refused.get("error"))
        out["last_error_at"] = refused.get("at")
    return out


_ABSOLUTE = re.compile(r"(?<![\w.])(?:/[^\s/:'\"]+)+/(?=(?:kb|rules)\b|gen-|run-)")


_GENERATION = re.compile(r"(?<![\w.])gen-[\w-]+/(?=kb\b|rules\b)")


def relative_paths(text: Any) -> Any:
    """An error as /health shows it: file names relative to the KB (kb/claims/S000.yaml), never the
    server's directories (its cache, its generation copies)."""
    if not isinstance(text, str):
        return text
    return _GENERATION.sub("", _ABSOLUTE.sub("", text))


def engine_method(name: str, what: str | None = None):
    """The bound engine method `name`, or a 501 error when the engine does not provide it yet."""
    kb = get_kb()
    fn = getattr(kb, name, None)
    if not callable(fn):
        raise NotImplementedYet(f"{what or name} is not available yet: the engine has no GpuKB.{name}()")
    return fn
