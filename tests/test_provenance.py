"""Tests of engine.provenance: the provenance graph, proof trees, dependents, ATMS labels, retraction.

Graphs come from two places: hand-built firings (a namedtuple with the fields of reasoner.Firing) and
real derivations of the fixture rule sets in tests/fixtures/.
"""
from __future__ import annotations

import functools
import itertools
from collections import namedtuple
from pathlib import Path

import pytest

from gpukb.engine.reasoning.provenance import (build_graph, dependents, labels, origin_of, premises_of, proof_sizes, proof_tree,
                               supports_of, surviving)
from gpukb.engine.reasoning.reasoner import Derivation, Reasoner
from gpukb.engine.reasoning.rules import load_rules

FIXTURES = Path(__file__).parent / "fixtures"
F = namedtuple("F", "rule premises derived values")
_SEQ = itertools.count()


def claim(source: str) -> dict:
    return {"t": "claim", "source": source}


def plain() -> dict:
    return {"t": "x"}


def graph(facts: dict, firings: list, given: set):
    return build_graph(facts, [F(r, tuple(p), d, ()) for r, p, d in firings], given)


def envs(lab, fact) -> list[set]:
    return sorted((set(e) for e in lab[fact]), key=lambda e: (len(e), sorted(e)))


def walk(tree):
    yield tree
    for p in tree.get("premises", []):
        yield from walk(p)


# --------------------------------------------------------------------------------------------------
# the graph


def test_build_graph_nodes_and_origins():
    facts = {"c1": claim("S1"), "r1": {"t": "ref", "citation": "nvidia-t4"}, "q": {"t": "scenario"},
             "d": plain(), "orphan-claim": {"t": "claim"}}
    g = graph(facts, [("r@1", ["c1", "r1", "q"], "d")], {"c1", "r1", "q", "orphan-claim"})
    assert g.nodes["src:S1"]["kind"] == "origin" and list(g.successors("src:S1")) == ["c1"]
    assert list(g.successors("ref:nvidia-t4")) == ["r1"]
    assert set(g.successors("input")) == {"q", "orphan-claim"}      # a claim without a source rests on the input
    assert g.nodes["d"] == {"kind": "fact", "given": False, "type": "x"}
    assert g.nodes["F0"]["kind"] == "firing" and g.nodes["F0"]["rule"] == "r@1"
    assert premises_of(g, "F0") == ["c1", "r1", "q"]
    assert supports_of(g, "d") == ["F0"] and supports_of(g, "c1") == []
    assert origin_of({"t": "ref"}) == "input" and origin_of({"t": "claim", "source": "S9"}) == "src:S9"


def test_firing_values_are_kept_on_the_firing_node():
    g = build_graph({"a": plain(), "b": plain()}, [F("r@1", ("a",), "b", (("a.x", 3),))], {"a"})
    assert g.nodes["F0"]["values"] == {"a.x": 3}


# --------------------------------------------------------------------------------------------------
# proof sizes and trees


def two_proofs():
    """c has a long proof (s: a, b) listed first and a short one (r: a)."""
    facts = {"a": claim("S1"), "b": claim("S2"), "c": plain()}
    return facts, graph(facts, [("s@1", ["a", "b"], "c"), ("r@1", ["a"], "c")], {"a", "b"})


def test_proof_sizes():
    facts, g = two_proofs()
    assert proof_sizes(g) == {"a": 1, "b": 1, "c": 2}


def test_proof_tree_shows_the_shortest_proof_first():
    facts, g = two_proofs()
    tree = proof_tree(g, "c", facts)
    assert tree["rule"] == "r@1" and tree["firing"] == "F1"
    assert tree["alternatives"] == 1
    assert tree["premises"] == [{"fact": "a", "type": "claim", "given": True}]
    assert proof_tree(g, "a", facts) == {"fact": "a", "type": "claim", "given": True}


