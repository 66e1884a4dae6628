"""The functions the audit's rules call on scopes and qualifiers, registered with the expression language.

The expression language (:mod:`gpukb.engine.reasoning.expr`) knows arithmetic, comparisons and generic
list and interval functions; what a claim's scope is (:data:`SCOPE_KEYS`), when two scopes differ or
conflict, and how a flattened qualifier list is read are the audit's notions, so they live here and
:func:`register` adds them to the language before the rules are loaded (:func:`load_rules_for`). The
flat qualifier forms are parsed once, by :mod:`gpukb.engine.kb.qualifiers`.

>>> scope_diff("method=full", "method=full;batch=[1, 1]")
['batch']
>>> scope_conflict("method=full;task=fine_tuning>training", "method=lora;task=training")
['method']
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable

from ..core import ranges
from ..kb import qualifiers as qual
from ..kb.store import KB
from ..reasoning import expr
from ..reasoning.rules import RuleSet, load_rules

__all__ = ["SCOPE_KEYS", "IGNORED_QUALIFIERS", "FUNCTIONS", "register", "load_rules_for"]

# qualifiers that define a claim's scope; the others (gpu, family, techniques, condition ...) describe it
SCOPE_KEYS = ("method", "model", "params", "task", "scale", "instance", "precision", "batch", "seq_len", "gpus",
              "component", "compared_to", "sparsity")

# qualifiers never compared as a scope restriction by qdiff/qonly
IGNORED_QUALIFIERS = ("condition",)
# scope keys whose absence means a value: a throughput figure that does not say "with sparsity" is the
# dense one (NVIDIA's datasheets give both; the dense figure is the default reading)
DEFAULTED = {"sparsity": "false"}


def _scope(sig: Any) -> dict[str, str]:
    out = dict(qual.scope(sig))
    for k, v in DEFAULTED.items():
        out[k] = str(out.get(k, v)).lower()
    return out


def qhas(q: Any, x: Any) -> bool:
    """Does a flattened list qualifier (items joined with |) contain x? A task item carries its
    ancestors ("distributed_training>training"), and x may name any of them."""
    return qual.has_item(q, x)


def qitems(q: Any) -> list[str]:
    """The items of a flattened list qualifier (each without its ancestors); [] when absent."""
    return list(qual.items(q))


def all_covered(sets: Any, roles: Any) -> bool:
    """Is every |-joined set in ``sets`` contained in ``roles``?"""
    have = set(ranges.as_list(roles))
    return bool(ranges.as_list(sets)) and all(qual.members(x) <= have for x in ranges.as_list(sets))


def none_covered(sets: Any, roles: Any) -> bool:
    """Is every |-joined set in ``sets`` disjoint from ``roles``?"""
    have = set(ranges.as_list(roles))
    return bool(ranges.as_list(sets)) and all(not (qual.members(x) & have) for x in ranges.as_list(sets))


def qdiff(a: Any, b: Any) -> list[str]:
    """Qualifier keys on which two claims' scopes conflict (keys present in only one never conflict)."""
    x, y = _scope(a), _scope(b)
    return sorted(k for k in set(x) & set(y) if k not in IGNORED_QUALIFIERS and qual.values_conflict(x[k], y[k]))


def qonly(a: Any, b: Any) -> list[str]:
    """Qualifier keys that only the first scope has (its extra restrictions)."""
    x, y = qual.scope(a), qual.scope(b)
    return sorted(k for k in set(x) - set(y) if k not in IGNORED_QUALIFIERS)


def scope_diff(a: Any, b: Any) -> list[str]:
    """Scope keys on which two claims differ: both state them and they conflict, or only one states it."""
    x, y = _scope(a), _scope(b)
    out = []
    if "condition" in x and "condition" in y and x["condition"] != y["condition"]:
        out.append("condition")
    for k in SCOPE_KEYS:
        if k in x and k in y:
            if qual.values_conflict(x[k], y[k]):
                out.append(k)
            elif k == "task" and {c[0] for c in qual.chains(x[k])} != {c[0] for c in qual.chains(y[k])}:
                out.append(k)  # overlapping but not the same tasks: one claim is about a narrower task
        elif k in x or k in y:
            out.append(k)
    return out


