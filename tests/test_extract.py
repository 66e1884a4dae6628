"""The claim extractor on sentences written for these tests (none taken from the bundled articles), and
property-based tests of its number, unit, range and bound reader."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from gpukb.engine.answers.extract import extract, quantities
from gpukb.engine.answers.extract_text import aligned_lower
from gpukb.engine.errors import ValidationError
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def claims(text: str, vocab: Vocabulary) -> list[tuple[str, str, object]]:
    return [(c.subject, c.attribute, c.value) for c in extract(text, vocab).claims]


def by_attr(text: str, vocab: Vocabulary, attribute: str) -> list:
    return [c for c in extract(text, vocab).claims if c.attribute == attribute]


# -- context carried across sentences, lists, carries -----------------------------------------------------
def test_memory_of_each_card_is_the_carried_gpus(vocab):
    got = claims("GN7 instances carry T4 GPUs. Each card has 16 GB of memory.", vocab)
    assert ("family:GN7", "gpu", ["gpu:T4"]) in got
    assert ("gpu:T4", "memory_gb", 16.0) in got


def test_gpu_memory_in_parentheses_after_its_name(vocab):
    got = claims("GN7-A10 实例：A10（24GB）搭配 32GB 内存。", vocab)
    assert ("gpu:A10", "memory_gb", 24.0) in got
    assert ("family:GN7-A10", "gpu", ["gpu:A10"]) in got
    assert ("family:GN7-A10", "host_memory_gb", 32.0) in got


def test_alternatives_written_with_slashes_are_a_range(vocab):
    [c] = by_attr("PNV4 提供 32G/64G/128G 内存可选。", vocab, "host_memory_gb")
    assert c.value == [32.0, 128.0]


# -- verdicts: resource, lists of tasks, open questions ---------------------------------------------------
def test_verdict_per_resource_named(vocab):
    got = claims("GN7 的内存和带宽对单机训练来说是够用的。", vocab)
    assert ("family:GN7", "host_memory_verdict", "sufficient") in got
    assert ("family:GN7", "bandwidth_verdict", "sufficient") in got
    assert not any(a == "memory_verdict" for _, a, _ in got)


def test_verdict_per_listed_task(vocab):
    got = by_attr("If you only need inference serving or development and debugging, an A10 is more than enough.",
                  vocab, "suitability") + by_attr(
        "If you only need inference serving or development and debugging, an A10 is more than enough.", vocab,
        "memory_verdict")
    tasks = sorted(t for c in got for t in c.qualifiers.get("task", []))
    assert tasks == ["dev_test", "inference"] and {c.subject for c in got} == {"gpu:A10"}


def test_verdict_in_chinese_with_a_carried_subject(vocab):
    ex = extract("L4 是单卡 24GB 的推理卡。对于推理服务，它的显存通常非常充足。", vocab)
    v = [c for c in ex.claims if c.attribute == "memory_verdict"]
    assert [(c.subject, c.value) for c in v] == [("gpu:L4", "ample")]


def test_an_open_question_states_no_verdict(vocab):
    for text in ("Whether the T4 is enough for training depends on the model size.",
                 "A10 是否足够支撑推理服务，要看模型大小。"):
        assert not [c for c in extract(text, vocab).claims if c.modality == "verdict"], text


def test_price_performance_verdict(vocab):
    got = claims("For small teams doing fine-tuning, the A10 is the most cost-effective choice and well suited.", vocab)
    assert any(a == "cost_effectiveness" for _, a, _ in got)


def test_storage_verdict_is_about_the_disk_named(vocab):
    got = claims("训练数据放在普通云硬盘上时，IOPS 有限。", vocab)
    assert ("product:cbs-basic", "storage_io", "limited") in got


# -- roles and advice -----------------------------------------------------------------------------------
def test_role_in_english_and_chinese(vocab):
    assert ("gpu:L4", "role", ["inference", "rendering"]) in claims("The L4 is designed for inference and rendering.", vocab)
    assert ("gpu:A10", "role", ["inference", "light_training"]) in claims("A10 是面向推理和轻量级训练的显卡。", vocab)


def test_negated_role_states_none(vocab):
    assert not by_attr("GN7 并非专为大规模训练设计。", vocab, "role")


def test_advice_splits_precisions_from_techniques(vocab):
    got = claims("On a GN7 instance, use FP16 and gradient checkpointing.", vocab)
    assert ("family:GN7", "recommended_precision", ["precision:fp16"]) in got
    assert ("family:GN7", "recommended_technique", ["technique:gradient_checkpointing"]) in got


def test_bullets_are_statements_of_their_own(vocab):
    text = "GN7 的不足：• 无 NVLink • 显存 16GB"
    got = claims(text, vocab)
    assert ("family:GN7", "nvlink", False) in got and ("family:GN7", "memory_gb", 16.0) in got


# -- the schema of the new cue groups -------------------------------------------------------------------
def test_unknown_verdict_attribute_is_named_with_file_and_line(tmp_path):
    text = (ROOT / "kb" / "vocabulary.yaml").read_text(encoding="utf-8")
    bad = text.replace("  verdict_attribute:\n", "  verdict_attribute:\n    memory_gb: ['x']\n", 1)
    path = tmp_path / "vocabulary.yaml"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        Vocabulary.load(path)
    issues = [i for i in err.value.issues if "verdict_attribute" in i.message]
    assert issues and issues[0].line is not None and "vocabulary.yaml" in str(issues[0].file)


# -- numbers, units, ranges, bounds (property-based) -----------------------------------------------------
NUMS = st.integers(min_value=1, max_value=9999)


def _q(text: str, vocab: Vocabulary):
    low = aligned_lower(text)
    return quantities(low, 0, len(low), vocab)


@settings(max_examples=60, deadline=None)
@given(x=NUMS, unit=st.sampled_from(["GB", "gb", " GB", "G"]))
def test_a_number_with_its_unit(vocab, x, unit):
    [q] = _q(f"显存 {x}{unit}。", vocab)
    assert (q.lo, q.hi, q.dimension, q.unit, q.bound) == (x, x, "memory", "GB", None)


@settings(max_examples=60, deadline=None)
@given(a=NUMS, d=NUMS, join=st.sampled_from(["-", "–", "~", " to ", "到", "至"]))
def test_a_range(vocab, a, d, join):
    b = a + d
    [q] = _q(f"needs {a}{join}{b} GB", vocab)
    assert (q.lo, q.hi) == (a, b)


@settings(max_examples=60, deadline=None)
@given(a=NUMS, d=NUMS, join=st.sampled_from([" or ", " 或 ", "/"]))
def test_alternatives_with_units_span_a_range(vocab, a, d, join):
    b = a + d
    [q] = _q(f"{a}GB{join}{b}GB", vocab)
    assert (q.lo, q.hi) == (a, b)


@settings(max_examples=60, deadline=None)
@given(x=NUMS, cue=st.sampled_from([("at least ", "", ">="), ("至少 ", "", ">="), ("", " 以上", ">="),
                                    ("more than ", "", ">"), ("超过 ", "", ">"), ("up to ", "", "<="),
                                    ("", " 以内", "<="), ("less than ", "", "<"), ("不到 ", "", "<")]))
def test_bounds(vocab, x, cue):
    before, after, op = cue
    [q] = _q(f"memory {before}{x} GB{after}", vocab)
    assert (q.lo, q.bound) == (x, op)


@settings(max_examples=40, deadline=None)
@given(x=NUMS, hedge=st.sampled_from(["about ", "约 ", "大约", "~"]))
def test_hedges(vocab, x, hedge):
    [q] = _q(f"显存 {hedge}{x}GB", vocab)
    assert q.approx and q.lo == x


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("0123456789 ./-~GBgbMTs到或以上约至少,，")), max_size=40))
def test_any_mix_of_digits_and_units_is_read_without_error(vocab, text):
    for q in _q(text, vocab):
        assert 0 <= q.start < q.end <= len(text) and q.lo <= q.hi
