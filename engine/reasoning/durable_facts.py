"""Facts as durable_rules' matcher sees them, in plain Python (no engine import): lists marked so that they
survive its JSON, the fields a ruleset's conditions read, the filter that asserts only facts some pattern
can match, and the scalar projection of a fact."""
from __future__ import annotations

import math
from typing import Any


TRUE_MARK, FALSE_MARK = "\u0001true", "\u0001false"
LIST_MARK = "\u0001list"


MARK_ESCAPE = "\\u0001"          # how JSON writes the marks' first character


def _parsable(x: float) -> float:
    """A float durable_rules' JSON parser accepts: it rejects exponent notation without a decimal
    point in the mantissa (json writes 2e-06 and 1e+16 that way), so such a value is moved by one ulp
    (2.0000000000000003e-06), which keeps every ordering comparison with other values."""
    text = repr(x)
    if "e" in text and "." not in text.split("e")[0]:
        return math.nextafter(x, math.inf if x > 0 else -math.inf)
    return x


def condition_fields(definition: dict[str, dict]) -> frozenset[str]:
    """Every fact field a compiled ruleset's conditions read (its own fields and those it joins on);
    durable_rules is sent only these, with ``t`` and ``fk`` (which keeps every projection distinct)."""
    out: set[str] = {"t", "fk"}

    def walk(node: Any, top: bool = False) -> None:
        if isinstance(node, list):
            for x in node:
                walk(x, top)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k.startswith("$"):
                    walk(v)
                elif k.startswith("b_"):
                    if isinstance(v, str):
                        out.add(v)            # {"b_c": "subject"}: a field of the joined fact
                    else:
                        walk(v)               # a pattern bound to a name
                elif k in ("all", "any") and top:
                    walk(v, True)
                else:
                    out.add(k)
                    walk(v)
    for rule in definition.values():
        walk({k: v for k, v in rule.items() if k in ("all", "any")}, True)
    return frozenset(out)


class PatternFilter:
    """Which facts some pattern of a ruleset could match, from the string literals its conditions
    require (``{"attribute": "gpu"}`` in a pattern's ``$and``; absent patterns included).

    A fact that fails a required literal of every pattern of its type (present as another string)
    cannot take part in any match, so durable_rules is not sent it: asserting it would change nothing
    but the cost (a question's session holds many reference facts no sizing rule reads). Anything
    else (numbers, ranges, joins, ``$or``, a missing field) counts as a possible match. The verdict
    is kept per fact type and the values of the fields the literals test.
    """

    def __init__(self, definition: dict[str, dict]):
        self.open = False                          # a pattern without a literal type: anything may match
        self.by_type: dict[str, list[dict[str, str]]] = {}
        for rule in definition.values():
            for part in ("all", "any"):
                for pattern in rule.get(part, ()):
                    for cond in pattern.values():
                        need = self._literals(cond)
                        if not isinstance(need.get("t"), str):
                            self.open = True
                        else:
                            self.by_type.setdefault(need.pop("t"), []).append(need)
        self.fields = {t: tuple(sorted({f for need in pats for f in need})) for t, pats in self.by_type.items()}
        self._verdicts: dict[tuple, bool] = {}

    @staticmethod
    def _literals(cond: Any) -> dict[str, Any]:
        parts = cond["$and"] if isinstance(cond, dict) and list(cond) == ["$and"] else [cond]
        out: dict[str, Any] = {}
        for c in parts:
            if isinstance(c, dict) and len(c) == 1:
                (field, value), = c.items()
                if not field.startswith("$") and isinstance(value, str):
                    out[field] = value
        return out

    def may_match(self, fact: dict[str, Any]) -> bool:
        """False only when no pattern can match ``fact``."""
        if self.open:
            return True
        t = fact.get("t")
        fields = self.fields.get(t) if isinstance(t, str) else None
        if fields is None:
            return not isinstance(t, str)          # a type no pattern reads (durable: not handled)
        key = (t,) + tuple([v if isinstance(v := fact.get(f), str) else None for f in fields])   # non-strings: "maybe"
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = any(all(not isinstance(fact.get(f), str) or fact.get(f) == v for f, v in need.items())
                          for need in self.by_type[t])
            if len(self._verdicts) < 65536:
                self._verdicts[key] = verdict
        return verdict


