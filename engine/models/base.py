"""The machinery of gpukb's typed answer models: dataclasses that build themselves from an answer's
JSON object (strictly: an unknown key, a missing required field or a value of the wrong type is a
:class:`ModelError`) and turn back into exactly that object.

A field without a default is required; a field whose default is :data:`OMIT` may be left out of the
object; ``X | None`` says the value may be null. ``OPEN`` models keep keys they do not declare (their
content is open by design, e.g. a proof tree's node data); all others reject them.

>>> from dataclasses import dataclass
>>> @dataclass
... class Pair(Model):
...     en: str
...     zh: str = OMIT
>>> Pair.build({"en": "yes"}).to_json()
{'en': 'yes'}
>>> Pair.build({"en": "yes", "fr": "oui"})
Traceback (most recent call last):
...
gpukb.engine.models.base.ModelError: Pair: unknown field 'fr' (known: en, zh)
"""
from __future__ import annotations

import dataclasses
import enum
import types
import typing
from functools import lru_cache
from typing import Any, Callable, ClassVar, Literal, Mapping, TypeVar

T = TypeVar("T", bound="Model")


class ModelError(ValueError):
    """An answer does not have the shape its model declares (a bug in whatever produced it)."""


class _Omit:
    """The default of a field that may be absent from the JSON object."""

    _instance: "_Omit | None" = None

    def __new__(cls) -> "_Omit":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "OMIT"

    def __bool__(self) -> bool:
        return False


OMIT: Any = _Omit()


def spec(default: Any = dataclasses.MISSING, description: str | None = None, **schema: Any) -> Any:
    """A model field with a JSON Schema description and keywords (``minimum``, ``const`` ...)."""
    meta = {"description": description, "schema": schema}
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass(frozen=True)
class Named:
    """``Annotated[list[int], Named("Span", {...})]``: a type that has its own component schema."""

    name: str
    schema: dict[str, Any]


def str_enum(name: str, values: typing.Iterable[str], doc: str) -> type[enum.Enum]:
    """A string enum whose members are read from one of gpukb's vocabularies (never re-declared)."""
    members = {str(v).replace("-", "_"): str(v) for v in values}
    cls = enum.Enum(name, members, type=str, module=__name__)
    cls.__doc__ = doc
    cls.__str__ = lambda self: self.value       # type: ignore[method-assign]
    return cls


