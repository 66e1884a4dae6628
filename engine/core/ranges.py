"""Intervals and sets as the KB compares them: ``None`` bounds are open-ended, scalars are one-item lists.

Shared by the expression language (``overlaps``, ``agree``, ``subset``) and the KB's load-time checks
(a restatement's value must lie within the fact it restates).

>>> overlaps(1, 2, 2, None), contains(0, None, 3, 4), contains(0, 10, 5, None)
(True, True, False)
>>> overlaps(*widen(10, 10, 0.1), *widen(11.5, 11.5, 0.1))
True
>>> subset("a", ["a", "b"]), subset(["a", "c"], ["a", "b"])
(True, False)
"""
from __future__ import annotations

import math
from typing import Any


def bounds(lo: float | None, hi: float | None) -> tuple[float, float]:
    """An interval with its open ends made infinite."""
    return (-math.inf if lo is None else lo), (math.inf if hi is None else hi)


def overlaps(a_lo: float | None, a_hi: float | None, b_lo: float | None, b_hi: float | None) -> bool:
    """Do [a_lo, a_hi] and [b_lo, b_hi] overlap?"""
    lo_a, hi_a = bounds(a_lo, a_hi)
    lo_b, hi_b = bounds(b_lo, b_hi)
    return lo_a <= hi_b and lo_b <= hi_a


def contains(a_lo: float | None, a_hi: float | None, b_lo: float | None, b_hi: float | None) -> bool:
    """Does [a_lo, a_hi] contain all of [b_lo, b_hi]?"""
    lo_a, hi_a = bounds(a_lo, a_hi)
    lo_b, hi_b = bounds(b_lo, b_hi)
    return lo_a <= lo_b and hi_b <= hi_a


def widen(lo: float | None, hi: float | None, tol: float) -> tuple[float, float]:
    """An interval widened on each side by the relative tolerance ``tol`` (open ends made infinite)."""
    return (-math.inf if lo is None else lo - abs(lo) * tol), (math.inf if hi is None else hi + abs(hi) * tol)


def agrees(a_lo: float | None, a_hi: float | None, b_lo: float | None, b_hi: float | None, tol: float) -> bool:
    """Does a claimed interval [a_lo, a_hi] come within ``tol`` (relative) of the interval it is checked
    against, [b_lo, b_hi] (a reference or a derivation)? Only the second is widened: widening both let
    20 GB "agree" with 24 GB, a 17% miss.

    >>> agrees(20, 20, 24, 24, 0.1), agrees(22, 22, 24, 24, 0.1)
    (False, True)
    """
    return overlaps(a_lo, a_hi, *widen(b_lo, b_hi, tol))


def as_list(a: Any) -> list[Any]:
    """A list as a list, a scalar as a one-item list, None as the empty list."""
    return list(a) if isinstance(a, (list, tuple)) else ([] if a is None else [a])


def subset(a: Any, b: Any) -> bool:
    """Is every element of ``a`` in ``b``?"""
    return set(as_list(a)) <= set(as_list(b))
