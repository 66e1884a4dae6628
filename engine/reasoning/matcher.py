"""Rule matching done by gpukb itself, in one place.

durable_rules does the Rete matching of the conditions it can compile; gpukb evaluates the rest (guards,
functions, list tests), the absent patterns, and, for why-not explanations, a depth-first match of a
rule's patterns against a finished derivation that reports the first condition that failed. All three
read facts the same way: a pattern's bare names are its fact's fields, and a field the fact lacks reads
as null (the fact type's declared fields supply the defaults).
"""
from __future__ import annotations

from typing import Any, Iterable

from . import expr
from .expr_compile import all_hold, compile_node
from .rules import Condition, Rule


def defaults_of(types: dict[str, Any]) -> dict[str, dict[str, None]]:
    """Per fact type, its declared fields as nulls (what a missing field reads as)."""
    return {t: {f: None for f in ft.fields} for t, ft in types.items()}


def nulls_read(nulls: dict[str, None], nodes: Iterable[tuple]) -> dict[str, None]:
    """The part of a type's nulls (:func:`defaults_of`) that expressions ``nodes`` can read: a scope built
    with it reads every name of those expressions as one built with all the nulls does (names are looked up
    by their first part), at a fraction of the cost for a type of many fields."""
    read = {n[0] for node in nodes for n in expr.names(node)}
    return {f: None for f in nulls if f in read}


def truth(cond: Condition, env: dict) -> bool:
    """A condition's truth in ``env``; an evaluation error counts as false."""
    try:
        return bool(expr.evaluate(cond.node, env))
    except expr.ExprError:
        return False


def values_read(cond: Condition, env: dict) -> dict[str, Any]:
    """The values a condition reads, by dotted name (null when unreadable), for explanations."""
    out = {}
    for n in sorted(expr.names(cond.node)):      # in name order: a set's order changes with the hash seed
        try:
            out[".".join(n)] = expr.evaluate(("name", n), env)
        except expr.ExprError:
            out[".".join(n)] = None
    return out


def local_env(defaults: dict[str, dict], ptype: str, fact: dict, env: dict) -> dict:
    """The evaluation scope of one pattern: the fact's fields (nulls for missing ones) and the bindings."""
    return {**defaults.get(ptype, {}), **fact, **env}


def holds(rule: Rule, env: dict[str, dict], defaults: dict[str, dict]) -> bool:
    """The conditions durable_rules could not compile, and the guard, hold for a match ``env``."""
    for p in rule.patterns:
        if p.absent:
            continue
        conds = [c for c in p.conditions if c.durable is None]
        if conds:
            local = local_env(defaults, p.type, env[p.bind], env)
            if not all(truth(c, local) for c in conds):
                return False
    return all(truth(c, env) for c in rule.guard)


def blocked(rule: Rule, env: dict[str, dict], by_type: dict[str, list[dict]], defaults: dict[str, dict],
            index: "FieldIndex | None" = None) -> bool:
    """Some fact matches one of the rule's absent patterns, so the match must not fire. With ``index``
    only the facts whose field equals what the pattern's first usable equality asks for are tested
    (the same facts that can pass it; see :func:`equality_key`)."""
    for p in rule.patterns:
        if p.absent:
            facts = by_type.get(p.type, ())
            key = equality_key(p, env) if index is not None and facts else None
            if key is not None:
                facts = index.lookup(p.type, key[0], key[1], facts)
            for f in facts:
                if all(truth(c, local_env(defaults, p.type, f, env)) for c in p.conditions):
                    return True
    return False


class Absent:
    """A rule's absent patterns as :func:`blocked` reads them, compiled once (``expr_compile``: the same
    values and errors as ``expr.evaluate``): per pattern its type, the field and compiled expression of
    the equality :func:`equality_key` picks for the rule's bindings ``binds``, its conditions, and the
    nulls of its type that they read (:func:`nulls_read`; ``defaults``: :func:`defaults_of`)."""

    def __init__(self, rule: Rule, binds: set[str], defaults: dict[str, dict]):
        env = dict.fromkeys(binds)          # equality_key reads only which names are bound
        self.patterns = [(p.type, _equality_of(p, env), [compile_node(c.node) for c in p.conditions],
                          nulls_read(defaults.get(p.type, {}), [c.node for c in p.conditions]))
                         for p in rule.patterns if p.absent]

    def blocks(self, env: dict[str, dict], by_type: dict[str, list[dict]], index: "FieldIndex | None") -> bool:
        """:func:`blocked` of the rule for a match ``env``."""
        for ptype, key, conds, nulls in self.patterns:
            facts = by_type.get(ptype, ())
            if key is not None and index is not None and facts:
                try:
                    value = key[1](env)
                    hash(value)
                except (expr.ExprError, TypeError):
                    pass
                else:
                    facts = index.lookup(ptype, key[0], value, facts)
            for f in facts:
                if all_hold(conds, {**nulls, **f, **env}):
                    return True
        return False


