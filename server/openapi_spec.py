"""The OpenAPI 3.1 document of the API, generated from the routes and the models; nothing in it is
written by hand in a separate file.

- **Paths** come from the route declarations: each endpoint is registered with
  :func:`gpukb.server.api.routes.route`, which names its method, path, summary, tag, query and path
  parameters (the same :class:`~gpukb.server.api.Param` objects ``read_args`` validates against), its
  request body and the answer model of each media type, and its error statuses. The paths are listed in
  the order the blueprints are registered.
- **Component schemas** are generated from the typed answer models (:mod:`gpukb.engine.models.schema`),
  and the request bodies (QueryBody, SolveBody, CheapestBody, CheckBody) from the one declaration of
  the query's fields (:mod:`gpukb.engine.models.query`) that the scenario validator, the CLI and the
  MCP tool read too.
- The document's header (info, tags) and the shared error responses are the data below.

Why an in-house generator rather than flask-openapi3 or spectree: both want the views reshaped around
their own request objects and pydantic models (flask-openapi3 replaces the Blueprint class and validates
requests itself; spectree decorates views with pydantic models), and both write their own document
layout (names of components, error responses, parameter objects), so the served document would no longer
be the v1 contract's, byte for byte, and every request would be parsed twice (theirs, then ours, whose
400 shape and strict JSON reading the contract fixes). The answer models are gpukb's own dataclasses
(:mod:`gpukb.engine.models.base`), which already generate JSON Schema 2020-12; the remaining work (paths
from a table of declarations) is about a hundred lines here and in :mod:`gpukb.server.api.routes`, and
no new dependency.

``server/openapi.json`` is this document, committed so that it can be read and diffed; ``gpukb openapi
--write`` (``make openapi``) regenerates it and a test checks that it is up to date. The server serves
:func:`document` itself (and Swagger UI over it at /docs), so what is served is always what the routes
and the models say.
"""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from gpukb.engine import models
from gpukb.engine.models.schema import REF, components

HERE = Path(__file__).resolve().parent
GENERATED = HERE / "openapi.json"

INFO = {
    "title": "gpukb API",
    "version": "1.0.0",
    "summary": "Whether cloud GPU instances can train or serve a model, with every conclusion explained down to "
               "quoted sources.",
    "description": "Read-only API over the gpukb rules engine (contract v1). Every endpoint accepts GET (and "
                   "HEAD/OPTIONS) except POST /v1/query. Unknown query parameters, values outside a parameter's "
                   "vocabulary and unknown body keys are rejected with 400. Every failure has the Error shape. A "
                   "request may carry X-Request-ID (at most 64 characters of [A-Za-z0-9._-]); every response "
                   "returns the id used in its X-Request-ID header.",
    "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
}
TAGS = {
    "service": "Health and this description.",
    "answers": "Sizing and fact questions.",
    "explanations": "Proof trees of conclusions.",
    "knowledge": "Claims, sources, releases.",
    "audit": "Every claim checked against the other sources, the reference tier and the engine's computations.",
    "catalog": "The GPUs, instance sizes and models the KB knows, with every reference fact and its citation.",
}
#: The shared error responses (all with the Error shape), by status.
ERRORS = {
    400: ("BadRequest", "The input is not valid; errors say what was wrong and what is allowed."),
    404: ("NotFound", "No such id."),
    413: ("TooLarge", "The body is larger than 256 KiB."),
    415: ("UnsupportedMediaType", "The body is sent in a content coding the API does not decode."),
    422: ("RuleFailure", "A rule failed while deriving the answer."),
    500: ("InternalError", "An unexpected failure (a bug)."),
    501: ("NotImplemented", "The engine does not provide this feature yet."),
    503: ("Unavailable", "The answer took longer than the server's per-request time limit."),
}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": REF + "Error"}}}}


def _schema(content: Any) -> dict[str, Any]:
    """An answer name's model, several names' models (any of them), or a literal schema."""
    if isinstance(content, dict):
        return content
    if isinstance(content, tuple):
        return {"anyOf": [_schema(c) for c in content]}
    model = models.ANSWERS[content]
    return {"$ref": REF + (getattr(model, "name", None) or model.__name__)}


