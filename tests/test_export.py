"""Tests of engine.export: plain-text, Graphviz DOT and W3C PROV-JSON renderings of an explanation tree."""
from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prov.model import ProvDocument

from gpukb.engine.explain.export import to_text, tree_facts
from gpukb.engine.explain.dot import to_dot
from gpukb.engine.explain.prov import to_prov

QUOTE = "T4 仅 16GB 显存"
SOURCES = {"S001": {"title": "云端 GPU 选型指南", "publisher": "Example Tech Blog", "published": "2026-09-16"}}


def scenario(shared: bool = False) -> dict:
    node = {"fact": "scenario:q1", "type": "scenario",
            "label": {"en": "fine-tune llama-13b (fp16, Adam) on g4dn.xlarge",
                      "zh": "在 g4dn.xlarge 上微调 llama-13b（fp16，Adam）"}}
    if shared:
        node["shared"] = True
        return node
    node.update(data={"model": "llama-13b", "params": 13e9, "instance": "g4dn.xlarge", "task": "train"},
                given=True, tier="input")
    return node


def gpu(shared: bool = False) -> dict:
    node = {"fact": "D-instance_gpu-5e6f7a8b9c", "type": "instance_gpu",
            "label": {"en": "g4dn.xlarge has 1 × NVIDIA T4", "zh": "g4dn.xlarge 配 1 块 NVIDIA T4"}}
    if shared:
        node["shared"] = True
        return node
    node.update(data={"instance": "g4dn.xlarge", "gpu": "T4", "count": 1},
                rule="catalog.instance_gpu@1",
                rule_description={"en": "an instance brings its catalogued GPUs", "zh": "实例自带目录中的 GPU"},
                values={"s.instance": "g4dn.xlarge"}, alternatives=0, premises=[scenario(shared=True)])
    return node


def make_tree() -> dict:
    """verdict ← memory estimate (scenario + reference) and capacity (GPU + Chinese claim + reference); GPU shared."""
    memory = {
        "fact": "D-train_memory-0a1b2c3d4e", "type": "train_memory",
        "label": {"en": "training needs 208 GB", "zh": "训练需要 208 GB"},
        "data": {"gb": 208.0},
        "rule": "sizing.train_memory@1",
        "rule_description": {"en": "memory = parameters × bytes per parameter",
                             "zh": "显存 = 参数量 × 每参数字节数"},
        "values": {"s.params": 13000000000.0, "r.bytes_per_param": 16},
        "alternatives": 0,
        "premises": [
            scenario(),
            {"fact": "R-adam-bytes_per_param@1", "type": "ref",
             "label": {"en": "mixed-precision Adam keeps 16 bytes per parameter",
                       "zh": "混合精度 Adam 每个参数占 16 字节"},
             "data": {"bytes_per_param": 16}, "given": True, "tier": "reference",
             "citation": "Rajbhandari et al., ZeRO (2020)", "confidence": "high"},
        ],
    }
    capacity = {
        "fact": "D-capacity-1f2e3d4c5b", "type": "capacity",
        "label": {"en": "usable GPU memory 15.7 GB", "zh": "可用显存 15.7 GB"},
        "data": {"gb": 15.7},
        "rule": "sizing.capacity@1",
        "rule_description": {"en": "capacity = GPU memory less the driver reserve",
                             "zh": "可用显存 = 显存减去驱动预留"},
        "values": {"c.gb": 15.7},
        "alternatives": 1,
        "premises": [
            gpu(),
            {"fact": "S001-C005@1", "type": "claim",
             "label": {"en": "the T4 has 16 GB of memory", "zh": "T4 有 16GB 显存"},
             "data": {"gpu": "T4", "memory_gb": 16}, "given": True, "tier": "claim",
             "source": "S001", "quote": QUOTE, "span": [311, 322]},
            {"fact": "R-T4-memory_gb@1", "type": "ref",
             "label": {"en": "T4 usable memory is 15.7 GB", "zh": "T4 可用显存 15.7 GB"},
             "data": {"gpu": "T4", "usable_gb": 15.7}, "given": True, "tier": "reference",
             "citation": "NVIDIA T4 product brief", "confidence": "high"},
        ],
    }
    return {
        "fact": "D-verdict-1a2b3c4d5e", "type": "verdict",
        "label": {"en": "does not fit: needs 208 GB, capacity 15.7 GB", "zh": "放不下：需要 208 GB，可用 15.7 GB"},
        "data": {"fits": False},
        "rule": "sizing.verdict@1",
        "rule_description": {"en": "a job fits when its memory need is within capacity",
                             "zh": "所需显存不超过可用显存时才能放下"},
        "values": {"m.gb": 208.0, "c.gb": 15.7},
        "alternatives": 0,
        "premises": [memory, capacity, gpu(shared=True)],
    }