def test_proof_tree_prefers_fewer_steps_over_order():
    # d: via a long chain a -> b -> c -> d (listed first) or straight from a
    facts = {k: plain() for k in "abcd"}
    g = graph(facts, [("r@1", ["a"], "b"), ("r@1", ["b"], "c"), ("long@1", ["c"], "d"), ("short@1", ["a"], "d")], {"a"})
    assert proof_sizes(g)["d"] == 2
    assert proof_tree(g, "d", facts)["rule"] == "short@1"


def test_shared_sub_proofs_are_shown_once():
    # a diamond: d needs b and c, both derived from a; a appears twice
    facts = {k: plain() for k in "abcd"}
    g = graph(facts, [("r@1", ["a"], "b"), ("q@1", ["a"], "c"), ("j@1", ["b", "c"], "d")], {"a"})
    tree = proof_tree(g, "d", facts)
    nodes = list(walk(tree))
    a_nodes = [n for n in nodes if n["fact"] == "a"]
    assert a_nodes == [{"fact": "a", "type": "x", "given": True}, {"fact": "a", "type": "x", "shared": True}]
    assert [p["fact"] for p in tree["premises"]] == ["b", "c"]
    assert tree["premises"][1]["premises"] == [{"fact": "a", "type": "x", "shared": True}]


def test_shared_derived_sub_proof_is_not_expanded_again():
    facts = {k: plain() for k in "abcde"}
    g = graph(facts, [("r@1", ["a"], "b"), ("p@1", ["b"], "c"), ("q@1", ["b"], "d"), ("j@1", ["c", "d"], "e")], {"a"})
    tree = proof_tree(g, "e", facts)
    b_nodes = [n for n in walk(tree) if n["fact"] == "b"]
    assert len(b_nodes) == 2
    assert b_nodes[0]["rule"] == "r@1" and b_nodes[1] == {"fact": "b", "type": "x", "shared": True}


def test_proof_tree_through_a_cycle_terminates_and_uses_the_grounded_support():
    # a -> b (F0), b -> c (F1), c -> b (F2): b must be proved from a, not from c
    facts = {"a": claim("S1"), "b": plain(), "c": plain()}
    g = graph(facts, [("from_a@1", ["a"], "b"), ("fwd@1", ["b"], "c"), ("back@1", ["c"], "b")], {"a"})
    assert proof_sizes(g) == {"a": 1, "b": 2, "c": 3}
    tree = proof_tree(g, "c", facts)
    assert tree["rule"] == "fwd@1"
    b = tree["premises"][0]
    assert b["rule"] == "from_a@1"
    assert b["alternatives"] == 0          # back@1 would go through c, which is being proved
    assert b["premises"] == [{"fact": "a", "type": "claim", "given": True}]
    tree_b = proof_tree(g, "b", facts)
    assert tree_b["rule"] == "from_a@1" and tree_b["alternatives"] == 1
    assert tree_b["premises"] == [{"fact": "a", "type": "claim", "given": True}]


def test_an_ungrounded_cycle_has_no_proof_size():
    facts = {"x": plain(), "y": plain(), "a": plain()}
    g = graph(facts, [("r@1", ["x"], "y"), ("r@1", ["y"], "x")], {"a"})
    assert proof_sizes(g) == {"a": 1}


# --------------------------------------------------------------------------------------------------
# dependents


def test_dependents():
    facts = {k: plain() for k in "abcde"}
    g = graph(facts, [("r@1", ["a"], "b"), ("r@1", ["b"], "c"), ("j@1", ["c", "d"], "e")], {"a", "d"})
    assert dependents(g, "a") == {"b", "c", "e"}
    assert dependents(g, "d") == {"e"}
    assert dependents(g, "e") == set()
    assert dependents(g, "input") == set("abcde")     # origins are nodes too; firings are not reported


