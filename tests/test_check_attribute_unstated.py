"""A figure in running text is called wrong only when the text says which quantity it is: its sentence (up to
the figure's clause) or its table's header has a word of the attribute gpukb read it as (guard
attribute_unstated). Without one, gpukb guessed the attribute from the unit alone ("30 GB" may be a workload's,
a total's or a disk's) and the claim is unclear. Sentences written for these tests."""
from __future__ import annotations

import pytest


def _claim(gpukb, text: str, attribute: str) -> dict:
    """The last claim of ``attribute`` in the text (the figure the sentence is about comes last)."""
    return [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute][-1]


@pytest.mark.parametrize("text", [
    "With the L4 you get 30 GB in our tests.",
    "L4 拿到手是 30 GB，够用。",
])
def test_a_figure_whose_sentence_never_names_its_attribute_is_unclear(gpukb, text):
    c = _claim(gpukb, text, "memory_gb")
    assert c["status"] == "unclear", c
    assert "attribute_unstated" in {r["code"] for r in c["unclear_because"]}, c
    reason = next(r for r in c["unclear_because"] if r["code"] == "attribute_unstated")
    assert "memory" in reason["en"].lower() and reason["zh"], reason


def test_a_bare_bandwidth_may_be_memory_nvlink_or_pcie(gpukb):
    c = _claim(gpukb, "The L4 reaches 250 GB/s.", "memory_bandwidth")
    assert c["status"] == "unclear" and "attribute_unstated" in {r["code"] for r in c["unclear_because"]}, c


def test_a_power_in_watts_names_its_attribute(gpukb):
    c = _claim(gpukb, "The L4 draws 150 W.", "tdp_w")
    assert c["status"] == "incorrect", c


@pytest.mark.parametrize("text, attribute, status", [
    ("The T4 is an inference card with 12 GB.", "memory_gb", "incorrect"),     # a card's size
    ("The H100 SXM delivers 989 TFLOPS of dense BF16 Tensor Core compute and 2,500 TFLOPS with sparsity.",
     "fp16_tensor_tflops", "incorrect"),                                        # the precision said once
    ("V100 的双精度浮点运算性能:\n- 7.8 TFLOPS\n- 40 TFLOPS\n", "fp64_tflops", "incorrect"),  # the list's label
    ("The L4 has 30 GB of memory.", "memory_gb", "incorrect"),
    ("L4 的显存是 30 GB。", "memory_gb", "incorrect"),
    ("L4 的 FP16 Tensor 算力为 400 TFLOPS。", "fp16_tensor_tflops", "incorrect"),
    # the attribute said before, in an earlier clause of the same sentence (topic, then comment)
    ("T4 的亮点不在算力，最突出的是功耗，整卡仅 95W。", "tdp_w", "incorrect"),
])
def test_a_figure_said_with_its_attribute_stays_checked(gpukb, text, attribute, status):
    c = _claim(gpukb, text, attribute)
    assert c["status"] == status, c
    assert "attribute_unstated" not in {r["code"] for r in c.get("unclear_because", [])}, c


def test_a_table_cell_is_read_from_its_header_not_its_words(gpukb):
    text = "| GPU | VRAM |\n|---|---|\n| L4 | 30 GB |"
    c = _claim(gpukb, text, "memory_gb")
    assert "attribute_unstated" not in {r["code"] for r in c.get("unclear_because", [])}, c
    assert c["status"] == "incorrect", c