def scalar_projection(fact: dict[str, Any], fields: frozenset[str] | None = None) -> dict[str, Any]:
    """What durable_rules sees of a fact (a new dict; the caller's record is never changed).

    * numbers: a whole float becomes an int (durable_rules does not equate 2 and 2.0), and a float that
      JSON would write as 2e-06 or 1e+16 is moved by one ulp (see :func:`_parsable`); gpukb keeps the
      exact value in its own record;
    * lists and booleans are sent as markers, so "field == null" tests see that the field is there
      (gpukb itself evaluates every comparison on them);
    * None is left out (absent), and the reserved keys id and sid are never passed through.
    """
    out: dict[str, Any] = {}
    for k, v in fact.items():
        if k in ("id", "sid") or v is None or (fields is not None and k not in fields):
            continue
        t = type(v)
        if t is str or t is int:            # the usual case, first (never a bool: its type is bool)
            out[k] = v
        elif isinstance(v, bool):
            out[k] = TRUE_MARK if v else FALSE_MARK
        elif isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                continue
            out[k] = int(v) if v.is_integer() and abs(v) < 2 ** 53 else _parsable(v)
        elif isinstance(v, (str, int)):
            out[k] = v
        elif isinstance(v, (list, tuple, dict)):
            out[k] = LIST_MARK
    return out


#: the type of the records that show durable_rules the items of a list field (see MemberIndex)
MEMBER_TYPE = "$member"


def member_item(v: Any) -> Any:
    """A list item as a member record carries it: as :func:`scalar_projection` sends a scalar field
    (a bool as the number it equals, since gpukb's ``has`` tests with ``==``); None for an item no
    scalar can equal (a list, null, NaN, infinity)."""
    t = type(v)
    if t is str or t is int:
        return v
    if t is bool:
        return int(v)
    if t is float:
        if not math.isfinite(v):
            return None
        return int(v) if v.is_integer() and abs(v) < 2 ** 53 else _parsable(v)
    return None


class MemberIndex:
    """The member records of facts (``{"t": MEMBER_TYPE, "ot": type, "f": field, "of": fact key,
    "item": item}``, one per distinct item of a list field; a scalar is a list of one), for the fields
    some compiled ``has(x.field, ...)`` joins on (engine/reasoning/lift.py) and only for facts that
    satisfy the string literals of the pattern that binds ``x``. They are durable_rules' view of a list:
    gpukb's own facts, firings and explanations never hold them. A fact asserted in many sessions
    (``reused``) keeps the same member records, so their JSON text is reused too."""

    def __init__(self, definition: dict[str, dict]):
        self.specs: dict[tuple[str, str], list[dict[str, str]]] = {}
        for rule in definition.values():
            pats = {k: v for pat in rule.get("all", ()) for k, v in pat.items()}
            for cond in pats.values():
                lit = PatternFilter._literals(cond)
                if lit.get("t") != MEMBER_TYPE:
                    continue
                owner = next((c["of"] for c in cond["$and"] if isinstance(c, dict) and "of" in c), {})
                need = PatternFilter._literals(pats.get(next(iter(owner), ""), {}))
                need.pop("t", None)
                self.specs.setdefault((lit["ot"], lit["f"]), []).append(need)
        self.fields: dict[str, tuple[str, ...]] = {}
        for t, f in self.specs:
            self.fields[t] = self.fields.get(t, ()) + (f,)
        self._cache: dict[str, tuple[dict, list[dict]]] = {}

    def records(self, fact: dict[str, Any], reused: bool = False) -> list[dict[str, Any]]:
        fields = self.fields.get(fact.get("t"))
        if not fields:
            return []
        fk = str(fact.get("fk"))
        if reused:
            hit = self._cache.get(fk)
            if hit is not None and hit[0] is fact:
                return hit[1]
        out: list[dict[str, Any]] = []
        for f in fields:
            v = fact.get(f)
            if v is None or not any(all(not isinstance(fact.get(k), str) or fact.get(k) == x for k, x in need.items())
                                    for need in self.specs[(fact["t"], f)]):
                continue
            seen: set = set()
            for x in (v if isinstance(v, (list, tuple)) else [v]):
                item = member_item(x)
                if item is None or (type(item), item) in seen:
                    continue
                seen.add((type(item), item))
                out.append({"t": MEMBER_TYPE, "fk": f"$m:{fk}:{f}:{len(seen)}", "ot": fact["t"], "f": f, "of": fk, "item": item})
        if reused and len(self._cache) < 65536:
            self._cache[fk] = (fact, out)
        return out
