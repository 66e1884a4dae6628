"""Tests of engine.reasoner: forward chaining over durable_rules on small fixture rule sets.

Fixture rule sets live in tests/fixtures/rules_*/. Runs in which no rule fires are tested in
subprocesses (test_durable_host.py): durable_rules 2.0.28 can crash the interpreter on them.
Scenarios that crashed or diverged from engine.expr's semantics are kept as regression tests; the
ones still open are marked xfail(strict=True) with the bug in the reason.
"""
from __future__ import annotations

import copy
import functools
import itertools
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpukb.engine.core.errors import RuleError
from gpukb.engine.reasoning.reasoner import DEFAULT_BUDGET, Derivation, Reasoner
from gpukb.engine.reasoning.rules import load_rules

FIXTURES = Path(__file__).parent / "fixtures"


@functools.lru_cache(maxsize=None)
def reasoner(name: str) -> Reasoner:
    """One Reasoner per fixture rule set for the whole module (each registers a durable ruleset)."""
    return Reasoner(load_rules(FIXTURES / name))


_SEQ = itertools.count()


def tag() -> str:
    """A fresh key prefix, so no two tests share a fact key (reusing a key across runs is tested on its
    own: durable_host once cached projections by key for the whole process)."""
    return f"t{next(_SEQ)}"


def keyed(facts: list[dict]) -> list[dict]:
    """Copies of ``facts`` whose keys carry a fresh prefix."""
    prefix = tag()
    return [{**f, "fk": f"{prefix}:{f['fk']}"} for f in facts]


def edges(pairs, prefix: str | None = None) -> list[dict]:
    prefix = prefix or tag()
    return [{"t": "edge", "fk": f"{prefix}:E{a}-{b}", "a": a, "b": b} for a, b in sorted(pairs)]


def content(fact: dict) -> tuple:
    """A fact without its key: (type, sorted fields)."""
    return (fact["t"], tuple(sorted((k, v) for k, v in fact.items() if k not in ("t", "fk"))))


def derived_contents(d: Derivation) -> set[tuple]:
    return {content(f) for f in d.derived()}


def pairs_of(d: Derivation, ftype: str) -> set[tuple]:
    return {(f["a"], f["b"]) for f in d.derived(ftype)}


def find(d: Derivation, ftype: str, **fields) -> dict:
    hits = [f for f in d.derived(ftype) if all(f.get(k) == v for k, v in fields.items())]
    assert len(hits) == 1, (ftype, fields, hits)
    return hits[0]


def rule_line(path: Path, rule_id: str) -> int:
    """1-based line of `- id: <rule_id>` in a rule file."""
    for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text.strip() in (f"- id: {rule_id}", f"id: {rule_id}"):
            return i
    raise AssertionError(f"{rule_id} not in {path}")


# --------------------------------------------------------------------------------------------------
# joins and chains


def test_transitive_closure_of_a_chain():
    d = reasoner("rules_paths").run(edges([(0, 1), (1, 2), (2, 3)]))
    assert pairs_of(d, "path") == {(i, j) for i in range(4) for j in range(i + 1, 4)}
    assert {f["node"] for f in d.derived("reach")} == {1, 2, 3}
    assert {(f["node"], f["label"]) for f in d.derived("labelled")} == {(1, "reachable"), (2, "reachable"),
                                                                         (3, "reachable")}


def test_join_only_matches_on_the_join_condition():
    # two disconnected edges: the join path(0,1) x edge(5,6) must not produce path(0,6)
    d = reasoner("rules_paths").run(edges([(0, 1), (5, 6)]))
    assert pairs_of(d, "path") == {(0, 1), (5, 6)}


def test_chain_of_four_rules_edge_path_reach_labelled():
    d = reasoner("rules_paths").run(edges([(0, 1), (1, 2)], "chain"))
    lab = find(d, "labelled", node=2, label="reachable")
    (f1,) = d.supports[lab["fk"]]
    assert f1.rule == "label.reachable@1"
    reach2 = d.facts[f1.premises[0]]
    assert content(reach2) == ("reach", (("node", 2),))
    (f2,) = d.supports[reach2["fk"]]            # no edge 0->2, so only via a path
    assert f2.rule == "reach.via_path@1"
    path02 = d.facts[f2.premises[0]]
    assert (path02["a"], path02["b"]) == (0, 2)
    (f3,) = d.supports[path02["fk"]]
    assert f3.rule == "path.step@1"
    p01, e12 = (d.facts[k] for k in f3.premises)  # premises in pattern order: path, then edge
    assert content(p01) == ("path", (("a", 0), ("b", 1)))
    assert e12["fk"] == "chain:E1-2" and e12["fk"] in d.given
    (f4,) = d.supports[p01["fk"]]
    assert f4.rule == "path.base@1" and f4.premises == ("chain:E0-1",)


