"""One JSON error shape for every failure of the HTTP API.

Every error response, whatever raised it, has the body::

    {"ok": false, "status": 400, "error": "what went wrong",
     "errors": [{"message": ..., "field"?: ..., "allowed"?: ..., "file"?: ..., "line"?: ...}]}

The engine's exceptions (:mod:`engine.core.errors`) already carry their HTTP status; the few failures that
only the HTTP layer can see (a method it does not serve, a body too large or in an unsupported coding,
an engine feature not written yet) are added here as subclasses of the same base class. Werkzeug's
own HTTP exceptions and, as a last resort, any other exception are turned into the same shape.

    BadInput, ValidationError, UnknownRelease   400   (engine.core.errors)
    NotFound                                    404   (engine.core.errors)
    MethodNotAllowed                            405
    PayloadTooLarge                             413
    UnsupportedMediaType                        415
    RuleError                                   422   (engine.core.errors)
    InternalError                               500   (anything unexpected; logged with its traceback)
    NotImplementedYet                           501
"""
from __future__ import annotations

import logging
from typing import Any, Iterable

from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from gpukb.engine import models
from gpukb.engine.core.errors import BadInput, GpukbError, Issue, NotFound

__all__ = ["GpukbError", "BadInput", "NotFound", "Issue", "MethodNotAllowed", "PayloadTooLarge",
           "UnsupportedMediaType", "NotImplementedYet", "InternalError", "error_body", "error_response",
           "register_error_handlers"]

log = logging.getLogger("gpukb.http")


class MethodNotAllowed(GpukbError):
    """The API is read-only: GET, HEAD and OPTIONS everywhere, POST on /v1/query only."""

    status = 405

    def __init__(self, message: str, issues: list[Issue] | None = None, allowed: Iterable[str] = ()):
        super().__init__(message, issues)
        self.allowed = sorted(allowed)


class PayloadTooLarge(GpukbError):
    status = 413


class UnsupportedMediaType(GpukbError):
    """A request body in a content coding the API does not decode (e.g. gzip)."""

    status = 415


class NotImplementedYet(GpukbError):
    """An engine feature the API exposes but the engine does not provide yet."""

    status = 501


class InternalError(GpukbError):
    status = 500


def _issue_dict(issue: Any) -> dict[str, Any]:
    if isinstance(issue, Issue):
        return issue.as_dict()
    if isinstance(issue, dict) and "message" in issue:
        return {k: v for k, v in issue.items() if k in ("message", "field", "allowed", "file", "line")}
    return {"message": str(issue)}


def error_body(status: int, message: str, issues: Iterable[Any] = ()) -> dict[str, Any]:
    """The one error shape, built as the Error model (gpukb.engine.models)."""
    errors = [_issue_dict(i) for i in issues]
    if not errors:
        errors = [{"message": message}]
    try:
        return models.Error.of(ok=False, status=int(status), error=message, errors=errors).to_json()
    except models.ModelError:
        # An issue with a field of the wrong type is a bug, but the error path must still answer in the
        # one shape: keep each issue's message only.
        log.exception("error body does not fit the Error model")
        return {"ok": False, "status": int(status), "error": message,
                "errors": [{"message": str(e.get("message", ""))} for e in errors]}


def error_response(status: int, message: str, issues: Iterable[Any] = (),
                   headers: dict[str, str] | None = None) -> Response:
    resp = jsonify(error_body(status, message, issues))
    resp.status_code = int(status)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


_HTTP_MESSAGES = {
    400: "bad request",
    404: "no such endpoint",
    405: "method not allowed",
    413: "request body too large",
    415: "unsupported media type",
}


def _from_gpukb(exc: GpukbError) -> Response:
    status = int(getattr(exc, "status", 400) or 400)
    headers = {}
    if isinstance(exc, MethodNotAllowed) and exc.allowed:
        headers["Allow"] = ", ".join(exc.allowed)
    if getattr(exc, "retry_after", None):
        headers["Retry-After"] = str(int(exc.retry_after))
    if status == 501:
        log.warning("%s %s: %s", request.method, request.path, exc.message)
    elif status >= 500:
        log.error("%s %s failed: %s", request.method, request.path, exc.message)
    return error_response(status, exc.message, exc.issues, headers)


def _from_http(exc: HTTPException) -> Response:
    """Werkzeug's exceptions (routing 404/405, 413 from the body limit ...) in the same shape."""
    status = exc.code or 500
    if status == 404:
        message = f"no such endpoint: {request.path[:200]}"
        err: GpukbError = NotFound(message, [Issue(message, field="path", allowed=_public_routes())])
    elif status == 405:
        allowed = sorted(getattr(exc, "valid_methods", None) or [])
        message = f"method {request.method[:20]} is not allowed on {request.path[:200]}"
        if request.method not in ("GET", "HEAD", "OPTIONS", "POST"):
            message += ": the API is read-only"
        err = MethodNotAllowed(message, [Issue(message, field="method", allowed=allowed or None)], allowed)
    elif status == 413:
        limit = _max_content_length()
        message = f"the request body is larger than {limit} bytes" if limit else _HTTP_MESSAGES[413]
        err = PayloadTooLarge(message, [Issue(message, field="body")])
    elif status == 415:
        err = UnsupportedMediaType(_HTTP_MESSAGES[415], [Issue("send application/json", field="Content-Type",
                                                                allowed=["application/json"])])
    else:
        message = _HTTP_MESSAGES.get(status) or (exc.name or "error").lower()
        if exc.description and status < 500:
            message = f"{message}: {exc.description}"
        err = GpukbError(message)
        err.status = status
    return _from_gpukb(err)


def _from_anything(exc: Exception) -> Response:
    if isinstance(exc, HTTPException):       # defensive: Flask routes these to _from_http first
        return _from_http(exc)
    if isinstance(exc, GpukbError):
        return _from_gpukb(exc)
    log.exception("unhandled error on %s %s", request.method, request.path)
    err = InternalError("internal error: the request could not be answered; the server log has the details")
    return error_response(err.status, err.message)


def _max_content_length() -> int | None:
    return current_app.config.get("MAX_CONTENT_LENGTH")


def _public_routes() -> list[str]:
    return sorted({r.rule for r in current_app.url_map.iter_rules() if r.endpoint != "static"})


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(GpukbError, _from_gpukb)
    app.register_error_handler(HTTPException, _from_http)
    app.register_error_handler(Exception, _from_anything)
