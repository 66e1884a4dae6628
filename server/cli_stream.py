"""Large ``--json`` answers written as they are encoded, never held whole as one text.

``print_json(models.build(name, d))`` builds a model object for every item, then the whole JSON text,
then its encoded bytes: for the audit of a 100,000-claim KB that was 2.5 GB on top of the audit itself.
:func:`write_json` writes the same bytes (``json.dumps(..., ensure_ascii=False, indent=2)`` and a
newline) item by item: the answer's top level is checked against its model with its arrays left empty,
then each item of each top-level array is checked (``conform``: the model's checks without building
it), encoded (by the C encoder, one item at a time) and written. A JSON string never holds a raw
newline, so an item encoded alone is indented to its depth by prefixing each of its lines.

:func:`write_jsonl` writes one item of an array (``findings``) per line, then the rest of the answer
(its other fields) on a final line.
"""
from __future__ import annotations

import json
import typing
from typing import Any, Callable, Iterable, TextIO

from gpukb.engine import models
from gpukb.engine.models.base import Model, converter, json_name

FLUSH_CHARS = 1 << 20          # text gathered before each write


def _item_checks(cls: type[Model], keys: Iterable[str]) -> dict[str, Callable[[Any], Any]]:
    """Top-level key -> the check (and conversion to JSON) of one item of that array field."""
    hints = typing.get_type_hints(cls, include_extras=True)
    names = {json_name(f): f for f in hints}
    out: dict[str, Callable[[Any], Any]] = {}
    for key in keys:
        tp = hints.get(names.get(key, ""))
        if typing.get_origin(tp) is typing.Annotated:
            tp = typing.get_args(tp)[0]
        if typing.get_origin(tp) in (list, tuple):
            out[key] = converter(typing.get_args(tp)[0], conform=True)
        else:                                   # an open model's own key: written as it is
            out[key] = models.to_json
    return out


def _split(name: str, answer: dict[str, Any], arrays: Iterable[str] | None = None
           ) -> tuple[dict[str, Any], dict[str, Callable[[Any], Any]]]:
    """The answer checked with its (non-empty) top-level arrays left empty, and each array's item check."""
    cls = models.ANSWERS[name]
    big = [k for k, v in answer.items() if isinstance(v, (list, tuple)) and v and (arrays is None or k in arrays)]
    head = cls.conform({k: ([] if k in big else v) for k, v in answer.items()})
    return head, _item_checks(cls, big)


class _Out:
    """Text written in pieces of about FLUSH_CHARS."""

    def __init__(self, out: TextIO):
        self.out, self.parts, self.size = out, [], 0

    def __call__(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size >= FLUSH_CHARS:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            self.out.write("".join(self.parts))
            self.parts, self.size = [], 0


def _dumps(value: Any, indent: str) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text.replace("\n", "\n" + indent) if indent and "\n" in text else text


def write_json(name: str, answer: dict[str, Any], out: TextIO) -> None:
    """``answer`` (the JSON object of answer ``name``) as :func:`cli_render.print_json` prints it,
    byte for byte, without holding its text: each item of its top-level arrays is checked and
    written in turn. ModelError, as ``models.build``, if it does not have its model's shape (the top
    level is checked before anything is written)."""
    head, checks = _split(name, answer)
    w = _Out(out)
    if not head:
        w("{}\n")
        w.flush()
        return
    w("{")
    for n, (key, value) in enumerate(head.items()):
        w(("," if n else "") + "\n  " + json.dumps(key, ensure_ascii=False) + ": ")
        check = checks.get(key)
        if check is None:
            w(_dumps(value, "  "))
            continue
        w("[")
        for i, item in enumerate(answer[key]):
            w(("," if i else "") + "\n    " + _dumps(check(item), "    "))
        w("\n  ]")
    w("\n}\n")
    w.flush()
    out.flush()


def write_jsonl(name: str, answer: dict[str, Any], out: TextIO, array: str = "findings") -> None:
    """One item of ``answer[array]`` per line (compact JSON), then the answer without that array on
    a last line."""
    head, checks = _split(name, answer, (array,))
    head.pop(array, None)
    check = checks.get(array)
    w = _Out(out)
    for item in (answer.get(array) or ()) if check is not None else ():
        w(json.dumps(check(item), ensure_ascii=False, separators=(",", ":")) + "\n")
    w(json.dumps(head, ensure_ascii=False, separators=(",", ":")) + "\n")
    w.flush()
    out.flush()
