"""Tests of engine.audit.functions: the scope and qualifier functions the audit registers with
the expression language, and rule files that call them."""
from __future__ import annotations

import textwrap

import pytest

from gpukb.engine.audit import functions as audit_functions
from gpukb.engine.core.errors import ValidationError
from gpukb.engine.reasoning.expr import FUNCTIONS, ExprError, evaluate, parse
from gpukb.engine.reasoning.expr_compile import compile_node
from gpukb.engine.reasoning.expr_functions import BUILTINS
from gpukb.engine.reasoning.rules import load_rules


@pytest.fixture(autouse=True, scope="module")
def _registered():
    audit_functions.register()


def ev(text):
    return evaluate(parse(text), {})


AUDIT_CASES = [
    ("qdiff('method=full;gpus=[1, 1]', 'method=lora;gpus=[1, 1]')", ["method"]),
    # a missing sparsity reads as dense: a with-sparsity figure and a dense one never share a scope
    ("qdiff('sparsity=True', '')", ["sparsity"]),
    ("qdiff('', '')", []),
    # a figure agrees within the rounding it is written with, 10% when hedged on either side
    ("stated_tolerance(2000, 2000, 0, 2039, 2039, 0)", 0.1),
    ("stated_tolerance(1900, 1900, 1, 2039, 2039, 0)", 0.1),
    ("stated_tolerance(300, 300, 0, 300, 300, 1)", 0.1),
    # "up to X" read as a peak: beyond the reference's highest figure, or not; a number is no peak
    ("peak_beyond('bound', null, 3600, 0, 1800, 0)", True),
    ("peak_beyond('bound', null, 1800, 0, 1800, 0)", False),
    ("peak_beyond('bound', 10, null, 0, 1800, 0)", False),
    ("peak_beyond('number', 3600, 3600, 0, 1800, 0)", False),
    ("qdiff('gpus=[1, 4]', 'gpus=[2, 8]')", []),
    ("qdiff('task=fine_tuning>training', 'task=training')", []),
    ("qdiff('condition=a', 'condition=b')", []),
    ("qonly('method=full;gpu=T4', 'gpu=T4')", ["method"]),
    ("scope_diff('method=full', 'method=full;batch=[1, 1]')", ["batch"]),
    ("scope_diff('condition=a', 'condition=b')", ["condition"]),
    ("scope_diff('task=fine_tuning>training|inference', 'task=fine_tuning>training')", ["task"]),
    # scopes overlap when a key only one states narrows it; they are disjoint on conflicting values
    ("scope_conflict('method=full', 'method=full;model=model:llm')", []),
    ("scope_conflict('task=training;condition=a', 'task=training;scale=single_node')", ["condition"]),
    ("scope_conflict('task=training', 'task=training;scale=single_node;model=model:llm')", []),
    ("scope_conflict('task=training;generality=some', 'task=training;model=model:llm')", ["generality"]),
    ("scope_conflict('condition=a', 'condition=b')", ["condition"]),
    ("scope_conflict('method=full;task=fine_tuning>training', 'method=lora;task=training')", ["method"]),
    ("qhas('software:nccl|software:pytorch-ddp', 'software:pytorch-ddp')", True),
    ("qhas(null, 'x')", False),
    ("qhas('distributed_training>training|inference', 'training')", True),
    ("qitems('distributed_training>training|inference')", ["distributed_training", "inference"]),
    ("qitems(null)", []),
    ("subset(qitems('monitors_gpu_memory'), ['monitors_gpu_memory', 'monitors_gpu_utilization'])", True),
    ("qhas('distributed_training>training', 'distributed')", False),
    ("all_covered(['a|b', 'a'], ['a', 'b', 'c'])", True),
    ("all_covered(['a|d'], ['a', 'b'])", False),
    ("none_covered(['d|e', 'f'], ['a', 'b'])", True),
    ("none_covered(['a|d'], ['a'])", False),
    # a single figure said of a generic product against its variants' figures ([lo, hi, approx, qsig, key])
    ("variant_figure(52, 52, 0, '', [[40, 40, 0, '', 'R-40@1'], [80, 80, 0, '', 'R-80@1']])", None),
    ("variant_figure(3350, 3350, 0, '', [[2000, null, 0, '', 'R-pcie@1'], [3350, 3350, 0, '', 'R-sxm@1']])", "R-sxm@1"),
    ("nearest_figure(52, 52, '', [[40, 40, 0, '', 'R-40@1'], [80, 80, 0, '', 'R-80@1']])", "R-40@1"),
    ("nearest_figure(1935, 1935, 'form_factor=SXM', [[1935, 1935, 0, 'form_factor=PCIe', 'R-pcie@1']])", None),
]