FACTS = ["D-verdict-1a2b3c4d5e", "D-train_memory-0a1b2c3d4e", "scenario:q1", "R-adam-bytes_per_param@1",
         "D-capacity-1f2e3d4c5b", "D-instance_gpu-5e6f7a8b9c", "S001-C005@1", "R-T4-memory_gb@1"]
RULES = {"sizing.verdict@1", "sizing.train_memory@1", "sizing.capacity@1", "catalog.instance_gpu@1"}


@pytest.fixture
def tree() -> dict:
    t = make_tree()
    json.dumps(t)  # the fixture has the shape the engine produces: plain JSON
    return t


# --------------------------------------------------------------------------- tree_facts


def test_tree_facts_distinct_first_seen_order(tree):
    assert tree_facts(tree) == FACTS


def test_functions_do_not_mutate_the_tree(tree):
    before = copy.deepcopy(tree)
    to_text(tree), to_text(tree, "zh"), to_dot(tree), to_prov(tree, SOURCES)
    assert tree == before


# --------------------------------------------------------------------------- text


def test_text_contains_quote_rules_and_leaves(tree):
    text = to_text(tree)
    assert f"“{QUOTE}” — S001 [311:322]" in text
    assert "reference: T4 usable memory is 15.7 GB — NVIDIA T4 product brief (high)" in text
    assert "input: fine-tune llama-13b" in text
    for rule in RULES:
        assert f"[{rule}]" in text
    first = text.splitlines()[0]
    assert first.startswith("does not fit: needs 208 GB, capacity 15.7 GB [sizing.verdict@1] (values: m.gb=208, c.gb=15.7)")
    assert "s.params=13000000000, r.bytes_per_param=16" in text
    assert "(other proofs: 1)" in text


def test_text_prints_shared_proof_once(tree):
    text = to_text(tree)
    assert text.count("[catalog.instance_gpu@1]") == 1
    assert text.count("(see above: D-instance_gpu-5e6f7a8b9c)") == 1
    assert text.count("(see above: scenario:q1)") == 1
    assert text.count("input: fine-tune llama-13b") == 1
    assert len(text.splitlines()) == len(FACTS) + 2  # every fact once, plus the two back-references


def test_text_tree_drawing(tree):
    lines = to_text(tree).splitlines()
    assert not lines[0].startswith(("├", "└", " "))
    assert lines[1].startswith("├─ training needs 208 GB")
    assert lines[-1] == "└─ g4dn.xlarge has 1 × NVIDIA T4 (see above: D-instance_gpu-5e6f7a8b9c)"
    assert any(line.startswith("│  ├─ ") for line in lines)


def test_text_zh_uses_zh_labels_and_descriptions(tree):
    text = to_text(tree, lang="zh")
    assert text.splitlines()[0].startswith("放不下：需要 208 GB，可用 15.7 GB [sizing.verdict@1]")
    assert "所需显存不超过可用显存时才能放下" in text
    assert f"“{QUOTE}”" in text
    assert "does not fit" not in text and "training needs" not in text


def test_text_unknown_language_falls_back_to_english(tree):
    assert to_text(tree, lang="fr").splitlines()[0].startswith("does not fit")


