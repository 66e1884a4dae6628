"""A fact's value and qualifiers checked against the vocabulary and normalised.

A quantity (a number, a range ``[lo, hi]`` or a bound like ``">= 24"``, with a unit) becomes an
:class:`Interval` in its dimension's canonical unit; enums and entities are checked against the lists
the vocabulary declares. Every problem is an :class:`Issue` at the given place, never an exception,
so a loader can report all of them at once. :class:`gpukb.engine.kb.vocabulary.Vocabulary` offers
these as methods.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from ..core.errors import Issue, short
from ..core.yamlio import LineDict
from .interval import Interval

if TYPE_CHECKING:
    from .vocabulary import Vocabulary

__all__ = ["parse_quantity", "check_value", "check_entity", "check_qualifiers"]

_BOUND = re.compile(r"^\s*(>=|<=|>|<|≥|≤)\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")
_NUMBER_TEXT = re.compile(r"^\s*[~≈]?\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")


def parse_quantity(vocab: "Vocabulary", value: Any, unit: Any, dimension: str, where: dict) -> tuple[Interval | None, list[Issue]]:
    """Turn a number, ``[lo, hi]`` or ``">= 24"`` in ``unit`` into an Interval in the canonical unit."""
    issues: list[Issue] = []
    factor = vocab.unit_factor(dimension, None if unit is None else str(unit))
    if factor is None:
        if unit is None:
            issues.append(Issue(f"a {dimension} quantity needs a unit", field="unit", allowed=set(vocab.units[dimension]), **where))
        else:
            issues.append(Issue(f"unknown unit {short(unit)} for a {dimension} quantity", field="unit", allowed=set(vocab.units[dimension]), **where))
        return None, issues

    def num(x: Any) -> float | None:
        if isinstance(x, bool):
            return None
        if isinstance(x, (int, float)):
            return float(x) if math.isfinite(x) else None
        if isinstance(x, str):
            m = _NUMBER_TEXT.match(x)
            if m:
                return float(m.group(1))
        return None

    if isinstance(value, list):
        if len(value) != 2 or num(value[0]) is None or num(value[1]) is None:
            issues.append(Issue("a range must be [low, high] with two numbers", field="value", **where))
            return None, issues
        lo, hi = num(value[0]), num(value[1])
        if lo > hi:
            issues.append(Issue(f"range [{lo}, {hi}] has low > high", field="value", **where))
            return None, issues
        return Interval(lo * factor, hi * factor), issues
    if isinstance(value, str):
        m = _BOUND.match(value)
        if m:
            op = {"≥": ">=", "≤": "<="}.get(m.group(1), m.group(1))
            x = float(m.group(2)) * factor
            if op.startswith(">"):
                return Interval(x, None, lo_strict=(op == ">")), issues
            return Interval(None, x, hi_strict=(op == "<")), issues
    x = num(value)
    if x is None:
        got = type(value).__name__
        hint = "; in YAML remove the quotes" if isinstance(value, str) and _looks_numeric(value) else ""
        issues.append(Issue(f"expected a number, a range [lo, hi] or a bound like '>= 24', got {got} {short(value)}{hint}", field="value", **where))
        return None, issues
    return Interval(x * factor, x * factor), issues

def check_value(vocab: "Vocabulary", attribute: str, value: Any, unit: Any, where: dict) -> tuple[Any, list[Issue]]:
    """Validate ``value`` against the attribute's type; return its normalised form and issues."""
    attr = vocab.attributes[attribute]
    t = attr.type
    if t == "quantity":
        return parse_quantity(vocab, value, unit, attr.dimension, where)
    issues: list[Issue] = []
    if t == "boolean":
        if not isinstance(value, bool):
            issues.append(Issue(f"expected true or false, got {short(value)}", field="value", allowed=["true", "false"], **where))
        return value, issues
    if t == "text":
        if not isinstance(value, str) or not value.strip():
            issues.append(Issue(f"expected a non-empty string, got {short(value)}", field="value", **where))
        return value, issues
    if t in ("enum", "enums"):
        allowed = set(vocab.enums[attr.enum])
        vals = value if t == "enums" else [value]
        if t == "enums" and not isinstance(value, list):
            issues.append(Issue(f"expected a list of {attr.enum} values", field="value", allowed=allowed, **where))
            return None, issues
        for v in vals:
            if not isinstance(v, str) or v not in allowed:
                issues.append(Issue(f"unknown {attr.enum} value {short(v)}", field="value", allowed=allowed, **where))
        return (list(value) if t == "enums" else value), issues
    # entity / entities
    vals = value if t == "entities" else [value]
    if t == "entities" and not isinstance(value, list):
        issues.append(Issue("expected a list of entity ids", field="value", **where))
        return None, issues
    for v in vals:
        issues += check_entity(vocab, v, attr.kinds, "value", where)
    return (list(value) if t == "entities" else value), issues

