"""The wire-level errors of gpukb's worker: what is wrong with a request, as the API's JSON error.

:class:`ProtocolError` is a request the worker refuses before any thread or app sees it (a request
line or headers over gunicorn's limits, a malformed request, one that did not arrive in time);
:func:`classify` turns it, or an error of the h11 parser, into (status, reason, message) and
:func:`error_bytes` into a complete response in the API's error shape, with the security headers.
"""
from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from .headers import API_HEADERS


class ProtocolError(Exception):
    """A request the worker answers itself with ``status`` and closes the connection on."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def slow_request(seconds: float) -> ProtocolError:
    return ProtocolError(408, f"the request did not arrive within {seconds:g} s")


def line_too_long(limit: int) -> ProtocolError:
    return ProtocolError(414, f"the request line is longer than {limit} bytes")


def headers_too_large(fields: int, field_size: int) -> ProtocolError:
    return ProtocolError(431, f"the request has more than {fields} headers or a header longer than {field_size} bytes")


def reason_of(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def classify(exc: BaseException, cfg: Any = None) -> tuple[int, str, str]:  # noqa: ARG001 - cfg: callers' signature
    """(status, reason, message) of an error met while reading a request: a :class:`ProtocolError`,
    an ``h11.RemoteProtocolError`` (its status hint: 400, 431 or 501), anything else a 500."""
    if isinstance(exc, ProtocolError):
        return exc.status, reason_of(exc.status), exc.message
    hint = getattr(exc, "error_status_hint", None)
    if isinstance(hint, int) and 400 <= hint < 600:
        detail = str(exc).split(": bytearray(b")[0].split(": b'")[0].split(': b"')[0]     # h11 adds the bytes' repr
        return hint, reason_of(hint), f"malformed HTTP request: {detail[:200]}"
    return 500, "Internal Server Error", "internal error: the request could not be answered; the server log has the details"


def error_bytes(status: int, reason: str, message: str) -> bytes:
    """A complete HTTP/1.1 response in the API's error shape, closing the connection."""
    body = json.dumps({"ok": False, "status": status, "error": message, "errors": [{"message": message}]},
                      ensure_ascii=False).encode("utf-8")
    head = [f"HTTP/1.1 {status} {reason}", "Connection: close", "Content-Type: application/json",
            f"Content-Length: {len(body)}"] + [f"{k}: {v}" for k, v in API_HEADERS.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