def scope_conflict(a: Any, b: Any) -> list[str]:
    """Scope keys on which two scopes may not overlap: both state the key with conflicting values. A key
    only one states narrows that scope inside the other, so the two overlap (a general verdict and a
    narrower one can contradict each other), except a free-text condition, whose restriction cannot be
    compared: stated by one side, or differently by both, it separates them. A verdict said to hold
    only in some cases (generality=some) contradicts no verdict on a scope: it claims an instance, not
    a rule."""
    x, y = qual.scope(a), qual.scope(b)
    out = ["condition"] if ("condition" in x or "condition" in y) and x.get("condition") != y.get("condition") else []
    if "some" in (x.get("generality"), y.get("generality")):
        out.append("generality")
    return out + [k for k in SCOPE_KEYS if k in x and k in y and qual.values_conflict(x[k], y[k])]


#: the widest a figure is read: a hedged figure ("~2 TB/s", "约 16GB") or a range agrees within 10%
HEDGED_TOLERANCE = 0.1
#: the narrowest: what unit conversions and the reference's own last digit leave
FLOOR_TOLERANCE = 0.005


def rounding(x: Any) -> float | None:
    """Half a unit of the last digit ``x`` is written with ("1.9" -> 0.05, "2000" -> 500: the trailing zeros
    of a whole number are rounding), None for no number."""
    if not isinstance(x, (int, float)) or isinstance(x, bool) or x == 0 or x != x or abs(x) == float("inf"):
        return None
    text = f"{abs(x):.10g}"
    if "e" in text:
        return None
    if "." in text:
        return 10.0 ** -len(text.split(".")[1]) / 2
    return 10.0 ** (len(text) - len(text.rstrip("0"))) / 2


def stated_tolerance(c_lo: Any, c_hi: Any, c_approx: Any, r_lo: Any, r_hi: Any, r_approx: Any) -> float:
    """How far (relative to the reference) a claimed figure may miss it and still agree: the rounding the
    claim states by the digits it is written with ("2 TB/s" agrees with 2,039 GB/s, "1.9 TB/s" does not),
    at least :data:`FLOOR_TOLERANCE`, at most 10%; a hedged figure on either side, a range or a bound keeps
    10%. (Figures are compared in the attribute's canonical unit; a power-of-ten conversion keeps the digits.)

    >>> stated_tolerance(2000.0, 2000.0, 0, 2039.0, 2039.0, 0)
    0.1
    >>> round(stated_tolerance(1900.0, 1900.0, 0, 2039.0, 2039.0, 0), 4)
    0.0245
    >>> stated_tolerance(1900.0, 1900.0, 1, 2039.0, 2039.0, 0)
    0.1
    """
    if c_approx or r_approx or c_lo is None or r_lo is None or c_lo != c_hi or r_lo != r_hi:
        return HEDGED_TOLERANCE
    half = rounding(c_lo)
    if half is None or not r_lo:
        return HEDGED_TOLERANCE
    return min(HEDGED_TOLERANCE, max(half / abs(r_lo) * (1 + 1e-9), FLOOR_TOLERANCE))


def peak_beyond(c_vkind: Any, c_lo: Any, c_hi: Any, c_approx: Any, r_hi: Any, r_approx: Any) -> bool:
    """Is the claim an upper bound ("up to X") whose limit is above the reference's highest figure by more
    than :func:`stated_tolerance` allows, so that, read as a peak, it overstates?

    >>> peak_beyond("bound", None, 3600.0, 0, 1800.0, 0)
    True
    >>> peak_beyond("bound", None, 900.0, 0, 900.0, 0), peak_beyond("number", 3600.0, 3600.0, 0, 1800.0, 0)
    (False, False)
    """
    if c_vkind != "bound" or c_lo is not None or not isinstance(c_hi, (int, float)) or not isinstance(r_hi, (int, float)):
        return False
    return c_hi > r_hi and not ranges.agrees(c_hi, c_hi, r_hi, r_hi, stated_tolerance(c_hi, c_hi, c_approx, r_hi, r_hi, r_approx))