def test_firing_records_the_values_its_expressions_read():
    d = reasoner("rules_paths").run(edges([(0, 1), (1, 2)]))
    p02 = find(d, "path", a=0, b=2)
    (f,) = d.supports[p02["fk"]]
    assert dict(f.values) == {"p.a": 0, "e.b": 2}
    assert f.as_dict() == {"rule": "path.step@1", "premises": list(f.premises), "derived": p02["fk"],
                           "values": {"e.b": 2, "p.a": 0}}


def test_condition_between_two_fields_of_one_fact():
    # label.loop's `a == b` compares two fields of the same fact: gpukb evaluates it itself
    d = reasoner("rules_paths").run(edges([(3, 4), (4, 3), (4, 5)]))
    assert {f["node"] for f in d.derived("labelled") if f["label"] == "loop"} == {3, 4}


def test_given_facts_are_kept_apart_from_derived_ones():
    facts = edges([(0, 1), (1, 2)], "given")
    d = reasoner("rules_paths").run(facts)
    assert d.given == {"given:E0-1", "given:E1-2"}
    assert all(k not in d.given for k in (f["fk"] for f in d.derived()))
    assert [f["fk"] for f in d.of_type("edge")] == ["given:E0-1", "given:E1-2"]
    assert all(f["fk"].startswith("D-") for f in d.derived())
    # derived keys are content hashes: the same fact gets the same key in another run
    again = reasoner("rules_paths").run(list(reversed(facts)))
    assert {f["fk"] for f in again.derived()} == {f["fk"] for f in d.derived()}


def test_derived_facts_carry_only_their_type_key_and_fields():
    rs = load_rules(FIXTURES / "rules_paths")
    d = reasoner("rules_paths").run(edges([(0, 1), (1, 1)]))
    assert d.derived()
    for f in d.derived():
        assert set(f) == {"t", "fk"} | set(rs.types[f["t"]].fields), f
    for f in d.of_type("edge"):
        assert set(f) == {"t", "fk", "a", "b"}


# --------------------------------------------------------------------------------------------------
# several supports


def test_two_firings_of_one_rule_support_the_same_fact():
    d = reasoner("rules_paths").run(edges([(0, 1), (1, 2), (0, 3), (3, 2)], "two"))
    p02 = find(d, "path", a=0, b=2)
    sups = d.supports[p02["fk"]]
    assert len(sups) == 2
    assert {s.rule for s in sups} == {"path.step@1"}
    middles = {d.facts[s.premises[1]]["fk"] for s in sups}
    assert middles == {"two:E1-2", "two:E3-2"}
    assert len({s.premises for s in sups}) == 2


def test_two_rules_support_the_same_fact():
    d = reasoner("rules_paths").run(edges([(0, 1)]))
    r1 = find(d, "reach", node=1)
    sups = d.supports[r1["fk"]]
    assert sorted(s.rule for s in sups) == ["reach.direct@1", "reach.via_path@1"]
    assert len([f for f in d.derived("reach")]) == 1      # one fact, two supports


def test_supports_are_rebuilt_from_firings():
    d = reasoner("rules_paths").run(edges([(0, 1), (1, 2), (0, 2)]))
    rebuilt = Derivation(d.facts, d.firings, d.given)
    assert rebuilt.supports == d.supports
    assert sum(len(v) for v in d.supports.values()) == len(d.firings)


# --------------------------------------------------------------------------------------------------
# guards with functions