@pytest.mark.parametrize("text,want", AUDIT_CASES)
def test_audit_functions(text, want):
    node = parse(text)
    got = evaluate(node, {})
    assert got == want and type(got) is type(want)
    assert compile_node(node)({}) == got            # the reasoner's compiled path gives the same


def test_every_audit_function_is_covered_and_registered():
    covered = {n for text, _ in AUDIT_CASES for n in audit_functions.FUNCTIONS if f"{n}(" in text}
    assert covered == set(audit_functions.FUNCTIONS)
    for name, entry in audit_functions.FUNCTIONS.items():
        assert FUNCTIONS[name] == entry and name not in BUILTINS


def test_registering_twice_changes_nothing():
    before = dict(FUNCTIONS)
    audit_functions.register()
    assert FUNCTIONS == before


@pytest.mark.parametrize("text", ["qdiff(1, 2)", "qonly(1, 'a=1')", "scope_diff(['a=1'], 'a=1')"])
def test_function_argument_errors_are_expr_errors(text):
    """Regression: these raised AttributeError from inside the function, which escaped evaluate()
    (and then Reasoner.run) because only TypeError/ValueError/OverflowError were converted."""
    with pytest.raises(ExprError, match=r"\(\): "):
        ev(text)


def test_scope_keys_are_the_audit_blocks_scope():
    """audit_blocks buckets groups by the scope keys scope_diff reads: the same tuple, from here."""
    from gpukb.engine.audit import blocks as audit_blocks
    assert audit_blocks.SCOPE_KEYS is audit_functions.SCOPE_KEYS


TYPES = """\
types:
  claim:
    base: true
    fields:
      qsig: {}
  differs:
    fields:
      keys: {}
"""


def _rules(tmp_path, call: str):
    root = tmp_path / "rules"
    root.mkdir()
    (root / "types.yaml").write_text(TYPES, encoding="utf-8")
    (root / "scope.yaml").write_text(textwrap.dedent(f"""\
        rules:
          - id: scope.differs
            version: 1
            description: {{en: "Two claims' scopes differ.", zh: "两条声明的范围不同。"}}
            when:
              - {{bind: a, type: claim}}
              - {{bind: b, type: claim, where: "len({call}(a.qsig, qsig)) > 0"}}
            derive: {{type: differs, set: {{keys: "{call}(a.qsig, b.qsig)"}}}}
        """), encoding="utf-8")
    return root


def test_a_rule_calling_a_registered_audit_function_loads(tmp_path):
    rs = load_rules(_rules(tmp_path, "scope_diff"))
    assert [r.id for r in rs.rules] == ["scope.differs"]


def test_a_rule_calling_an_unknown_function_names_file_and_line(tmp_path):
    with pytest.raises(ValidationError) as info:
        load_rules(_rules(tmp_path, "scope_differs"))
    issues = [i for i in info.value.issues if "unknown function 'scope_differs'" in i.message]
    assert [i.line for i in issues] == [7, 8]           # the condition and the derived value
    assert all(i.file.endswith("rules/scope.yaml") for i in issues)
    assert "scope.yaml:7" in str(info.value) and "scope_diff" in str(info.value)   # what is allowed