def _equality_condition(p: Any, env: dict[str, Any]) -> tuple[str, tuple] | None:
    """The (field, expression node) of the first condition of pattern ``p`` of the form ``field == expression``
    whose expression reads only the bindings named in ``env``."""
    for c in p.conditions:
        node = c.node
        if node[0] != "cmp" or node[1] != "==":
            continue
        for own, other in ((node[2], node[3]), (node[3], node[2])):
            if own[0] != "name" or len(own[1]) != 1 or own[1][0] in env:
                continue
            if any(len(n) < 2 or n[0] not in env for n in expr.names(other)):
                continue
            return own[1][0], other
    return None


def _equality_of(p: Any, env: dict[str, Any]) -> tuple[str, Any] | None:
    """The (field, compiled expression) of the condition :func:`equality_key` evaluates, for bindings ``env``."""
    found = _equality_condition(p, env)
    return (found[0], compile_node(found[1])) if found else None


def equality_key(p: Any, env: dict[str, dict]) -> tuple[str, Any] | None:
    """(field, value) of the first condition of pattern ``p`` of the form ``field == expression`` whose
    expression reads only the match's bindings (``attribute == 'kv_heads'``, ``subject == s.model``),
    evaluated in ``env``: a fact can pass that condition only if its field equals the value (a missing
    field reads as null). None when no condition has that form or its value cannot be read."""
    found = _equality_condition(p, env)
    if found is None:
        return None
    try:
        value = expr.evaluate(found[1], env)
        hash(value)
    except (expr.ExprError, TypeError):
        return None
    return found[0], value


class FieldIndex:
    """Facts by type, field and value, built from a run's append-only ``by_type`` lists as they grow
    (for the absent patterns' equality lookups)."""

    def __init__(self) -> None:
        self._maps: dict[tuple[str, str], tuple[list[int], dict[Any, list[dict]], list[dict]]] = {}

    def lookup(self, ftype: str, field: str, value: Any, facts: list[dict]) -> list[dict]:
        """The facts of ``facts`` (the type's list) whose ``field`` may equal ``value``, in their order:
        those whose value equals it and those whose value cannot be hashed (tested by the caller)."""
        entry = self._maps.get((ftype, field))
        if entry is None:
            entry = self._maps[(ftype, field)] = ([0], {}, [])
        done, by_value, odd = entry
        for i in range(done[0], len(facts)):
            v = facts[i].get(field)
            try:
                by_value.setdefault(v, []).append((i, facts[i]))
            except TypeError:              # an unhashable value (a list): always a candidate
                odd.append((i, facts[i]))
        done[0] = len(facts)
        found = by_value.get(value, [])
        if odd:
            found = sorted(found + odd, key=lambda x: x[0])
        return [f for _, f in found]


def first_failure(rule: Rule, facts: Iterable[dict], defaults: dict[str, dict], qid: str | None = None) -> dict[str, Any]:
    """Match ``rule`` depth-first against ``facts``; report whether it holds or where it stopped.

    Only facts of question ``qid`` (or of no question) are candidates for question-scoped types. The
    reported failure is the deepest one, on a fact that passed the pattern's join conditions, with the
    values the failed condition read and the facts bound so far.
    """
    by_type: dict[str, list[dict]] = {}
    for f in facts:
        by_type.setdefault(f["t"], []).append(f)
    best: dict[str, Any] = {"depth": -1}

    def record(depth, env, cond, values, blocking=None):
        if depth > best["depth"]:
            best.update(depth=depth, env=dict(env), cond=cond, values=values, blocking=blocking)

    def search(i: int, env: dict) -> bool:
        if i == len(rule.patterns):
            for c in rule.guard:
                if not truth(c, env):
                    record(i, env, c.text, values_read(c, env))
                    return False
            return True
        p = rule.patterns[i]
        cands = by_type.get(p.type, [])
        if qid is not None and p.type not in ("ref", "claim"):
            cands = [f for f in cands if f.get("qid") in (None, qid)]
        if p.absent:
            for f in cands:
                if all(truth(c, local_env(defaults, p.type, f, env)) for c in p.conditions):
                    record(i, env, f"no {p.type} fact may match ({', '.join(c.text for c in p.conditions)})", {}, f["fk"])
                    return False
            return search(i + 1, env)
        if not cands:
            record(i, env, f"no {p.type} fact exists to bind as {p.bind}", {})
            return False
        for f in cands:
            local = local_env(defaults, p.type, f, env)
            failed = next((c for c in p.conditions if not truth(c, local)), None)
            if failed is None:
                if search(i + 1, {**env, p.bind: f}):
                    return True
            else:
                joins = [c for c in p.conditions if any(len(n) == 2 for n in expr.names(c.node))]
                if all(truth(c, local) for c in joins):
                    record(i, {**env, p.bind: f}, failed.text, values_read(failed, local))
        return False

    res: dict[str, Any] = {"rule": rule.key, "description": dict(rule.description)}
    if search(0, {}):
        res["holds"] = True
        return res
    res["holds"] = False
    res["failed_condition"] = best.get("cond")
    res["values"] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in (best.get("values") or {}).items()}
    res["bound"] = {b: f.get("fk") for b, f in (best.get("env") or {}).items()}
    if best.get("blocking"):
        res["blocked_by"] = best["blocking"]
    return res