def test_dependents_in_a_cycle():
    facts = {"a": plain(), "b": plain(), "c": plain()}
    g = graph(facts, [("r@1", ["a"], "b"), ("r@1", ["b"], "c"), ("r@1", ["c"], "b")], {"a"})
    assert dependents(g, "b") == {"c"}
    assert dependents(g, "a") == {"b", "c"}


# --------------------------------------------------------------------------------------------------
# ATMS labels


def test_two_independent_sources_give_two_environments():
    g = graph({"a": claim("S1"), "b": claim("S2"), "c": plain()},
              [("r@1", ["a"], "c"), ("s@1", ["b"], "c")], {"a", "b"})
    lab = labels(g)
    assert envs(lab, "c") == [{"src:S1"}, {"src:S2"}]
    assert envs(lab, "a") == [{"src:S1"}]


def test_a_join_of_two_sources_gives_one_environment_with_both():
    g = graph({"a": claim("S1"), "b": claim("S2"), "c": plain()}, [("j@1", ["a", "b"], "c")], {"a", "b"})
    assert envs(labels(g), "c") == [{"src:S1", "src:S2"}]


def test_labels_keep_only_minimal_environments():
    # c from a alone and from a join of a and b: {S1} subsumes {S1, S2}
    _, g = two_proofs()
    assert envs(labels(g), "c") == [{"src:S1"}]


def test_labels_combine_through_chains():
    facts = {"a": claim("S1"), "b": claim("S2"), "b2": {"t": "ref", "citation": "paper"}, "m": plain(), "n": plain(),
             "o": plain()}
    g = graph(facts, [("r@1", ["a"], "m"), ("r@1", ["b"], "n"), ("r2@1", ["b2"], "n"), ("j@1", ["m", "n"], "o")],
              {"a", "b", "b2"})
    assert envs(labels(g), "o") == [{"ref:paper", "src:S1"}, {"src:S1", "src:S2"}]


def test_a_cycle_adds_no_environment_and_an_ungrounded_cycle_has_no_label():
    facts = {"a": claim("S1"), "b": plain(), "c": plain(), "x": plain(), "y": plain()}
    g = graph(facts, [("r@1", ["a"], "b"), ("r@1", ["b"], "c"), ("r@1", ["c"], "b"),
                      ("r@1", ["x"], "y"), ("r@1", ["y"], "x")], {"a"})
    lab = labels(g)
    assert envs(lab, "b") == [{"src:S1"}] and envs(lab, "c") == [{"src:S1"}]
    assert "x" not in lab and "y" not in lab


def test_given_facts_without_source_rest_on_the_input():
    g = graph({"q": {"t": "scenario"}, "d": plain()}, [("r@1", ["q"], "d")], {"q"})
    assert envs(labels(g), "d") == [{"input"}]


# --------------------------------------------------------------------------------------------------
# retraction


def test_retraction_with_independent_support_survives():
    g = graph({"a": claim("S1"), "b": claim("S2"), "c": plain()}, [("r@1", ["a"], "c"), ("s@1", ["b"], "c")],
              {"a", "b"})
    assert surviving(g, []) == {"a", "b", "c"}
    assert surviving(g, ["src:S1"]) == {"b", "c"}
    assert surviving(g, ["src:S2"]) == {"a", "c"}
    assert surviving(g, ["src:S1", "src:S2"]) == set()


def test_retraction_without_independent_support_removes_the_conclusion():
    g = graph({"a": claim("S1"), "b": claim("S2"), "c": plain(), "d": plain()},
              [("j@1", ["a", "b"], "c"), ("r@1", ["c"], "d")], {"a", "b"})
    assert surviving(g, ["src:S2"]) == {"a"}


