"""Route declarations: each endpoint is registered with :func:`route`, which says in one place what the
OpenAPI document says about it (method, path, summary, tag, query and path parameters, request body,
answer model per content type, error statuses) and what :func:`~gpukb.server.api.read_args` accepts.

The document's paths are generated from these declarations (:mod:`gpukb.server.openapi_spec`): an
endpoint cannot be served without being documented, and the query parameters it documents are the
ones it accepts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from flask import Blueprint

from . import MAX_ID_CHARS, Param

#: Operations by blueprint name, in the order they were declared.
OPERATIONS: dict[str, list["Operation"]] = {}

#: Content: an answer name (a key of gpukb.engine.models.ANSWERS), several (any of them), or a literal schema.
Content = str | tuple[str, ...] | dict[str, Any]


@dataclass(frozen=True)
class PathParam:
    """A path segment (``<cid>`` in the Flask rule): an identifier checked by check_id."""

    name: str
    description: str
    component: str | None = None         # documented once under components/parameters with this name

    def openapi(self) -> dict[str, Any]:
        return {"name": self.name, "in": "path", "required": True, "description": self.description,
                "schema": {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS}}


@dataclass(frozen=True)
class Operation:
    """What the OpenAPI document says about one endpoint."""

    method: str                          # get, post
    path: str                            # the OpenAPI path: /v1/claims/{cid}
    operation_id: str
    summary: str
    tag: str
    params: tuple[Param | PathParam, ...]
    ok: tuple[str, dict[str, Content]]   # the 200 response's description and content by media type
    errors: dict[int, str | None]        # status -> a description of its own, or None for the shared response
    body: str | None = None              # a key of gpukb.engine.models.BODIES
    example: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def query_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if isinstance(p, Param))


def route(bp: Blueprint, method: str, rule: str, *, summary: str, tag: str, ok: tuple[str, Content],
          params: tuple[Param | PathParam, ...] = (), errors: tuple[int, ...] | dict[int, str | None] = (400, 500),
          body: str | None = None, example: dict[str, Any] | None = None,
          operation_id: str | None = None) -> Callable[[Callable], Callable]:
    """Register the decorated view on ``bp`` at ``rule`` for ``method`` and declare its documentation.

    ``ok`` is the 200 response: its description and an answer name (JSON), or a mapping of media types
    to answer names or schemas. ``errors`` are the documented error statuses (a mapping gives a status
    its own description)."""
    path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)
    segments = re.findall(r"{([^}]+)}", path)
    declared = [p.name for p in params if isinstance(p, PathParam)]
    if segments != declared:
        raise ValueError(f"{rule}: path parameters {segments} declared as {declared}")
    description, content = ok
    if not isinstance(content, dict) or not any("/" in k for k in content):
        content = {"application/json": content}

    def register(view: Callable) -> Callable:
        op = Operation(method.lower(), path, operation_id or view.__name__, summary, tag, tuple(params),
                       (description, content), errors if isinstance(errors, dict) else dict.fromkeys(errors),
                       body, example)
        bp.add_url_rule(rule, view_func=view, methods=[method.upper()])
        OPERATIONS.setdefault(bp.name, []).append(op)
        view.operation = op            # type: ignore[attr-defined]   (read_args finds the parameters here)
        return view
    return register
