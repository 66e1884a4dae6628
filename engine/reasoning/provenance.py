"""The provenance graph of a derivation and what can be read from it.

Nodes are sources (``src:S001``), reference citations (``ref:<citation>``), facts (their keys) and
firings (``F<n>``). Edges run from support to what it supports: source → claim, citation → reference
fact, premise → firing → derived fact. All functions here are pure functions over that DiGraph.
"""
from __future__ import annotations

from itertools import product
from typing import Any, Iterable

import networkx as nx

MAX_ENVIRONMENTS = 64


def build_graph(facts: dict[str, dict], firings: Iterable, given: set[str], numbered: bool = False) -> nx.DiGraph:
    """Build the provenance DiGraph of a derivation (``numbered``: ``firings`` are (number, firing)
    pairs, the number naming the firing's node; else they are numbered in order).

    Each given fact hangs from its origin: ``src:<source>`` for a claim, ``ref:<citation>`` for a
    reference fact, ``input`` for anything else (a question's scenario).

    Examples
    --------
    >>> from collections import namedtuple
    >>> F = namedtuple("F", "rule premises derived values")
    >>> facts = {"a": {"t": "claim", "source": "S1"}, "b": {"t": "x"}}
    >>> g = build_graph(facts, [F(rule="r@1", premises=("a",), derived="b", values=())], {"a"})
    >>> sorted(g.successors("src:S1")), sorted(g.successors("F0"))
    (['a'], ['b'])
    """
    g = nx.DiGraph()
    for fk, f in facts.items():
        g.add_node(fk, kind="fact", given=fk in given, type=f.get("t"))
        if fk in given:
            origin = origin_of(f)
            g.add_node(origin, kind="origin")
            g.add_edge(origin, fk)
    for i, firing in (firings if numbered else enumerate(firings)):
        node = f"F{i}"
        g.add_node(node, kind="firing", rule=firing.rule, values=dict(firing.values))
        for p in firing.premises:
            g.add_edge(p, node)
        g.add_edge(node, firing.derived)
    return g


def ancestor_graph(facts: dict[str, dict], firings: list, given: set[str], fact: str) -> nx.DiGraph:
    """The part of :func:`build_graph` that ``fact`` rests on: the facts and firings it can be proved
    from, every support of each (so proof sizes and alternatives are the same), with the same node
    names and in the same order. A proof tree of ``fact`` read from it equals one read from the whole
    graph; building it costs the proof's size instead of the derivation's (a question's session holds
    every variant it evaluated).

    Examples
    --------
    >>> from collections import namedtuple
    >>> F = namedtuple("F", "rule premises derived values")
    >>> facts = {k: {"t": "x"} for k in "abcd"}
    >>> fs = [F("r@1", ("a",), "b", ()), F("r@1", ("c",), "d", ())]
    >>> sorted(ancestor_graph(facts, fs, {"a", "c"}, "b").nodes)
    ['F0', 'a', 'b', 'input']
    """
    supports: dict[str, list[int]] = {}
    for i, firing in enumerate(firings):
        supports.setdefault(firing.derived, []).append(i)
    keep: set[str] = set()
    used: set[int] = set()
    todo = [fact]
    while todo:
        fk = todo.pop()
        if fk in keep:
            continue
        keep.add(fk)
        for i in supports.get(fk, ()):
            if i not in used:
                used.add(i)
                todo.extend(firings[i].premises)
    return build_graph({k: f for k, f in facts.items() if k in keep},
                       [(i, firings[i]) for i in sorted(used)], given, numbered=True)


def origin_of(fact: dict[str, Any]) -> str:
    """The assumption a given fact rests on: its source, its reference citation, or the question."""
    if fact.get("t") == "claim" and fact.get("source"):
        return f"src:{fact['source']}"
    if fact.get("t") == "ref" and fact.get("citation"):
        return f"ref:{fact['citation']}"
    return "input"


def supports_of(g: nx.DiGraph, fact: str) -> list[str]:
    """The firing nodes that derive ``fact`` (empty for a given fact)."""
    return [n for n in g.predecessors(fact) if g.nodes[n].get("kind") == "firing"]


def premises_of(g: nx.DiGraph, firing: str) -> list[str]:
    return list(g.predecessors(firing))


def proof_sizes(g: nx.DiGraph) -> dict[str, float]:
    """Size of the smallest proof of every fact (given facts 1), robust to cycles.

    Examples
    --------
    >>> from collections import namedtuple
    >>> F = namedtuple("F", "rule premises derived values")
    >>> facts = {k: {"t": "x"} for k in "abc"}
    >>> fs = [F(rule="r@1", premises=("a",), derived="c", values=()),
    ...       F(rule="s@1", premises=("a", "b"), derived="c", values=())]
    >>> proof_sizes(build_graph(facts, fs, {"a", "b"}))["c"]
    2
    """
    size: dict[str, float] = {n: 1 for n, d in g.nodes(data=True) if d.get("kind") == "fact" and d.get("given")}
    changed = True
    firings = [n for n, d in g.nodes(data=True) if d.get("kind") == "firing"]
    while changed:
        changed = False
        for f in firings:
            prem = premises_of(g, f)
            if all(p in size for p in prem):
                s = 1 + sum(size[p] for p in prem)
                for d in g.successors(f):
                    if s < size.get(d, float("inf")):
                        size[d] = s
                        changed = True
    return size


