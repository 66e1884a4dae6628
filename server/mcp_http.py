"""MCP's streamable HTTP transport at ``/mcp``, inside the WSGI app that gunicorn serves.

The app is Flask under gunicorn (sync workers today, perhaps gthread; several worker processes),
while the SDK's HTTP transport is ASGI. The choices, and why:

- **Stateless, JSON answers.** The session manager runs with ``stateless=True`` and
  ``json_response=True``: every MCP message is one POST answered by one JSON body. Nothing pins a
  client to a worker process (gunicorn spreads one client's requests over all workers, and a
  stateful session lives in one process only), and no long-lived SSE stream holds a sync worker (a
  GET stream would occupy it until gunicorn's timeout; two clients would take the server offline).
  The tools are pure reads over a read-only KB, so there is nothing to resume or to push.
- **One event loop per worker process, in a daemon thread, started on the first /mcp request.**
  Never in the gunicorn master or at import: an event loop and its thread do not survive fork. The
  session manager's ``run()`` (its task group) is entered once on that loop and kept for the life
  of the process; a forked child notices the pid changed and starts its own.
- **a2wsgi's ASGIMiddleware** hands each WSGI request to that loop and streams the answer back:
  sync workers call it one request at a time, gthread workers concurrently (the loop interleaves
  them; engine calls run in worker threads). A small dispatcher sends ``/mcp`` there and every other
  path to Flask unchanged, so the Flask test client reaches /mcp too.
- Rejected: a second ASGI server on another port per worker (a port per process and no single
  address to configure), and serving the whole app from an ASGI server (a change of the serving
  stack for one endpoint).

DNS-rebinding protection (Host/Origin checks) is off unless ``MCP_ALLOWED_HOSTS`` is configured (a
list or comma-separated string, e.g. ``"127.0.0.1:*,gpukb.example.org"``; ``MCP_ALLOWED_ORIGINS``
likewise for browsers' Origin):
the endpoint serves the same public, read-only answers as ``GET /v1/*``, which has no such check,
and a fixed list would refuse every deployment behind a hostname. Bodies are limited to the app's
``MAX_CONTENT_LENGTH``. Turn the endpoint off with ``MCP_ENABLED=False`` (``gpukb serve --no-mcp``).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable, Iterable

from flask import Flask

log = logging.getLogger("gpukb.mcp")
PATH = "/mcp"
STOP_WAIT_SECONDS = 5.0      # how long a finished request waits for the ASGI task to wind down


class McpBridge:
    """The MCP ASGI app on a private event loop thread, callable as a WSGI app (one per process)."""

    def __init__(self, app: Flask):
        self.app = app
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._wsgi: Callable[..., Iterable[bytes]] | None = None

    def _engine(self):
        from .state import get_kb
        with self.app.app_context():
            return get_kb()                 # hot reload as the API sees it

    @contextlib.contextmanager
    def _guard(self):
        """What every API request has: the request time limit and a bounded turn at the engine
        (:mod:`server.engine_gate`); a busy engine or a text over the budget is the tool's error."""
        from gpukb.engine.core import limits
        from .engine_gate import gate_of
        with limits.time_limit(self.app.config.get("REQUEST_TIME_LIMIT"), "an MCP request"):
            with gate_of(self.app.extensions, self.app.config).turn():
                yield

    def _start(self) -> Callable[..., Iterable[bytes]]:
        from a2wsgi import ASGIMiddleware
        from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        from .cli import version
        from .mcp_server import build_server

        hosts = self.app.config.get("MCP_ALLOWED_HOSTS")
        if isinstance(hosts, str):
            hosts = [h.strip() for h in hosts.split(",") if h.strip()]
        origins = self.app.config.get("MCP_ALLOWED_ORIGINS") or []
        if isinstance(origins, str):
            origins = [o.strip() for o in origins.split(",") if o.strip()]
        security = (TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=list(hosts),
                                              allowed_origins=list(origins))
                    if hosts else TransportSecuritySettings(enable_dns_rebinding_protection=False))
        manager = StreamableHTTPSessionManager(
            build_server(self._engine, version=version(), guard=self._guard), json_response=True, stateless=True,
            security_settings=security, max_request_body_size=int(self.app.config.get("MAX_CONTENT_LENGTH") or 256 * 1024))
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="gpukb-mcp-loop", daemon=True).start()
        ready: Future = Future()

        async def keep_running() -> None:         # the manager's task group, for the life of the process
            try:
                async with manager.run():
                    ready.set_result(True)
                    await asyncio.Event().wait()
            except BaseException as exc:      # report a failed start to the waiting request
                if not ready.done():
                    ready.set_exception(exc)
                raise
        asyncio.run_coroutine_threadsafe(keep_running(), loop)
        ready.result(timeout=30)
        log.info("MCP endpoint ready at %s (process %d)", PATH, os.getpid())
        return ASGIMiddleware(_guard(StreamableHTTPASGIApp(manager)), wait_time=STOP_WAIT_SECONDS, loop=loop)

    def wsgi(self) -> Callable[..., Iterable[bytes]]:
        with self._lock:
            if self._wsgi is None or self._pid != os.getpid():
                self._wsgi, self._pid = self._start(), os.getpid()
            return self._wsgi


