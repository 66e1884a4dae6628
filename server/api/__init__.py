"""The API's blueprints (one module per resource) and the input checks they share.

Every endpoint declares the query parameters it accepts with :func:`read_args`; anything else in the
query string, a value out of its vocabulary, a repeated or over-long parameter is a 400 that lists
what is allowed. Request bodies are read by :func:`read_json_object`, which accepts only a UTF-8 JSON
object with finite numbers and no duplicate keys.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request


from ..errors import BadInput, Issue, UnsupportedMediaType

MAX_ID_CHARS = 2000
MAX_PARAM_CHARS = 200
LANGS = ("en", "zh")
# C0 controls except tab, newline and carriage return; DEL; C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Param:
    """One query parameter an endpoint accepts, and what the OpenAPI document says about it."""

    name: str
    choices: tuple[str, ...] | None = None
    max_chars: int | None = MAX_PARAM_CHARS   # None: the app's MAX_QUERY_CHARS
    required: bool = False
    multiline: bool = False                   # tab/newline allowed (free text)
    repeatable: bool = False                  # may be given several times: the values joined with commas
    description: str | None = None
    default: str | None = None                # the documented default
    schema: dict[str, Any] | None = field(default=None, compare=False)   # when the rule of openapi() does not say it
    example: str | None = None
    component: str | None = None              # documented once under components/parameters with this name

    def openapi(self) -> dict[str, Any]:
        """The parameter's OpenAPI object: a string of at most max_chars characters, one of its choices,
        or (repeatable) a list of them."""
        schema = self.schema
        if schema is None:
            text = {"type": "string", "minLength": 1, "maxLength": self.max_chars}
            schema = ({"type": "string", "enum": list(self.choices)} if self.choices is not None
                      else {"type": "array", "items": text} if self.repeatable else text)
        if self.default is not None:
            schema = {**schema, "default": self.default}
        doc: dict[str, Any] = {"name": self.name, "in": "query", "required": self.required}
        if self.description:
            doc["description"] = self.description
        if self.repeatable:
            doc["style"], doc["explode"] = "form", True
        doc["schema"] = schema
        if self.example is not None:
            doc["example"] = self.example
        return doc


KB_VERSION = Param("kb_version", description="A release name from /v1/versions (default: the latest).",
                   component="KbVersion")
LANG = Param("lang", LANGS, description="Language of summaries and labels; for /v1/ask the question's language "
             "when given.", component="Lang")
# source ids whose claims are taken away (repeatable or comma-separated; the engine checks the ids)
WITHOUT = Param("without", max_chars=MAX_PARAM_CHARS, repeatable=True, component="Without", description=(
    "Source ids to answer without (repeatable or comma-separated, e.g. S001 or S000,S002): what still holds "
    "if their claims were removed, from the audit's ATMS labels, with a `without` block listing what is "
    "withdrawn. An unknown id is a 400 naming the allowed ones."))
SOURCE = Param("source", description="A source id, e.g. S000.")


def blueprints() -> list[Blueprint]:
    """Every blueprint of the API, in the order they are registered."""
    from . import ask, audit, check, claims, conclusions, diff, health, inventory, openapi, query, sources, versions
    return [m.bp for m in (health, ask, query, check, conclusions, claims, sources, audit, versions, diff, inventory,
                           openapi)]


def _bad(message: str, issues: list[Issue]) -> BadInput:
    return BadInput(message, issues)


def read_args(*params: Param) -> dict[str, str | None]:
    """The endpoint's query parameters, validated; raises BadInput listing every problem.

    Without ``params``, the ones the endpoint declares with :func:`.routes.route` (what the OpenAPI
    document lists)."""
    if not params:
        op = getattr(current_app.view_functions.get(request.endpoint or ""), "operation", None)
        params = op.query_params if op is not None else ()
    known = {p.name: p for p in params}
    issues: list[Issue] = []
    for key in request.args.keys():
        if key not in known:
            shown = key if len(key) <= 60 else key[:60] + "..."
            issues.append(Issue(f"unknown query parameter {shown!r}", field=shown, allowed=sorted(known)))
    out: dict[str, str | None] = {}
    for p in params:
        values = request.args.getlist(p.name)
        if not values:
            if p.required:
                issues.append(Issue(f"the query parameter {p.name!r} is required", field=p.name,
                                    allowed=list(p.choices) if p.choices else None))
            out[p.name] = None
            continue
        if len(values) > 1 and p.repeatable:
            values = [",".join(values)]
        if len(values) > 1:
            issues.append(Issue(f"the query parameter {p.name!r} is given {len(values)} times; give it once",
                                field=p.name))
            out[p.name] = None
            continue
        value = values[0]
        limit = p.max_chars if p.max_chars is not None else current_app.config["MAX_QUERY_CHARS"]
        if len(value) > limit:
            issues.append(Issue(f"{p.name} is {len(value)} characters long; at most {limit} are accepted",
                                field=p.name))
        elif (_CONTROL if p.multiline else _ANY_CONTROL).search(value):
            issues.append(Issue(f"{p.name} contains control characters", field=p.name))
        elif p.choices is not None and value not in p.choices:
            shown = value if len(value) <= 60 else value[:60] + "..."
            issues.append(Issue(f"unknown {p.name} {shown!r}", field=p.name, allowed=list(p.choices)))
        elif p.required and not value.strip():
            issues.append(Issue(f"the query parameter {p.name!r} is empty", field=p.name))
        else:
            out[p.name] = value
            continue
        out[p.name] = None
    if issues:
        raise _bad("invalid query parameters: " + "; ".join(i.message for i in issues[:3]), issues)
    return out


def check_id(value: str, field: str = "id") -> str:
    """A path identifier: at most MAX_ID_CHARS characters, no control characters."""
    if len(value) > MAX_ID_CHARS:
        raise _bad(f"the {field} is {len(value)} characters long; at most {MAX_ID_CHARS} are accepted",
                   [Issue(f"at most {MAX_ID_CHARS} characters", field=field)])
    if _ANY_CONTROL.search(value):
        raise _bad(f"the {field} contains control characters", [Issue("control characters are not allowed", field=field)])
    if not value.strip():
        raise _bad(f"the {field} is empty", [Issue("an id is required", field=field)])
    return value


# -- JSON bodies ------------------------------------------------------------------------------------

class _Reject(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _Reject(f"{name} is not allowed in JSON: numbers must be finite")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Reject(f"the number {text[:40]} is out of range: numbers must be finite")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Reject(f"the key {k[:60]!r} appears more than once in an object")
        out[k] = v
    return out


def _is_json_type(mimetype: str) -> bool:
    return mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))


def read_json_object() -> dict[str, Any]:
    """The request body as a JSON object; every other body is a 400 (415 for an encoded body)."""
    coding = (request.headers.get("Content-Encoding") or "identity").strip().lower()
    if coding not in ("", "identity"):
        raise UnsupportedMediaType(f"request bodies in content coding {coding[:40]!r} are not accepted",
                                   [Issue("send the body uncompressed", field="Content-Encoding", allowed=["identity"])])
    mimetype = request.mimetype or ""
    if not _is_json_type(mimetype):
        got = request.content_type or "no Content-Type"
        raise BadInput(f"the body must be JSON; got {got[:80]}",
                       [Issue("wrong content type", field="Content-Type", allowed=["application/json"])])
    charset = (request.mimetype_params.get("charset") or "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise BadInput(f"the body must be UTF-8; got charset {charset[:40]!r}",
                       [Issue("wrong charset", field="Content-Type", allowed=["utf-8"])])
    raw = _read_body()
    if not raw.strip():
        raise BadInput("the request body is empty; send a JSON object",
                       [Issue("expected a JSON object", field="body")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput("the body is not valid UTF-8",
                       [Issue(f"invalid byte at offset {exc.start}", field="body")]) from None
    try:
        body = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          object_pairs_hook=_no_duplicates)
    except _Reject as exc:
        raise BadInput(f"invalid JSON: {exc}", [Issue(str(exc), field="body")]) from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                       [Issue(f"{exc.msg} (column {exc.colno})", field="body", line=exc.lineno)]) from None
    except RecursionError:
        raise BadInput("invalid JSON: nested too deeply", [Issue("nested too deeply", field="body")]) from None
    except ValueError as exc:     # e.g. an integer with more digits than Python converts
        raise BadInput(f"invalid JSON: {str(exc)[:120]}", [Issue("number out of range", field="body")]) from None
    _refuse_lone_surrogates(body)
    if not isinstance(body, dict):
        raise BadInput(f"the body must be a JSON object, got {_json_type(body)}",
                       [Issue(f"expected an object, got {_json_type(body)}", field="body")])
    return body


def _read_body() -> bytes:
    """The request body, at most MAX_CONTENT_LENGTH bytes: a longer body is a 413 whether its length
    was declared (Content-Length) or not (a chunked body, which werkzeug would otherwise cut short)."""
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit and request.content_length is None:
        from ..errors import PayloadTooLarge
        stream = request.environ.get("wsgi.input")
        raw = b""
        if stream is not None and request.environ.get("wsgi.input_terminated"):
            chunks, size = [], 0
            while size <= limit:
                chunk = stream.read(min(65536, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            raw = b"".join(chunks)
        if len(raw) > limit:
            message = f"the request body is larger than {limit} bytes"
            raise PayloadTooLarge(message, [Issue(message, field="body")])
        return raw
    return request.get_data(cache=True)


def _refuse_lone_surrogates(value: Any, field: str = "body") -> None:
    """A JSON string may spell a lone UTF-16 surrogate (\\ud800), which is no character and cannot be
    written back as UTF-8: a 400 naming the field, not a failure later on."""
    stack = [(value, field)]
    while stack:
        v, where = stack.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                raise BadInput(f"{where} contains a lone UTF-16 surrogate (an escape such as \\ud800 that is no "
                               "character); send valid Unicode", [Issue("lone surrogate", field=where)])
        elif isinstance(v, dict):
            stack.extend((x, str(k)[:60]) for k, x in v.items())
            stack.extend((k, str(k)[:60]) for k in v)
        elif isinstance(v, list):
            stack.extend((x, where) for x in v)


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return type(v).__name__


# -- responses --------------------------------------------------------------------------------------

def json_response(obj: Any, status: int = 200, mimetype: str | None = None) -> Response:
    if mimetype is None:
        resp = jsonify(obj)
    else:
        resp = Response(json.dumps(obj, ensure_ascii=False), mimetype=mimetype)
    resp.status_code = status
    return resp


def cached_json(key: tuple, produce, mimetype: str = "application/json") -> Response:
    """A JSON answer served from this worker's cache of serialised answers when it has one.

    Answers depend only on the question and the KB release (the KB is read-only while serving), so
    a repeated question costs a dictionary lookup; failures are never cached.
    """
    ext = current_app.extensions
    cache = ext.get("gpukb_answers")
    if cache is None:
        import threading
        from collections import OrderedDict
        cache = ext.setdefault("gpukb_answers", (OrderedDict(), threading.Lock()))
    entries, lock = cache
    with lock:
        body = entries.get(key)
        if body is not None:
            entries.move_to_end(key)
    if body is None:
        with _engine_turn(ext):
            body = json.dumps(produce(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        # bounded in bytes as well as in entries: one check of a long text can be megabytes
        max_bytes = int(current_app.config.get("ANSWER_CACHE_BYTES", 64 * 1024 * 1024))
        if len(body) <= max_bytes // 8:          # an answer larger than an eighth of the cache is not kept
            with lock:
                if key not in entries:
                    entries[key] = body
                    ext["gpukb_answers_bytes"] = ext.get("gpukb_answers_bytes", 0) + len(body)
                while entries and (len(entries) > current_app.config.get("ANSWER_CACHE_SIZE", 4096)
                                   or ext["gpukb_answers_bytes"] > max_bytes):
                    _, old = entries.popitem(last=False)
                    ext["gpukb_answers_bytes"] -= len(old)
    return Response(body, mimetype=mimetype)


def text_response(text: str) -> Response:
    return Response(text, content_type="text/plain; charset=utf-8")


def _engine_turn(ext: dict[str, Any]):
    """A turn at the engine for an answer that is not cached (:mod:`server.engine_gate`): at most
    ENGINE_CONCURRENCY requests of a worker compute answers at once (default 1), at most ENGINE_QUEUE
    wait (then a 503 with Retry-After). Cached answers and /health never wait."""
    from ..engine_gate import gate_of
    return gate_of(ext, current_app.config).turn()