def proof_tree(g: nx.DiGraph, fact: str, facts: dict[str, dict], sizes: dict[str, float] | None = None,
               _shown: set[str] | None = None, _path: frozenset = frozenset()) -> dict[str, Any]:
    """The proof tree of ``fact``: shortest support first, each shared sub-proof expanded once.

    A node is ``{"fact": key, "type", "fact_data", "rule", "values", "premises": [...],
    "alternatives": n}``; a sub-proof already shown elsewhere is ``{"fact": key, "shared": true}``.
    """
    sizes = proof_sizes(g) if sizes is None else sizes
    shown = set() if _shown is None else _shown
    node: dict[str, Any] = {"fact": fact, "type": facts.get(fact, {}).get("t")}
    if fact in shown:
        node["shared"] = True
        return node
    shown.add(fact)
    sups = supports_of(g, fact) if fact in g else []
    if not sups:
        node["given"] = True
        return node
    sups = [s for s in sups if not (set(premises_of(g, s)) & _path)] or sups

    def cost(s):
        prem = premises_of(g, s)
        return sum(sizes.get(p, float("inf")) for p in prem)
    sups.sort(key=lambda s: (cost(s), s))
    best = sups[0]
    node["rule"] = g.nodes[best]["rule"]
    node["values"] = g.nodes[best]["values"]
    node["firing"] = best
    node["alternatives"] = len(sups) - 1
    node["premises"] = [proof_tree(g, p, facts, sizes, shown, _path | {fact}) for p in premises_of(g, best)]
    return node


def dependents(g: nx.DiGraph, fact: str) -> set[str]:
    """Every fact that some derivation path leads to from ``fact``.

    Examples
    --------
    >>> from collections import namedtuple
    >>> F = namedtuple("F", "rule premises derived values")
    >>> facts = {k: {"t": "x"} for k in "abc"}
    >>> fs = [F("r@1", ("a",), "b", ()), F("r@1", ("b",), "c", ())]
    >>> sorted(dependents(build_graph(facts, fs, {"a"}), "a"))
    ['b', 'c']
    """
    return {n for n in nx.descendants(g, fact) if g.nodes[n].get("kind") == "fact"}


def labels(g: nx.DiGraph) -> dict[str, list[frozenset[str]]]:
    """ATMS-style labels: for each fact, the minimal sets of origins (sources, citations, input) it rests on.

    Examples
    --------
    >>> from collections import namedtuple
    >>> F = namedtuple("F", "rule premises derived values")
    >>> facts = {"a": {"t": "claim", "source": "S1"}, "b": {"t": "claim", "source": "S2"}, "c": {"t": "x"}}
    >>> fs = [F("r@1", ("a",), "c", ()), F("s@1", ("b",), "c", ())]
    >>> sorted(sorted(e) for e in labels(build_graph(facts, fs, {"a", "b"}))["c"])
    [['src:S1'], ['src:S2']]
    """
    lab: dict[str, list[frozenset[str]]] = {}
    for n, d in g.nodes(data=True):
        if d.get("kind") == "fact" and d.get("given"):
            lab[n] = [frozenset(p for p in g.predecessors(n) if g.nodes[p].get("kind") == "origin")]
    firings = [n for n, d in g.nodes(data=True) if d.get("kind") == "firing"]
    changed = True
    while changed:
        changed = False
        for f in firings:
            prem = premises_of(g, f)
            if not all(p in lab for p in prem):
                continue
            envs = [frozenset().union(*combo) for combo in product(*(lab[p] for p in prem))]
            for d in g.successors(f):
                new = _minimal((lab.get(d) or []) + envs)
                if new != lab.get(d):
                    lab[d] = new
                    changed = True
    return lab


def _minimal(envs: list[frozenset[str]]) -> list[frozenset[str]]:
    uniq = sorted(set(envs), key=lambda e: (len(e), sorted(e)))
    out: list[frozenset[str]] = []
    for e in uniq:
        if not any(o <= e for o in out):
            out.append(e)
    return out[:MAX_ENVIRONMENTS]


def surviving(g: nx.DiGraph, retract: Iterable[str]) -> set[str]:
    """Facts still supported after retracting origins (``src:S001``) or facts (their keys).

    A derived fact survives when some firing of it has every premise surviving (least fixpoint, so a
    cycle cannot keep itself alive).

    Examples
    --------
    >>> from collections import namedtuple
    >>> F = namedtuple("F", "rule premises derived values")
    >>> facts = {"a": {"t": "claim", "source": "S1"}, "b": {"t": "claim", "source": "S2"}, "c": {"t": "x"}}
    >>> g = build_graph(facts, [F("r@1", ("a",), "c", ()), F("s@1", ("b",), "c", ())], {"a", "b"})
    >>> sorted(surviving(g, ["src:S1"]))
    ['b', 'c']
    >>> sorted(surviving(g, ["src:S1", "src:S2"]))
    []
    """
    gone = set(retract)
    alive = set()
    for n, d in g.nodes(data=True):
        if d.get("kind") == "fact" and d.get("given") and n not in gone:
            origins = {p for p in g.predecessors(n) if g.nodes[p].get("kind") == "origin"}
            if not (origins & gone):
                alive.add(n)
    firings = [n for n, d in g.nodes(data=True) if d.get("kind") == "firing"]
    changed = True
    while changed:
        changed = False
        for f in firings:
            if all(p in alive for p in premises_of(g, f)):
                for d in g.successors(f):
                    if d not in alive and d not in gone:
                        alive.add(d)
                        changed = True
    return alive
