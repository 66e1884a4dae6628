"""The wire-level pieces of gpukb's gunicorn worker: bounded socket reads and sends, JSON errors.

:class:`DeadlineSocket` wraps a client socket so that every read of one request shares one deadline
(a client trickling a byte at a time cannot hold a thread longer) and every send is bounded (a client
that does not read cannot either). :func:`classify` and :func:`error_bytes` turn the errors gunicorn
raises while reading a request (414, 431, 400, 408 ...) into the API's JSON error shape.
"""
from __future__ import annotations

import errno
import json
import socket
import time
from typing import Any

from gunicorn.http import errors as http_errors
from werkzeug.exceptions import RequestTimeout

from .headers import API_HEADERS


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


# gunicorn's own errors: exception class -> (status, reason)
_STATUS = [
    (http_errors.LimitRequestLine, 414, "URI Too Long"),
    (http_errors.LimitRequestHeaders, 431, "Request Header Fields Too Large"),
    (http_errors.UnsupportedTransferCoding, 501, "Not Implemented"),
    (http_errors.ExpectationFailed, 417, "Expectation Failed"),
    (http_errors.ForbiddenProxyRequest, 403, "Forbidden"),
]
_CLIENT_ERRORS = tuple(getattr(http_errors, n) for n in (
    "InvalidRequestLine", "InvalidRequestMethod", "InvalidHTTPVersion", "InvalidHeader", "InvalidHeaderName",
    "InvalidProxyLine", "InvalidSchemeHeaders", "ObsoleteFolding", "InvalidChunkSize", "ChunkMissingTerminator",
    "InvalidChunkExtension", "NoMoreData") if hasattr(http_errors, n))
_MESSAGES = {
    414: "the request line is longer than {line} bytes",
    431: "the request has more than {fields} headers or a header longer than {field} bytes",
}


def classify(exc: BaseException, cfg: Any = None) -> tuple[int, str, str]:
    """(status, reason, message) of an error gunicorn raises while reading a request."""
    limits = {"line": getattr(cfg, "limit_request_line", "?"), "fields": getattr(cfg, "limit_request_fields", "?"),
              "field": getattr(cfg, "limit_request_field_size", "?")}
    if isinstance(exc, SlowRequest):
        return 408, "Request Timeout", str(exc.description)
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
