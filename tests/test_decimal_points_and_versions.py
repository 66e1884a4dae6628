"""Two readings of spec lists: a point between digits ("3.35 TB/s") ends no sentence, so a pronoun in the next
sentence ("其", "Its") still speaks of the product named before it; and a figure said of one version ("A100 80GB
SXM … 300 W") is not another version's figure rounded (the PCIe card's 300 W). Sentences written for these tests;
figures from the NVIDIA H100 datasheet (SXM: 80 GB HBM3, 3.35 TB/s, FP16 Tensor 989 TFLOPS dense, 1,979 with
sparsity) and the NVIDIA A100 datasheet (80GB PCIe 300 W, 80GB SXM 400 W)."""
from __future__ import annotations

import pytest

from ._engine import checked


def _statuses(gpukb, text, attribute):
    return [(c["value"], c["status"]) for c in checked(gpukb, text, attribute)]


@pytest.mark.parametrize("text", [
    "H100 SXM 配备 80GB HBM3，带宽 3.35 TB/s。\n其 FP16 Tensor Core 稠密算力高达 1,979 TFLOPS。",
    "The H100 SXM has 80GB of HBM3 at 3.35 TB/s.\nIts dense FP16 Tensor Core throughput is 1,979 TFLOPS.",
])
def test_a_decimal_point_ends_no_sentence_before_a_pronoun(gpukb, text):
    # 1,979 is the with-sparsity rate, said as dense: wrong, and the pronoun's product is the H100 SXM
    assert _statuses(gpukb, text, "fp16_tensor_tflops") == [(1979.0, "incorrect")]
    # the dense rate itself is right
    assert _statuses(gpukb, text.replace("1,979", "989"), "fp16_tensor_tflops") == [(989.0, "supported")]


def test_two_products_before_the_pronoun_still_leave_it_open(gpukb):
    text = "The A100 has 80GB at 2.04 TB/s and the H100 SXM 80GB at 3.35 TB/s.\nIts dense FP16 Tensor Core throughput is 1,979 TFLOPS."
    assert [s for _, s in _statuses(gpukb, text, "fp16_tensor_tflops")] == ["unclear"]


def test_a_versions_figure_is_not_another_versions_rounded(gpukb):
    assert _statuses(gpukb, "The A100 80GB SXM pairs 80 GB of HBM2e with 2,039 GB/s of bandwidth at a 300 W TDP.",
                     "tdp_w") == [(300.0, "incorrect")]
    assert _statuses(gpukb, "The A100 80GB SXM pairs 80 GB of HBM2e with 2,039 GB/s of bandwidth at a 400 W TDP.",
                     "tdp_w") == [(400.0, "supported")]
    # said of no version, a round 300 W stays the PCIe card's figure: not called wrong
    assert not [s for _, s in _statuses(gpukb, "The A100 80GB draws 300 W.", "tdp_w") if s == "incorrect"]


def test_a_counts_correction_writes_no_unit(gpukb):
    # an Amazon EC2 p4d.24xlarge has 8 A100 GPUs (Amazon EC2 accelerated computing instances)
    got = checked(gpukb, "The AWS p4d.24xlarge has 4 A100 GPUs.", "gpu_count")
    assert [c["status"] for c in got] == ["incorrect"]
    assert "is 8, not 4 [" in got[0]["correction"]["en"], got[0]["correction"]
