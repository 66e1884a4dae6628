"""A throughput given with no sparsity qualifier that is the product's own with-sparsity figure (datasheets print
it with a footnote) is overstated, and the answer names both figures (rule audit.ref.quantity.sparse_as_dense);
a figure that is neither is still incorrect. Sentences written for these tests."""
from __future__ import annotations

import pytest


def _one(gpukb, text: str, attribute: str) -> tuple[dict, dict]:
    answer = gpukb.check(text).to_json()
    return next(c for c in answer["claims"] if c["attribute"] == attribute), answer


@pytest.mark.parametrize("text, attribute", [
    ("The H100 SXM delivers 3,958 TFLOPS of FP8.", "fp8_tensor_tflops"),
    ("The L4 delivers 485 TFLOPS of FP8.", "fp8_tensor_tflops"),
    ("L40S 的 FP8 算力为 1466 TFLOPS。", "fp8_tensor_tflops"),
    ("The B200 delivers 9 POPS of INT8.", "int8_tops"),
])
def test_a_with_sparsity_figure_given_as_a_rate_is_overstated_with_both_figures(gpukb, text, attribute):
    c, answer = _one(gpukb, text, attribute)
    assert c["status"] == "overstated", c
    assert any(f["rule"].startswith("audit.ref.quantity.sparse_as_dense@") for f in c["findings"])
    line = next(w for w in answer["wrong"] if w["claim"] == c["id"])
    assert "with sparsity" in line["en"] and "稀疏" in line["zh"], line


def test_the_correction_gives_the_claims_figure_as_written_and_the_references_unit(gpukb):
    c, answer = _one(gpukb, "The B200 delivers 9 POPS of INT8.", "int8_tops")
    en = next(w for w in answer["wrong"] if w["claim"] == c["id"])["en"]
    assert "4500 TOPS" in en and "not 9 POPS" in en, en


@pytest.mark.parametrize("text, attribute, status", [
    ("The H100 SXM delivers 3,958 TFLOPS of FP8 with sparsity.", "fp8_tensor_tflops", "supported"),
    ("The H100 SXM delivers 1,979 TFLOPS of FP8.", "fp8_tensor_tflops", "supported"),
    ("The H100 SXM delivers 2,500 TFLOPS of FP8.", "fp8_tensor_tflops", "incorrect"),
    ("The L4 delivers 900 TFLOPS of FP8.", "fp8_tensor_tflops", "incorrect"),
])
def test_other_figures_keep_their_status(gpukb, text, attribute, status):
    c, answer = _one(gpukb, text, attribute)
    assert c["status"] == status, c
    assert all("with sparsity" not in w["en"] for w in answer["wrong"]), answer["wrong"]
