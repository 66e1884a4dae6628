"""`gpukb serve`: the API under gunicorn, hardened for clients that misbehave.

Each worker builds its own app and engine (``preload_app`` is off: the durable_rules host is
process-global and not fork-safe, so nothing of it is created in the master). Workers are threaded
(:class:`server.worker.GpukbWorker`): idle connections wait in an event loop, a request must arrive
within a read timeout, a response must be taken within a send timeout, and each request has a time
limit in the app. gunicorn's request-line and header limits stay on and answer in the API's JSON shape.
The master reloads the KB in the background and switches all workers together (:mod:`server.rollout`,
:mod:`server.switch`). Everything is set through gunicorn's documented surface: the ``BaseApplication``
of custom applications, its settings and server hooks, a worker class derived from
``gunicorn.workers.base.Worker``. gunicorn's own access log is off; the app logs one line per request
through the ``gpukb.http`` logger instead, with control characters escaped.
"""
from __future__ import annotations

import gc
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from gunicorn.app.base import BaseApplication

from .logsafe import SafeFormatter

LOG_FORMAT = "%(asctime)s [%(process)d] %(name)s %(levelname)s %(message)s"
log = logging.getLogger("gpukb")

# what the server withstands by default (README, "Serving")
DEFAULTS = {
    "workers": 2,                  # processes
    "threads": 8,                  # request threads per worker
    "keepalive": 5,                # seconds an idle or kept-alive connection may stay silent
    "worker_connections": 1000,    # open connections per worker, idle ones included
    "limit_request_line": 4094,    # bytes of the request line (longer: 414)
    "limit_request_fields": 100,   # headers (more: 431)
    "limit_request_field_size": 8190,   # bytes of one header (longer: 431)
    "request_time_limit": 30.0,    # seconds of engine work per request (longer: 503)
}


def configure_logging(level: int = logging.INFO) -> None:
    """Send the gpukb loggers to stderr (once per process), control characters escaped."""
    logger = logging.getLogger("gpukb")
    logger.setLevel(level)
    if not any(getattr(h, "_gpukb", False) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(SafeFormatter(LOG_FORMAT))
        handler._gpukb = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.propagate = False


def _post_fork(server, worker) -> None:
    from .switch import post_fork
    post_fork(server, worker)


def _post_worker_init(worker) -> None:
    from .switch import post_worker_init
    post_worker_init(worker)
    # what the worker has loaded (KB, rules, audits) lives as long as the worker: moved out of the
    # collector's generations, so later collections scan only what requests allocate
    gc.freeze()


class GpukbServer(BaseApplication):
    """A gunicorn application that loads :func:`server.create_app` in every worker."""

    def __init__(self, app_config: dict[str, Any] | None = None, *, host: str = "127.0.0.1", port: int = 8000,
                 workers: int = DEFAULTS["workers"], threads: int = DEFAULTS["threads"],
                 log_level: int = logging.INFO, timeout: int = 120, hooks: dict[str, Any] | None = None):
        self.app_config = app_config if app_config is not None else {}
        self.log_level = log_level
        self.options = {
            "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
            "workers": workers,
            "worker_class": "gpukb.server.worker.GpukbWorker",
            "threads": threads,
            "keepalive": DEFAULTS["keepalive"],
            "worker_connections": DEFAULTS["worker_connections"],
            "limit_request_line": DEFAULTS["limit_request_line"],
            "limit_request_fields": DEFAULTS["limit_request_fields"],
            "limit_request_field_size": DEFAULTS["limit_request_field_size"],
            "sendfile": False,             # every send goes through the worker's bounded sendall
            "preload_app": False,
            "timeout": timeout,
            "graceful_timeout": 10,
            "accesslog": None,
            "errorlog": "-",
            "loglevel": logging.getLevelName(log_level).lower() if log_level >= logging.INFO else "debug",
            "proc_name": "gpukb",
            "control_socket_disable": True,   # gunicorn >= 25: no shared ~/.gunicorn/gunicorn.ctl between servers
            "post_fork": _post_fork,
            "post_worker_init": _post_worker_init,
            **(hooks or {}),
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
        except Exception as exc:      # the KB or the rules do not load: say why
            logging.getLogger("gpukb").error("cannot start: %s", exc)
            if self.app_config.get("GPUKB_ROLL"):   # a worker of a new generation: the master refuses the change
                from .switch import mark
                mark(self.app_config, "failed", str(exc)[:1500])
                os._exit(75)
            raise


def serve(app_config: dict[str, Any] | None = None, host: str = "127.0.0.1", port: int = 8000,
          workers: int = DEFAULTS["workers"], log_level: int = logging.INFO, *, threads: int = DEFAULTS["threads"],
          builder=None, reload_every: float = 0.0, current=None, read_timeout: float | None = None,
          send_timeout: float | None = None) -> None:
    """Run the API until interrupted (blocks). With ``current`` (a :class:`server.generations.Generation`),
    workers serve that generation and ``builder`` reloads it every ``reload_every`` seconds;
    ``read_timeout`` bounds the time a request may take to arrive (:mod:`server.worker`)."""
    configure_logging(log_level)
    from . import worker
    if read_timeout:
        worker.READ_TIMEOUT = float(read_timeout)     # workers are forked from this process
    if send_timeout:
        worker.SEND_TIMEOUT = float(send_timeout)
    app_config = dict(app_config or {})
    hooks = None
    run_dir = None
    if current is not None:
        from .rollout import Reloader
        run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=builder.cache_root if builder else None))
        app_config["GPUKB_STATE"] = str(run_dir / "state.json")
        hooks = Reloader(app_config, builder, reload_every, current, run_dir, workers).hooks()
    master = os.getpid()
    try:
        GpukbServer(app_config, host=host, port=port, workers=workers, threads=threads, log_level=log_level,
                    hooks=hooks).run()
    finally:
        if run_dir is not None and os.getpid() == master:   # workers leave through here too (SystemExit)
            shutil.rmtree(run_dir, ignore_errors=True)
