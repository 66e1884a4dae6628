"""Which planned pairs of value groups some claim-vs-claim rule can fire on, read from the rules themselves.

A ``cpair`` record (:func:`.blocks.pair_records`) is a premise of the rules that compare two value groups
(rules/audit/claims.yaml) and of nothing else. Most planned pairs fire none of them (two groups that
agree where the reference tier speaks, verdicts of the same polarity, figures of other kinds), yet each
one given to the engine is stored, indexed and joined like any fact (about half of the facts of an
audit run). :class:`PairFilter` matches each rule that reads ``cpair`` against the pair and its two
groups alone, with the rules' own conditions and guard evaluated as the reasoner evaluates what
durable_rules does not (an evaluation error is false), and the engine is given only the pairs some rule
can fire on: the same firings, so the same findings, from fewer facts.

What the filter cannot decide from the pair and its two groups counts as a possible match: an absent
pattern is never taken to block, and a rule reading ``cpair`` otherwise than as one present pattern
next to ``cgroup`` patterns keeps every pair.
"""
from __future__ import annotations

from itertools import product
from typing import Any, Callable, Iterable

from ..reasoning import expr
from ..reasoning.expr_compile import all_hold, compile_node
from ..reasoning.matcher import defaults_of

#: the fact types the filter binds: the pair and its groups
PAIR_TYPE, GROUP_TYPE = "cpair", "cgroup"

Check = Callable[[dict], Any]


class _Pattern:
    """One present pattern of a rule: its conditions that read only its own fact (``own``) and those
    that read other bindings too (``joins``)."""

    __slots__ = ("bind", "type", "nulls", "own", "joins")

    def __init__(self, p: Any, binds: set[str], nulls: dict[str, None]):
        self.bind, self.type, self.nulls = p.bind, p.type, nulls
        reads = [any(n[0] in binds for n in expr.names(c.node)) for c in p.conditions]
        self.own = [compile_node(c.node) for c, j in zip(p.conditions, reads) if not j]
        self.joins = [compile_node(c.node) for c, j in zip(p.conditions, reads) if j]


class _Rule:
    """A rule that reads ``cpair``: its patterns, the positions of its group patterns, its equalities
    ``field == binding.field`` as (position, field, position of the binding, its field), tested first
    without building a scope, and its guard."""

    __slots__ = ("patterns", "group_at", "eqs", "guard")

    def __init__(self, rule: Any, defaults: dict[str, dict[str, None]]):
        present = [p for p in rule.patterns if not p.absent]
        at = {p.bind: k for k, p in enumerate(present)}
        self.patterns = [_Pattern(p, set(at), defaults.get(p.type, {})) for p in present]
        self.group_at = [k for k, p in enumerate(self.patterns) if p.type == GROUP_TYPE]
        self.eqs = [(k, field, at[bind], other) for k, p in enumerate(present) for field, bind, other in _equalities(p.conditions, at)]
        self.guard = [compile_node(c.node) for c in rule.guard]

    def holds(self, bound: list[dict[str, Any]]) -> bool:
        """Whether the rule's conditions and guard hold with its patterns bound to ``bound`` (whose
        group patterns' own conditions and whose equalities were found to hold)."""
        env = {p.bind: f for p, f in zip(self.patterns, bound)}
        for p, f in zip(self.patterns, bound):
            if p.type != GROUP_TYPE and not all_hold(p.own, {**p.nulls, **f}):
                return False
            if p.joins and not all_hold(p.joins, {**p.nulls, **f, **env}):
                return False
        return all_hold(self.guard, env)