def test_retracting_a_fact_by_key():
    g = graph({"a": claim("S1"), "b": plain(), "c": plain(), "e": claim("S2")},
              [("r@1", ["a"], "b"), ("r@1", ["b"], "c"), ("s@1", ["e"], "c")], {"a", "e"})
    assert surviving(g, ["b"]) == {"a", "e", "c"}        # c has another support
    assert surviving(g, ["a", "e"]) == set()
    assert surviving(g, ["c"]) == {"a", "b", "e"}        # a retracted conclusion stays retracted


def test_a_cycle_does_not_keep_itself_alive():
    facts = {"a": claim("S1"), "b": plain(), "c": plain()}
    g = graph(facts, [("r@1", ["a"], "b"), ("r@1", ["b"], "c"), ("r@1", ["c"], "b")], {"a"})
    assert surviving(g, []) == {"a", "b", "c"}
    assert surviving(g, ["src:S1"]) == set()
    assert surviving(g, ["a"]) == set()


def test_retracting_an_unknown_origin_changes_nothing():
    _, g = two_proofs()
    assert surviving(g, ["src:S9", "nothing"]) == {"a", "b", "c"}


# --------------------------------------------------------------------------------------------------
# on real derivations


@functools.lru_cache(maxsize=None)
def reasoner(name: str) -> Reasoner:
    return Reasoner(load_rules(FIXTURES / name))


def sources_derivation():
    p = f"p{next(_SEQ)}"      # fresh keys: durable_host caches projections by key
    facts = [
        {"t": "claim", "fk": f"{p}:C1", "subject": "A100", "attribute": "mem", "value": 80, "source": "S1"},
        {"t": "claim", "fk": f"{p}:C2", "subject": "A100", "attribute": "mem", "value": 80, "source": "S2"},
        {"t": "ref", "fk": f"{p}:R1", "subject": "A100", "attribute": "mem", "value": 80, "citation": "nvidia"},
        {"t": "claim", "fk": f"{p}:C3", "subject": "A100", "attribute": "gpus", "value": 4, "source": "S3"},
        {"t": "claim", "fk": f"{p}:C4", "subject": "T4", "attribute": "mem", "value": 16, "source": "S1"},
    ]
    d = reasoner("rules_sources").run(facts)
    return p, d, build_graph(d.facts, d.firings, d.given)


def key_of(d, ftype, **fields):
    (hit,) = [f["fk"] for f in d.derived(ftype) if all(f.get(k) == v for k, v in fields.items())]
    return hit


def test_derivation_labels_and_supports():
    p, d, g = sources_derivation()
    mem = key_of(d, "known", subject="A100", attribute="mem")
    total = key_of(d, "total", subject="A100")
    verdict = key_of(d, "verdict", subject="A100")
    assert d.facts[total]["value"] == 320 and d.facts[verdict]["big"] is True
    assert sorted(f.rule for f in d.supports[mem]) == ["known.from_claim@1", "known.from_claim@1", "known.from_ref@1"]
    lab = labels(g)
    assert envs(lab, mem) == [{"ref:nvidia"}, {"src:S1"}, {"src:S2"}]
    assert envs(lab, total) == [{"ref:nvidia", "src:S3"}, {"src:S1", "src:S3"}, {"src:S2", "src:S3"}]
    assert envs(lab, verdict) == envs(lab, total)
    assert envs(lab, key_of(d, "known", subject="T4")) == [{"src:S1"}]


def test_derivation_retraction():
    p, d, g = sources_derivation()
    mem = key_of(d, "known", subject="A100", attribute="mem")
    total = key_of(d, "total", subject="A100")
    verdict = key_of(d, "verdict", subject="A100")
    t4 = key_of(d, "known", subject="T4")
    alive = surviving(g, ["src:S1"])
    assert {mem, total, verdict} <= alive and t4 not in alive          # independent support from S2 and the ref
    alive = surviving(g, ["src:S3"])
    assert mem in alive and total not in alive and verdict not in alive
    alive = surviving(g, ["src:S1", "src:S2", "ref:nvidia"])
    assert alive == {f"{p}:C3", key_of(d, "known", subject="A100", attribute="gpus")}
    assert dependents(g, f"{p}:C3") == {key_of(d, "known", subject="A100", attribute="gpus"), total, verdict}


