"""The expression language's functions (``FUNCTIONS``: name -> (function, fewest and most arguments)).

Arithmetic helpers, unit conversion, list and set tests, interval agreement (on :mod:`gpukb.engine.ranges`)
and the qualifier and scope comparisons the audit rules call. Every function checks its arguments and
raises :class:`ExprError` rather than a Python error; the grammar and evaluator are in :mod:`.expr`.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from .. import ranges


class ExprError(ValueError):
    """A syntax error, an unknown function or name, or an arithmetic fault in an expression."""


_MEMORY_UNITS = {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
                 "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3, "TiB": 1024.0 ** 4,
                 "Gbps": 1e9 / 8, "Mbps": 1e6 / 8, "GB/s": 1e9}


def _convert(x: float, frm: str, to: str) -> float:
    if frm not in _MEMORY_UNITS or to not in _MEMORY_UNITS:
        raise ExprError(f"convert: unknown unit (known: {', '.join(_MEMORY_UNITS)})")
    return x * _MEMORY_UNITS[frm] / _MEMORY_UNITS[to]


def _num(*xs: Any) -> None:
    for x in xs:
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise ExprError(f"expected a number, got {x!r}")


def _ceil(x):
    _num(x)
    return math.ceil(x)


def _floor(x):
    _num(x)
    return math.floor(x)


def _if(c, a, b):
    return a if c else b


def _has(xs, x):
    return x in (xs if isinstance(xs, (list, tuple)) else [xs])


def _qhas(q, x):
    """Does a flattened list qualifier (items joined with |) contain x? A task item carries its
    ancestors ("distributed_training>training"), and x may name any of them."""
    return isinstance(q, str) and any(x in item.split(">") for item in q.split("|"))


def _qitems(q):
    """The items of a flattened list qualifier (each without its ancestors); [] when absent."""
    return [item.split(">")[0] for item in q.split("|")] if isinstance(q, str) and q else []


def _lookup(x, keys, values):
    """The value paired with key x in two parallel lists (None when x is not a key)."""
    for k, v in zip(_as_list(keys), _as_list(values)):
        if k == x:
            return v
    return None


def _all_covered(sets, roles):
    """Is every |-joined set in ``sets`` contained in ``roles``?"""
    have = set(_as_list(roles))
    return bool(_as_list(sets)) and all(set(x.split("|")) <= have for x in _as_list(sets))


def _none_covered(sets, roles):
    """Is every |-joined set in ``sets`` disjoint from ``roles``?"""
    have = set(_as_list(roles))
    return bool(_as_list(sets)) and all(not (set(x.split("|")) & have) for x in _as_list(sets))


def _len(xs):
    return len(xs) if isinstance(xs, (list, tuple, str)) else (0 if xs is None else 1)


def _overlaps(a_lo, a_hi, b_lo, b_hi):
    """Do [a_lo, a_hi] and [b_lo, b_hi] overlap? None means unbounded."""
    return ranges.overlaps(a_lo, a_hi, b_lo, b_hi)


def _within(x, lo, hi):
    return (lo is None or x >= lo) and (hi is None or x <= hi)


def _same_set(a, b):
    a = a if isinstance(a, (list, tuple)) else [a]
    b = b if isinstance(b, (list, tuple)) else [b]
    return set(a) == set(b)


def _intersects(a, b):
    a = a if isinstance(a, (list, tuple)) else [a]
    b = b if isinstance(b, (list, tuple)) else [b]
    return bool(set(a) & set(b))


_as_list = ranges.as_list
_subset = ranges.subset      # is every element of a in b (scalars count as one-element lists)?


def _agree(a_lo, a_hi, b_lo, b_hi, tol):
    """Does a claimed interval [a_lo, a_hi] come within ``tol`` (relative) of the interval it is checked
    against, [b_lo, b_hi] (a reference or a derivation)? Only the second is widened: widening both let
    20 GB "agree" with 24 GB, a 17% miss."""
    return ranges.overlaps(*ranges.widen(a_lo, a_hi, 0), *ranges.widen(b_lo, b_hi, tol))


def _count_agree(lo, hi, values, tol):
    """How many of ``values`` (numbers) agree with the interval [lo, hi] within ``tol``."""
    return sum(1 for v in _as_list(values) if v is not None and _agree(lo, hi, v, v, tol))


def _first_agree(lo, hi, values, keys, tol):
    """The key of the first value that agrees with [lo, hi] within ``tol`` (None when none does)."""
    for v, k in zip(_as_list(values), _as_list(keys)):
        if v is not None and _agree(lo, hi, v, v, tol):
            return k
    return None


def _first_disagree(lo, hi, values, keys, tol):
    """The key of the first value that does not agree with [lo, hi] within ``tol`` (None when all do)."""
    for v, k in zip(_as_list(values), _as_list(keys)):
        if v is not None and not _agree(lo, hi, v, v, tol):
            return k
    return None


def _qparse(sig):
    out = {}
    for part in (sig or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


def _qval_conflict(a: str, b: str) -> bool:
    if a.startswith("[") and b.startswith("["):
        import json as _json
        try:
            x, y = _json.loads(a), _json.loads(b)
            return not _agree(x[0], x[1], y[0], y[1], 0.0)
        except (ValueError, IndexError, TypeError):
            return a != b
    if "|" in a or "|" in b or ">" in a or ">" in b:
        # list values; an item "x>parent" (a value and its ancestors) overlaps its ancestors
        def chains(s):
            return [c.split(">") for c in s.split("|")]
        for ca in chains(a):
            for cb in chains(b):
                if ca[0] == cb[0] or ca[0] in cb or cb[0] in ca:
                    return False
        return True
    return a != b


IGNORED_QUALIFIERS = ("condition",)


def _qdiff(a, b):
    """Qualifier keys on which two claims' scopes conflict (keys present in only one never conflict)."""
    x, y = _qparse(a), _qparse(b)
    return sorted(k for k in set(x) & set(y) if k not in IGNORED_QUALIFIERS and _qval_conflict(x[k], y[k]))


