"""Large ``--json`` answers written as they are encoded, never held whole as one text.

``print_json(answer)`` turns the whole answer into JSON objects, then the whole JSON text, then its
encoded bytes: for the audit of a 100,000-claim KB that was 2.5 GB on top of the audit itself.
:func:`write_json` writes the same bytes (``json.dumps(..., ensure_ascii=False, indent=2)`` and a
newline) item by item: each item of each top-level array of the answer's model is taken in turn (the
audit's findings and statuses are built as their models as they are read, see
:class:`gpukb.engine.models.base.Items`), serialised, encoded (by the C encoder, one item at a time)
and written. A JSON string never holds a raw newline, so an item encoded alone is indented to its depth
by prefixing each of its lines.

:func:`write_jsonl` writes one item of an array (``findings``) per line, then the rest of the answer
(its other fields) on a final line.
"""
from __future__ import annotations

import json
from typing import Any, TextIO

from gpukb.engine.models import Model, to_json
from gpukb.engine.models.base import Items

FLUSH_CHARS = 1 << 20          # text gathered before each write


def _array(value: Any) -> bool:
    """Whether a top-level value is an array written item by item (a non-empty one)."""
    return isinstance(value, (list, tuple, Items)) and len(value) > 0


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


def write_json(answer: Model, out: TextIO) -> None:
    """``answer`` as :func:`cli_render.print_json` prints it, byte for byte, without holding its text:
    each item of its top-level arrays is serialised and written in turn."""
    fields = answer.values()
    w = _Out(out)
    if not fields:
        w("{}\n")
        w.flush()
        return
    w("{")
    for n, (key, value) in enumerate(fields):
        w(("," if n else "") + "\n  " + json.dumps(key, ensure_ascii=False) + ": ")
        if not _array(value):
            w(_dumps(to_json(value), "  "))
            continue
        w("[")
        for i, item in enumerate(value):
            w(("," if i else "") + "\n    " + _dumps(to_json(item), "    "))
        w("\n  ]")
    w("\n}\n")
    w.flush()
    out.flush()


def write_jsonl(answer: Model, out: TextIO, array: str = "findings") -> None:
    """One item of the answer's ``array`` per line (compact JSON), then the answer without that array on
    a last line."""
    fields = dict(answer.values())
    items = fields.pop(array, None)
    w = _Out(out)
    for item in items if _array(items) else ():
        w(json.dumps(to_json(item), ensure_ascii=False, separators=(",", ":")) + "\n")
    w(json.dumps({k: to_json(v) for k, v in fields.items()}, ensure_ascii=False, separators=(",", ":")) + "\n")
    w.flush()
    out.flush()
