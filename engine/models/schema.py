"""JSON Schema 2020-12 (the dialect of OpenAPI 3.1) generated from the answer models.

:func:`components` returns the ``components/schemas`` of every model reachable from the given roots:
one schema per model, enum and named type, referenced as ``#/components/schemas/<Name>``. With
``strict=True`` a closed model also gets ``additionalProperties: false``: the tests validate real
answers that way, so a field the model lacks, or a misnamed one, fails; the served document leaves
objects open so that clients accept fields added later (the contract is extended, never renamed).
"""
from __future__ import annotations

import dataclasses
import enum
import inspect
import types
import typing
from typing import Any, Literal

from .base import OMIT, Model, Named, json_name
from .query import Body

REF = "#/components/schemas/"
_PRIMITIVE = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


class Variants:
    """A union of models told apart by one field (``kind``): AskAnswer is a sizing, fact, ... answer."""

    def __init__(self, name: str, key: str, models: dict[str, type[Model]], others: tuple[str, ...] = (),
                 description: str = ""):
        self.name, self.key, self.models, self.others, self.description = name, key, models, others, description

    def build(self, data: Any) -> Model:
        """The model of ``data`` chosen by its ``key`` field."""
        return self.model_of(data).build(data)

    def model_of(self, data: Any) -> type[Model]:
        """The model ``data``'s ``key`` field chooses; ModelError if none."""
        from .base import ModelError
        if not isinstance(data, dict):
            raise ModelError(f"{self.name}: expected an object, got {type(data).__name__}")
        model = self.models.get(data.get(self.key))
        if model is None:
            raise ModelError(f"{self.name}: {self.key} {data.get(self.key)!r} is not one of "
                             f"{', '.join(self.models)}")
        return model


class _Builder:
    def __init__(self, strict: bool):
        self.strict = strict
        self.out: dict[str, Any] = {}

    def ref(self, name: str) -> dict[str, str]:
        return {"$ref": REF + name}

    def model(self, cls: type[Model]) -> dict[str, str]:
        name = cls.__name__
        if name not in self.out:
            self.out[name] = {}          # placeholder: recursive models refer to themselves
            hints = typing.get_type_hints(cls, include_extras=True)
            props: dict[str, Any] = {}
            required: list[str] = []
            for f in dataclasses.fields(cls):
                schema = dict(self.type(hints[f.name]))
                meta = f.metadata or {}
                if meta.get("description"):
                    schema["description"] = meta["description"]
                schema.update(meta.get("schema") or {})
                props[json_name(f.name)] = schema
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    required.append(json_name(f.name))
                elif f.default is not OMIT and f.default is not None:
                    schema.setdefault("default", f.default.value if isinstance(f.default, enum.Enum) else f.default)
            doc: dict[str, Any] = {"type": "object"}
            if cls.__doc__ and not cls.__doc__.startswith(name + "("):
                doc["description"] = inspect.cleandoc(cls.__doc__)
            if required:
                doc["required"] = required
            if self.strict and not cls.OPEN:
                doc["additionalProperties"] = False
            doc["properties"] = props
            for key, value in cls.SCHEMA.items():
                if key == "required":
                    doc["required"] = [*doc.get("required", []), *value]
                elif key == "properties":
                    doc["properties"] = {**props, **value}
                else:
                    doc[key] = value
            self.out[name] = doc
        return self.ref(name)

    def enum(self, cls: type[enum.Enum]) -> dict[str, str]:
        if cls.__name__ not in self.out:
            doc = {"type": "string", "enum": [m.value for m in cls]}
            if cls.__doc__ and cls.__doc__ != "An enumeration.":
                doc = {"description": inspect.cleandoc(cls.__doc__), **doc}
            self.out[cls.__name__] = doc
        return self.ref(cls.__name__)

    def variants(self, v: Variants) -> dict[str, str]:
        if v.name not in self.out:
            self.out[v.name] = {}
            doc: dict[str, Any] = {"type": "object", "required": [v.key],
                                   "properties": {v.key: {"type": "string", "enum": [*v.models, *v.others]}},
                                   "allOf": [{"if": {"properties": {v.key: {"const": k}}, "required": [v.key]},
                                              "then": self.model(m)} for k, m in v.models.items()]}
            if v.description:
                doc = {"description": v.description, **doc}
            self.out[v.name] = doc
        return self.ref(v.name)

    def type(self, tp: Any) -> dict[str, Any]:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            base, *marks = typing.get_args(tp)
            named = next((m for m in marks if isinstance(m, Named)), None)
            if named is None:
                return self.type(base)
            self.out.setdefault(named.name, named.schema)
            return self.ref(named.name)
        if tp is Any:
            return {}
        if isinstance(tp, Variants):
            return self.variants(tp)
        if isinstance(tp, Body):                 # a request body (.query): closed, described field by field
            self.out.setdefault(tp.name, tp.schema())
            return self.ref(tp.name)
        if isinstance(tp, type) and issubclass(tp, Model):
            return self.model(tp)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self.enum(tp)
        if tp in _PRIMITIVE:
            return {"type": _PRIMITIVE[tp]}
        if origin is Literal:
            values = list(typing.get_args(tp))
            if len(values) == 1:
                return {"const": values[0]}
            kinds = {_PRIMITIVE[type(v)] for v in values}
            return {**({"type": kinds.pop()} if len(kinds) == 1 else {}), "enum": values}
        if origin in (list, tuple):
            return {"type": "array", "items": self.type(typing.get_args(tp)[0])}
        if origin is dict:
            value = self.type(typing.get_args(tp)[1])
            return {"type": "object", **({"additionalProperties": value} if value else {})}
        if origin in (typing.Union, types.UnionType):
            args = typing.get_args(tp)
            if all(a in _PRIMITIVE for a in args):
                return {"type": [_PRIMITIVE[a] for a in args]}
            parts = [self.type(a) for a in args]
            simple = [p for p in parts if set(p) == {"type"} and isinstance(p["type"], str)]
            if len(simple) == len(parts):
                return {"type": [p["type"] for p in parts]}
            return {"anyOf": parts}
        raise TypeError(f"no JSON Schema for the annotation {tp!r}")


def components(roots: typing.Iterable[Any], strict: bool = False) -> dict[str, Any]:
    """The component schemas of ``roots`` (models, enums, Variants, request Bodies) and everything they refer to."""
    b = _Builder(strict)
    for root in roots:
        b.type(root)
    return b.out
