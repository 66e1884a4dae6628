"""Tests of engine.core.yamlio: safe YAML with duplicate-key rejection and line numbers."""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpukb.engine.core.errors import ValidationError
from gpukb.engine.core.yamlio import LineDict, LineList, load_file, loads


def issue_of(text: str, filename: str = "f.yaml"):
    with pytest.raises(ValidationError) as info:
        loads(text, filename)
    exc = info.value
    assert len(exc.issues) == 1
    assert exc.status == 400
    return exc, exc.issues[0]


# --------------------------------------------------------------------------------------------------
# duplicate keys


@pytest.mark.parametrize("text,line,first", [
    ("a: 1\nb: 2\na: 3\n", 3, 1),
    ("top:\n  x: 1\n  y: 2\n\n  x: 3\n", 5, 2),
    ("{a: 1, b: 2, a: 3}\n", 1, 1),
    ("- name: one\n  id: 1\n- name: two\n  id: 2\n  name: again\n", 5, 3),
    ("rules:\n  - id: r\n    when:\n      - {bind: e, type: edge, bind: f}\n", 4, 4),
    ("1: a\n'1': b\n1: c\n", 3, 1),             # 1 and '1' differ; the int repeats
])
def test_duplicate_keys_are_rejected_with_both_lines(text, line, first):
    exc, issue = issue_of(text, "rules/x.yaml")
    assert issue.file == "rules/x.yaml"
    assert issue.line == line
    assert "duplicate key" in issue.message and f"(first on line {first})" in issue.message
    assert "rules/x.yaml" in str(exc) and f"rules/x.yaml:{line}" in str(exc)