def _figures(qsig: Any, figures: Any) -> list[list]:
    """The figures of a ``vfigures`` record ([lo, hi, approx, qsig, key] each) whose scope does not conflict
    with ``qsig`` (a PCIe card's figure is not an SXM claim's; a dense one not a with-sparsity claim's)."""
    return [x for x in ranges.as_list(figures) if isinstance(x, (list, tuple)) and len(x) == 5 and not qdiff(x[3], qsig)]


def _nearest(c_lo: Any, c_hi: Any, figures: list[list]) -> str | None:
    """The key of the figure nearest [c_lo, c_hi] (a figure it falls in: the narrowest, a point before a bound)."""
    def order(x: list) -> tuple[float, float]:
        lo, hi = x[0], x[1]
        gap = lo - c_hi if c_hi is not None and c_hi < lo else c_lo - hi if c_lo is not None and hi is not None and c_lo > hi else 0.0
        return (gap, float("inf") if hi is None else hi - lo)
    best = min(figures, key=order, default=None)
    return None if best is None else best[4]


def variant_figure(c_lo: Any, c_hi: Any, c_approx: Any, c_qsig: Any, figures: Any) -> str | None:
    """The key of the variant figure in the claim's scope that the claimed figure agrees with as
    audit.ref.quantity.agrees compares a figure with a reference (within :func:`stated_tolerance`; the
    nearest, when several do), else None.

    >>> variant_figure(3350, 3350, 0, "", [[2000, None, 0, "", "R-PCIe@1"], [3350, 3350, 0, "", "R-SXM@1"]])
    'R-SXM@1'
    >>> variant_figure(52, 52, 0, "", [[40, 40, 0, "", "R-40@1"], [80, 80, 0, "", "R-80@1"]]) is None
    True
    """
    return _nearest(c_lo, c_hi, [x for x in _figures(c_qsig, figures)
                                 if ranges.agrees(c_lo, c_hi, x[0], x[1], stated_tolerance(c_lo, c_hi, c_approx, x[0], x[1], x[2]))])


def nearest_figure(c_lo: Any, c_hi: Any, c_qsig: Any, figures: Any) -> str | None:
    """The key of the variant figure in the claim's scope nearest the claimed figure (None when there is none).

    >>> nearest_figure(52, 52, "", [[40, 40, 0, "", "R-40@1"], [80, 80, 0, "", "R-80@1"]])
    'R-40@1'
    >>> nearest_figure(52, 52, "form_factor=SXM", [[40, 40, 0, "form_factor=PCIe", "R-40@1"]]) is None
    True
    """
    return _nearest(c_lo, c_hi, _figures(c_qsig, figures))


def _fixed_arity(*fns: Callable[..., Any]) -> dict[str, tuple[Callable[..., Any], int, int]]:
    """Functions of fixed positional parameters as a function table: name -> (function, n, n)."""
    return {fn.__name__: (fn, n, n) for fn in fns for n in [len(inspect.signature(fn).parameters)]}


# name: (function, fewest and most arguments), as expr.register takes them
FUNCTIONS = _fixed_arity(qhas, qitems, all_covered, none_covered, qdiff, qonly, scope_diff, scope_conflict,
                         stated_tolerance, peak_beyond, variant_figure, nearest_figure)


def register() -> None:
    """Make the audit's functions callable from rules (idempotent: registering again changes nothing)."""
    for name, (fn, lo, hi) in FUNCTIONS.items():
        expr.register(name, fn, lo, hi)


def load_rules_for(kb: KB, rules_dir: str | Path) -> RuleSet:
    """The rules under ``rules_dir``, with the audit's functions registered and the citations checked
    against the KB's reference facts."""
    register()
    return load_rules(rules_dir, {f.id for f in kb.all_facts if f.tier == "reference"})