def _operation(op: Any, parameters: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"tags": [op.tag], "operationId": op.operation_id, "summary": op.summary}
    if op.params:
        out["parameters"] = []
        for p in op.params:
            if p.component:
                parameters.setdefault(p.component, p.openapi())
                out["parameters"].append({"$ref": "#/components/parameters/" + p.component})
            else:
                out["parameters"].append(p.openapi())
    if op.body:
        body: dict[str, Any] = {"schema": {"$ref": REF + models.BODIES[op.body].name}}
        if op.example is not None:
            body["example"] = op.example
        out["requestBody"] = {"required": True, "content": {"application/json": body}}
    description, content = op.ok
    responses: dict[str, Any] = {"200": {"description": description,
                                         "content": {mime: {"schema": _schema(c)} for mime, c in content.items()}}}
    for status, own in sorted(op.errors.items()):
        responses[str(status)] = _error(own) if own else {"$ref": "#/components/responses/" + ERRORS[status][0]}
    out["responses"] = responses
    return out


def generate(strict: bool = False) -> dict[str, Any]:
    """The whole document: the declared routes with the schemas of every answer model and request body.

    ``strict`` closes every model that is not open by design (``additionalProperties: false``), for the
    tests that check real answers have no field their model lacks.
    """
    from .api import blueprints
    from .api.routes import OPERATIONS
    paths: dict[str, dict[str, Any]] = {}
    parameters: dict[str, Any] = {}
    for bp in blueprints():
        for op in OPERATIONS.get(bp.name, ()):
            paths.setdefault(op.path, {})[op.method] = _operation(op, parameters)
    return {
        "openapi": "3.1.0",
        "info": INFO,
        "tags": [{"name": name, "description": text} for name, text in TAGS.items()],
        "paths": paths,
        "components": {
            "parameters": parameters,
            "responses": {name: _error(text) for name, text in ERRORS.values()},
            "schemas": components([*models.ANSWERS.values(), *models.BODIES.values()], strict=strict),
        },
    }


@lru_cache(maxsize=2)
def _cached(strict: bool) -> str:
    return json.dumps(generate(strict), ensure_ascii=False)


def document(strict: bool = False) -> dict[str, Any]:
    """The generated document (built once per process; a fresh copy each call)."""
    return copy.deepcopy(json.loads(_cached(strict)))


#: the keys of the document's objects whose text a reader of /docs reads (schemas' own descriptions excluded)
_WORDED = ("summary", "description")


@lru_cache(maxsize=1)
def _zh_texts() -> dict[str, str]:
    """The ``openapi`` section of server/i18n.yaml: the Chinese of the document's English texts."""
    from gpukb.engine.core.yamlio import load_file
    from .i18n import PATH
    return {str(k): str(v) for k, v in (load_file(PATH).get("openapi") or {}).items()}


def _in_zh(o: Any, zh: dict[str, str]) -> Any:
    if isinstance(o, dict):
        return {k: (zh.get(v, v) if k in _WORDED and isinstance(v, str) else _in_zh(v, zh)) for k, v in o.items()}
    if isinstance(o, list):
        return [_in_zh(v, zh) for v in o]
    return o


def document_zh() -> dict[str, Any]:
    """The document with the summaries and descriptions of its header, tags, operations, parameters and
    responses in Chinese (what /docs?lang=zh shows); the schemas are left as they are."""
    doc = document()
    zh = _zh_texts()
    out = _in_zh({k: v for k, v in doc.items() if k != "components"}, zh)
    comps = dict(doc["components"])
    for part in ("parameters", "responses"):
        comps[part] = _in_zh(comps[part], zh)
    out["components"] = comps
    return out


def text() -> str:
    """The document as ``server/openapi.json`` holds it."""
    return json.dumps(generate(), indent=2, ensure_ascii=False) + "\n"


def write(path: Path | None = None) -> bool:
    """Regenerate ``server/openapi.json`` (or ``path``); True when it changed."""
    path = path or GENERATED
    new = text()
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old
