"""Where the API finds its engine: one :class:`engine.service.GpuKB` per app, built by the factory."""
from __future__ import annotations

from flask import current_app

from engine.service import GpuKB

from .errors import NotImplementedYet

EXTENSION = "gpukb"


def get_kb() -> GpuKB:
    """The engine of the current app (see :func:`server.create_app`)."""
    return current_app.extensions[EXTENSION]


def engine_method(name: str, what: str | None = None):
    """The bound engine method `name`, or a 501 error when the engine does not provide it yet."""
    kb = get_kb()
    fn = getattr(kb, name, None)
    if not callable(fn):
        raise NotImplementedYet(f"{what or name} is not available yet: the engine has no GpuKB.{name}()")
    return fn