def check_entity(vocab: "Vocabulary", eid: Any, kinds: tuple[str, ...], field: str, where: dict) -> list[Issue]:
    if not isinstance(eid, str) or eid not in vocab.entities:
        allowed = {e for e in vocab.entities if not kinds or vocab.kind_of(e) in kinds}
        return [Issue(f"unknown entity {short(eid)}", field=field, allowed=allowed, **where)]
    if kinds and vocab.kind_of(eid) not in kinds:
        return [Issue(f"{eid} is a {vocab.kind_of(eid)}, expected a {' or '.join(kinds)}", field=field, **where)]
    return []

def check_qualifiers(vocab: "Vocabulary", quals: Any, where: dict) -> tuple[dict, list[Issue]]:
    """Validate a qualifiers mapping; quantities become Intervals under the same key."""
    if quals is None:
        return {}, []
    if not isinstance(quals, dict):
        return {}, [Issue("qualifiers must be a mapping", field="qualifiers", **where)]
    out: dict[str, Any] = {}
    issues: list[Issue] = []
    for key, val in quals.items():
        w = dict(where)
        if not isinstance(key, str):
            issues.append(Issue(f"qualifier names are text, got {short(key)}", field="qualifiers", allowed=set(vocab.qualifiers), **w))
            continue
        if isinstance(quals, LineDict):
            w["line"] = quals.line_of(key)
        spec = vocab.qualifiers.get(key)
        if spec is None:
            issues.append(Issue(f"unknown qualifier {short(key)}", field="qualifiers", allowed=set(vocab.qualifiers), **w))
            continue
        t = spec["type"]
        kinds = spec.get("kind") or ()
        kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
        if t == "quantity":
            iv, errs = parse_quantity(vocab, val, spec.get("unit", "1") if spec["dimension"] in ("count", "params") else None, spec["dimension"], w)
            issues += [Issue(e.message, e.file, e.line, f"qualifiers.{key}", e.allowed) for e in errs]
            out[key] = iv
        elif t in ("entity", "entities"):
            vals = val if isinstance(val, list) else [val]
            if t == "entity" and isinstance(val, list):
                issues.append(Issue("expected one entity id, got a list", field=f"qualifiers.{key}", **w))
            for v in vals:
                issues += check_entity(vocab, v, kinds, f"qualifiers.{key}", w)
            out[key] = list(vals) if t == "entities" else val
        elif t in ("enum", "enums"):
            vals = val if isinstance(val, list) else [val]
            allowed = set(vocab.enums[spec["enum"]])
            for v in vals:
                if not isinstance(v, str) or v not in allowed:
                    issues.append(Issue(f"unknown {spec['enum']} value {short(v)}", field=f"qualifiers.{key}", allowed=allowed, **w))
            out[key] = list(vals) if t == "enums" else val
        elif t == "boolean":
            flag = {"true": True, "false": False}.get(val.strip().lower()) if isinstance(val, str) else val
            if not isinstance(flag, bool):
                issues.append(Issue(f"expected true or false, got {short(val)}", field=f"qualifiers.{key}",
                                    allowed=["true", "false"], **w))
            out[key] = flag
        else:
            if not isinstance(val, str):
                issues.append(Issue(f"expected text, got {short(val)}", field=f"qualifiers.{key}", **w))
            out[key] = val
    return out, issues


def _looks_numeric(s: str) -> bool:
    return bool(_NUMBER_TEXT.match(s))
