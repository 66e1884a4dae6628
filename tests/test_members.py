"""List membership and boolean literals decided in durable_rules' join (engine/reasoning/lift.py,
durable_facts.MemberIndex): the firings are those of gpukb's own reading of the rule, for every kind of
item a list can hold."""
from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

from gpukb.engine.reasoning import durable_facts
from gpukb.engine.reasoning.reasoner import Reasoner
from gpukb.engine.reasoning.rules import definition, load_rules

TYPES = """\
types:
  box:
    base: true
    fields: {kind: {}, tags: {}, flag: {}}
  item:
    base: true
    fields: {name: {required: true, scalar: true}, other: {}}
  out:
    fields: {a: {required: true}, b: {}}
"""

RULES = """\
rules:
  - id: holds
    version: 1
    description: {en: "A box holds a named item.", zh: "盒子装有该物品。"}
    when:
      - {bind: a, type: box, where: "kind == 'crate'"}
      - {bind: b, type: item}
    if: "has(a.tags, b.name)"
    derive: {type: out, set: {a: a.fk, b: b.fk}}
  - id: holds_two
    version: 1
    description: {en: "A box holds two.", zh: "盒子装有二。"}
    when:
      - {bind: a, type: box}
    if: "has(a.tags, 2)"
    derive: {type: out, set: {a: a.fk, b: "'two'"}}
  - id: unflagged
    version: 1
    description: {en: "A box that is not flagged.", zh: "未标记的盒子。"}
    when:
      - {bind: a, type: box}
    if: "a.flag == false"
    derive: {type: out, set: {a: a.fk, b: "'unflagged'"}}
  - id: flagged
    version: 1
    description: {en: "A flagged box.", zh: "已标记的盒子。"}
    when:
      - {bind: a, type: box, where: "flag == true"}
    derive: {type: out, set: {a: a.fk, b: "'flagged'"}}
  - id: maybe
    version: 1
    description: {en: "A box that may hold an item (no sure item: left to gpukb).", zh: "可能装有。"}
    when:
      - {bind: a, type: box}
      - {bind: b, type: item}
    if: "has(a.tags, b.other)"
    derive: {type: out, set: {a: a.fk, b: "b.fk + '?'"}}
"""

TAGS = [["x", "y"], ["x", "x"], [2, "2"], [2.0], [1.5], [True], [False, 0], [None], [["x"]], "x", 2, None,
        [], [float("inf")], [2e-06], ["x", None]]
NAMES = ["x", "y", "2", 2, 1, 0, 1.5, 2e-06, "z"]
FLAGS = [False, True, 0, 0.0, 1, 1.0, None, "false", 2, "0", "1", "", "true", -0.0]


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "rules"
    root.mkdir()
    (root / "types.yaml").write_text(TYPES, encoding="utf-8")
    (root / "r.yaml").write_text(textwrap.dedent(RULES), encoding="utf-8")
    return root


def _facts() -> list[dict]:
    boxes = [{"t": "box", "fk": f"B{i}", "kind": kind, "tags": tags, "flag": flag}
             for i, (kind, tags, flag) in enumerate(itertools.product(["crate", "bag"], TAGS, FLAGS[:3]))]
    boxes += [{"t": "box", "fk": f"F{i}", "kind": "bag", "flag": flag} for i, flag in enumerate(FLAGS)]
    items = [{"t": "item", "fk": f"I{i}", "name": name, "other": other}
             for i, (name, other) in enumerate(itertools.product(NAMES, [None, "x", 2]))]
    return boxes + items


def _has(xs, x):
    return x in (xs if isinstance(xs, (list, tuple)) else [xs])


def _expected(facts: list[dict]) -> set[tuple[str, tuple[str, ...]]]:
    boxes = [f for f in facts if f["t"] == "box"]
    items = [f for f in facts if f["t"] == "item"]
    out = {("holds@1", (a["fk"], b["fk"])) for a in boxes for b in items
           if a.get("kind") == "crate" and _has(a.get("tags"), b["name"])}
    out |= {("holds_two@1", (a["fk"],)) for a in boxes if _has(a.get("tags"), 2)}
    out |= {("unflagged@1", (a["fk"],)) for a in boxes if a.get("flag") == False}  # noqa: E712  (gpukb's ==)
    out |= {("flagged@1", (a["fk"],)) for a in boxes if a.get("flag") == True}  # noqa: E712
    out |= {("maybe@1", (a["fk"], b["fk"])) for a in boxes for b in items if _has(a.get("tags"), b.get("other"))}
    return out


def test_membership_and_booleans_are_compiled(tmp_path):
    rs = load_rules(_root(tmp_path))
    d = definition(rs)
    holds = d["r0"]["all"]
    assert [list(p) for p in holds] == [["b_a"], ["b_b"], ["b__m0"]]
    assert holds[2]["b__m0"] == {"$and": [{"t": durable_facts.MEMBER_TYPE}, {"ot": "box"}, {"f": "tags"},
                                          {"of": {"b_a": "fk"}}, {"item": {"b_b": "name"}}]}
    assert d["r1"]["all"][1]["b__m0"]["$and"][-1] == {"item": 2}
    assert rs.get("unflagged").guard[0].durable == {"$or": [{"flag": durable_facts.FALSE_MARK}, {"flag": 0}]}
    assert len(d["r4"]["all"]) == 2                     # b.other may be missing: no member join


def test_firings_are_gpukb_s_reading_of_the_rules(tmp_path):
    facts = _facts()
    reasoner = Reasoner(load_rules(_root(tmp_path)))
    d = reasoner.run(facts)
    got = {(f.rule, f.premises) for f in d.firings}
    assert got == _expected(facts)
    # the member records are durable_rules' alone: no premise, no fact of gpukb names one
    assert not any(k.startswith("$m:") for k in d.facts)
    stats = reasoner.stats.as_dict()["rules"]
    # durable_rules' join equates the text "2" with the number 2 (the 18 turned down: boxes holding 2 or
    # 2.0 and the items named "2"), so gpukb still tests has() on every match it hands back
    assert stats["holds@1"]["rejected"] == 18 and stats["holds_two@1"]["rejected"] == 0
    assert stats["unflagged@1"]["rejected"] == 0
    # shared (reused) facts give the same firings in a second session
    again = reasoner.run([], shared=facts)
    assert {(f.rule, f.premises) for f in again.firings} == got


def test_member_records_follow_the_owner_pattern_s_literals():
    d = {"r0": {"all": [{"b_a": {"$and": [{"t": "box"}, {"kind": "crate"}]}},
                        {"b__m0": {"$and": [{"t": durable_facts.MEMBER_TYPE}, {"ot": "box"}, {"f": "tags"},
                                            {"of": {"b_a": "fk"}}, {"item": "x"}]}}]}}
    index = durable_facts.MemberIndex(d)
    crate = {"t": "box", "fk": "B1", "kind": "crate", "tags": ["x", "x", 2.0, True, None, ["y"], 1.5]}
    recs = index.records(crate)
    assert [r["item"] for r in recs] == ["x", 2, 1, 1.5]
    assert len({r["fk"] for r in recs}) == 4 and all(r["of"] == "B1" and r["f"] == "tags" for r in recs)
    assert index.records({**crate, "kind": "bag"}) == []
    assert [r["item"] for r in index.records({**crate, "kind": None, "tags": "x"})] == ["x"]
    assert index.records({"t": "item", "fk": "I1", "tags": ["x"]}) == []
    assert index.records(crate, reused=True) is index.records(crate, reused=True)
