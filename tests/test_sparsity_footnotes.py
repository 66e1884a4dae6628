"""A figure with a footnote mark ("485 TFLOPS*") whose footnote the text gives as "*With sparsity" is the
with-sparsity rate, as NVIDIA's datasheets print it; a mark whose footnote says something else, or none, changes
nothing. Sentences of our own."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text, attribute", [
    ("NVIDIA L4 Tensor Core GPU: FP8 485 TFLOPS*, 24 GB, 300 GB/s, 72 W. *With sparsity.", "fp8_tensor_tflops"),
    ("H100 SXM: FP8 3,958 TFLOPS*, FP16 1,979 TFLOPS*\n* with sparsity", "fp16_tensor_tflops"),
])
def test_a_starred_figure_is_the_sparse_rate_the_footnote_names(gpukb, text, attribute):
    got = checked(gpukb, text, attribute)
    assert got and all(c["qualifiers"].get("sparsity") is True and c["status"] == "supported" for c in got)


@pytest.mark.parametrize("text", [
    "L4: FP8 485 TFLOPS*. *Measured on a single GPU.",       # the footnote says something else
    "L4: FP8 485 TFLOPS*, 24 GB.",                           # no footnote in the text
])
def test_other_footnotes_change_nothing(gpukb, text):
    got = checked(gpukb, text, "fp8_tensor_tflops")
    assert got and all("sparsity" not in c["qualifiers"] for c in got)
    # 485 is the L4's with-sparsity FP8 rate (NVIDIA L4 datasheet), 242.5 dense: given plain, it is overstated
    assert all(c["status"] != "supported" for c in got)


# -- a spec table says it once, in a header: a row label with a footnote mark, a column header with the word
@pytest.mark.parametrize("text, attribute, product", [
    ("Precision    H100 SXM    H100 PCIe\nFP8 Tensor*    3,958 TFLOPS    3,026 TFLOPS\n* with sparsity",
     "fp8_tensor_tflops", "gpu:H100-PCIe"),
    ("| Precision | L4 peak (with sparsity) |\n|---|---|\n| FP8 | 485 TFLOPS |", "fp8_tensor_tflops", "gpu:L4"),
    ("精度    A100 稠密    A100 稀疏\nINT8    624 TOPS    1,248 TOPS", "int8_tops", "gpu:A100"),
    ("| Spec | L40S |\n|---|---|\n| FP8 Tensor (sparse) | 1,466 TFLOPS |", "fp8_tensor_tflops", "gpu:L40S"),
])
def test_a_header_that_says_sparsity_makes_its_cells_sparse_rates(gpukb, text, attribute, product):
    got = [c for c in checked(gpukb, text, attribute) if c["subject"] == product]
    assert got and all(c["status"] == "supported" for c in got), got
    assert any(c["qualifiers"].get("sparsity") is True for c in got), got


def test_a_dense_header_keeps_its_cells_dense(gpukb):
    got = checked(gpukb, "Precision    H100 SXM    H100 PCIe\nBF16 Tensor (dense)    989 TFLOPS    756 TFLOPS", "bf16_tensor_tflops")
    assert got and all(c["qualifiers"].get("sparsity") is False and c["status"] == "supported" for c in got), got


def test_a_sparse_figure_under_a_plain_header_is_still_judged(gpukb):
    # 1,979 is the H100 SXM's with-sparsity BF16 rate (NVIDIA H100 datasheet); under a plain label it is overstated
    got = checked(gpukb, "| Precision | H100 SXM |\n|---|---|\n| BF16 | 1,979 TFLOPS |", "bf16_tensor_tflops")
    assert got and all(c["status"] != "supported" for c in got), got


def test_a_precision_label_names_its_row_in_a_table_copied_as_text(gpukb):
    # "BF16" alone names a throughput only beside a throughput's unit, which a table puts in the cell
    got = checked(gpukb, "Precision    H100 SXM    H100 PCIe\nBF16 Tensor    989 TFLOPS    756 TFLOPS", "bf16_tensor_tflops")
    assert {(c["subject"], c["value"]) for c in got} == {("gpu:H100-80GB", 989.0), ("gpu:H100-PCIe", 756.0)}
