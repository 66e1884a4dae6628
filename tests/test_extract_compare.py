"""Comparison frames of the claim extractor (engine/text/compare.py) on sentences written for
these tests, none taken from the bundled articles: a ratio of one GPU's throughput to others', one GPU
said to fall behind or to outdo others, and sentences that compare nothing."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def ratios(text: str, vocab: Vocabulary) -> list[tuple[str, object, list[str]]]:
    return sorted((c.subject, c.value, c.qualifiers.get("compared_to")) for c in extract(text, vocab).claims
                  if c.attribute == "compute_ratio")


@pytest.mark.parametrize("text", [
    "L4 的 FP16 算力只有 H100 的 1/4。",
    "L4 的 FP16 算力仅为 H100 的 25%。",
    "The L4's FP16 throughput is only 1/4 of the H100's.",
    "The L4 delivers just 25% of the FP16 throughput of the H100.",
])
def test_a_ratio_to_one_gpu(vocab, text):
    [(subject, value, against)] = ratios(text, vocab)
    assert subject == "gpu:L4" and against == ["gpu:H100"]
    assert value == pytest.approx(0.25)


@pytest.mark.parametrize("text", [
    "V100 的 INT8 吞吐量仅为 A10、H100 的 30%~50%。",
    "The V100's INT8 throughput is only 30%-50% of the A10's and the H100's.",
])
def test_a_ratio_to_each_gpu_of_a_list(vocab, text):
    got = ratios(text, vocab)
    assert [g[2] for g in got] == [["gpu:A10"], ["gpu:H100"]]
    assert all(g[0] == "gpu:V100" and g[1] == pytest.approx([0.3, 0.5]) for g in got)


@pytest.mark.parametrize("text, subject, against", [
    ("V100 的吞吐量远不如 H100。", "gpu:V100", ["gpu:H100"]),
    ("在 FP16 算力上，L4 明显不及 A100。", "gpu:L4", ["gpu:A100"]),
    ("The V100 falls far behind the H100 in throughput.", "gpu:V100", ["gpu:H100"]),
    ("For FP16 compute, the L4 is well below the A100.", "gpu:L4", ["gpu:A100"]),
])
def test_one_gpu_behind_another(vocab, text, subject, against):
    assert ratios(text, vocab) == [(subject, "< 1", against)]


@pytest.mark.parametrize("text, subject, against", [
    ("H100 的算力远强于 V100。", "gpu:H100", ["gpu:V100"]),
    ("相比 L4，A100 拥有更强的 FP16 算力。", "gpu:A100", ["gpu:L4"]),
    ("The A10 has more FP16 compute than the L4.", "gpu:A10", ["gpu:L4"]),
    ("The H100 offers far higher throughput than the V100.", "gpu:H100", ["gpu:V100"]),
])
def test_one_gpu_ahead_of_another(vocab, text, subject, against):
    assert ratios(text, vocab) == [(subject, "> 1", against)]


@pytest.mark.parametrize("text", [
    "If you need more speed, move to the A10 or the L4, as they offer far higher FP16 throughput than the T4.",
    "如果追求速度，可以换成 A10 或 L4，它们的 FP16 算力远强于 T4。",
])
def test_a_condition_in_another_clause_leaves_the_comparison(vocab, text):
    assert ratios(text, vocab) == [("gpu:A10", "> 1", ["gpu:T4"]), ("gpu:L4", "> 1", ["gpu:T4"])]


def test_behind_each_gpu_of_a_list(vocab):
    got = ratios("The L4's FP32 throughput is far below the A10 and the H100.", vocab)
    assert got == [("gpu:L4", "< 1", ["gpu:A10"]), ("gpu:L4", "< 1", ["gpu:H100"])]


@pytest.mark.parametrize("text", [
    "The A100 has 80 GB of memory, more than the L4.",          # memory, not throughput
    "Compare the L4 with the A10 before you buy.",              # no direction
    "L4 的显存只有 24GB。",                                         # a figure, no second GPU
    "H100 比 V100 贵得多。",                                        # price, not throughput
    "Is the H100 faster than the V100?",                        # a question states nothing
    "如果 L4 的算力不如 A10，就换卡。",                                # a condition
])
def test_sentences_that_state_no_throughput_comparison(vocab, text):
    assert ratios(text, vocab) == [], text


# -- a ratio of times said against several GPUs: one claim per GPU compared -----------------------------------
def relative(text: str, vocab: Vocabulary, attribute: str) -> list[tuple[str, object, object]]:
    return sorted((c.subject, c.value, (c.qualifiers.get("compared_to") or [None])[0]) for c in extract(text, vocab).claims
                  if c.attribute == attribute)


@pytest.mark.parametrize("text, attribute, expected", [
    ("相比 A10、H100，L4 的训练速度慢 2–3 倍。", "slowdown",
     [("gpu:L4", [2.0, 3.0], "gpu:A10"), ("gpu:L4", [2.0, 3.0], "gpu:H100")]),
    ("Compared with the A100 and the H100, the V100 is 3x slower.", "slowdown",
     [("gpu:V100", 3.0, "gpu:A100"), ("gpu:V100", 3.0, "gpu:H100")]),
    ("比起 T4，A10 性能提升 3 倍。", "performance_gain", [("gpu:A10", 3.0, "gpu:T4")]),
])
def test_a_ratio_of_times_is_one_claim_per_gpu_compared(vocab, text, attribute, expected):
    assert relative(text, vocab, attribute) == expected


def test_a_ratio_of_times_with_nothing_compared_keeps_no_comparison(vocab):
    assert relative("L4 的训练速度慢 2 倍。", vocab, "slowdown") == [("gpu:L4", 2.0, None)]


# -- more memory than a GPU whose size the text gave; a speed-up with no figure -----------------------------
@pytest.mark.parametrize("text, expected", [
    ("T4 的显存是 16GB。GN7-V100 和 GN7-A10 拥有更多显存。", [("gpu:A10", "> 16"), ("gpu:V100", "> 16")]),
    ("The T4 has 16 GB of memory. The L4 has more memory than the T4.", [("gpu:L4", "> 16")]),
    ("L4 有 24GB 显存。\nH100 的显存更大，比 L4 强很多。", [("gpu:H100", "> 24")]),
])
def test_more_memory_than_a_gpu_of_a_stated_size(vocab, text, expected):
    got = sorted((c.subject, c.value) for c in extract(text, vocab).claims if c.attribute == "memory_gb" and isinstance(c.value, str))
    assert got == expected


@pytest.mark.parametrize("text", [
    "The L4 has more memory than the T4.",                          # the T4's size was never given
    "T4 有 16GB 显存。如果 L4 拥有更多显存，就能跑 13B。",                  # a condition
    "T4 有 16GB 显存。更多显存意味着更大的 batch。",                        # no product said to have it
])
def test_more_memory_without_a_stated_size_or_subject_states_no_bound(vocab, text):
    assert not [c for c in extract(text, vocab).claims if c.attribute == "memory_gb" and isinstance(c.value, str)]


@pytest.mark.parametrize("text, expected", [
    ("GN7 是常见选择。建议改用 GN10Xp，它能显著提升训练速度。", [("family:GN10Xp", "family:GN7")]),
    ("Most teams start on GN7. A GN10Xp instance speeds up training considerably.", [("family:GN10Xp", "family:GN7")]),
    ("A10 比 T4 能明显加快推理速度。", [("gpu:A10", "gpu:T4")]),
])
def test_a_speed_up_with_no_figure_is_a_gain_above_one(vocab, text, expected):
    got = sorted((c.subject, c.qualifiers["compared_to"][0]) for c in extract(text, vocab).claims
                 if c.attribute == "performance_gain" and c.value == "> 1")
    assert got == expected


@pytest.mark.parametrize("text", [
    "GN10Xp speeds up training.",                                   # nothing to compare with
    "GN7 很常见。如果 GN10Xp 能提升训练速度，就换掉它。",                   # a condition
    "GN7 很常见。GN10Xp 的训练速度提升 3 倍。",                           # a figure: read with its number
    "Mixed precision speeds up training on the T4.",                # a technique's effect, not hardware's gain
])
def test_a_speed_up_without_a_base_or_with_a_figure_is_no_bound(vocab, text):
    assert not [c for c in extract(text, vocab).claims if c.attribute == "performance_gain" and c.value == "> 1"]


# -- two figures in one comparison, each to its product ---------------------------------------------------
@pytest.mark.parametrize("text", [
    "The A10 has 24 GB of memory while the T4 has 16 GB.",
    "GPU memory is 24 GB for the A10 compared with 16 GB for the T4.",
    "A10 的显存为 24GB，而 T4 为 16GB。",
    "A10 拥有 24GB 显存 vs T4 的 16GB。",
    "The A10's 24 GB of memory is far above the T4's 16 GB.",
])
def test_each_figure_of_a_comparison_goes_to_its_product(vocab, text):
    got = {(c.subject, c.value) for c in extract(text, vocab).claims if c.attribute == "memory_gb"}
    assert ("gpu:A10", 24.0) in got and ("gpu:T4", 16.0) in got
    assert ("gpu:A10", 16.0) not in got and ("gpu:T4", 24.0) not in got