JOBS = [
    {"t": "job", "fk": "J1", "name": "train-13b", "need": 208, "gpus": 8, "tags": ["train", "urgent"]},
    {"t": "job", "fk": "J2", "name": "serve-7b", "need": 14, "gpus": 1, "tags": ["serve"]},
    {"t": "job", "fk": "J3", "name": "train-70b", "need": 1120, "gpus": 8, "tags": ["train"]},
    {"t": "job", "fk": "J4", "name": "train-1b", "need": 16, "gpus": 0, "tags": ["train"]},
]
GPUS = [
    {"t": "gpu", "fk": "G1", "name": "A100-80GB", "mem": 80, "kind": "datacenter"},
    {"t": "gpu", "fk": "G2", "name": "T4", "mem": 15, "kind": "datacenter"},
    {"t": "gpu", "fk": "G3", "name": "RTX4090", "mem": 24, "kind": "consumer"},
]


def test_guard_with_max_ceil_and_has():
    d = reasoner("rules_guard").run(JOBS + GPUS)
    plans = {(f["job"], f["gpu"], f["count"]) for f in d.derived("plan")}
    # train-13b: ceil(208/80)=3 <= 8 fits, ceil(208/15)=14 > 8 does not; serve-7b is not tagged train;
    # train-70b: ceil(1120/80)=14 > 8; train-1b: ceil(16/80)=1 <= max(0, 1); consumer GPUs never match
    assert plans == {("train-13b", "A100-80GB", 3), ("train-1b", "A100-80GB", 1)}
    assert {f["job"] for f in d.derived("urgent")} == {"train-13b"}
    assert all(isinstance(f["count"], int) for f in d.derived("plan"))


def test_guard_that_fails_to_evaluate_does_not_fire():
    # need is missing (null): ceil(null / mem) is an error inside a guard, which counts as false
    job = {"t": "job", "fk": "J9", "name": "broken", "gpus": 2, "tags": ["train", "urgent"]}
    d = reasoner("rules_guard").run([job] + GPUS)
    assert d.derived("plan") == []
    assert {f["job"] for f in d.derived("urgent")} == {"broken"}


# --------------------------------------------------------------------------------------------------
# absent patterns


def out_of(d: Derivation) -> set[tuple]:
    return {(f["name"], f["v"]) for f in d.derived("out")}


def test_absent_pattern_holds_when_no_blocking_fact():
    items = [{"t": "item", "fk": "I1", "name": "A"}, {"t": "item", "fk": "I2", "name": "B"}]
    block = [{"t": "block", "fk": "K1", "name": "Z"}]
    d = reasoner("rules_absent").run(keyed(items + block))
    assert out_of(d) == {("A", "seen"), ("A", "free"), ("B", "seen"), ("B", "free")}


def test_absent_pattern_blocked_when_the_blocker_comes_first():
    facts = [{"t": "block", "fk": "K1", "name": "A"}, {"t": "item", "fk": "I1", "name": "A"},
             {"t": "item", "fk": "I2", "name": "B"}]
    d = reasoner("rules_absent").run(keyed(facts))
    assert out_of(d) == {("A", "seen"), ("B", "seen"), ("B", "free")}


def test_absent_pattern_does_not_depend_on_input_order():
    """Regression: Reasoner.run used to chain after each input fact, so an item given before its
    blocking block derived out(A, free) and kept it."""
    item = {"t": "item", "fk": "I1", "name": "A"}
    block = {"t": "block", "fk": "K1", "name": "A"}
    blocker_first = out_of(reasoner("rules_absent").run(keyed([block, item])))
    blocker_last = out_of(reasoner("rules_absent").run(keyed([item, block])))
    assert blocker_first == {("A", "seen")}
    assert blocker_last == blocker_first


# --------------------------------------------------------------------------------------------------
# per-run isolation


def test_runs_on_one_reasoner_never_see_each_other():
    r = reasoner("rules_paths")
    first = r.run(edges([(0, 1)], "iso"))
    second = r.run(edges([(1, 2)], "iso"))   # path(0,1) of run 1 would join with edge(1,2)
    assert pairs_of(first, "path") == {(0, 1)}
    assert pairs_of(second, "path") == {(1, 2)}
    assert {f["node"] for f in second.derived("reach")} == set()
    assert "iso:E0-1" not in second.facts
    third = r.run(edges([(0, 1)], "iso"))    # the same facts (same keys) again: no leftovers, no dedup across runs
    assert derived_contents(third) == derived_contents(first)
    assert len(third.firings) == len(first.firings)