class Model:
    """Base of every answer model (subclasses are ``@dataclass``)."""

    OPEN: ClassVar[bool] = False
    #: JSON Schema keywords merged into the generated schema (for keys that are no Python names, e.g. "@graph").
    SCHEMA: ClassVar[dict[str, Any]] = {}
    __extra__: dict[str, Any]
    __order__: tuple[str, ...]

    @classmethod
    def build(cls: type[T], data: Any) -> T:
        """The model of ``data`` (a JSON object), its nested models built too; ModelError if it does not fit."""
        if isinstance(data, cls):
            return data
        kwargs: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, attr, value in _checked(cls, data):
            if attr is None:
                extra[key] = value
            else:
                kwargs[attr] = value
        obj = cls(**kwargs)
        obj.__dict__["__extra__"] = extra
        obj.__dict__["__order__"] = tuple(data)
        return obj

    @classmethod
    def of(cls: type[T], **fields: Any) -> T:
        """The model an answer's producer makes from its field values (attribute names: ``from_`` for
        "from"), checked as :meth:`build` checks a JSON object, so a producer's bug fails where it is made.
        Values may be models or their JSON objects; a value of :data:`OMIT` leaves the field out, and
        :meth:`to_json` writes the fields in the order given here.

        >>> from dataclasses import dataclass
        >>> @dataclass
        ... class Pair(Model):
        ...     en: str
        ...     zh: str = OMIT
        >>> Pair.of(zh="是", en="yes").to_json()
        {'zh': '是', 'en': 'yes'}
        >>> Pair.of(en=1)
        Traceback (most recent call last):
        ...
        gpukb.engine.models.base.ModelError: Pair.en: expected a string, got int
        """
        return cls.build({json_name(k): v for k, v in fields.items() if v is not OMIT})

    def get(self, key: str, default: Any = None) -> Any:
        """A field's value, or ``default`` when it was left out (an open model's extra keys too)."""
        found = _fields(type(self)).get(key)
        value = getattr(self, found[0], OMIT) if found else self.extra.get(key, OMIT)
        return default if value is OMIT else value

    def has(self, key: str) -> bool:
        return self.get(key, OMIT) is not OMIT

    @property
    def extra(self) -> dict[str, Any]:
        """The keys an OPEN model keeps without declaring them."""
        return self.__dict__.get("__extra__") or {}

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this answer, keys in the order they were given."""
        return {name: to_json(value) for name, value in self.values()}

    def values(self) -> list[tuple[str, Any]]:
        """(JSON key, value) of each field that is present, in the order :meth:`to_json` writes them; the
        values as they are held (models, :class:`Items`), so a writer can serialise a large array item by item."""
        out: dict[str, Any] = {}
        known = _fields(type(self))
        extra = self.__dict__.get("__extra__") or {}
        for name in self.__dict__.get("__order__", ()):
            if name in extra:
                out[name] = extra[name]
            else:
                value = getattr(self, known[name][0])
                if value is not OMIT:
                    out[name] = value
        for name, (attr, _) in known.items():
            if name not in out:
                value = getattr(self, attr)
                if value is not OMIT:
                    out[name] = value
        return list(out.items())

    def replace(self: T, **fields: Any) -> T:
        """A copy with ``fields`` set, checked as :meth:`of` checks them (OMIT leaves one out); a field
        that was not there is written after the others, as a key added to a JSON object is."""
        new = self._copy({"__extra__": dict(self.extra)})
        extra = new.__dict__["__extra__"]
        gone = {json_name(k) for k, v in fields.items() if v is OMIT}
        order = [k for k in self.__dict__.get("__order__", ()) if k not in gone]
        checked = {key: value for key, _, value in _checked(type(self), {json_name(k): v for k, v in fields.items()
                                                                       if v is not OMIT}, partial=True)}
        known = _fields(type(self))
        for name in map(json_name, fields):
            if name in known:
                setattr(new, known[name][0], checked.get(name, OMIT))
            elif name in checked:
                extra[name] = checked[name]
            else:
                extra.pop(name, None)
        new.__dict__["__order__"] = tuple(order + [k for k in checked if k not in order])
        return new

    def mapped(self: T, fn: Callable[[Any], Any]) -> T:
        """This model with ``fn`` applied to each field's value (and an open model's undeclared ones): a
        copy when ``fn`` changes one (returns another object), else ``self`` (e.g. an answer's notes put
        in its language by :func:`gpukb.engine.kb.notes.in_lang`)."""
        held = self.__dict__
        changed: dict[str, Any] = {}
        for attr, _ in _fields(type(self)).values():
            if (value := held.get(attr, OMIT)) is not OMIT and (after := fn(value)) is not value:
                changed[attr] = after
        extra = held.get("__extra__")
        if extra:
            after_extra = {k: fn(v) for k, v in extra.items()}
            if any(after_extra[k] is not v for k, v in extra.items()):
                changed["__extra__"] = after_extra
        return self._copy(changed) if changed else self

    def _copy(self: T, changed: dict[str, Any]) -> T:
        """A shallow copy with some attributes changed (faster than copy.copy)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changed)
        return new


class Items(typing.Generic[T]):
    """The items of a model's array field kept as their JSON objects and built as their model one at a
    time, when they are read: a large answer (the audit's findings) is typed item by item while it is
    written, never held as objects all at once. Serialises as the array of those objects."""

    __slots__ = ("model", "raw")

    def __init__(self, model: type[T], raw: typing.Sequence[Any]):
        self.model, self.raw = model, raw

    def __len__(self) -> int:
        return len(self.raw)

    def __iter__(self) -> typing.Iterator[T]:
        build = self.model.build
        return (build(x) for x in self.raw)

    def __getitem__(self, i: int) -> T:
        return self.model.build(self.raw[i])


_PLAIN = frozenset((str, int, float, bool, type(None)))