def _guard(asgi: Callable) -> Callable:
    """The ASGI app, with any exception answered as a JSON-RPC error instead of a plain-text 500."""
    async def app(scope: dict, receive: Callable, send: Callable) -> None:
        started = False

        async def tracked_send(message: dict) -> None:
            nonlocal started
            if message.get("type") == "http.response.start":
                started = True
            await send(message)
        try:
            await asgi(scope, receive, tracked_send)
        except Exception:
            log.exception("MCP request failed")
            if not started:
                body = json.dumps({"jsonrpc": "2.0", "id": None,
                                   "error": {"code": -32603, "message": "internal error"}}).encode()
                await send({"type": "http.response.start", "status": 500,
                            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
    return app


def _refuse(environ: dict[str, Any], limit: int) -> tuple[str, str, list] | None:
    """What the bridge must not see: any method but POST (a stateless endpoint has no event stream to
    open with GET and no session to DELETE; an open GET stream would hold a sync worker) and a body
    declared larger than the app accepts."""
    method = environ.get("REQUEST_METHOD", "")
    if method != "POST":
        return "405 Method Not Allowed", f"method {method[:20]} is not allowed: send JSON-RPC messages with POST", \
            [("Allow", "POST")]
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > limit:
        return "413 Request Entity Too Large", f"the request body is larger than {limit} bytes", []
    return None


def _jsonrpc_error(start_response: Callable, status: str, message: str, headers: list) -> list[bytes]:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body))), *headers])
    return [body]


def mount(app: Flask) -> McpBridge:
    """Serve MCP at /mcp in front of the app's WSGI callable; every other path goes to Flask."""
    bridge = McpBridge(app)
    flask_wsgi = app.wsgi_app

    def dispatch(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "") in (PATH, PATH + "/"):
            refused = _refuse(environ, int(app.config.get("MAX_CONTENT_LENGTH") or 256 * 1024))
            if refused is not None:
                status, message, headers = refused
                log.info("%s %s %s", environ.get("REQUEST_METHOD"), PATH, status.split(" ", 1)[0])
                return _jsonrpc_error(start_response, status, message, headers)
            t0 = time.perf_counter()

            def logged_start(status: str, headers: list, exc_info: Any = None) -> Any:
                log.info("%s %s %s %.1fms", environ.get("REQUEST_METHOD"), PATH, status.split(" ", 1)[0],
                         (time.perf_counter() - t0) * 1000)
                return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)
            return bridge.wsgi()(environ, logged_start)
        return flask_wsgi(environ, start_response)

    app.wsgi_app = dispatch                  # type: ignore[method-assign]
    app.extensions["gpukb_mcp"] = bridge
    return bridge