def test_a_key_reused_with_other_content_is_matched_on_its_new_content():
    """Regression: durable_host cached projections by fk for the whole process, so run 2's edge(5,6)
    was matched by reach.direct's `a == 0` because run 1's edge under the same key was (0,1)."""
    r = reasoner("rules_paths")
    k = tag()
    first = r.run([{"t": "edge", "fk": f"{k}:X", "a": 0, "b": 1}])
    assert {f["node"] for f in first.derived("reach")} == {1}
    second = r.run([{"t": "edge", "fk": f"{k}:X", "a": 5, "b": 6}])
    assert pairs_of(second, "path") == {(5, 6)}
    assert second.derived("reach") == []


def test_a_fact_dict_changed_between_runs_is_matched_on_its_new_content():
    r = reasoner("rules_paths")
    e = {"t": "edge", "fk": f"{tag()}:E", "a": 0, "b": 1}
    assert {f["node"] for f in r.run([e]).derived("reach")} == {1}
    e["a"], e["b"] = 5, 6          # same dict, same key, same number of fields
    second = r.run([e])
    assert pairs_of(second, "path") == {(5, 6)}
    assert second.derived("reach") == []


def test_runs_in_threads_stay_isolated():
    r = reasoner("rules_paths")
    results: dict[int, set] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(3):
                d = r.run(edges([(k, k + 1), (k + 1, k + 2)]))
                results.setdefault(k, set()).update(pairs_of(d, "path"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k * 10,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert results == {k * 10: {(k * 10, k * 10 + 1), (k * 10 + 1, k * 10 + 2), (k * 10, k * 10 + 2)}
                       for k in range(4)}


def test_a_failed_run_leaves_nothing_behind():
    r = reasoner("rules_divzero")
    bad = {"t": "seed", "fk": "S0", "n": 1, "d": 0}
    good = {"t": "seed", "fk": "S1", "n": 3, "d": 4}
    with pytest.raises(RuleError):
        r.run([good, bad])
    d = r.run([good])
    assert [f["r"] for f in d.derived("ratio")] == [0.75]
    with pytest.raises(RuleError):     # the same fault again: not hidden by state left from before
        r.run([bad])


def test_input_facts_are_not_modified():
    facts = edges([(0, 1), (1, 2)]) + keyed([{"t": "edge", "fk": "X", "a": 2, "b": 3, "sid": "mine", "note": [1]}])
    before = copy.deepcopy(facts)
    d = reasoner("rules_paths").run(facts)
    assert facts == before
    assert d.facts[before[-1]["fk"]] == before[-1]
    assert (0, 3) in pairs_of(d, "path")


# --------------------------------------------------------------------------------------------------
# budget and arithmetic faults


def test_runaway_rule_raises_rule_error_naming_the_rule():
    r = Reasoner(load_rules(FIXTURES / "rules_runaway"), budget=200)
    with pytest.raises(RuleError) as info:
        r.run([{"t": "seed", "fk": "S", "n": 0}])
    msg = str(info.value)
    assert "count.up" in msg
    assert "200" in msg
    line = rule_line(FIXTURES / "rules_runaway" / "counter.yaml", "count.up")
    assert f"counter.yaml:{line}" in msg
    assert info.value.status == 422


def test_budget_can_be_given_per_run():
    r = reasoner("rules_runaway")
    assert r.budget == DEFAULT_BUDGET
    with pytest.raises(RuleError, match="count.up"):
        r.run([{"t": "seed", "fk": "S", "n": 0}], budget=50)


def test_budget_boundary_is_exact():
    r = reasoner("rules_paths")
    facts = edges([(0, 1), (1, 2), (2, 3), (3, 0)])
    n = len(r.run(facts).firings)
    assert len(r.run(facts, budget=n).firings) == n
    with pytest.raises(RuleError, match="firing budget"):
        r.run(facts, budget=n - 1)


def test_division_by_zero_in_derive_names_rule_and_file_line():
    r = reasoner("rules_divzero")
    with pytest.raises(RuleError) as info:
        r.run([{"t": "seed", "fk": "S0", "n": 1, "d": 0}])
    msg = str(info.value)
    line = rule_line(FIXTURES / "rules_divzero" / "ratio.yaml", "ratio.of")
    assert "ratio.of@3" in msg
    assert f"rules_divzero/ratio.yaml:{line}" in msg
    assert "division by zero" in msg
    assert "S0" in msg        # the premise it failed on


# --------------------------------------------------------------------------------------------------
# durable_rules pitfalls


def test_the_same_fact_twice_in_one_run_is_deduplicated():
    e = {"t": "edge", "fk": "E0-1", "a": 0, "b": 1}
    d = reasoner("rules_paths").run([e, dict(e), e])
    assert d.given == {"E0-1"}
    assert pairs_of(d, "path") == {(0, 1)}
    assert len(d.supports[find(d, "path", a=0, b=1)["fk"]]) == 1


def test_equal_facts_under_different_keys_are_both_kept():
    # same fields, different fk: two given facts; what they derive is one fact with two supports
    d = reasoner("rules_paths").run([{"t": "edge", "fk": "E1", "a": 0, "b": 1},
                                     {"t": "edge", "fk": "E2", "a": 0, "b": 1}])
    assert d.given == {"E1", "E2"}
    p = find(d, "path", a=0, b=1)
    assert sorted(s.premises for s in d.supports[p["fk"]]) == [("E1",), ("E2",)]


def test_a_fact_carrying_sid_is_still_isolated():
    # gpukb overwrites sid with its own session id: a fact naming another session's sid cannot leak
    r = reasoner("rules_paths")
    d1 = r.run([{"t": "edge", "fk": "E", "a": 0, "b": 1, "sid": "q1"}])
    d2 = r.run([{"t": "edge", "fk": "F", "a": 1, "b": 2, "sid": "q1"}])
    assert pairs_of(d1, "path") == {(0, 1)}
    assert pairs_of(d2, "path") == {(1, 2)}


def test_a_fact_carrying_an_id_field_is_matched():
    d = reasoner("rules_absent").run(keyed([{"t": "item", "fk": "I1", "name": "A", "id": 7}]))
    assert out_of(d) == {("A", "seen"), ("A", "free")}


def test_facts_sharing_an_id_field_are_not_silently_dropped():
    """Regression: a fact's own 'id' reached durable_rules, which took it as the message identity, so the
    second fact with the same id was silently invisible to every rule."""
    facts = keyed([{"t": "item", "fk": "I1", "name": "A", "id": 1}, {"t": "item", "fk": "I2", "name": "B", "id": 1}])
    try:
        d = reasoner("rules_absent").run(facts)
    except Exception:   # rejecting such facts is an acceptable answer
        return
    assert out_of(d) == {("A", "seen"), ("A", "free"), ("B", "seen"), ("B", "free")}


# --------------------------------------------------------------------------------------------------
# conditions compiled into durable_rules agree with the expression language


def compiled_run(facts) -> dict[str, set[str]]:
    d = reasoner("rules_compiled").run(keyed(facts))
    out: dict[str, set[str]] = {}
    for f in d.derived("out"):
        out.setdefault(f["name"], set()).add(f["v"])
    return out


def test_compiled_join_comparisons_with_ints_and_floats():
    got = compiled_run([{"t": "item", "fk": "X", "name": "x", "n": 2, "kind": "x"},
                        {"t": "item", "fk": "A", "name": "a", "n": 2},
                        {"t": "item", "fk": "B", "name": "b", "n": 2.5},
                        {"t": "item", "fk": "C", "name": "c", "n": 1}])
    # none of them has tags, so all are tags==null; x never joins with itself
    assert got["a"] == {"seen", "n!=5", "tags==null", "same"}
    assert got["b"] == {"seen", "n!=5", "tags==null", "above"}
    assert got["c"] == {"seen", "n!=5", "tags==null", "half"}     # 2 / 2 == 1
    assert got["x"] == {"seen", "n!=5", "tags==null"}


def test_compiled_null_tests_on_scalar_fields():
    got = compiled_run([{"t": "item", "fk": "A", "name": "a", "n": 5, "tags": "gpu"},
                        {"t": "item", "fk": "B", "name": "b", "n": 5}])
    assert got["a"] == {"seen", "tags!=null"}
    assert got["b"] == {"seen", "tags==null"}


def test_compiled_join_equality_of_int_and_float():
    """Regression: durable_rules does not equate 2 and 2.0, so this join used to miss."""
    got = compiled_run([{"t": "item", "fk": "X", "name": "x", "n": 2, "kind": "x"},
                        {"t": "item", "fk": "A", "name": "a", "n": 2.0}])
    assert "same" in got.get("a", set())


def test_compiled_division_is_true_division():
    """Regression: `/` compiled to durable's $div divided ints as integers (3 / 2 matched n = 1)."""
    got = compiled_run([{"t": "item", "fk": "X", "name": "x", "n": 3, "kind": "x"},
                        {"t": "item", "fk": "A", "name": "a", "n": 1.5},
                        {"t": "item", "fk": "B", "name": "b", "n": 1}])
    assert "half" in got.get("a", set())
    assert "half" not in got.get("b", set())


def test_compiled_not_equal_on_a_missing_field():
    """Regression: `!=` compiled to durable's $neq never matched a fact without the field."""
    got = compiled_run([{"t": "item", "fk": "A", "name": "a"}])
    assert "n!=5" in got["a"]


def test_compiled_null_tests_on_list_fields():
    """Regression: list and boolean fields were hidden from durable_rules, so a list-valued tags
    matched `tags == null` and not `tags != null`."""
    got = compiled_run([{"t": "item", "fk": "A", "name": "a", "n": 5, "tags": ["gpu"]},
                        {"t": "item", "fk": "B", "name": "b", "n": 5, "tags": True},
                        {"t": "item", "fk": "C", "name": "c", "n": 5, "tags": []}])
    assert got["a"] == got["b"] == got["c"] == {"seen", "tags!=null"}


def test_compiled_comparison_of_a_tiny_float():
    got = compiled_run([{"t": "item", "fk": "X", "name": "x", "n": 0, "kind": "x"},
                        {"t": "item", "fk": "A", "name": "a", "n": 5e-05}])
    assert "above" in got["a"] and "same" not in got["a"]


@pytest.mark.parametrize("value", [1e16, -1e16, 6e21])
def test_a_large_round_float_is_matched(value):
    got = compiled_run([{"t": "item", "fk": "X", "name": "x", "n": 0, "kind": "x"},
                        {"t": "item", "fk": "A", "name": "a", "n": value}])
    assert "seen" in got["a"] and ("above" in got["a"]) == (value > 0)


def test_large_floats_with_a_decimal_mantissa_are_matched():
    got = compiled_run([{"t": "item", "fk": "X", "name": "x", "n": 0, "kind": "x"},
                        {"t": "item", "fk": "A", "name": "a", "n": 1.5e20},
                        {"t": "item", "fk": "B", "name": "b", "n": 9.5e15}])
    assert "above" in got["a"] and "above" in got["b"]


def test_compiled_comparison_of_small_floats_above_the_cut():
    got = compiled_run([{"t": "item", "fk": "X", "name": "x", "n": 0, "kind": "x"},
                        {"t": "item", "fk": "A", "name": "a", "n": 0.001}])
    assert "above" in got["a"] and "same" not in got["a"]


# --------------------------------------------------------------------------------------------------
# differential test against a naive fixpoint evaluator (pure Python, no engine code)


def _freeze(f: dict) -> tuple:
    return (f["t"], tuple(sorted((k, v) for k, v in f.items() if k != "t")))


def naive_fixpoint(given: list[dict], rules) -> tuple[set, set]:
    """Apply every rule to every combination of known facts until nothing new appears.

    Returns (derived facts, firings), each firing as (rule id, premise facts, derived fact), all frozen.
    """
    known = {_freeze(f): f for f in given}
    firings = set()
    changed = True
    while changed:
        changed = False
        snapshot = list(known.values())
        for rule_id, rule in rules:
            for premises, new in rule(snapshot):
                key = _freeze(new)
                firings.add((rule_id, tuple(_freeze(p) for p in premises), key))
                if key not in known:
                    known[key] = new
                    changed = True
    given_keys = {_freeze(f) for f in given}
    return {k for k in known if k not in given_keys}, firings


def _of(facts, t):
    return [f for f in facts if f["t"] == t]


def o_path_base(fs):
    for e in _of(fs, "edge"):
        yield (e,), {"t": "path", "a": e["a"], "b": e["b"]}


def o_path_step(fs):
    for p in _of(fs, "path"):
        for e in _of(fs, "edge"):
            if e["a"] == p["b"]:
                yield (p, e), {"t": "path", "a": p["a"], "b": e["b"]}


def o_reach_direct(fs):
    for e in _of(fs, "edge"):
        if e["a"] == 0:
            yield (e,), {"t": "reach", "node": e["b"]}


def o_reach_via_path(fs):
    for p in _of(fs, "path"):
        if p["a"] == 0:
            yield (p,), {"t": "reach", "node": p["b"]}


def o_label_reachable(fs):
    for r in _of(fs, "reach"):
        yield (r,), {"t": "labelled", "node": r["node"], "label": "reachable"}


def o_label_loop(fs):
    for p in _of(fs, "path"):
        if p["a"] == p["b"]:
            yield (p,), {"t": "labelled", "node": p["a"], "label": "loop"}


PATH_RULES = [("path.base@1", o_path_base), ("path.step@1", o_path_step), ("reach.direct@1", o_reach_direct),
              ("reach.via_path@1", o_reach_via_path), ("label.reachable@1", o_label_reachable),
              ("label.loop@1", o_label_loop)]


def o_hop_base(fs):
    for e in _of(fs, "edge"):
        yield (e,), {"t": "hop", "a": e["a"], "b": e["b"], "n": 1, "top": max(e["a"], e["b"])}


def o_hop_step(fs):
    for h in _of(fs, "hop"):
        if not h["n"] < 3:
            continue
        for e in _of(fs, "edge"):
            if e["a"] == h["b"]:
                yield (h, e), {"t": "hop", "a": h["a"], "b": e["b"], "n": h["n"] + 1, "top": max(h["top"], e["b"])}


def o_hop_long(fs):
    for h in _of(fs, "hop"):
        if -(-h["n"] // 2) >= 2:
            yield (h,), {"t": "long", "a": h["a"], "b": h["b"]}


HOP_RULES = [("hop.base@1", o_hop_base), ("hop.step@1", o_hop_step), ("hop.long@1", o_hop_long)]


def engine_result(name: str, given: list[dict]) -> tuple[set, set]:
    d = reasoner(name).run(given)
    frozen = {k: _freeze({kk: vv for kk, vv in f.items() if kk != "fk"}) for k, f in d.facts.items()}
    derived = {frozen[k] for k in d.facts if k not in d.given}
    firings = {(f.rule, tuple(frozen[p] for p in f.premises), frozen[f.derived]) for f in d.firings}
    assert len(firings) == len(d.firings), "a rule fired twice on the same premises"
    return derived, firings


def oracle_given(pairs) -> list[dict]:
    return [{"t": "edge", "a": a, "b": b} for a, b in sorted(pairs)]


EDGE_SETS = st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=25)


def test_oracle_sanity():
    derived, firings = naive_fixpoint(oracle_given({(0, 1), (1, 0)}), PATH_RULES)
    assert {(f[0], dict(f[1])["a"], dict(f[1])["b"]) for f in derived if f[0] == "path"} == {
        ("path", 0, 1), ("path", 1, 0), ("path", 0, 0), ("path", 1, 1)}
    derived, _ = naive_fixpoint(oracle_given({(0, 1), (1, 2), (2, 3), (3, 4)}), HOP_RULES)
    longs = {(dict(f[1])["a"], dict(f[1])["b"]) for f in derived if f[0] == "long"}
    assert longs == {(0, 3), (1, 4)}


@settings(max_examples=60, deadline=None)
@given(EDGE_SETS)
def test_differential_transitive_closure(pairs):
    facts = edges(pairs)
    got_derived, got_firings = engine_result("rules_paths", facts)
    want_derived, want_firings = naive_fixpoint(oracle_given(pairs), PATH_RULES)
    assert got_derived == want_derived
    assert got_firings == want_firings     # the same firings: rule, premises and conclusion


@settings(max_examples=60, deadline=None)
@given(EDGE_SETS)
def test_differential_walks_with_numeric_guard(pairs):
    facts = edges(pairs)
    got_derived, got_firings = engine_result("rules_hops", facts)
    want_derived, want_firings = naive_fixpoint(oracle_given(pairs), HOP_RULES)
    assert got_derived == want_derived
    assert got_firings == want_firings


# --------------------------------------------------------------------------------------------------
# staged runs: one session that facts are added to stage by stage (a question's scenario, then its variants)


def test_a_staged_run_derives_what_one_run_of_all_its_facts_derives():
    r = reasoner("rules_paths")
    first, second = edges([(0, 1), (1, 2)]), edges([(2, 3), (3, 4), (7, 8)])
    with r.staged() as run:
        d1 = run.add(first)
        d2 = run.add(second)
    one = r.run(first + second)
    assert derived_contents(d1) == derived_contents(r.run(first))
    assert derived_contents(d2) == derived_contents(one)
    # each stage's derivation is a snapshot: the second stage did not change the first's
    assert len(d1.facts) < len(d2.facts) and {("path", (("a", 0), ("b", 4)))} <= derived_contents(d2) - derived_contents(d1)
    assert d2.given == {f["fk"] for f in first + second}


def test_a_staged_run_holds_the_lock_only_while_adding_and_deletes_its_state():
    from gpukb.engine.reasoning import durable_host
    r = reasoner("rules_paths")
    got = {}

    def probe():
        lk = durable_host.lock()
        got["free"] = lk.acquire(timeout=2)
        if got["free"]:
            lk.release()
    with r.staged() as run:
        run.add(edges([(0, 1)]))
        t = threading.Thread(target=probe)
        t.start()
        t.join()
        other = r.run(edges([(5, 6), (6, 7)]))      # another session between two stages
        d = run.add(edges([(1, 2)]))
        sid = run.session.sid
    assert got["free"] is True
    assert len(other.derived("path")) == 3 and len(d.derived("path")) == 3
    assert run.session.closed
    with durable_host.lock():
        with pytest.raises(Exception):
            durable_host._host().get_state(r.compiled.name, sid)     # no state left for its sid


def test_a_firings_values_are_read_lazily_and_pickle_with_them():
    import pickle
    d = reasoner("rules_paths").run(edges([(0, 1), (1, 2)]))
    f = next(x for x in d.firings if x.rule == "path.step@1")
    g = pickle.loads(pickle.dumps(f))
    assert g == f and g.values == f.values and dict(g.values) == {"p.a": 0, "e.b": 2}


def test_absent_patterns_found_by_the_field_index_are_those_a_scan_finds():
    """matcher.blocked with the FieldIndex (a lookup by the pattern's equality) and without (every fact
    of the type tested), and the compiled form the reasoner runs (matcher.Absent): the same answer for
    names that are blocked, not blocked, lists and missing."""
    from gpukb.engine.reasoning import matcher
    r = reasoner("rules_absent")
    rule = next(x for x in r.ruleset.rules if any(p.absent for p in x.patterns))
    defaults = matcher.defaults_of(r.ruleset.types)
    blocks = [{"t": "block", "fk": f"b{i}", "name": n} for i, n in enumerate(["a", "b", 3, None, ["c"], "a"])]
    blocks.append({"t": "block", "fk": "bx"})                  # no name at all: reads as null
    by_type = {"block": []}
    index, compiled_index = matcher.FieldIndex(), matcher.FieldIndex()
    absent = matcher.Absent(rule, {p.bind for p in rule.patterns if not p.absent}, defaults)
    for grown in range(len(blocks) + 1):                      # the index catches up as the list grows
        by_type["block"] = blocks[:grown]
        for name in ["a", "b", "c", 3, 3.0, None, "z", True]:
            env = {"i": {"t": "item", "fk": "i", "name": name}}
            scan = matcher.blocked(rule, env, by_type, defaults)
            assert matcher.blocked(rule, env, by_type, defaults, index) == scan, (grown, name)
            assert absent.blocks(env, by_type, compiled_index) == scan == absent.blocks(env, by_type, None)


def test_a_staged_snapshot_reads_only_the_facts_derived_before_it():
    """Derivation.derived_of on a stage's snapshot: the facts derived up to that stage, in order, the
    same as an index built from the snapshot's own facts, while later stages add more."""
    with reasoner("rules_paths").staged() as run:
        first = run.add(edges({(0, 1), (1, 2)}))
        n_first = len(first.derived_of("path", None))
        second = run.add(edges({(2, 3)}))
        assert len(first.derived_of("path", None)) == n_first == 3
        assert len(second.derived_of("path", None)) == 6
        for d in (first, second):
            rebuilt = Derivation(d.facts, d.firings, d.given)
            assert d.derived_of("path", None) == rebuilt.derived_of("path", None) == d.derived("path")
