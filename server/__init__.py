"""gpukb's HTTP API: a Flask app factory over one :class:`engine.service.GpuKB`.

    from gpukb.server import create_app
    app = create_app()                      # kb/ and rules/ of this checkout
    app = create_app({"GPUKB_KB": "other/kb", "CORS_ORIGINS": ["https://example.org"]})

Configuration (defaults, then the environment variables GPUKB_KB and GPUKB_RULES, then
``test_config``): GPUKB_KB, GPUKB_RULES, MAX_CONTENT_LENGTH (256 KiB), MAX_QUERY_CHARS (500),
CORS_ORIGINS (None: no CORS headers; a list or comma-separated string of origins, "*" for any),
REQUEST_TIME_LIMIT (30 s of engine work per request, then a 503), ENGINE_CONCURRENCY (1: how many requests
of a worker compute uncached answers at once, see ``server.api.cached_json``), GPUKB_SNAPSHOT (a snapshot to load)
and, set by ``gpukb serve``, GPUKB_DIGEST, GPUKB_GENERATION, GPUKB_STATE, GPUKB_TOKEN, GPUKB_RUN and GPUKB_ROLL (see :mod:`server.rollout`
and :mod:`server.switch`).
MCP_ENABLED (True: the MCP server's streamable HTTP transport at /mcp, see :mod:`server.mcp_http`).
The API is read-only: GET, HEAD and OPTIONS, and POST on /v1/query only. The app also serves the
HTML pages of :mod:`server.pages`; everything under /v1/, /health and /openapi.json is JSON. Every
response carries the security headers of :mod:`server.headers`.
"""
from __future__ import annotations

import logging
import os
import re
import time
import uuid
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from flask import Flask, current_app, g, request

from gpukb.engine.core import limits
from gpukb.engine.service.state import DEFAULT_KB, DEFAULT_RULES, GpuKB

from .errors import register_error_handlers
from .headers import add_security_headers, wsgi_with_security_headers
from .logsafe import printable
from .state import EXTENSION

__all__ = ["create_app"]

