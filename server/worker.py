"""The gunicorn worker gpukb serves with: threads, no thread held by an idle or slow client, JSON errors.

:class:`GpukbWorker` is gunicorn's threaded worker (``gthread``) with three changes:

* a new connection waits in the worker's event loop (a selector), not in a thread, until it has sent
  something; one that sends nothing for ``keepalive`` seconds is closed. Idle connections therefore
  never occupy a thread (gunicorn's own worker lends each new connection a thread for up to 5 s);
* once a thread reads a request, the whole request (line, headers, body) must arrive within
  ``READ_TIMEOUT`` seconds, whatever the pace of the bytes (each read waits at most for what is left
  of that time), and a response must be taken by the client within ``SEND_TIMEOUT`` seconds; a
  client that is slower is answered 408 or dropped, and its thread is free again;
* a finished connection is closed without waiting for the client (gunicorn waits up to 2 s on the
  event loop's thread, which a client can exploit to freeze the worker);
* errors gunicorn answers itself (a request line over ``limit_request_line`` -> 414, too many or too
  large headers -> 431, a malformed request -> 400, a read timeout -> 408) get the API's JSON error
  shape and security headers instead of gunicorn's HTML page, and log lines escape control characters.
"""
from __future__ import annotations

import errno
import json
import logging
import selectors
import socket
import time
from functools import partial
from typing import Any

from gunicorn.http import errors as http_errors
from gunicorn.workers.gthread import ThreadWorker, TConn
from werkzeug.exceptions import RequestTimeout

from .headers import API_HEADERS
from .logsafe import printable

READ_TIMEOUT = 15.0        # seconds for a whole request to arrive once its first byte is there
SEND_TIMEOUT = 30.0        # seconds for a client to take a response
log = logging.getLogger("gpukb.http")


class SlowRequest(RequestTimeout):
    """The client did not send its request within READ_TIMEOUT seconds (HTTP 408).

    A werkzeug HTTP exception, so that when the body is being read inside the app, Flask answers it
    in the JSON error shape like any other client error.
    """

    def __init__(self, seconds: float):
        super().__init__(f"the request did not arrive within {seconds:g} s")