def test_equal_keys_in_different_mappings_are_fine():
    data = loads("a: {x: 1}\nb: {x: 2}\nc:\n  - {x: 3}\n  - {x: 4}\n")
    assert data == {"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]}


def test_merge_keys_still_work_and_do_not_count_as_duplicates():
    data = loads("base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  z: 3\n")
    assert data["child"] == {"x": 1, "y": 2, "z": 3}


def test_anchor_and_alias_share_the_value():
    data = loads("types:\n  ref:\n    fields: &f {a: {}, b: {}}\n  claim:\n    fields: *f\n")
    assert data["types"]["claim"]["fields"] == {"a": {}, "b": {}}


# --------------------------------------------------------------------------------------------------
# line numbers


def test_linedict_records_lines_of_keys_and_of_itself():
    text = textwrap.dedent("""\
        # a comment
        rules:
          - id: r1
            version: 1

            when:
              - {bind: e, type: edge}
          - id: r2
            derive:
              type: path
        """)
    data = loads(text)
    assert isinstance(data, LineDict) and data.line == 2
    assert data.line_of("rules") == 2
    rules = data["rules"]
    assert isinstance(rules, LineList) and rules.line == 3
    r1, r2 = rules
    assert isinstance(r1, LineDict)
    assert r1.line == 3 and r1.line_of("id") == 3 and r1.line_of("version") == 4 and r1.line_of("when") == 6
    assert r1["when"].line == 7 and r1["when"][0].line == 7 and r1["when"][0].line_of("type") == 7
    assert r2.line == 8 and r2.line_of("derive") == 9 and r2["derive"].line == 10
    assert r1.line_of("missing") == r1.line           # unknown keys fall back to the mapping's line
    assert r1.key_lines == {"id": 3, "version": 4, "when": 6}


def test_flow_mapping_lines():
    data = loads("a: 1\nb: {x: 1,\n    y: 2}\n")
    assert data["b"].line == 2 and data["b"].line_of("x") == 2 and data["b"].line_of("y") == 3


def test_linedict_behaves_like_a_dict():
    d = loads("a: 1\nb: [1, 2]\n")
    assert d == {"a": 1, "b": [1, 2]}
    assert isinstance(d, dict) and isinstance(d["b"], list)
    assert dict(d) == {"a": 1, "b": [1, 2]}
    empty = LineDict()
    assert empty.line == 0 and empty.line_of("x") == 0


# --------------------------------------------------------------------------------------------------
# scalars


@pytest.mark.parametrize("text,want", [
    ("d: 2026-09-16", "2026-09-16"),
    ("d: 2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
    ("d: 2001-12-14 21:59:43.10 -5", "2001-12-14 21:59:43.10 -5"),
    ("d: !!timestamp 2026-01-02", "2026-01-02"),
    ("d: '2026-09-16'", "2026-09-16"),
])
def test_timestamps_stay_strings(text, want):
    assert loads(text)["d"] == want


def test_other_scalars_are_typed():
    data = loads("i: 3\nf: 1.5e+3\nb: true\nn: null\ns: 'x'\nz: 中文\nl: [1, 'a']\n")
    assert data == {"i": 3, "f": 1500.0, "b": True, "n": None, "s": "x", "z": "中文", "l": [1, "a"]}
    assert type(data["i"]) is int and type(data["f"]) is float
    # YAML 1.1 (PyYAML): an exponent needs a sign and a mantissa a dot, otherwise it is text
    assert loads("x: 1.5e3\ny: 7e9")["x"] == "1.5e3" and loads("y: 7e9")["y"] == "7e9"


def test_empty_text_is_none():
    assert loads("") is None
    assert loads("# only a comment\n") is None


# --------------------------------------------------------------------------------------------------
# unsafe or invalid input


@pytest.mark.parametrize("text,problem", [
    ("!!python/object/apply:os.system ['echo hi']", "could not determine a constructor"),
    ("x: !!python/name:os.system", "could not determine a constructor"),
    ("a: [1, 2", "expected ',' or ']'"),
    ("a: 'unterminated", "found unexpected end of stream"),
    ("a: 1\n\tb: 2", ("cannot start any token", "tab character")),   # PyYAML / libyaml wording
    ("a: *nowhere", "found undefined alias"),
    ("? [1, 2]\n: x", "found an unhashable key"),
    ("\x00", "unacceptable character"),
])
def test_invalid_or_unsafe_yaml(text, problem):
    exc, issue = issue_of(text, "bad.yaml")
    assert any(p in issue.message for p in (problem if isinstance(problem, tuple) else (problem,)))
    assert issue.file == "bad.yaml"
    assert exc.message == "bad.yaml: invalid YAML"


def test_error_line_points_at_the_problem():
    _, issue = issue_of("a: 1\nb: 2\nc: [3\nd: 4\n", "x.yaml")
    assert issue.line == 4


def test_load_file_reads_utf8(tmp_path):
    p = tmp_path / "ok.yaml"
    p.write_text("name: 显存\n", encoding="utf-8")
    data = load_file(p, "kb/ok.yaml")
    assert data == {"name": "显存"} and data.line_of("name") == 1


def test_load_file_non_utf8(tmp_path):
    p = tmp_path / "latin.yaml"
    p.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValidationError) as info:
        load_file(p, "kb/latin.yaml")
    (issue,) = info.value.issues
    assert info.value.message == "kb/latin.yaml: not UTF-8"
    assert issue.file == "kb/latin.yaml" and "not UTF-8 text" in issue.message


def test_load_file_missing(tmp_path):
    with pytest.raises(ValidationError, match="file not found"):
        load_file(tmp_path / "nope.yaml")


def test_load_file_names_the_file_in_yaml_errors(tmp_path):
    p = tmp_path / "dup.yaml"
    p.write_text("a: 1\na: 2\n", encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        load_file(p)
    assert info.value.issues[0].file == str(p) and info.value.issues[0].line == 2


# --------------------------------------------------------------------------------------------------
# fuzz: only ValidationError may escape


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_loads_arbitrary_text_only_raises_validation_error(text):
    try:
        loads(text, "fuzz.yaml")
    except ValidationError as exc:
        assert exc.issues and exc.issues[0].file == "fuzz.yaml"


YAML_TOKENS = st.sampled_from(["a", "b", "1", "2.5", "true", "null", "2026-01-02", ":", ": ", "- ", "\n", "  ",
                               "{", "}", "[", "]", ",", "&x ", "*x", "? ", "'", '"', "#", "<<: ", "!!str ", "|",
                               ">", "---", "..."])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(YAML_TOKENS, max_size=30).map("".join))
def test_loads_yaml_like_text_only_raises_validation_error(text):
    try:
        loads(text, "fuzz.yaml")
    except ValidationError:
        pass


TAGGED = ["!!int abc", "!!float x", "!!bool maybe", "!!map [1]", "!!seq {a: 1}", "? !!int 3x\n: 1",
          "[" * 1200 + "]" * 1200]


@pytest.mark.parametrize("text", TAGGED, ids=["int", "float", "bool", "map", "seq", "int-key", "deep"])
def test_bad_tagged_values_are_validation_errors(text):
    """Regression: these raised ValueError, KeyError, TypeError, AttributeError or RecursionError
    from PyYAML's constructors, which escaped loads() (only yaml.YAMLError was caught)."""
    with pytest.raises(ValidationError) as info:
        loads(text, "tagged.yaml")
    assert info.value.issues[0].file == "tagged.yaml"


TAG_TOKENS = st.sampled_from(["!!int ", "!!float ", "!!bool ", "!!map ", "!!seq ", "!!str ", "a", "1", "x",
                              "{a: 1}", "[1]", "\n", ": ", "- "])


@settings(max_examples=300, deadline=None)
@given(st.lists(TAG_TOKENS, max_size=12).map("".join))
def test_loads_tagged_fuzz_only_raises_validation_error(text):
    try:
        loads(text, "fuzz.yaml")
    except ValidationError:
        pass
