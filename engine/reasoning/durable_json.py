"""gpukb's rule patterns as durable_rules ruleset definitions: plain JSON-like data (durable itself is
imported only by :mod:`.durable_host`). A condition durable_rules can test (``field op literal``,
``field op bound.field`` and arithmetic of those) is compiled here; any other is left to gpukb's own
matcher (None), which checks every condition of a match again.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .durable_facts import FALSE_MARK, TRUE_MARK

if TYPE_CHECKING:
    from .rules import RuleSet

# `!=` is evaluated by gpukb: durable_rules' $neq never matches a fact without the field, where gpukb's
# null != x is true (and $or with $nex is rejected by its C core), and it sees every list as the same
# marker; unless both sides are sure to be there and plain (``sure``, see compile_condition)
_CMP_TO_DURABLE = {"==": None, "<": "$lt", "<=": "$lte", ">": "$gt", ">=": "$gte"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# `/` is evaluated by gpukb: durable_rules divides ints as integers and crashes on a zero divisor
_ARITH = {"+": "$add", "-": "$sub", "*": "$mul"}


def _operand(node: tuple, bound: set[str]) -> Any:
    """A durable_rules right-hand side: literal, earlier binding's field, or arithmetic of those."""
    kind = node[0]
    if kind == "lit" and isinstance(node[1], (int, float, str, bool)) and node[1] is not None:
        return node[1]
    if kind == "name" and len(node[1]) == 2 and node[1][0] in bound:
        return {"b_" + node[1][0]: node[1][1]}
    if kind == "bin":
        if node[1] not in _ARITH or any(x[0] == "lit" and isinstance(x[1], str) for x in node[2:4]):
            return _NO         # durable_rules' $add does not join strings: the pattern would never match
        left, right = _operand(node[2], bound), _operand(node[3], bound)
        if left is _NO or right is _NO:
            return _NO
        return {_ARITH[node[1]]: {"$l": left, "$r": right}}
    return _NO


_NO = object()


def compile_condition(node: tuple, bound: set[str], sure: Callable[[str | None, str], bool] | None = None) -> dict | None:
    """Compile ``field op rhs`` (and and/or of such) to durable_rules JSON, or None for gpukb to evaluate.

    ``sure(binding, field)`` (binding None: the pattern's own fact) tells whether a field is certainly
    present and a string or a number in every fact the pattern (or the earlier one) can bind: then
    ``field != rhs`` means the same to durable_rules as to gpukb and is compiled to ``$neq``."""
    kind = node[0]
    if kind in ("and", "or"):
        a, b = compile_condition(node[1], bound, sure), compile_condition(node[2], bound, sure)
        if a is None or b is None:
            return None
        return {"$" + kind: [a, b]}
    if kind != "cmp" or node[1] == "in":
        return None
    op, left, right = node[1], node[2], node[3]
    if not (left[0] == "name" and len(left[1]) == 1):
        if right[0] == "name" and len(right[1]) == 1:
            left, right, op = right, left, _FLIP[op]
        else:
            return None
    fld = left[1][0]
    if right[0] == "lit" and right[1] is None:
        if op == "==":
            return {"$nex": {fld: 1}}
        if op == "!=":
            return {"$ex": {fld: 1}}
        return None
    if op == "!=":
        return _not_equal(fld, right, bound, sure)
    if op not in _CMP_TO_DURABLE:
        return None
    rhs = _operand(right, bound)
    if rhs is _NO:
        return None
    if isinstance(rhs, bool):
        # a boolean reaches durable_rules as its marker (durable_facts.scalar_projection), and gpukb's
        # == also holds for the number it equals (0 == false)
        if op != "==":
            return None
        return {"$or": [{fld: TRUE_MARK if rhs else FALSE_MARK}, {fld: int(rhs)}]}
    if isinstance(rhs, float) and rhs.is_integer():
        rhs = int(rhs)  # as the projection sends whole floats
    if sure is not None and op == "==" and right[0] == "name" and not (sure(None, fld) or sure(right[1][0], right[1][1])):
        return None     # two missing fields: gpukb's null == null holds, durable_rules' join does not
    d_op = _CMP_TO_DURABLE[op]
    return {fld: rhs} if d_op is None else {d_op: {fld: rhs}}


def _not_equal(fld: str, right: tuple, bound: set[str], sure: Callable[[str | None, str], bool] | None) -> dict | None:
    """``fld != right`` as ``$neq`` when both sides are sure to be plain values (a string or number
    literal, or a field ``sure`` vouches for); None otherwise."""
    if sure is None or not sure(None, fld):
        return None
    if right[0] == "lit" and type(right[1]) in (str, int, float):
        rhs = right[1]
        return {"$neq": {fld: int(rhs) if isinstance(rhs, float) and rhs.is_integer() else rhs}}
    if right[0] == "name" and len(right[1]) == 2 and right[1][0] in bound and sure(right[1][0], right[1][1]):
        return {"$neq": {fld: {"b_" + right[1][0]: right[1][1]}}}
    return None


def definition(ruleset: "RuleSet") -> dict[str, dict]:
    """The durable_rules definition of a rule set: one durable rule per gpukb rule, keyed r<index>."""
    out: dict[str, dict] = {}
    for i, r in enumerate(ruleset.rules):
        alls = []
        for p in r.patterns:
            conds: list[dict] = [{"t": p.type}]
            conds += [c.durable for c in p.conditions + p.lifted if c.durable is not None]
            key = "b_" + p.bind + ("$not" if p.absent else "")
            alls.append({key: conds[0] if len(conds) == 1 else {"$and": conds}})
            alls += [{"b_" + bind: cond} for bind, cond in p.members]
        out[f"r{i}"] = {"all": alls}
    return out
