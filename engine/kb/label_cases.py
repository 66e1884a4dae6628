"""Choosing a label template's case (``labels:`` in kb/vocabulary.yaml): the first case whose ``when`` holds.

A record type's cases mostly differ by one field's value (a note's ``key``, a reference note's ``note``,
a basis's ``basis``: 40 to 120 cases), and a proof tree or an answer's notes label many records, so
the cases are indexed by that field's value: only the cases that name the record's value, or do not
test that field, are tested, in their order. The case chosen is the one a scan of every case chooses.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

#: fewer cases than this that test the same field's value are scanned, not indexed
MIN_INDEXED = 4
#: notes a vocabulary's wording remembers (see :func:`note_key`)
NOTES_KEPT = 4096


def note_key(key: str, vocab: Any, fields: Mapping[str, Any]) -> tuple | None:
    """What a note's text depends on (its key, the vocabulary and its fields, each with its type, so
    1 and True stay apart), when every field is a string, an int or None; else None (not remembered)."""
    if not all(v is None or type(v) in (str, int) for v in fields.values()):
        return None
    return (key, id(vocab), tuple(sorted((k, type(v).__name__, v) for k, v in fields.items())))


def holds(key: str, want: Any, values: Mapping[str, Any]) -> bool:
    """Whether one condition of a case's ``when`` holds of a record's label fields."""
    if key == "has":
        return all(values.get(n) for n in want)
    if key == "any":
        return any(values.get(n) for n in want)
    if key == "number":
        return all(isinstance(values.get(n), (int, float)) and not isinstance(values.get(n), bool) for n in want)
    return all(values.get(k) == v for k, v in want.items())      # equals


def _scan(cases: Sequence[Any], values: Mapping[str, Any]) -> Any:
    for t in cases:
        if all(holds(k, v, values) for k, v in t.when.items()):
            return t
    return None


class CaseIndex:
    """The cases of one label (or of one of its parts) by the value of the field most of them test with
    ``equals``; :meth:`first` is the first case whose ``when`` holds, as a scan of every case finds it."""

    def __init__(self, cases: Sequence[Any]):
        self.cases = tuple(cases)
        tested = Counter(k for t in self.cases for k in (t.when.get("equals") or {}))
        self.field: str | None = None
        self.by_value: dict[Any, tuple[Any, ...]] = {}
        self.untested: tuple[Any, ...] = self.cases
        if not tested:
            return
        name, n = tested.most_common(1)[0]
        wanted = [(t.when.get("equals") or {}).get(name, _ANY) for t in self.cases]
        if n < MIN_INDEXED or "|" in name or not all(w is _ANY or _plain(w) for w in wanted):
            return
        self.field = name
        self.untested = tuple(t for t, w in zip(self.cases, wanted) if w is _ANY)
        for v in dict.fromkeys(w for w in wanted if w is not _ANY):
            self.by_value[v] = tuple(t for t, w in zip(self.cases, wanted) if w is _ANY or w == v)

    def first(self, values: Any) -> Any:
        """The first case whose ``when`` holds of ``values`` (a label's fields), or None."""
        name = self.field
        if name is None or name in values.parts or name in values.derived:
            return _scan(self.cases, values)      # a part or a derived value: tested in the scan's order
        v = values.get(name)
        if not _plain(v):
            return _scan(self.cases, values)
        return _scan(self.by_value.get(v, self.untested), values)


_ANY = object()


def _plain(v: Any) -> bool:
    """A value whose equality a dict lookup decides as ``==`` does: None, a string, a bool, an int or a
    float other than NaN."""
    return v is None or type(v) in (str, bool, int) or (type(v) is float and v == v)
