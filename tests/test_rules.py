"""Tests of engine.rules: loading, validating and compiling rule files.

Malformed rule files are written into tmp_path next to a small types.yaml. The line each problem
should be reported on is marked in the file text with a trailing ``# <-`` comment.
"""
from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest

from gpukb.engine.core.errors import Issue, ValidationError
from gpukb.engine.reasoning.expr import parse
from gpukb.engine.reasoning.rules import RESERVED_FIELDS, RuleSet, definition, fact_key, load_rules

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"

TYPES = """\
types:
  edge:
    base: true
    fields:
      a: {required: true}
      b: {required: true}
      kind: {values: [road, rail]}
  path:
    fields:
      a: {required: true}
      b: {required: true}
  orphan:
    fields:
      x: {}
"""


def write_rules(tmp_path: Path, text: str, name: str = "paths.yaml", types: str = TYPES) -> Path:
    root = tmp_path / "rules"
    root.mkdir(exist_ok=True)
    (root / "types.yaml").write_text(types, encoding="utf-8")
    (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def marked_line(text: str) -> int:
    lines = [i for i, t in enumerate(textwrap.dedent(text).splitlines(), 1) if t.rstrip().endswith("# <-")]
    assert len(lines) == 1, "mark exactly one line"
    return lines[0]


def rule(when: str = '- {bind: e, type: edge, where: "a >= 0"}', derive: str = "{type: path, set: {a: e.a, b: e.b}}",
         extra: str = "", description: str = '{en: "Every edge is a path.", zh: "每条边都是路径。"}') -> str:
    """A one-rule file; `when` and `extra` are YAML lines (extra goes between description and when)."""
    lines = ["rules:", "  - id: path.base", "    version: 1", f"    description: {description}"]
    lines += ["    " + x for x in textwrap.dedent(extra).splitlines() if x.strip()]
    lines += ["    when:"] + ["      " + x for x in textwrap.dedent(when).splitlines() if x.strip()]
    lines += [f"    derive: {derive}", ""]
    return "\n".join(lines)


# (case id, file text, regex the issue message must match, regex str(issue) must match: what is allowed)
MALFORMED = [
    # PyYAML's and libyaml's wordings differ; gpukb uses libyaml when PyYAML has it
    ("bad-yaml-tab", "rules:\n  - id: x\n\tversion: 1  # <-\n", r"cannot start any token|tab character", r"'\\t'|tab"),
    ("bad-yaml-indent", "rules:\n  - id: x\n    version: 1\n   when: []  # <-\n", r"expected <block end>|did not find expected", r"block|expected"),
    ("bad-yaml-mapping", "rules:\n  - id: x\n    version: 1: 2  # <-\n", r"mapping values are not allowed", r"not allowed"),
    ("duplicate-key", rule(extra="version: 2  # <-"), r"duplicate key 'version'", r"first on line 3"),
    ("unknown-type-in-when", rule(when="- {bind: e, type: vertex}  # <-"), r"unknown fact type 'vertex'",
     r"allowed: edge, orphan, path"),
    ("unknown-type-in-derive", rule(derive="{type: road,  # <-\n             set: {a: e.a}}"),
     r"unknown fact type 'road'", r"allowed: edge, orphan, path"),
    ("unknown-field-in-where", rule(when='- {bind: e, type: edge, where: "weight > 1"}  # <-'),
     r"unknown field 'weight' of edge", r"fields: a, b, kind"),
    ("unknown-field-of-binding", rule(when='- {bind: e, type: edge}\n- {bind: f, type: edge, where: "a == e.c"}  # <-'),
     r"unknown field 'c' of edge", r"fields: a, b, kind"),
    ("unknown-field-in-derive", rule(derive="{type: path, set: {a: e.a, b: e.b, c: e.a}}  # <-"),
     r"unknown field 'c' for path", r"allowed: a, b"),
    ("unknown-binding-in-where", rule(when='- {bind: e, type: edge, where: "a == q.b"}  # <-'),
     r"unknown binding 'q'", r"bound so far: none"),
    ("unknown-binding-in-derive", rule(derive="{type: path, set: {a: e.a, b: q.b}}  # <-"),
     r"unknown binding 'q'", r"bound so far: e"),
    ("unknown-binding-in-if", rule(extra='if: "q.a > 1"  # <-'), r"unknown binding 'q'", r"bound so far: e"),
    ("bare-name-in-derive", rule(derive="{type: path, set: {a: e.a, b: b}}  # <-"),
     r"name 'b' must be written binding\.field", r"bindings: e"),
    ("syntax-in-where", rule(when='- {bind: e, type: edge, where: "a >= "}  # <-'), r"bad condition 'a >= '",
     r"end of expression \(column 6\)"),
    ("syntax-in-if", rule(extra='if: "(e.a + 1"  # <-'), r"bad guard", r"expected '\)'.*column"),
    ("syntax-in-derive", rule(derive="{type: path, set: {a: e.a, b: 'e.b * * 2'}}  # <-"),
     r"bad expression for b", r"unexpected '\*' \(column 7\)"),
    ("unknown-function", rule(when='- {bind: e, type: edge, where: "sqrt(a) > 1"}  # <-'),
     r"unknown function 'sqrt'", r"allowed: abs, agree, .*ceil, .*max, min"),
    ("wrong-arity", rule(extra='if: "max() > 1"  # <-'), r"max\(\) takes 1\.\.16 arguments, got 0", r"1\.\.16"),
    ("never-matches-value", rule(when="- {bind: e, type: edge, where: \"kind == 'sea'\"}  # <-"),
     r"can never match: kind == 'sea'", r"one of road, rail"),
    ("never-matches-reversed", rule(when="- {bind: e, type: edge, where: \"'sea' == kind\"}  # <-"),
     r"can never match", r"one of road, rail"),
    ("never-matches-constant", rule(when='- {bind: e, type: edge, where: "1 == 2"}  # <-'),
     r"can never match: 1 == 2 is always false", r"always false"),
    ("never-derived-type", rule(when="- {bind: e, type: edge}\n- {bind: o, type: orphan}  # <-"),
     r"can never match: no rule derives a 'orphan' fact", r"allowed: edge, path"),
    ("missing-zh", rule(description='{en: "Every edge is a path."}  # <-'), r"description needs 'en' and 'zh'", r"'zh'"),
    ("empty-zh", rule(description='{en: "Every edge is a path.", zh: ""}  # <-'), r"description needs 'en' and 'zh'", r"'zh'"),
    ("missing-en", rule(description='{zh: "每条边都是路径。"}  # <-'), r"description needs 'en' and 'zh'", r"'en'"),
    ("derive-base-type", rule(derive="{type: edge,  # <-\n             set: {a: e.a, b: e.b}}"),
     r"'edge' facts come from the KB and cannot be derived", r"cannot be derived"),
    ("unknown-cited-fact", rule(extra="cites: [R-KNOWN, R-NOPE]  # <-"), r"cites unknown reference fact 'R-NOPE'",
     r"R-NOPE"),
    ("absent-on-derived-type", rule(when='- {bind: e, type: edge}\n- {bind: p, type: path, where: "a == e.b", absent: true}  # <-'),
     r"absent patterns may only test base facts", r"not 'path'"),
    ("absent-first", rule(when="- {bind: e, type: edge, absent: true}", extra=""), r"the first pattern cannot be absent",
     r"first pattern"),
    ("absent-with-function", rule(when='- {bind: e, type: edge}\n- {bind: f, type: edge, where: "max(a, 1) == e.b", absent: true}  # <-'),
     r"absent pattern's conditions must be simple comparisons", r"no functions"),
    ("unknown-rule-field", rule(extra="weight: 3  # <-"), r"unknown field 'weight'", r"allowed: .*cites.*derive"),
    ("unknown-pattern-field", rule(when='- bind: e\n  type: edge\n  match: "a > 1"  # <-'), r"unknown pattern field 'match'",
     r"allowed: absent, bind, type, where"),
    ("bad-version", rule().replace("version: 1", "version: 0  # <-"), r"version must be a positive integer", r"positive integer"),
    ("missing-required-field", rule(derive="{type: path, set: {a: e.a}}  # <-"),
     r"derive of path lacks required field\(s\) b", r"\bb\b"),
    ("duplicate-bind", rule(when="- {bind: e, type: edge}\n- {bind: e, type: edge}  # <-"), r"bind 'e' must be a new identifier",
     r"new identifier"),
] + [
    (f"reserved-bind-{name}", rule(when=f"- {{bind: {name}, type: edge}}  # <-", derive="{type: path, set: {a: 1, b: 2}}"),
     rf"bind '{re.escape(name)}' must be a new identifier", r"not id, sid, t, fk")
    for name in ("id", "sid", "t", "fk")
]


@pytest.mark.parametrize("case,text,message,allowed", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_rule_file(tmp_path, case, text, message, allowed):
    root = write_rules(tmp_path, text)
    with pytest.raises(ValidationError) as info:
        load_rules(root, cited_ids={"R-KNOWN"})
    exc = info.value
    assert exc.status == 400
    hits = [i for i in exc.issues if re.search(message, i.message)]
    assert hits, f"no issue matches {message!r}: {[str(i) for i in exc.issues]}"
    issue = hits[0]
    assert issue.file is not None and issue.file.endswith("rules/paths.yaml")
    if "# <-" in text:
        assert issue.line == marked_line(text), str(issue)
    else:
        assert issue.line
    assert re.search(allowed, str(issue)), str(issue)
    # the rendered error names file and line too, for the CLI and the API
    assert f"paths.yaml:{issue.line}" in str(exc)
    assert issue.as_dict()["file"] == issue.file and issue.as_dict()["line"] == issue.line


def test_derive_of_a_base_type_says_which_types_can_be_derived(tmp_path):
    """Regression: this issue used to carry no `allowed` list."""
    root = write_rules(tmp_path, rule(derive="{type: edge, set: {a: e.a, b: e.b}}"))
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    (issue,) = info.value.issues
    assert list(issue.allowed) == ["orphan", "path"]


def test_absent_on_a_derived_type_names_this_rule_sets_base_types(tmp_path):
    """Regression: the message hard-coded '(ref, claim, scenario)' whatever the rule set's base types."""
    root = write_rules(tmp_path, rule(when='- {bind: e, type: edge}\n- {bind: p, type: path, where: "a == e.b", absent: true}'))
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    text = str(info.value.issues[0])
    assert "edge" in text and "scenario" not in text


def test_unknown_cited_fact_says_what_is_allowed(tmp_path):
    """Regression: this issue used to carry no `allowed` hint."""
    root = write_rules(tmp_path, rule(extra="cites: [R-ZERO-K2]"))
    with pytest.raises(ValidationError) as info:
        load_rules(root, cited_ids={"R-ZERO-K", "R-ZERO-stages", "R-T4-mem"})
    (issue,) = info.value.issues
    assert issue.allowed is not None
    assert "R-ZERO-K" in str(issue) and "R-T4-mem" not in str(issue)     # the close ids
    root = write_rules(tmp_path, rule(extra="cites: [X]"))
    with pytest.raises(ValidationError) as info:
        load_rules(root, cited_ids={"R-ZERO-K"})
    assert info.value.issues[0].allowed


# --------------------------------------------------------------------------------------------------
# more validation behaviour


def test_cites_are_not_checked_without_cited_ids(tmp_path):
    root = write_rules(tmp_path, rule(extra="cites: [R-ANYTHING@2]"))
    rs = load_rules(root)
    assert rs.rules[0].cites == ["R-ANYTHING@2"]
    assert load_rules(root, cited_ids={"R-ANYTHING"}).rules[0].cites == ["R-ANYTHING@2"]   # version stripped


def test_all_problems_are_reported_at_once(tmp_path):
    text = rule(when='- {bind: e, type: edge, where: "weight > 1"}', extra='if: "q.a > 1"',
                description='{en: "x"}')
    root = write_rules(tmp_path, text)
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    messages = " | ".join(i.message for i in info.value.issues)
    assert "description needs" in messages
    assert "unknown field 'weight'" in messages
    assert "unknown binding 'q'" in messages
    assert "3 problem(s)" in info.value.message


def test_problems_in_several_files(tmp_path):
    root = write_rules(tmp_path, rule(description='{en: "x"}'), name="a.yaml")
    (root / "sub").mkdir()
    (root / "sub" / "b.yaml").write_text(rule(when="- {bind: e, type: vertex}"), encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    assert {i.file for i in info.value.issues} == {"rules/a.yaml", "rules/sub/b.yaml"}


def test_duplicate_rule_across_files(tmp_path):
    root = write_rules(tmp_path, rule(), name="a.yaml")
    (root / "b.yaml").write_text(rule(), encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    (issue,) = info.value.issues
    assert "duplicate rule path.base@1" in issue.message and "rules/a.yaml:2" in issue.message
    assert issue.file == "rules/b.yaml" and issue.line == 2


def test_a_file_without_a_rules_list(tmp_path):
    root = write_rules(tmp_path, "- just a list\n")
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    (issue,) = info.value.issues
    assert issue.file == "rules/paths.yaml" and issue.line == 1 and "'rules' list" in issue.message


def test_reserved_field_names_in_types(tmp_path):
    types = TYPES.replace("      kind: {values: [road, rail]}", "      kind: {values: [road, rail]}\n      id: {}\n      sid: {}")
    root = write_rules(tmp_path, rule(), types=types)
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    msgs = sorted(i.message for i in info.value.issues)
    assert msgs == ["field name 'id' is reserved", "field name 'sid' is reserved"]
    assert all(i.file == "rules/types.yaml" and i.line == 2 for i in info.value.issues)   # the type's line
    assert set(info.value.issues[0].allowed) == RESERVED_FIELDS


def test_missing_types_file_and_missing_directory(tmp_path):
    root = tmp_path / "rules"
    root.mkdir()
    (root / "paths.yaml").write_text(rule(), encoding="utf-8")
    with pytest.raises(ValidationError, match="file not found"):
        load_rules(root)
    with pytest.raises(ValidationError, match="not found"):
        load_rules(tmp_path / "nowhere")


def test_non_utf8_rule_file(tmp_path):
    root = write_rules(tmp_path, rule())
    (root / "paths.yaml").write_bytes(rule().replace("每条边都是路径。", "x").encode("utf-8") + b"# \xff\xfe\n")
    with pytest.raises(ValidationError) as info:
        load_rules(root)
    assert "not UTF-8" in str(info.value)
    assert info.value.issues[0].file == "rules/paths.yaml"


# --------------------------------------------------------------------------------------------------
# the loaded and compiled form


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("rules_*")))
def test_fixture_rule_sets_load(name):
    rs = load_rules(FIXTURES / name)
    assert isinstance(rs, RuleSet) and rs.rules
    assert all(r.description["zh"] and r.description["en"] for r in rs.rules)
    assert len(definition(rs)) == len(rs.rules)


def test_bundled_rules_load():
    from gpukb.engine.audit import functions as audit_functions
    audit_functions.register()           # the audit's rules call its functions (as GpuKB loads them)
    rs = load_rules(ROOT / "rules")
    assert len(rs.rules) > 10
    assert len(definition(rs)) == len(rs.rules)


def test_loaded_rule_fields():
    rs = load_rules(FIXTURES / "rules_paths")
    step = rs.get("path.step")
    assert step is rs.get("path.step@1") and step.key == "path.step@1"
    lines = (FIXTURES / "rules_paths" / "paths.yaml").read_text(encoding="utf-8").splitlines()
    assert step.file == "rules_paths/paths.yaml"
    assert lines[step.line - 1].strip() == "- id: path.step"
    assert step.group == "paths"
    assert [(p.bind, p.type, p.absent) for p in step.patterns] == [("p", "path", False), ("e", "edge", False)]
    assert step.derive_type == "path" and step.derive_text == {"a": "p.a", "b": "e.b"}
    assert [r.id for r in rs.producers("reach")] == ["reach.direct", "reach.via_path"]
    assert rs.get("nope") is None
    assert rs.types["edge"].base and not rs.types["path"].base


def test_definition_compiles_joins_absent_and_leaves_functions_to_gpukb():
    paths = definition(load_rules(FIXTURES / "rules_paths"))
    assert paths["r1"] == {"all": [{"b_p": {"t": "path"}},
                                   {"b_e": {"$and": [{"t": "edge"}, {"a": {"b_p": "b"}}]}}]}
    absent = definition(load_rules(FIXTURES / "rules_absent"))
    assert absent["r1"]["all"][1] == {"b_k$not": {"$and": [{"t": "block"}, {"name": {"b_i": "name"}}]}}
    guard = load_rules(FIXTURES / "rules_guard")
    urgent = guard.get("job.urgent")
    assert urgent.patterns[0].conditions[0].durable is None             # has(...) is evaluated by gpukb
    assert definition(guard)["r1"] == {"all": [{"b_j": {"t": "job"}}]}
    assert [parse(c.text) for c in guard.get("plan.fit").guard] == [
        parse("has(j.tags, 'train')"), parse("ceil(j.need / g.mem) <= max(j.gpus, 1)")]
    loop = load_rules(FIXTURES / "rules_paths").get("label.loop")
    assert loop.patterns[0].conditions[0].durable is None               # a == b: two fields of one fact


def test_comparison_operators_compile_to_durable(tmp_path):
    ops = {"a == 1": {"a": 1}, "a == 2.0": {"a": 2}, "a < 1": {"$lt": {"a": 1}},
           "a <= 1": {"$lte": {"a": 1}}, "a > 1": {"$gt": {"a": 1}}, "a >= 1": {"$gte": {"a": 1}},
           "1 < a": {"$gt": {"a": 1}}, "a == null": {"$nex": {"a": 1}}, "a != null": {"$ex": {"a": 1}},
           "kind == 'road' or a > 2": {"$or": [{"kind": "road"}, {"$gt": {"a": 2}}]},
           # a boolean is sent as its marker; gpukb's == also holds for the number it equals
           "a == true": {"$or": [{"a": "\u0001true"}, {"a": 1}]}, "false == a": {"$or": [{"a": "\u0001false"}, {"a": 0}]}}
    for text, want in ops.items():
        root = write_rules(tmp_path, rule(when=f'- {{bind: e, type: edge, where: "{text}"}}'))
        d = definition(load_rules(root))
        assert d["r0"]["all"][0]["b_e"] == {"$and": [{"t": "edge"}, want]}, text
    # left to gpukb: boolean orderings, lists, functions, negative literals, and (since durable_rules' $neq
    # misses absent fields and its $div divides ints as integers) != and /
    for text in ("a != true", "a in [1, 2]", "a == -1", "max(a, 1) > 2", "a != 1", "a < e.b / 2"):
        root = write_rules(tmp_path, rule(when=f'- {{bind: e, type: edge, where: "{text}"}}'))
        assert definition(load_rules(root))["r0"]["all"][0]["b_e"] == {"t": "edge"}, text


def test_join_arithmetic_compiles_to_durable(tmp_path):
    for text, want in {"a == e.b + 1": {"a": {"$add": {"$l": {"b_e": "b"}, "$r": 1}}},
                       "a < e.b * 2 - e.a": {"$lt": {"a": {"$sub": {"$l": {"$mul": {"$l": {"b_e": "b"}, "$r": 2}},
                                                                    "$r": {"b_e": "a"}}}}},
                       "a < e.b / 2": None, "kind == 'x:' + e.kind": None, "kind == e.kind + '!'": None}.items():
        root = write_rules(tmp_path, rule(when=f'- {{bind: e, type: edge}}\n- {{bind: f, type: edge, where: "{text}"}}'))
        got = definition(load_rules(root))["r0"]["all"][1]["b_f"]
        assert got == ({"t": "edge"} if want is None else {"$and": [{"t": "edge"}, want]}), text


def test_a_join_on_joined_strings_matches(tmp_path):
    """durable_rules' $add does not join strings, so such a condition is gpukb's to test: compiled, the
    pattern would never match."""
    from gpukb.engine.reasoning.reasoner import Reasoner
    when = '- {bind: e, type: edge}\n- {bind: f, type: edge, where: "kind == \'x:\' + e.kind"}'
    root = write_rules(tmp_path, rule(when=when, derive="{type: path, set: {a: e.a, b: f.b}}"),
                       types=TYPES.replace("values: [road, rail]", "values: [road, rail, 'x:road', 'x:rail']"))
    edges = [{"t": "edge", "fk": "E1", "a": 1, "b": 2, "kind": "road"},
             {"t": "edge", "fk": "E2", "a": 2, "b": 3, "kind": "x:road"},
             {"t": "edge", "fk": "E3", "a": 3, "b": 4, "kind": "x:rail"}]
    d = Reasoner(load_rules(root)).run(edges)
    assert [(p["a"], p["b"]) for p in d.derived("path")] == [(1, 3)]


def test_where_and_is_split_into_conditions(tmp_path):
    root = write_rules(tmp_path, rule(when='- {bind: e, type: edge, where: ["a > 1 and b < 5", "kind == \'rail\'"]}'))
    (p,) = load_rules(root).rules[0].patterns
    assert [parse(c.text) for c in p.conditions] == [parse("a > 1"), parse("b < 5"), parse("kind == 'rail'")]


def test_digest_follows_content(tmp_path):
    root = write_rules(tmp_path, rule())
    d1 = load_rules(root).digest
    assert load_rules(root).digest == d1
    (root / "paths.yaml").write_text(rule().replace("Every edge", "Each edge"), encoding="utf-8")
    assert load_rules(root).digest != d1


def test_fact_key_is_a_content_hash():
    k = fact_key("path", {"a": 1, "b": 2})
    assert k.startswith("D-path-") and len(k) == len("D-path-") + 10
    assert fact_key("path", {"b": 2, "a": 1}) == k
    assert fact_key("path", {"a": 1, "b": 3}) != k
    assert fact_key("reach", {"a": 1, "b": 2}) != k


# -- a finding's wording is data: the rule's `explain` template -------------------------------------

def _rules_with(tmp_path, old: str, new: str):
    import shutil
    root = tmp_path / "rules"
    shutil.copytree(Path(__file__).resolve().parent.parent / "rules", root)
    p = root / "audit" / "inherit.yaml"
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


GPU_ROLE = "  - id: audit.inherit.gpu_role\n    version: 1\n"


def test_a_findings_wording_is_one_edit_of_its_rule(tmp_path):
    from gpukb.engine.service.state import GpuKB
    root = _rules_with(tmp_path, GPU_ROLE, GPU_ROLE + "    explain:\n"
                       "      en: 'ROLE-CHECK {subject}: {claim} within {other} ({via_subject}) [{other_cite}]'\n"
                       "      zh: '定位核对 {subject}：{claim}'\n")
    kb = GpuKB(Path(__file__).resolve().parent.parent / "kb", root)
    res = kb.audit_result(kb.kb.latest)
    f = next(f for f in res.findings_for("S002-C020") if f["kind"] == "supported")
    assert f["explanation"]["en"].startswith("ROLE-CHECK NVIDIA Tesla T4: inference")
    assert "light training" in f["explanation"]["en"] and "[Tencent Cloud" in f["explanation"]["en"]
    assert f["explanation"]["zh"].startswith("定位核对 NVIDIA Tesla T4：推理")


@pytest.mark.parametrize("explain, message", [
    ("    explain: {en: 'x {nope}', zh: 'y'}\n", "unknown placeholder(s) nope"),
    ("    explain: {en: 'only English'}\n", "explain needs 'en' and 'zh'"),
    ("    explain: 'a string'\n", "explain needs 'en' and 'zh'"),
])
def test_bad_explain_templates_are_refused_with_file_and_line(tmp_path, explain, message):
    from gpukb.engine.core.errors import ValidationError
    from gpukb.engine.reasoning.rules import load_rules
    root = _rules_with(tmp_path, GPU_ROLE, GPU_ROLE + explain)
    with pytest.raises(ValidationError) as e:
        load_rules(root)
    assert any(message in str(i) and "inherit.yaml" in str(i) for i in e.value.issues), e.value.issues


LIFT_TYPES = """\
types:
  grp:
    base: true
    fields:
      gid: {required: true, scalar: true}
      pol: {scalar: true}
      src: {required: true, scalar: true}
      n: {required: true, scalar: true}
      tags: {}
      note: {}
  out:
    fields: {a: {required: true}, b: {}}
"""


def test_not_equal_and_guard_conjuncts_move_to_durable_when_they_mean_the_same(tmp_path):
    text = """\
    rules:
      - id: pair
        version: 1
        description: {en: "Two groups.", zh: "两个组。"}
        when:
          - {bind: g, type: grp, where: "pol != null"}
          - {bind: h, type: grp, where: "pol != null and pol != g.pol and note != g.note"}
        if: ["h.n != 1 or h.src != g.src", "has(g.tags, 'x')", "h.note == g.note", "h.gid != 'G1'"]
        derive: {type: out, set: {a: g.gid, b: h.gid}}
    """
    root = write_rules(tmp_path, text, types=LIFT_TYPES)
    rs = load_rules(root)
    r = rs.get("pair")
    conds = {c.text: c.durable for c in r.patterns[1].conditions}
    assert conds["pol != g.pol"] == {"$neq": {"pol": {"b_g": "pol"}}}     # present (!= null) and scalar, both sides
    assert conds["note != g.note"] is None                               # note may be a list or missing
    guard = {c.text: c.durable for c in r.guard}
    assert guard["h.n != 1 or h.src != g.src"] == {"$or": [{"$neq": {"n": 1}}, {"$neq": {"src": {"b_g": "src"}}}]}
    assert guard["h.gid != 'G1'"] == {"$neq": {"gid": "G1"}}
    assert guard["has(g.tags, 'x')"] is None                             # gpukb tests it, after the member join
    assert guard["h.note == g.note"] is None                             # null == null holds for gpukb only
    assert [c.text for c in r.patterns[1].lifted] == ["h.n != 1 or h.src != g.src", "h.gid != 'G1'"]
    alls = definition(rs)["r0"]["all"]
    assert [list(p) for p in alls] == [["b_g"], ["b__m0"], ["b_h"]]      # has(g.tags, 'x') joins right after g
    assert alls[1]["b__m0"] == {"$and": [{"t": "$member"}, {"ot": "grp"}, {"f": "tags"}, {"of": {"b_g": "fk"}}, {"item": "x"}]}
    assert {"$neq": {"gid": "G1"}} in alls[2]["b_h"]["$and"]


def test_given_facts_must_keep_the_declarations_the_compiler_trusts(tmp_path):
    from gpukb.engine.core.errors import RuleError
    from gpukb.engine.reasoning.reasoner import Reasoner
    text = rule(when='- {bind: g, type: grp, where: "gid != \'x\'"}', derive="{type: out, set: {a: g.gid}}")
    rs = load_rules(write_rules(tmp_path, text, types=LIFT_TYPES))
    reasoner = Reasoner(rs)
    ok = reasoner.run([{"t": "grp", "fk": "g1", "gid": "a", "src": "S1", "n": 1}])
    assert len(ok.derived("out")) == 1 and reasoner.stats.as_dict()["total"]["fired"] == 1
    for bad in ({"gid": "a", "src": "S1"}, {"gid": "a", "src": ["S1"], "n": 1}, {"gid": True, "src": "S1", "n": 1}):
        with pytest.raises(RuleError, match="rules/types.yaml"):
            reasoner.run([{"t": "grp", "fk": "g2", **bad}])