HTTP_LOG = logging.getLogger("gpukb.http")
_REQUEST_ID_CHARS = re.compile(r"[^A-Za-z0-9._-]")
MAX_REQUEST_ID = 64


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app and its engine (compiling the rules takes about a second)."""
    # root_path given: `gpukb` is a namespace package, whose root Flask cannot infer
    here = Path(__file__).resolve().parent
    app = Flask(__name__, root_path=str(here), instance_path=str(here / "instance"))
    app.config.from_mapping(
        GPUKB_KB=str(DEFAULT_KB),
        GPUKB_RULES=str(DEFAULT_RULES),
        # a text to check of 20,000 characters fits even when every one is an emoji written as a JSON
        # surrogate pair (12 bytes): the character limit, not the byte limit, is what a client meets
        MAX_CONTENT_LENGTH=256 * 1024,
        MAX_QUERY_CHARS=500,
        CORS_ORIGINS=None,
        REQUEST_TIME_LIMIT=30.0,
        ENGINE_CONCURRENCY=1,
        MCP_ENABLED=True,
    )
    for key in ("GPUKB_KB", "GPUKB_RULES"):
        if os.environ.get(key):
            app.config[key] = os.environ[key]
    if test_config:
        app.config.update(test_config)
    app.json.ensure_ascii = False
    app.json.sort_keys = False

    pending = bool(app.config.get("GPUKB_INCLUDE_PENDING"))
    app.extensions[EXTENSION] = GpuKB(app.config["GPUKB_KB"], app.config["GPUKB_RULES"], include_pending=pending)
    if app.config.get("GPUKB_SNAPSHOT") and not pending:   # a snapshot holds the audits without pending claims
        from gpukb.engine.audit.snapshot import load
        load(app.extensions[EXTENSION], app.config["GPUKB_SNAPSHOT"])

    store = app.config.get("GPUKB_CHECK_STORE") or (
        str(Path(app.config["GPUKB_STATE"]).parent / "checks") if app.config.get("GPUKB_STATE") else None)
    if store:       # the workers of one `gpukb serve` share the texts they checked (finding links work on all)
        try:
            Path(store).mkdir(mode=0o700, exist_ok=True)
            app.extensions[EXTENSION].check_store = Path(store)
        except OSError as exc:
            HTTP_LOG.warning("cannot share checked texts in %s: %s", store, exc)
    register_error_handlers(app)
    _install_request_hooks(app)
    from .api import blueprints
    for bp in blueprints():
        app.register_blueprint(bp)
    from . import pages                      # the HTML pages (/, /audit, /conclusions/<id>)
    pages.register(app)
    if app.config.get("MCP_ENABLED"):
        from .mcp_http import mount          # MCP over streamable HTTP at /mcp
        mount(app)
    app.wsgi_app = wsgi_with_security_headers(app.wsgi_app)   # also what is mounted beside Flask
    return app


def _request_id(given: str | None) -> str:
    if given:
        clean = _REQUEST_ID_CHARS.sub("", given)[:MAX_REQUEST_ID]
        if clean:
            return clean
    return uuid.uuid4().hex


def _cors_origins(conf: Any) -> set[str]:
    if not conf:
        return set()
    if isinstance(conf, str):
        conf = conf.split(",")
    return {o.strip().rstrip("/") for o in conf if o and o.strip()}


def _relative_location(resp) -> None:
    """A redirect never names a host: werkzeug builds absolute URLs from the request's Host header,
    which a client chooses (``/conclusions`` would redirect to the attacker's host). Locations on
    this server become paths; PUBLIC_URL, when configured, is prefixed instead."""
    loc = resp.headers.get("Location")
    if not loc:
        return
    parts = urlsplit(loc)
    if parts.scheme or parts.netloc:
        if parts.netloc != request.host:
            return                          # a link elsewhere that the app chose itself
        path = urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))
        public = (current_app.config.get("PUBLIC_URL") or "").rstrip("/")
        resp.headers["Location"] = public + path if public else path


def _install_request_hooks(app: Flask) -> None:
    @app.before_request
    def _start():
        g.request_id = _request_id(request.headers.get("X-Request-ID"))
        g.t0 = time.perf_counter()
        g.time_limit = limits.start(app.config.get("REQUEST_TIME_LIMIT"),
                                    f"{request.method} {request.path[:100]}")
        # Read-only by construction: every route is GET (Flask adds HEAD and OPTIONS) except
        # POST /v1/query, so routing answers any other method with 405 and its Allow header.

    @app.after_request
    def _finish(resp):
        _relative_location(resp)
        rid = getattr(g, "request_id", None) or _request_id(None)
        resp.headers["X-Request-ID"] = rid
        add_security_headers(resp)
        origins = _cors_origins(app.config.get("CORS_ORIGINS"))
        if origins:                      # CORS is off unless configured; then only for listed origins
            resp.vary.add("Origin")
            origin = request.headers.get("Origin")
            if origin and ("*" in origins or origin.rstrip("/") in origins):
                resp.headers["Access-Control-Allow-Origin"] = origin
                resp.headers["Access-Control-Expose-Headers"] = "X-Request-ID"
                if request.method == "OPTIONS":
                    resp.headers["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS, POST"
                    resp.headers["Access-Control-Allow-Headers"] = "Content-Type, X-Request-ID"
                    resp.headers["Access-Control-Max-Age"] = "600"
        ms = (time.perf_counter() - getattr(g, "t0", time.perf_counter())) * 1000
        HTTP_LOG.info("%s %s %s %s %.1fms", rid, printable(request.method[:20]),
                      printable(request.full_path.rstrip("?")[:300]), resp.status_code, ms)
        return resp

    @app.teardown_request
    def _end(_exc):
        token = g.pop("time_limit", None)
        if token is not None:
            try:
                limits.stop(token)
            except (ValueError, RuntimeError):   # set in another context (never expected): it just lapses
                pass