def _qonly(a, b):
    """Qualifier keys that only the first scope has (its extra restrictions)."""
    x, y = _qparse(a), _qparse(b)
    return sorted(k for k in set(x) - set(y) if k not in IGNORED_QUALIFIERS)


# qualifiers that define a claim's scope; the others (gpu, family, techniques, condition ...) describe it
SCOPE_KEYS = ("method", "model", "params", "task", "scale", "instance", "precision", "batch", "seq_len", "gpus",
              "component", "compared_to")


def _scope_diff(a, b):
    """Scope keys on which two claims differ: both state them and they conflict, or only one states it."""
    x, y = _qparse(a), _qparse(b)
    out = []
    if "condition" in x and "condition" in y and x["condition"] != y["condition"]:
        out.append("condition")
    for k in SCOPE_KEYS:
        if k in x and k in y:
            if _qval_conflict(x[k], y[k]):
                out.append(k)
            elif k == "task" and {t.split(">")[0] for t in x[k].split("|")} != {t.split(">")[0] for t in y[k].split("|")}:
                out.append(k)  # overlapping but not the same tasks: one claim is about a narrower task
        elif k in x or k in y:
            out.append(k)
    return out


def _scope_conflict(a, b):
    """Scope keys on which two scopes may not overlap: both state the key with conflicting values. A key
    only one states narrows that scope inside the other, so the two overlap (a general verdict and a
    narrower one can contradict each other), except a free-text condition, whose restriction cannot be
    compared: stated by one side, or differently by both, it separates them. A verdict said to hold
    only in some cases (generality=some) contradicts no verdict on a scope: it claims an instance, not
    a rule."""
    x, y = _qparse(a), _qparse(b)
    out = ["condition"] if ("condition" in x or "condition" in y) and x.get("condition") != y.get("condition") else []
    if "some" in (x.get("generality"), y.get("generality")):
        out.append("generality")
    return out + [k for k in SCOPE_KEYS if k in x and k in y and _qval_conflict(x[k], y[k])]


def _coalesce(*xs):
    for x in xs:
        if x is not None:
            return x
    return None


def _rel_diff(a, b):
    _num(a, b)
    m = max(abs(a), abs(b))
    return 0.0 if m == 0 else abs(a - b) / m


def _pow(x, y):
    _num(x, y)
    if abs(y) > 16 or (x < 0 and y != int(y)):
        raise ExprError("pow: exponent must be within ±16 and the base non-negative for fractions")
    return float(x) ** y


FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = {
    "pow": (_pow, 2, 2),
    # name: (function, min args, max args)
    "min": (min, 1, 16),
    "max": (max, 1, 16),
    "ceil": (_ceil, 1, 1),
    "floor": (_floor, 1, 1),
    "abs": (abs, 1, 1),
    "round": (round, 1, 2),
    "if": (_if, 3, 3),
    "convert": (_convert, 3, 3),
    "has": (_has, 2, 2),
    "len": (_len, 1, 1),
    "qhas": (_qhas, 2, 2),
    "qitems": (_qitems, 1, 1),
    "all_covered": (_all_covered, 2, 2),
    "none_covered": (_none_covered, 2, 2),
    "lookup": (_lookup, 3, 3),
    "overlaps": (_overlaps, 4, 4),
    "within": (_within, 3, 3),
    "same_set": (_same_set, 2, 2),
    "intersects": (_intersects, 2, 2),
    "coalesce": (_coalesce, 1, 8),
    "subset": (_subset, 2, 2),
    "agree": (_agree, 5, 5),
    "count_agree": (_count_agree, 4, 4),
    "first_agree": (_first_agree, 5, 5),
    "first_disagree": (_first_disagree, 5, 5),
    "qdiff": (_qdiff, 2, 2),
    "qonly": (_qonly, 2, 2),
    "scope_diff": (_scope_diff, 2, 2),
    "scope_conflict": (_scope_conflict, 2, 2),
    "rel_diff": (_rel_diff, 2, 2),
}