def test_derivation_proof_tree():
    p, d, g = sources_derivation()
    verdict = key_of(d, "verdict", subject="A100")
    tree = proof_tree(g, verdict, d.facts)
    assert tree["rule"] == "verdict.of@1" and tree["values"] == {"t1.subject": "A100", "t1.value": 320}
    total = tree["premises"][0]
    assert total["rule"] == "total.of@1"
    mem, gpus = total["premises"]
    assert mem["type"] == "known" and mem["alternatives"] == 2          # three supports, one shown
    assert mem["premises"][0]["given"] is True
    assert gpus["premises"] == [{"fact": f"{p}:C3", "type": "claim", "given": True}]
    assert not any(n.get("shared") for n in walk(tree))


def test_derivation_proof_tree_with_a_shared_premise():
    # a self-loop: hop(0,0,n=2) = hop.step(hop(0,0,n=1), edge(0,0)) and hop(0,0,n=1) = hop.base(edge(0,0))
    e = {"t": "edge", "fk": f"p{next(_SEQ)}:E0-0", "a": 0, "b": 0}
    d = reasoner("rules_hops").run([e])
    hop2 = key_of(d, "hop", n=2)
    g = build_graph(d.facts, d.firings, d.given)
    tree = proof_tree(g, hop2, d.facts)
    assert tree["rule"] == "hop.step@1"
    hop1, edge = tree["premises"]
    assert hop1["rule"] == "hop.base@1" and hop1["premises"] == [{"fact": e["fk"], "type": "edge", "given": True}]
    assert edge == {"fact": e["fk"], "type": "edge", "shared": True}
    assert proof_sizes(g)[hop2] == 4          # edge + base firing + edge again + step firing


def test_derivation_with_a_cycle_of_paths():
    # edges 0 -> 1 -> 0: path(0,0) and path(0,1) support each other through path.step
    p = f"p{next(_SEQ)}"
    d = reasoner("rules_paths").run([{"t": "edge", "fk": f"{p}:E0-1", "a": 0, "b": 1},
                                     {"t": "edge", "fk": f"{p}:E1-0", "a": 1, "b": 0}])
    g = build_graph(d.facts, d.firings, d.given)
    p01 = key_of(d, "path", a=0, b=1)
    tree = proof_tree(g, p01, d.facts)
    assert tree["rule"] == "path.base@1" and tree["alternatives"] == 1
    assert surviving(g, [f"{p}:E0-1"]) == {f"{p}:E1-0", key_of(d, "path", a=1, b=0)}
    assert surviving(g, ["input"]) == set()


def test_a_proof_tree_from_the_ancestor_graph_equals_one_from_the_whole_graph():
    """Every derived fact of a question's staged session (its scenario and every variant): the proof
    tree read from the part of the graph the fact rests on is the whole graph's, node for node."""
    from gpukb.engine.reasoning.provenance import ancestor_graph
    from tests._engine import bundled
    kb = bundled()
    view = kb.view(None)
    with kb.staged(view) as run:
        kb._cache.clear()
        kb.query({"params": 13e9, "method": "full", "gpu": "T4"}).to_json()
        d = Derivation(dict(run.known), list(run.firings), set(run.given))
    kb._cache.clear()
    whole = build_graph(d.facts, d.firings, d.given)
    sizes = proof_sizes(whole)
    checked = 0
    for fk in d.facts:
        if fk in d.given:
            continue
        part = ancestor_graph(d.facts, d.firings, d.given, fk)
        assert proof_tree(part, fk, d.facts, proof_sizes(part)) == proof_tree(whole, fk, d.facts, sizes)
        assert part.number_of_nodes() < whole.number_of_nodes()
        checked += 1
    assert checked > 100