class PairFilter:
    """The pairs of groups some rule reading ``cpair`` can fire on (see the module docstring); built once
    per rule set (:func:`pair_filter`)."""

    def __init__(self, ruleset: Any):
        defaults = defaults_of(ruleset.types)
        self.keep_all = False
        self.rules: list[_Rule] = []
        for rule in ruleset.rules:
            if not any(p.type == PAIR_TYPE for p in rule.patterns):
                continue
            present = [p for p in rule.patterns if not p.absent]
            if any(p.type not in (PAIR_TYPE, GROUP_TYPE) for p in present) \
                    or sum(p.type == PAIR_TYPE for p in rule.patterns) != 1 or not any(p.type == PAIR_TYPE for p in present):
                self.keep_all = True         # a rule this filter cannot match alone: every pair may fire
                continue
            self.rules.append(_Rule(rule, defaults))
        width = max((len(r.group_at) for r in self.rules), default=0)
        #: per number of group patterns: the rules that have it (a bit mask) and the ways of binding them
        #: to the pair's two groups (0: the first, 1: the second), each with, per rule, where each of its
        #: patterns takes its fact from (0, 1: a group, 2: the pair) and its equalities between those
        self.shapes: list[tuple[int, list[tuple[tuple[int, ...], dict[int, tuple[list[int], list[tuple[int, str, int, str]]]]]]]] = []
        for n in range(width + 1):
            mask = sum(1 << i for i, r in enumerate(self.rules) if len(r.group_at) == n)
            ways = []
            for way in product((0, 1), repeat=n):
                plans = {}
                for i, r in enumerate(self.rules):
                    if len(r.group_at) == n:
                        sides = iter(way)
                        src = [next(sides) if p.type == GROUP_TYPE else 2 for p in r.patterns]
                        plans[i] = (src, [(src[k], field, src[j], other) for k, field, j, other in r.eqs])
                ways.append((way, plans))
            self.shapes.append((mask, ways))

    def pairs(self, records: Iterable[dict[str, Any]], groups: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """The ``cpair`` records some rule can fire on; ``groups``: group id -> record (a pair whose
        group is not there is kept)."""
        records = list(records)
        if self.keep_all:
            return records
        # per group: for each group pattern position, the rules whose pattern there holds of the group alone
        own: dict[str, list[int]] = {}
        out: list[dict[str, Any]] = []
        for r in records:
            a, b = groups.get(r["a"]), groups.get(r["b"])
            if a is None or b is None:
                out.append(r)
                continue
            for g in (a, b):
                if g["gid"] not in own:
                    own[g["gid"]] = self._own_bits(g)
            if self._fires(r, (a, b), (own[a["gid"]], own[b["gid"]])):
                out.append(r)
        return out

    def _own_bits(self, g: dict[str, Any]) -> list[int]:
        width = len(self.shapes) - 1
        bits = [0] * width
        for i, rule in enumerate(self.rules):
            for j, k in enumerate(rule.group_at):
                p = rule.patterns[k]
                if all_hold(p.own, {**p.nulls, **g}):
                    bits[j] |= 1 << i
        return bits

    def _fires(self, pair: dict[str, Any], ab: tuple[dict[str, Any], dict[str, Any]], bits: tuple[list[int], list[int]]) -> bool:
        """Whether some rule matches the pair with its group patterns bound to the two groups in some way."""
        facts = (ab[0], ab[1], pair)
        for mask, ways in self.shapes:
            if not mask:
                continue
            for way, plans in ways:
                m = mask
                for j, side in enumerate(way):
                    m &= bits[side][j]
                while m:
                    low = m & -m
                    m ^= low
                    i = low.bit_length() - 1
                    src, eqs = plans[i]
                    for k, field, j, other in eqs:
                        if facts[k].get(field) != facts[j].get(other):
                            break
                    else:
                        if self.rules[i].holds([facts[x] for x in src]):
                            return True
        return False


def _equalities(conds: list[Any], binds: dict[str, int]) -> list[tuple[str, str, str]]:
    """(field, binding, its field) of each condition ``field == binding.field``: a fact passes it only
    if its field (null when missing) equals that field of the bound fact (null when missing)."""
    out = []
    for c in conds:
        node = c.node
        if node[0] != "cmp" or node[1] != "==":
            continue
        for mine, other in ((node[2], node[3]), (node[3], node[2])):
            if mine[0] == "name" and len(mine[1]) == 1 and mine[1][0] not in binds \
                    and other[0] == "name" and len(other[1]) == 2 and other[1][0] in binds:
                out.append((mine[1][0], other[1][0], other[1][1]))
                break
    return out


def pair_filter(service: Any) -> PairFilter:
    """The :class:`PairFilter` of the service's rule set (kept on its reasoner)."""
    reasoner = service.reasoner
    found = reasoner.__dict__.get("_gpukb_pair_filter")
    if found is None or found[0] is not reasoner.ruleset:
        found = reasoner.__dict__["_gpukb_pair_filter"] = (reasoner.ruleset, PairFilter(reasoner.ruleset))
    return found[1]

