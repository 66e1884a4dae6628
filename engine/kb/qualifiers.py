"""A fact's qualifiers in the flat forms durable_rules matches, and those forms parsed back, once.

durable_rules matches scalar fields only, so :func:`gpukb.engine.kb.facts.record` flattens qualifiers:
a list becomes its items joined with ``|`` (sorted), a task item carries its ancestors after ``>``
(``fine_tuning>training``), an interval becomes JSON (``[lo, hi, lo_strict, hi_strict]``) and a fact's
whole scope becomes its signature ``qsig`` (``k=v;k=v``, keys sorted). This module writes those forms
(:func:`canon`, :func:`flat_list`) and reads them back into structures (:func:`scope`, :func:`chains`,
:func:`items`), each parse cached, so the rules' functions that compare scopes on every join do not
split the same strings again. What the forms mean is unchanged: values are compared as before.

>>> dict(scope("method=full;task=fine_tuning>training|inference"))
{'method': 'full', 'task': 'fine_tuning>training|inference'}
>>> chains("fine_tuning>training|inference")
(('fine_tuning', 'training'), ('inference',))
>>> items("fine_tuning>training|inference"), items(None)
(('fine_tuning', 'inference'), ())
>>> values_conflict("fine_tuning>training", "training"), values_conflict("[1, 4]", "[5, 8]")
(False, True)
"""
from __future__ import annotations

import json
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

from ..core import ranges
from .vocabulary import Interval

__all__ = ["canon", "flat_list", "flat_chain", "scope", "chains", "items", "has_item", "members", "values_conflict"]

# distinct strings seen in one audit stay well below this; the caches only bound memory
_CACHE = 1 << 16


def flat_list(values: Any) -> str:
    """A list qualifier as one scalar: its items as text, sorted, joined with ``|``."""
    return "|".join(sorted(map(str, values)))


def canon(v: Any) -> str:
    """The text a value stands as in a signature (``vstr``, ``qsig``): booleans lower-case, lists
    flattened, intervals as JSON with their strictness."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return flat_list(v)
    if isinstance(v, Interval):
        return json.dumps([v.lo, v.hi, v.lo_strict, v.hi_strict])
    return str(v)


def flat_chain(chain: Any) -> str:
    """An item with its ancestors as one text, ``fine_tuning>training`` (read back by :func:`chains`)."""
    return ">".join(chain)


@lru_cache(maxsize=_CACHE)
def scope(sig: str | None) -> Mapping[str, str]:
    """A signature ``k=v;k=v`` as a read-only mapping (a part without ``=`` is skipped)."""
    out: dict[str, str] = {}
    for part in (sig or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return MappingProxyType(out)


@lru_cache(maxsize=_CACHE)
def chains(flat: str) -> tuple[tuple[str, ...], ...]:
    """The items of a flattened list, each as (value, its ancestors...)."""
    return tuple(tuple(item.split(">")) for item in flat.split("|"))


def items(flat: Any) -> tuple[str, ...]:
    """The items of a flattened list qualifier without their ancestors; () when absent or empty."""
    if not isinstance(flat, str) or not flat:
        return ()
    return tuple(c[0] for c in chains(flat))


def has_item(flat: Any, x: Any) -> bool:
    """Does a flattened list qualifier name ``x`` as an item or as an item's ancestor?"""
    return isinstance(flat, str) and any(x in c for c in chains(flat))


@lru_cache(maxsize=_CACHE)
def members(flat: str) -> frozenset[str]:
    """The set a ``|``-joined text stands for (ancestors are not split off)."""
    return frozenset(flat.split("|"))


@lru_cache(maxsize=_CACHE)
def values_conflict(a: str, b: str) -> bool:
    """Can two flattened values of one qualifier not hold together? Intervals conflict when they do not
    overlap, lists when no item of one is, or is an ancestor of, an item of the other (an item
    ``x>parent`` overlaps its ancestors), anything else when the texts differ."""
    if a.startswith("[") and b.startswith("["):
        try:
            x, y = json.loads(a), json.loads(b)
            return not ranges.overlaps(x[0], x[1], y[0], y[1])
        except (ValueError, IndexError, TypeError):
            return a != b
    if "|" in a or "|" in b or ">" in a or ">" in b:
        for ca in chains(a):
            for cb in chains(b):
                if ca[0] == cb[0] or ca[0] in cb or cb[0] in ca:
                    return False
        return True
    return a != b