class DeadlineSocket:
    """A client socket whose reads share one deadline per request and whose sends are bounded.

    Everything else is delegated to the real socket (selectors register it by ``fileno``).
    """

    def __init__(self, sock: socket.socket, read_timeout: float, send_timeout: float):
        self._sock = sock
        self.read_timeout = read_timeout
        self.send_timeout = send_timeout
        self.deadline: float | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def start_request(self) -> None:
        self.deadline = time.monotonic() + self.read_timeout

    def _read_budget(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise SlowRequest(self.read_timeout)
        current = self._sock.gettimeout()
        if current is None or current == 0 or current > left:
            self._sock.settimeout(left)

    def recv(self, *args):
        return self._read(self._sock.recv, args)

    def recv_into(self, *args):
        return self._read(self._sock.recv_into, args)

    def _read(self, fn, args):
        if self.deadline is None:          # outside a request (e.g. gunicorn's graceful close)
            return fn(*args)
        self._read_budget()
        try:
            return fn(*args)
        except (socket.timeout, TimeoutError):
            raise SlowRequest(self.read_timeout) from None

    def sendall(self, data, *args):
        previous = self._sock.gettimeout()
        self._sock.settimeout(self.send_timeout)
        try:
            return self._sock.sendall(data, *args)
        except (socket.timeout, TimeoutError):
            # the client is not reading: drop the connection (logged at debug level by gunicorn)
            raise BrokenPipeError(errno.EPIPE, f"the client did not take the response within {self.send_timeout:g} s") from None
        finally:
            try:
                self._sock.settimeout(previous)
            except OSError:
                pass

    def send(self, data, *args):
        return self.sendall(data, *args) or len(data)

    def sendfile(self, file, offset=0, count=None):    # gunicorn's sendfile is off; keep sends bounded anyway
        return socket.socket._sendfile_use_send(self, file, offset, count)  # type: ignore[attr-defined]


class GpukbConn(TConn):
    """gunicorn's connection, closed without blocking the worker's event loop.

    gunicorn closes a finished connection "gracefully" on the event loop's thread: it half-closes and
    then reads until the client closes, for up to 2 s. A client that keeps sending a byte now and then
    after its response would freeze the whole worker for those 2 s, once per connection. Here the bytes
    already received are drained without waiting (so the kernel sends FIN, not RST, and the response is
    not cut), and the socket is closed at once.
    """

    def close(self, graceful: bool = False) -> None:
        raw = self.sock._sock if isinstance(self.sock, DeadlineSocket) else self.sock
        if graceful:
            try:
                raw.shutdown(socket.SHUT_WR)
                raw.setblocking(False)
                drained = 0
                while drained < 65536:
                    chunk = raw.recv(65536)
                    if not chunk:
                        break
                    drained += len(chunk)
            except OSError:       # nothing more to read now (EAGAIN), or the client is gone
                pass
        try:
            raw.close()
        except OSError:
            pass


# gunicorn's own errors: exception class -> (status, reason)
_STATUS = [
    (http_errors.LimitRequestLine, 414, "URI Too Long"),
    (http_errors.LimitRequestHeaders, 431, "Request Header Fields Too Large"),
    (http_errors.UnsupportedTransferCoding, 501, "Not Implemented"),
    (http_errors.ExpectationFailed, 417, "Expectation Failed"),
    (http_errors.ForbiddenProxyRequest, 403, "Forbidden"),
    (SlowRequest, 408, "Request Timeout"),
]
_CLIENT_ERRORS = tuple(getattr(http_errors, n) for n in (
    "InvalidRequestLine", "InvalidRequestMethod", "InvalidHTTPVersion", "InvalidHeader", "InvalidHeaderName",
    "InvalidProxyLine", "InvalidSchemeHeaders", "ObsoleteFolding", "InvalidChunkSize", "ChunkMissingTerminator",
    "InvalidChunkExtension", "NoMoreData") if hasattr(http_errors, n))
_MESSAGES = {
    414: "the request line is longer than {line} bytes",
    431: "the request has more than {fields} headers or a header longer than {field} bytes",
    408: "the request did not arrive within {read:g} s",
}


def classify(exc: BaseException, cfg: Any = None) -> tuple[int, str, str]:
    """(status, reason, message) of an error gunicorn raises while reading a request."""
    limits = {"line": getattr(cfg, "limit_request_line", "?"), "fields": getattr(cfg, "limit_request_fields", "?"),
              "field": getattr(cfg, "limit_request_field_size", "?"), "read": READ_TIMEOUT}
    for cls, status, reason in _STATUS:
        if isinstance(exc, cls):
            text = _MESSAGES.get(status, "{detail}").format(detail=str(exc)[:200], **limits)
            return status, reason, text
    if isinstance(exc, _CLIENT_ERRORS):
        return 400, "Bad Request", f"malformed HTTP request: {type(exc).__name__}: {str(exc)[:200]}"
    return 500, "Internal Server Error", "internal error: the request could not be answered; the server log has the details"


def error_bytes(status: int, reason: str, message: str) -> bytes:
    """A complete HTTP/1.1 response in the API's error shape, closing the connection."""
    body = json.dumps({"ok": False, "status": status, "error": message, "errors": [{"message": message}]},
                      ensure_ascii=False).encode("utf-8")
    head = [f"HTTP/1.1 {status} {reason}", "Connection: close", "Content-Type: application/json",
            f"Content-Length: {len(body)}"] + [f"{k}: {v}" for k, v in API_HEADERS.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


class GpukbWorker(ThreadWorker):
    """gunicorn's threaded worker, hardened against idle and slow clients (see the module docstring)."""

    def accept(self, listener) -> None:
        try:
            client, addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = GpukbConn(self.cfg, DeadlineSocket(client, READ_TIMEOUT, SEND_TIMEOUT), addr, listener.getsockname())
        # wait for the first byte in the event loop, not in a thread (closed after `keepalive` seconds)
        conn.timeout = time.monotonic() + max(float(self.cfg.keepalive or 0), 1.0)
        self.pending_conns.append(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_pending_socket_readable, conn))

    def handle(self, conn):
        sock = conn.sock
        if isinstance(sock, DeadlineSocket):
            sock.start_request()
        try:
            return super().handle(conn)
        finally:
            if isinstance(sock, DeadlineSocket):
                sock.deadline = None

    def handle_error(self, req, client, addr, exc) -> None:
        status, reason, message = classify(exc, self.cfg)
        ip = (addr or ("",))[0] if isinstance(addr, tuple) else str(addr or "")
        if status >= 500:
            log.error("error while reading a request from %s: %s", printable(ip), printable(repr(exc)[:300]),
                      exc_info=exc)
        else:
            log.warning("refused a request from %s: %s %s (%s)", printable(ip), status, printable(message),
                        printable(type(exc).__name__))
        try:
            raw = client._sock if isinstance(client, DeadlineSocket) else client
            raw.settimeout(1.0)
            raw.sendall(error_bytes(status, reason, message))
        except Exception:   # noqa: BLE001 - the client is gone
            pass
