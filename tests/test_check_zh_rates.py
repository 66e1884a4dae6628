"""Chinese rate sentences: "单精度" and "双精度" glued to a name or a figure still name FP32 and FP64, and "达到"
("reaches") before the second figure of a pair does not join the two into a range ("单精度达到10.6TFlops,
双精度达到5.3TFlops" is two figures). Sentences written for these tests; figures from the NVIDIA Tesla P100 and
V100 datasheets (P100 SXM2: 10.6 TFLOPS FP32, 5.3 FP64; V100 SXM2: 15.7 FP32, 7.8 FP64)."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text", [
    "Tesla P100的性能很强，单精度达到10.6TFlops，双精度达到5.3TFlops。",
    "Tesla P100的性能很强,单精度达到10.6TFlops,双精度达到5.3TFlops。",
    "P100单精度为10.6 TFLOPS，双精度为5.3 TFLOPS。",
    "P100的单精度10.6TFLOPS、双精度5.3TFLOPS",
])
def test_each_precision_word_keeps_its_figure(gpukb, text):
    got = {(c["attribute"], c["value"]) for c in checked(gpukb, text) if c["attribute"].endswith("tflops")}
    assert got == {("fp32_tflops", 10.6), ("fp64_tflops", 5.3)}
    assert not any(c["status"] == "incorrect" for c in checked(gpukb, text))


def test_reaching_a_wrong_figure_is_still_judged(gpukb):
    # the V100 SXM2's FP64 is 7.8 TFLOPS: 15.7 is its FP32 figure
    got = checked(gpukb, "V100单精度达到15.7TFLOPS，双精度达到15.7TFLOPS。", "fp64_tflops")
    assert [(c["value"], c["status"]) for c in got] == [(15.7, "incorrect")]


def test_a_change_from_one_figure_to_another_still_joins(gpukb):
    # "从 … 降至 …" and "… 到 …" still read as one change or range, not two claims
    got = checked(gpukb, "A100 有 40GB 到 80GB 两种版本。", "memory_gb")
    assert got and all(c["status"] == "supported" for c in got)


def test_a_product_named_after_the_figure_as_a_ratios_base_is_no_rival(gpukb):
    # "容量接近 H100 的两倍" compares with the H100; the memory type said before it is the H200's (HBM3e)
    got = checked(gpukb, "NVIDIA H200：最高 141GB HBM3 显存，带宽 4.8TB/s，容量接近 H100 的两倍。", "memory_type")
    assert [(c["subject"], c["status"]) for c in got] == [("gpu:H200", "incorrect")]
    got = checked(gpukb, "NVIDIA H200：最高 141GB HBM3e 显存，带宽 4.8TB/s，容量接近 H100 的两倍。")
    assert got and all(c["status"] == "supported" for c in got)


def test_nvlink_is_written_before_its_figure(gpukb):
    # "NVLink 为 900GB/s" is the NVLink bandwidth, not the memory's (H100 SXM: 900 GB/s; H800: 400 GB/s)
    got = checked(gpukb, "H100 SXM 的 NVLink 为 900GB/s。")
    assert [(c["attribute"], c["status"]) for c in got] == [("nvlink_bandwidth", "supported")]
    assert [c["status"] for c in checked(gpukb, "H800 的 NVLink 为 400GB/s。", "nvlink_bandwidth")] == ["supported"]
