"""`check` abstains (status `unclear`, with the reason) where its reading of a text is in doubt, and still
calls a plainly wrong sentence wrong. Sentences written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

from gpukb.engine.text.tokens import MAX_SENTENCE, sentences


def _claims(gpukb, text: str, lang: str | None = None) -> list[dict]:
    return gpukb.check(text, lang)["claims"]


def _one(gpukb, text: str, attribute: str, subject: str | None = None) -> dict:
    found = [c for c in _claims(gpukb, text) if c["attribute"] == attribute and (subject is None or c["subject"] == subject)]
    assert found, (text, _claims(gpukb, text))
    return found[0]


@pytest.mark.parametrize("text,attribute", [
    ("The T4 ships with 32 GB of GDDR6 memory.", "memory_gb"),
    ("A10 的显存是 48GB。", "memory_gb"),
    ("The L40S has 48 GB of HBM3 memory.", "memory_type"),
])
def test_a_plainly_wrong_figure_is_still_called_wrong_with_a_correction(gpukb, text, attribute):
    c = _one(gpukb, text, attribute)
    assert c["status"] == "incorrect" and c["correction"], c
    answer = gpukb.check(text)
    assert any(w["claim"] == c["id"] for w in answer["wrong"])          # and listed first, as what is wrong


def test_a_figure_beside_another_products_name_is_unclear_not_wrong(gpukb):
    c = _one(gpukb, "With 24 GB against 16 GB, the A10 beats the T4 on memory.", "memory_gb")
    if c["status"] != "supported":
        assert c["status"] == "unclear" and c["audit_status"] in ("incorrect", "misattributed"), c
        codes = {r["code"] for r in c["unclear_because"]}
        assert codes & {"several_products", "other_products_figure", "several_figures"}
        assert c["correction"] is None


def test_a_server_total_is_not_read_as_one_cards_memory(gpukb):
    c = _one(gpukb, "An 8-GPU A100 80GB server gives you 640 GB of GPU memory in total.", "memory_gb")
    assert c["status"] != "incorrect", c
    if c["status"] == "unclear":
        assert "multiple_of_one_card" in {r["code"] for r in c["unclear_because"]}


def test_a_bandwidth_beside_interconnect_words_is_not_judged_as_memory_bandwidth(gpukb):
    for c in _claims(gpukb, "The H100's NVLink interconnect reaches 900 GB/s between GPUs."):
        if c["attribute"] == "memory_bandwidth":
            assert c["status"] in ("unclear", "supported", "unverifiable"), c


def test_a_product_taken_from_an_earlier_sentence_is_not_corrected(gpukb):
    text = "We rented an H100 for the project.\nA consumer card with 24 GB is enough for QLoRA of a 7B model."
    for c in _claims(gpukb, text):
        if c["attribute"] == "memory_gb" and c["subject"].startswith("gpu:H100"):
            assert c["status"] != "incorrect", c


def test_a_rate_per_billion_parameters_is_not_a_total(gpukb):
    for c in _claims(gpukb, "Full fine-tuning takes roughly 16 GB per billion parameters."):
        assert c["status"] not in ("incorrect", "understated", "overstated"), c


def test_a_figure_within_common_setups_without_precision_is_not_wrong(gpukb):
    # 7B at 8 bytes/param (pure BF16) is 56 GB, at 16 (mixed precision) 112 GB: 70 GB is a setup's figure
    for c in _claims(gpukb, "A full fine-tune of a 7B model needs about 70 GB of GPU memory."):
        if c["attribute"] == "memory_required":
            assert c["status"] not in ("understated", "overstated", "incorrect"), c


def test_a_conditional_sentence_is_not_corrected(gpukb):
    for c in _claims(gpukb, "If the T4 had 32 GB of memory, 13B LoRA would fit."):
        assert c["status"] not in ("incorrect",), c


def test_a_run_on_sentence_is_cut_so_extraction_stays_linear():
    low = ("a10 比 t4 显存大，24gb 对比 16gb，" * 300).lower()
    spans = sentences(low)
    assert all(e - s <= MAX_SENTENCE for s, e in spans)
    assert spans[0][0] == 0 and spans[-1][1] == len(low.rstrip("，"))  or spans[-1][1] <= len(low)


def test_thousands_separators_are_one_number(gpukb):
    c = _one(gpukb, "The A100 80GB SXM offers 2,039 GB/s of memory bandwidth.", "memory_bandwidth")
    assert c["value"] in (2039, 2039.0), c


# -- tables and sections: the product is read from the structure, so a wrong cell is still called wrong ----
@pytest.mark.parametrize("text,subject", [
    ("| Spec | T4 | A10 |\n|---|---|---|\n| GPU memory | 32 GB | 24 GB |", "gpu:T4"),
    ("| 型号 | 显存 | 带宽 |\n|---|---|---|\n| T4 | 16GB | 320GB/s |\n| A10 | 48GB | 600GB/s |", "gpu:A10"),
    ("Spec NVIDIA T4 NVIDIA A10\nMemory 32 GB 24 GB", "gpu:T4"),
])
def test_a_wrong_table_cell_is_called_wrong(gpukb, text, subject):
    c = _one(gpukb, text, "memory_gb", subject)
    assert c["status"] == "incorrect", c
    right = [x for x in _claims(gpukb, text) if x["attribute"] == "memory_gb" and x["subject"] != subject]
    assert right and all(x["status"] == "supported" for x in right), right


@pytest.mark.parametrize("text", [
    "## NVIDIA T4\nThe card is built on Turing.\nIt has 32 GB of GDDR6 memory.",
    "T4 规格：\n- 显存：32GB\n- 功耗：70W",
])
def test_a_wrong_figure_under_a_heading_naming_its_product_is_called_wrong(gpukb, text):
    c = _one(gpukb, text, "memory_gb", "gpu:T4")
    assert c["status"] == "incorrect", c


def test_a_figure_under_a_heading_naming_two_products_stays_unclear(gpukb):
    c = _one(gpukb, "## T4 and A10\nThe T4 is older.\nIt has 32 GB of memory.", "memory_gb")
    assert c["status"] in ("unclear", "supported"), c
