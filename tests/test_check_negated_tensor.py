"""A throughput said to be "non-Tensor Core" (非 Tensor Core, "without Tensor Cores") is the plain rate of its
precision, not a Tensor Core rate: "FP64 (non-Tensor Core) 34 TFLOPS" is the H100 SXM's FP64 rate, and
"Tensor Core" negated names no FP16 Tensor rate either. Sentences written for these tests."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text, attribute, value, status", [
    # NVIDIA H100 datasheet (SXM): FP64 34 TFLOPS, FP64 Tensor Core 67 TFLOPS
    ("H100 SXM: FP64 (non-Tensor Core) 34 TFLOPS, FP64 Tensor Core 67 TFLOPS.", "fp64_tflops", 34.0, "supported"),
    ("H100 SXM: FP64 (non-Tensor Core) 34 TFLOPS, FP64 Tensor Core 67 TFLOPS.", "fp64_tensor_tflops", 67.0, "supported"),
    ("H100 SXM 的标准 FP64（非 Tensor Core）算力为 67 TFLOPS。", "fp64_tflops", 67.0, "incorrect"),
])
def test_a_non_tensor_rate_is_the_plain_rate(gpukb, text, attribute, value, status):
    got = [c for c in checked(gpukb, text, attribute) if c["value"] == value]
    assert [c["status"] for c in got] == [status], checked(gpukb, text)
    assert not checked(gpukb, text, "fp16_tensor_tflops")


def test_fp16_slash_fp32_is_the_mixed_precision_tensor_rate(gpukb):
    # NVIDIA T4 datasheet: "Mixed Precision (FP16/FP32) 65 TFLOPS"
    got = checked(gpukb, "NVIDIA T4 主要规格：\n- 混合精度（FP16/FP32）：65 TFLOPS", "fp16_tensor_tflops")
    assert [c["status"] for c in got] == ["supported"]
    assert not checked(gpukb, "NVIDIA T4: Mixed Precision (FP16/FP32) 65 TFLOPS", "fp32_tflops")