def test_text_expands_first_occurrence_even_when_it_is_the_shared_marker():
    leaf = {"fact": "a", "type": "scenario", "label": {"en": "A"}, "given": True, "tier": "input"}
    mid = {"fact": "b", "type": "t", "label": {"en": "B"}, "rule": "r@1", "premises": [leaf]}
    tree = {"fact": "c", "type": "t", "label": {"en": "C"}, "rule": "s@1",
            "premises": [{"fact": "b", "type": "t", "label": {"en": "B"}, "shared": True}, mid]}
    assert to_text(tree).splitlines() == ["C [s@1]", "├─ B [r@1]", "│  └─ input: A", "└─ B (see above: b)"]


def test_text_multiline_label_stays_on_one_line():
    tree = {"fact": "x", "type": "scenario", "label": {"en": "one\ntwo\r\nthree"}, "given": True, "tier": "input"}
    assert to_text(tree) == "input: one two three"


# --------------------------------------------------------------------------- DOT

QS = r'"(?:[^"\\]|\\.)*"'
ATTR = rf'\w+=(?:{QS}|[\w.]+)'
NODE_LINE = re.compile(rf'^  ({QS}) \[{ATTR}(?:, {ATTR})*\];$')
EDGE_LINE = re.compile(rf'^  ({QS}) -> ({QS});$')
DEFAULTS_LINE = re.compile(rf'^  (?:graph|node|edge) \[{ATTR}(?:, {ATTR})*\];$')


