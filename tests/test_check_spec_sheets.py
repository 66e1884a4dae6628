"""Spec sheets as people copy them (runs of short "label value" lines under a line naming the product), and
figures of the same dimension that are not the attribute they look like: a memory's per-pin data rate in
Gb/s, a recommended power supply, an on-chip cache. Texts written for these tests, not taken from any gold
passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation", "misattributed"}


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


@pytest.mark.parametrize("text", [
    "NVIDIA A100 规格\n架构 Ampere\n显存 80 GB\n显存带宽 2,039 GB/s\nTDP 400W\n",
    "A100 参数\n显存容量 40GB\n显存带宽 1,555 GB/s\n功耗 250W\n",
    "H100 规格\n显存带宽 3.35 TB/s\nTDP 700W\n接口 PCIe 5.0\n",
    "NVIDIA L40S Specifications\nGPU Memory 48GB GDDR6\nMemory Bandwidth 864GB/s\nMax Power Consumption 350W\n",
    "## A100 40GB PCIe\nMemory: 40GB HBM2\nBandwidth: 1,555GB/s\nTDP: 250W\n\n## A100 80GB SXM\nMemory: 80GB HBM2e\n"
    "Bandwidth: 2,039GB/s\nTDP: 400W\n",
    # a flattened two-column comparison: its lines are no sheet of the product named last
    "NVIDIA A100 vs NVIDIA A40\n\nNVIDIA A100\nNVIDIA A40\n6912 Shaders\n80GB HBM2e\n10752 Shaders\n48GB GDDR6\n",
])
def test_true_spec_sheets_are_not_flagged(gpukb, text):
    claims = _claims(gpukb, text)
    assert claims and not [c for c in claims if c["status"] in WRONG], claims


def test_a_sheets_memory_line_names_the_variant_its_figures_are_of(gpukb):
    claims = _claims(gpukb, "英伟达 A100 配置参数\n核心架构 Ampere\nTDP功耗 250W\n最大显存 80 GB\n代工厂 TSMC\n"
                            "显存带宽 1,555 GB/s\n")
    wrong = {(c["subject"], c["attribute"]) for c in claims if c["status"] == "incorrect"}
    assert wrong == {("gpu:A100-80GB", "tdp_w"), ("gpu:A100-80GB", "memory_bandwidth")}, claims


@pytest.mark.parametrize("text", ["The L40S uses GDDR6 memory at 18Gb/s.", "RTX 4090: GDDR6X at 21 Gbps per pin."])
def test_a_memory_figure_in_bits_per_second_is_no_bandwidth(gpukb, text):
    claims = _claims(gpukb, text)
    assert not [c for c in claims if c["attribute"] == "memory_bandwidth" and c["status"] in WRONG], claims


@pytest.mark.parametrize("text,attr", [
    ("RTX 4090 的功耗为 450W，建议电源 850W。", "psu_w"), ("A 850W power supply is recommended for the RTX 4090.", "psu_w"),
    ("The H100 has 50 MB of L2 cache and 80 GB of HBM3.", "cache_mb"), ("A100 的二级缓存为 40MB，显存 40GB。", "cache_mb"),
])
def test_a_power_supply_or_a_cache_is_its_own_attribute(gpukb, text, attr):
    claims = _claims(gpukb, text)
    assert any(c["attribute"] == attr for c in claims), claims
    assert not [c for c in claims if c["status"] in WRONG], claims


def test_a_boards_power_and_memory_are_still_read(gpukb):
    claims = _claims(gpukb, "RTX 4090 的功耗为 450W，建议电源 850W。The H100 has 80 GB of HBM3 and 50 MB of L2 cache.")
    got = {(c["attribute"], c["value"]) for c in claims if c["status"] == "supported"}
    assert ("tdp_w", 450) in got and ("memory_gb", 80) in got, claims


def test_an_instance_tables_bare_memory_column_is_its_ram(gpukb):
    text = ("| Instance | GPUs | GPU memory | vCPUs | Memory (GiB) |\n|---|---|---|---|---|\n| g5.xlarge | 1 | 24 GiB | 4 | 16 |\n"
            "| p4d.24xlarge | 8 | 320 GB | 96 | 1152 |\n")
    claims = _claims(gpukb, text)
    ram = {(c["subject"], c["value"]) for c in claims if c["attribute"] == "host_memory_gb"}
    assert ram == {("instance:g5.xlarge", 16), ("instance:p4d.24xlarge", 1152)}, claims
    assert not [c for c in claims if c["status"] in WRONG], claims


def test_figures_glued_to_words_in_a_borderless_table(gpukb):
    """"Memory Bandwidth2,039 GB/s3,350 GB/s": both figures are read whole, never their tails ("039 GB/s")."""
    claims = _claims(gpukb, "FeatureNVIDIA A100NVIDIA H100\nMemory80GB HBM2e80GB HBM3\n"
                            "Memory Bandwidth2,039 GB/s3,350 GB/s\nTDP400W700W\n")
    values = {c["value"] for c in claims if c["attribute"] == "memory_bandwidth"}
    assert values <= {2039, 3350} and not [c for c in claims if c["status"] in WRONG], claims


def test_a_table_rows_memory_names_the_variant_its_figures_are_of(gpukb):
    text = ("| Machine | GPU memory | RAM | vCPUs | Bandwidth |\n|---|---|---|---|---|\n"
            "| GPU-A100 | 40 GB | 60 GB | 12 | 2.0 TB/s |\n| GPU-A100 80GB | 80 GB | 120 GB | 24 | 2.0 TB/s |\n")
    bw = {(c["subject"], c["status"]) for c in _claims(gpukb, text) if c["attribute"] == "memory_bandwidth"}
    assert ("gpu:A100-40GB", "incorrect") in bw and ("gpu:A100-80GB", "supported") in bw, bw


@pytest.mark.parametrize("text", ["| GPU | Memory | Bandwidth |\n|---|---|---|\n| A100 | 40GB / 80GB | 1.6-2.0 TB/s |\n",
                                  "BF16 / FP16 TFLOPS ~362 TFLOPS per GPU on the L40S."])
def test_rows_of_two_sizes_and_per_gpu_figures_stay_true(gpukb, text):
    claims = _claims(gpukb, text)
    assert claims and not [c for c in claims if c["status"] in WRONG], claims
