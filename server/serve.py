"""`gpukb serve`: the API under gunicorn.

Each worker builds its own app and engine (``preload_app`` is off: the durable_rules host is
process-global and not fork-safe, so nothing of it is created in the master). gunicorn's own access
log is off; the app logs one line per request through the ``gpukb.http`` logger instead, with the
request id, method, path, status and duration.
"""
from __future__ import annotations

import logging
import sys
from typing import Any

from gunicorn.app.base import BaseApplication

LOG_FORMAT = "%(asctime)s [%(process)d] %(name)s %(levelname)s %(message)s"


def configure_logging(level: int = logging.INFO) -> None:
    """Send the gpukb loggers to stderr (once per process)."""
    logger = logging.getLogger("gpukb")
    logger.setLevel(level)
    if not any(getattr(h, "_gpukb", False) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        handler._gpukb = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.propagate = False


class GpukbServer(BaseApplication):
    """A gunicorn application that loads :func:`server.create_app` in every worker."""

    def __init__(self, app_config: dict[str, Any] | None = None, *, host: str = "127.0.0.1", port: int = 8000,
                 workers: int = 2, log_level: int = logging.INFO, timeout: int = 120):
        self.app_config = dict(app_config or {})
        self.log_level = log_level
        self.options = {
            "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
            "workers": workers,
            "worker_class": "sync",
            "preload_app": False,
            "timeout": timeout,
            "graceful_timeout": 10,
            "accesslog": None,
            "errorlog": "-",
            "loglevel": logging.getLevelName(log_level).lower() if log_level >= logging.INFO else "debug",
            "proc_name": "gpukb",
            "control_socket_disable": True,   # gunicorn >= 25: no shared ~/.gunicorn/gunicorn.ctl between servers
        }
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self):
        configure_logging(self.log_level)
        from . import create_app
        try:
            return create_app(self.app_config)
        except Exception as exc:      # the KB or the rules do not load: say why, then gunicorn stops
            logging.getLogger("gpukb").error("cannot start: %s", exc)
            raise


def serve(app_config: dict[str, Any] | None = None, host: str = "127.0.0.1", port: int = 8000, workers: int = 2,
          log_level: int = logging.INFO) -> None:
    """Run the API until interrupted (blocks)."""
    configure_logging(log_level)
    GpukbServer(app_config, host=host, port=port, workers=workers, log_level=log_level).run()
