"""Moving a rule's tests to durable_rules' side of the join, where they mean the same there.

A rule's ``where`` conditions that durable_rules can test are compiled to its join (durable_json); the
rest, and the ``if`` guard, gpukb checks on every match durable_rules hands back. Two steps give more
of that deciding to durable_rules, without changing any rule's meaning:

* ``field != value`` is compiled when both sides are sure to be plain values (a string or a number)
  in every fact the patterns can bind: the field is declared ``scalar`` in rules/types.yaml and either
  declared ``required`` of a base type or made present by another condition of its pattern
  (``field != null``, ``field == 'literal'``); a literal compared with ``==`` proves both;
* each conjunct of the guard that, written in the scope of the last pattern it names (``h.x`` as
  ``x``), compiles to a durable_rules condition is also tested there (:attr:`Pattern.lifted`); gpukb
  then skips it (its :attr:`Condition.durable` is set). Explanations still read the rule as written;
* a guard conjunct ``has(x.list, y.field)`` (or ``has(x.list, 'literal')``), whose item is sure to be a
  plain value, becomes a join on member records (:class:`~.durable_facts.MemberIndex`: one per item of
  ``x.list``, sent to durable_rules with ``x``): a pattern ``of == x.fk and item == y.field`` after the
  later of ``x`` and ``y`` (:attr:`Pattern.members`). durable_rules then hands back only the matches
  whose list holds the item; gpukb still tests the conjunct on each of them.

The ``required`` and ``scalar`` declarations of base types are checked on every given fact
(:func:`given_checks`), so a record that breaks them is refused instead of silently mis-joined.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from .durable_facts import MEMBER_TYPE, member_item
from .durable_json import compile_condition
from .expr import names


def sure_fields(p: Any, ftype: Any) -> set[str]:
    """The fields of pattern ``p``'s facts that are certainly present and plain (see the module)."""
    decl = ftype.fields
    scalar = {f for f, spec in decl.items() if spec.get("scalar")}
    present = {f for f, spec in decl.items() if spec.get("required")} if ftype.base else set()
    out: set[str] = set()
    for c in p.conditions:
        d = c.durable
        if not isinstance(d, dict) or len(d) != 1:
            continue
        (k, v), = d.items()
        if k == "$ex":
            present |= set(v)
        elif not k.startswith("$") and type(v) in (str, int, float):
            out.add(k)                         # field == literal: present and plain
    return out | (present & scalar)


def tighten(patterns: list, guard: list, types: dict[str, Any], condition_cls: type) -> None:
    """Compile more of a rule's conditions for durable_rules (see the module); changes ``patterns``'
    conditions and lifted lists and the ``durable`` of lifted guard conditions in place."""
    sure: dict[str, set[str]] = {}
    bound: set[str] = set()
    for p in patterns:
        if p.absent:
            continue
        sure[p.bind] = sure_fields(p, types[p.type])
        check = _sure(sure, p.bind)
        for c in p.conditions:
            if c.durable is None:
                c.durable = compile_condition(c.node, bound, check)
        bound.add(p.bind)
    order = [p.bind for p in patterns if not p.absent]
    by_bind = {p.bind: p for p in patterns if not p.absent}
    for g in guard:
        names = _names(g.node)
        binds = {n[0] for n in names}
        if not binds or not binds <= set(order) or any(len(n) != 2 for n in names):
            continue
        target = max(binds, key=order.index)
        fields = set(types[by_bind[target].type].fields)
        if any(n[0] == target and n[1] in binds for n in names) or not {n[1] for n in names if n[0] == target} <= fields:
            continue                           # a field named like a binding would read the binding
        node = _own(g.node, target)
        before = set(order[:order.index(target)])
        durable = compile_condition(node, before, _sure(sure, target))
        if durable is not None:
            g.durable = durable
            by_bind[target].lifted.append(condition_cls(g.text, node, durable))
    binds = {p.bind for p in patterns}
    for g in guard:
        joined = _member_join(g.node, by_bind, order, types, sure)
        if joined is not None:
            target, cond = joined
            name = next(f"_m{k}" for k in range(len(guard) + len(binds) + 1) if f"_m{k}" not in binds)
            binds.add(name)
            by_bind[target].members.append((name, cond))


def _member_join(node: tuple, by_bind: dict[str, Any], order: list[str], types: dict[str, Any],
                 sure: dict[str, set[str]]) -> tuple[str, dict] | None:
    """(the pattern after which it joins, the member pattern) for ``has(x.list, item)`` (see the module),
    or None when the conjunct has another form or its item may be null or not plain."""
    if node[0] != "call" or node[1] != "has" or len(node[2]) != 2:
        return None
    lst, item = node[2]
    if lst[0] != "name" or len(lst[1]) != 2 or lst[1][0] not in by_bind or lst[1][1] not in types[by_bind[lst[1][0]].type].fields:
        return None
    owner, fld = lst[1]
    if item[0] == "lit" and type(item[1]) in (str, int, float) and member_item(item[1]) is not None:
        target, rhs = owner, member_item(item[1])
    elif item[0] == "name" and len(item[1]) == 2 and item[1][1] in sure.get(item[1][0], ()):
        target, rhs = max((owner, item[1][0]), key=order.index), {"b_" + item[1][0]: item[1][1]}
    else:
        return None
    return target, {"$and": [{"t": MEMBER_TYPE}, {"ot": by_bind[owner].type}, {"f": fld},
                             {"of": {"b_" + owner: "fk"}}, {"item": rhs}]}


def _sure(sure: dict[str, set[str]], own: str) -> Callable[[str | None, str], bool]:
    return lambda b, f: f in sure.get(own if b is None else b, ())


def _names(node: tuple) -> list[tuple[str, ...]]:
    return list(names(node))


def _own(node: tuple, bind: str) -> tuple:
    """``node`` with ``bind.field`` written as the bare ``field`` (a pattern's own fact)."""
    kind = node[0]
    if kind == "name":
        path = node[1]
        return ("name", path[1:]) if len(path) == 2 and path[0] == bind else node
    if kind == "lit":
        return node
    return (kind,) + tuple(_own(x, bind) if isinstance(x, tuple) else
                           ([_own(a, bind) for a in x] if isinstance(x, list) else x) for x in node[1:])


def given_checks(types: dict[str, Any]) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Per base type, its required scalar fields and its scalar fields (the declarations
    :func:`tighten` trusts; ``required`` alone is not relied on for a base type, so not checked)."""
    out = {}
    for name, ft in types.items():
        if ft.base:
            req = tuple(f for f, s in ft.fields.items() if s.get("required") and s.get("scalar"))
            sca = tuple(f for f, s in ft.fields.items() if s.get("scalar"))
            if req or sca:
                out[name] = (req, sca)
    return out


def bad_given(fact: dict[str, Any], checks: tuple[tuple[str, ...], tuple[str, ...]]) -> str | None:
    """What is wrong with a given fact against its type's declarations (None when nothing)."""
    req, sca = checks
    for f in req:
        if fact.get(f) is None:
            return f"field {f!r} is required"
    for f in sca:
        v = fact.get(f)
        if v is not None and (type(v) not in (str, int, float) or (type(v) is float and not math.isfinite(v))):
            return f"field {f!r} must be a string or a finite number, got {v!r}"
    return None
