"""Where the API finds its engine: one :class:`engine.service.GpuKB` per app, built by the factory."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from flask import current_app

from gpukb.engine.errors import GpukbError
from gpukb.engine.answers.service import GpuKB

from .errors import NotImplementedYet

EXTENSION = "gpukb"
RELOAD = "gpukb_reload"
log = logging.getLogger("gpukb.reload")


def get_kb() -> GpuKB:
    """The engine of the current app (see :func:`server.create_app`).

    With ``KB_RELOAD_SECONDS`` set, the KB and rules directories are checked that often; a changed
    KB is loaded and validated beside the running one and replaces it only when it is valid, so a
    broken file leaves the last good KB serving (the error is logged and shown by /health).
    """
    app = current_app
    every = app.config.get("KB_RELOAD_SECONDS")
    if every:
        _maybe_reload(app, float(every))
    return app.extensions[EXTENSION]


def reload_status() -> dict:
    st = current_app.extensions.get(RELOAD) or {}
    return {k: st.get(k) for k in ("loaded_at", "last_error", "last_error_at") if st.get(k) is not None}


def stamp(*dirs: str) -> tuple:
    """A signature of every file under the directories (path, size, modification time)."""
    out = []
    for d in dirs:
        for p in sorted(Path(d).rglob("*")):
            if p.is_file():
                st = p.stat()
                out.append((str(p), st.st_size, st.st_mtime_ns))
    return tuple(out)


def init_reload(app) -> None:
    app.extensions[RELOAD] = {"lock": threading.Lock(), "checked": time.monotonic(),
                              "stamp": stamp(app.config["GPUKB_KB"], app.config["GPUKB_RULES"]),
                              "loaded_at": time.strftime("%Y-%m-%dT%H:%M:%S")}


def _maybe_reload(app, every: float) -> None:
    st = app.extensions.get(RELOAD)
    if st is None or time.monotonic() - st["checked"] < every or not st["lock"].acquire(blocking=False):
        return
    try:
        st["checked"] = time.monotonic()
        new = stamp(app.config["GPUKB_KB"], app.config["GPUKB_RULES"])
        if new == st["stamp"] or new == st.get("failed"):
            return
        try:
            kb = GpuKB(app.config["GPUKB_KB"], app.config["GPUKB_RULES"])
            kb.audit_result(kb.kb.latest)
        except GpukbError as exc:
            st["failed"] = new
            st["last_error"] = str(exc)[:2000]
            st["last_error_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
            log.error("KB change not loaded; still serving the last good KB: %s", exc)
            return
        app.extensions[EXTENSION] = kb
        st.update(stamp=new, failed=None, loaded_at=time.strftime("%Y-%m-%dT%H:%M:%S"), last_error=None,
                  last_error_at=None)
        log.info("reloaded the KB (%s): release %s", app.config["GPUKB_KB"], kb.kb.latest)
    finally:
        st["lock"].release()


def engine_method(name: str, what: str | None = None):
    """The bound engine method `name`, or a 501 error when the engine does not provide it yet."""
    kb = get_kb()
    fn = getattr(kb, name, None)
    if not callable(fn):
        raise NotImplementedYet(f"{what or name} is not available yet: the engine has no GpuKB.{name}()")
    return fn