def check_dot(dot: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Parse-check DOT output line by line; return declared node ids and edges."""
    lines = dot.split("\n")
    assert lines[0] == "digraph proof {" and lines[-1] == "}"
    nodes, edges = [], []
    for line in lines[1:-1]:
        assert line.endswith(";"), line
        unescaped = line.replace("\\\\", "").replace('\\"', "")
        assert unescaped.count('"') % 2 == 0, line
        if m := NODE_LINE.match(line):
            nodes.append(m.group(1))
        elif m := EDGE_LINE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            assert DEFAULTS_LINE.match(line), line
    outside = re.sub(QS, "", dot)
    assert outside.count("{") == outside.count("}") == 1
    assert outside.count("[") == outside.count("]")
    return nodes, edges


def test_dot_structure(tree):
    dot = to_dot(tree)
    assert dot.startswith("digraph")
    nodes, edges = check_dot(dot)
    assert len(nodes) == len(set(nodes))
    facts = [n for n in nodes if n.startswith('"fact:')]
    assert facts == [f'"fact:{k}"' for k in FACTS]
    firings = [n for n in nodes if n.startswith('"firing:')]
    assert len(firings) == len(RULES)
    declared = set(nodes)
    assert all(a in declared and b in declared for a, b in edges)
    assert ('"fact:D-instance_gpu-5e6f7a8b9c"', '"firing:D-verdict-1a2b3c4d5e"') in edges
    assert ('"firing:D-verdict-1a2b3c4d5e"', '"fact:D-verdict-1a2b3c4d5e"') in edges
    assert len(edges) == len(set(edges))


def test_dot_claim_is_a_note_with_the_quote(tree):
    line = next(ln for ln in to_dot(tree).split("\n") if ln.startswith('  "fact:S001-C005@1"'))
    assert "shape=note" in line
    assert QUOTE in line and "S001 [311:322]" in line  # CJK kept as UTF-8, not escaped


def test_dot_firing_nodes_are_small_boxes_with_rule_ids(tree):
    lines = [ln for ln in to_dot(tree).split("\n") if ln.startswith('  "firing:') and " -> " not in ln]
    assert len(lines) == len(RULES)
    assert all("shape=box" in ln and "fontsize=8" in ln for ln in lines)
    assert {re.search(r'label="([^"]*)"', ln).group(1) for ln in lines} == RULES


def test_dot_escapes_quotes_backslashes_and_newlines():
    tree = {"fact": 'odd"key\\', "type": "claim", "label": {"en": 'a "b" \\c'}, "given": True, "tier": "claim",
            "source": "S9", "quote": 'line1\nsay "x" \\ y & z', "span": [0, 5]}
    dot = to_dot(tree)
    nodes, _ = check_dot(dot)
    assert nodes == ['"fact:odd\\"key\\\\"']
    assert 'say \\"x\\" \\\\ y &amp; z' in dot
    assert "line1”\\nsay" in dot or "“line1\\nsay" in dot


def test_dot_zh_labels(tree):
    dot = to_dot(tree, lang="zh")
    assert "放不下" in dot and "does not fit" not in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not on PATH; cannot render the DOT output")
def test_dot_renders_with_graphviz(tree):
    for lang in ("en", "zh"):
        res = subprocess.run(["dot", "-Tsvg"], input=to_dot(tree, lang).encode("utf-8"),
                             capture_output=True, timeout=60)
        assert res.returncode == 0, res.stderr.decode("utf-8", "replace")
        assert b"<svg" in res.stdout


# --------------------------------------------------------------------------- PROV


def test_prov_has_the_expected_record_kinds(tree):
    doc = to_prov(tree, SOURCES)
    for key in ("prefix", "entity", "activity", "agent", "used", "wasGeneratedBy", "wasDerivedFrom",
                "wasAssociatedWith"):
        assert key in doc
    assert doc["prefix"]["gpukb"] == "https://gpukb.example/ns#"
    assert {"src", "fact", "rule"} <= set(doc["prefix"])
    assert list(doc["agent"]) == ["gpukb:engine"]


def test_prov_round_trips(tree):
    doc = to_prov(tree, SOURCES)
    back = ProvDocument.deserialize(content=json.dumps(doc), format="json")
    again = json.loads(back.serialize(format="json"))
    for key in ("prefix", "entity", "activity", "agent"):  # named records come back identical
        assert again[key] == doc[key]
    for key in ("used", "wasGeneratedBy", "wasDerivedFrom", "wasAssociatedWith"):  # relations: blank ids renumbered
        assert sorted(json.dumps(r, sort_keys=True) for r in again[key].values()) == \
            sorted(json.dumps(r, sort_keys=True) for r in doc[key].values())
    assert back == ProvDocument.deserialize(content=json.dumps(again), format="json")


def test_prov_entity_count_and_types(tree):
    doc = to_prov(tree, SOURCES)
    ents = doc["entity"]
    assert len(ents) == len(FACTS) + len(SOURCES) + len(RULES)

    def ptype(e):
        return e["prov:type"]["$"]

    kinds = {k: ptype(v) for k, v in ents.items()}
    assert kinds["fact:S001-C005@1"] == "gpukb:Claim"
    assert kinds["fact:R-T4-memory_gb@1"] == "gpukb:ReferenceFact"
    assert kinds["fact:scenario:q1"] == "gpukb:Input"
    assert kinds["fact:D-verdict-1a2b3c4d5e"] == "gpukb:DerivedFact"
    assert kinds["src:S001"] == "gpukb:Source"
    assert sorted(k for k, v in kinds.items() if v == "prov:Plan") == sorted(f"rule:{r}" for r in RULES)
    labels = ents["fact:D-verdict-1a2b3c4d5e"]["prov:label"]
    assert {"$": "放不下：需要 208 GB，可用 15.7 GB", "lang": "zh"} in labels
    assert json.loads(ents["fact:scenario:q1"]["gpukb:data"])["params"] == 13e9
    assert ents["src:S001"]["gpukb:published"] == "2026-09-16"


def test_prov_claim_quotes_its_source(tree):
    doc = to_prov(tree, SOURCES)
    quotes = [d for d in doc["wasDerivedFrom"].values() if d["prov:usedEntity"] == "src:S001"]
    assert len(quotes) == 1
    q = quotes[0]
    assert q["prov:generatedEntity"] == "fact:S001-C005@1"
    assert q["gpukb:quote"] == QUOTE and q["gpukb:span"] == "311:322"
    assert q["prov:type"]["$"] == "prov:Quotation"


def test_prov_firings(tree):
    doc = to_prov(tree, SOURCES)
    acts = doc["activity"]
    assert len(acts) == len(RULES)
    assert all(a["prov:type"]["$"] == "gpukb:RuleFiring" for a in acts.values())
    assocs = list(doc["wasAssociatedWith"].values())
    assert {a["prov:activity"] for a in assocs} == set(acts)
    assert {a["prov:plan"] for a in assocs} == {f"rule:{r}" for r in RULES}
    assert all(a["prov:agent"] == "gpukb:engine" for a in assocs)
    gen = {g["prov:entity"]: g["prov:activity"] for g in doc["wasGeneratedBy"].values()}
    assert len(gen) == len(RULES)
    verdict_act = gen["fact:D-verdict-1a2b3c4d5e"]
    used = {u["prov:entity"] for u in doc["used"].values() if u["prov:activity"] == verdict_act}
    assert used == {"fact:D-train_memory-0a1b2c3d4e", "fact:D-capacity-1f2e3d4c5b",
                    "fact:D-instance_gpu-5e6f7a8b9c"}
    derived = {(d["prov:generatedEntity"], d["prov:usedEntity"]) for d in doc["wasDerivedFrom"].values()
               if d.get("prov:activity") == verdict_act}
    assert derived == {("fact:D-verdict-1a2b3c4d5e", u) for u in used}
    # 3 + 2 + 3 + 1 premises over the four firings, shared premises counted once per firing
    assert len(doc["used"]) == 9
    assert json.loads(acts[verdict_act]["gpukb:values"]) == {"m.gb": 208.0, "c.gb": 15.7}


def test_prov_only_sources_quoted_in_the_tree(tree):
    sources = {**SOURCES, "S002": {"title": "unrelated", "publisher": "x", "published": None}}
    doc = to_prov(tree, sources)
    assert "src:S002" not in doc["entity"]
    doc = to_prov(tree, {})  # a quoted source without metadata is still an entity
    assert doc["entity"]["src:S001"]["gpukb:sourceId"] == "S001"


# --------------------------------------------------------------------------- property: arbitrary text

ANY_TEXT = st.text(max_size=60)
TRICKY = st.one_of(ANY_TEXT, st.sampled_from(['"', "\\", '\\"', "\n", "}", "{", "];", "&amp;", "\\n", "\u2028",
                                             "\r", "\x00", "放不下", "a:b", "<b>", "]", "\\\\\""]))


def mutate(tree: dict, texts) -> dict:
    """Replace every label, quote, citation and description of the tree with drawn text."""
    t = copy.deepcopy(tree)
    it = iter(texts)

    def nxt():
        return next(it)

    stack = [t]
    while stack:
        n = stack.pop()
        n["label"] = {"en": nxt(), "zh": nxt()}
        if "quote" in n:
            n["quote"] = nxt()
        if "citation" in n:
            n["citation"] = nxt()
            n["confidence"] = nxt()
        if "rule_description" in n:
            n["rule_description"] = {"en": nxt(), "zh": nxt()}
            n["values"] = {nxt(): nxt()}
        stack.extend(n.get("premises") or [])
    return t


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(TRICKY, min_size=60, max_size=60),
       source_meta=st.fixed_dictionaries({"title": ANY_TEXT, "publisher": ANY_TEXT,
                                          "published": st.one_of(st.none(), ANY_TEXT)}))
def test_arbitrary_text_never_breaks_dot_or_prov(texts, source_meta):
    tree = mutate(make_tree(), texts)
    for lang in ("en", "zh"):
        nodes, edges = check_dot(to_dot(tree, lang))
        assert len(nodes) == len(set(nodes)) == len(FACTS) + len(RULES)
        assert len(edges) == 3 + 2 + 3 + 1 + len(RULES)
        assert to_text(tree, lang).count("\n") == len(FACTS) + 1
    doc = to_prov(tree, {"S001": source_meta})
    assert len(doc["entity"]) == len(FACTS) + 1 + len(RULES)
    ProvDocument.deserialize(content=json.dumps(doc), format="json")