def to_json(value: Any) -> Any:
    """A model, enum, list or dict of them as plain JSON values."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, Model):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, (tuple, Items)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


# -- conversion of one value to its annotated type -------------------------------------------------------

def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def json_name(attr: str) -> str:
    """The JSON key of a field: its name without a trailing underscore (``from_`` is ``from``)."""
    return attr[:-1] if attr.endswith("_") else attr


@lru_cache(maxsize=None)
def _fields(cls: type) -> dict[str, tuple[str, Callable[[Any], Any]]]:
    """JSON key -> (attribute, converter) of a model's fields."""
    hints = _hints(cls)
    return {json_name(f.name): (f.name, converter(hints[f.name])) for f in dataclasses.fields(cls)}


def _checked(cls: type[Model], data: Any, partial: bool = False) -> list[tuple[str, str | None, Any]]:
    """(JSON key, attribute, converted value) of each key of ``data`` (attribute None: an open model's
    undeclared key, kept as it is); ModelError for a value of the wrong shape, an unknown or a missing key
    (``partial``: some fields only, none missing)."""
    if type(data) is not dict and not isinstance(data, Mapping):
        raise ModelError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    known = _fields(cls)
    out = []
    for key, value in data.items():
        found = known.get(key)
        if found is None:
            if not cls.OPEN:
                raise ModelError(f"{cls.__name__}: unknown field {key!r} (known: {', '.join(known)})")
            out.append((key, None, value))
            continue
        try:
            out.append((key, found[0], found[1](value)))
        except ModelError as exc:
            raise ModelError(f"{cls.__name__}.{key}: {exc}") from None
    missing = [] if partial else [json_name(k) for k in _required(cls) if json_name(k) not in data]
    if missing:
        raise ModelError(f"{cls.__name__}: missing field(s) {', '.join(missing)}")
    return out


@lru_cache(maxsize=None)
def _required(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls)
                 if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)


def _describe(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def converter(tp: Any) -> Callable[[Any], Any]:
    """A function that checks a JSON value against annotation ``tp`` and builds any models in it."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return converter(typing.get_args(tp)[0])
    if tp is Any:
        return lambda v: v
    if isinstance(tp, type) and issubclass(tp, Model):
        return tp.build
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        def to_enum(v: Any) -> Any:
            try:
                member = tp(v)
            except ValueError:
                raise ModelError(f"{v!r} is not one of {', '.join(m.value for m in tp)}") from None
            return member
        return to_enum
    if tp in (str, int, float, bool, type(None)):
        return _primitive(tp)
    if origin is Literal:
        allowed = typing.get_args(tp)

        def literal(v: Any) -> Any:
            if v not in allowed or isinstance(v, bool) != isinstance(allowed[0], bool):
                raise ModelError(f"{v!r} is not one of {allowed}")
            return v
        return literal
    if origin in (list, tuple):
        item = converter(typing.get_args(tp)[0])

        model = typing.get_args(tp)[0]

        def seq(v: Any) -> Any:
            if isinstance(v, Items) and v.model is model:
                return v                            # built (and checked) item by item when read
            if not isinstance(v, (list, tuple, Items)):
                raise ModelError(f"expected an array, got {_describe(v)}")
            return [item(x) for x in v]
        return seq
    if origin is dict:
        value = converter(typing.get_args(tp)[1])

        def mapping(v: Any) -> Any:
            if not isinstance(v, Mapping):
                raise ModelError(f"expected an object, got {_describe(v)}")
            return {k: value(x) for k, x in v.items()}
        return mapping
    if origin in (typing.Union, types.UnionType):
        options = [converter(a) for a in typing.get_args(tp)]

        def union(v: Any) -> Any:
            errors = []
            for conv in options:
                try:
                    return conv(v)
                except ModelError as exc:
                    errors.append(str(exc))
            raise ModelError(" or ".join(errors))
        return union
    raise TypeError(f"no converter for the annotation {tp!r}")


def _primitive(tp: type) -> Callable[[Any], Any]:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", type(None): "null"}
    accepted = {str: (str,), int: (int,), float: (int, float), bool: (bool,), type(None): (type(None),)}[tp]

    def check(v: Any) -> Any:
        t = type(v)
        if t in accepted or (t is not bool and isinstance(v, accepted) and not isinstance(v, bool)):
            return v
        raise ModelError(f"expected {names[tp]}, got {_describe(v)}")
    return check
