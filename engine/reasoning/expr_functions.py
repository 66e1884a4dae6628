"""The expression language's built-in functions (``BUILTINS``: name -> (function, fewest and most arguments)).

Arithmetic helpers, unit conversion, list and set tests and interval agreement (on
:mod:`gpukb.engine.core.ranges`): nothing about what facts or scopes mean. Functions of a domain (the
audit's scope comparisons) are added with :func:`gpukb.engine.reasoning.expr.register`. Every function
checks its arguments and raises :class:`ExprError` rather than a Python error; the grammar is in
:mod:`.expr_parser`, the evaluator in :mod:`.expr`.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from ..core import ranges


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


def _lookup(x, keys, values):
    """The value paired with key x in two parallel lists (None when x is not a key)."""
    for k, v in zip(_as_list(keys), _as_list(values)):
        if k == x:
            return v
    return None


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


_agree = ranges.agrees       # does a claimed interval come within a tolerance of the one it is checked against?


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


# name: (function, fewest and most arguments)
BUILTINS: dict[str, tuple[Callable[..., Any], int, int]] = {
    "pow": (_pow, 2, 2),
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
    "rel_diff": (_rel_diff, 2, 2),
}
