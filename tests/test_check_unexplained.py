"""`check` calls a card's figure wrong only when it can say what the text got wrong: a figure near the card's
own (a rounded or older one), another variant's, the with-sparsity rate, or the figure of a product the text
names; or when the clause states it of the card in so many words. A figure like none of those, in a clause
that does not name the attribute, is `unclear` (`unexplained_figure`). Sentences written for these tests,
not taken from any gold passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation", "misattributed"}


def _claim(gpukb, text: str, attribute: str) -> dict:
    (c,) = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute]
    return c


def _codes(c: dict) -> list[str]:
    return [u["code"] for u in c.get("unclear_because", [])]


@pytest.mark.parametrize("text, attribute", [
    ("The L4 reaches 150 GB/s.", "memory_bandwidth"),
    ("The L4 card. 150 GB/s.", "memory_bandwidth"),
    ("T4 是推理卡，跑下来大约 9GB。", "memory_gb"),
    ("这款 T4 的推理表现不错，达到 9GB。", "memory_gb"),
])
def test_a_figure_like_none_the_card_has_is_unclear(gpukb, text, attribute):
    c = _claim(gpukb, text, attribute)
    assert c["status"] == "unclear" and "unexplained_figure" in _codes(c), c
    (why,) = [u for u in c["unclear_because"] if u["code"] == "unexplained_figure"]
    assert why["en"] and why["zh"] and c["correction"] is None


@pytest.mark.parametrize("text, attribute", [
    ("L4 的显存带宽为 150 GB/s。", "memory_bandwidth"),          # the clause names the attribute
    ("The L4 reaches 250 GB/s of memory bandwidth.", "memory_bandwidth"),   # near its own 300 GB/s: the text's error
    ("The T4 is an inference card with 12 GB.", "memory_gb"),   # near its own 16 GB
])
def test_a_stated_or_near_figure_stays_wrong(gpukb, text, attribute):
    c = _claim(gpukb, text, attribute)
    assert c["status"] in WRONG and "unexplained_figure" not in _codes(c), c


def test_the_with_sparsity_rate_given_as_dense_stays_wrong(gpukb):
    # 1,979 TFLOPS is the H100 SXM's FP16 rate with sparsity: a known mistake, not an unknown figure
    c = _claim(gpukb, "H100 SXM 可达到 1979 TFLOPS。", "fp16_tensor_tflops")
    assert "unexplained_figure" not in _codes(c), c


# --- totals of several cards, setups, differences and vendors read from elsewhere

@pytest.mark.parametrize("text", [
    "| 电源 | ≥ 2000W 冗余电源 | 4×L20 TDP = 1100W，需留余量 |",
    "4 张 L20 的总功耗为 1100W。",
    "8x H100 SXM deliver 7916 TFLOPS of FP16 with sparsity.",
])
def test_n_times_one_cards_figure_beside_n_cards_is_their_total(gpukb, text):
    (c,) = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] in ("tdp_w", "fp16_tensor_tflops")]
    assert c["status"] == "unclear" and "total_of_cards" in _codes(c), c


def test_one_cards_wrong_power_stays_wrong(gpukb):
    c = _claim(gpukb, "The L20 TDP is 1100W.", "tdp_w")
    assert c["status"] == "incorrect" and "total_of_cards" not in _codes(c), c


def test_the_gpus_of_a_setup_are_no_minimum(gpukb):
    c = _claim(gpukb, "在 4 张 NVIDIA L20 显卡的服务器上部署 Qwen3-32B 大模型。", "min_gpus")
    assert c["status"] == "unclear" and "setup_count" in _codes(c), c


def test_a_stated_minimum_count_is_still_judged(gpukb):
    c = _claim(gpukb, "部署 Qwen3-32B 至少需要 4 张 NVIDIA L20。", "min_gpus")
    assert c["status"] == "overstated" and "setup_count" not in _codes(c), c


@pytest.mark.parametrize("text", [
    "The H200 has 141GB, 61GB more than the H100.",
    "It features 94GB of HBM3 memory per GPU - 14GB more than the standard H100 SXM.",
])
def test_a_figure_followed_by_more_than_is_a_difference(gpukb, text):
    small = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_gb" and c["value"] in (61.0, 14.0)]
    assert small and all(c["status"] == "unclear" and "difference" in _codes(c) for c in small), small


def test_a_vendor_named_for_its_gpus_is_not_the_vendor_of_a_cloud_product(gpukb):
    text = "The instance uses NVIDIA Blackwell GPUs. It reaches Amazon FSx for Lustre through EFA."
    claims = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "vendor"]
    assert claims and all(c["status"] == "unclear" and "carried_vendor" in _codes(c) for c in claims), claims


def test_a_vendor_the_sentence_names_is_still_judged(gpukb):
    c = _claim(gpukb, "NVIDIA's EFA is fast.", "vendor")
    assert c["status"] == "misattributed", c


@pytest.mark.parametrize("text", [
    "The H100 NVL pairs two GPUs. Each GPU has 94 GB of HBM3 memory, and the two units are linked by NVLink, "
    "offering a total of 188 GB HBM3, ideal for serving models with up to 70 billion parameters.",
    "H100 NVL 双卡合计 188GB 显存，适合部署 70B 模型的 FP16 推理。",
])
def test_a_verdict_beside_several_cards_total_is_about_them(gpukb, text):
    c = _claim(gpukb, text, "suitability")
    assert c["status"] == "unclear" and "count_unread" in _codes(c), c


def test_a_verdict_on_one_card_is_still_judged(gpukb):
    c = _claim(gpukb, "The H100 NVL with 94 GB is ideal for serving 70B models in FP16.", "suitability")
    assert c["status"] in WRONG, c


# --- words that lead into the next figure, counts of processors, architectures said as adjectives

@pytest.mark.parametrize("text", [
    "A100 的 TF32 Tensor 为 156 TFLOPS（稀疏 312）。",
    "The A100 delivers 156 TFLOPS of TF32 (sparse: 312).",
])
def test_a_sparsity_word_before_the_next_figure_is_that_figures(gpukb, text):
    c = _claim(gpukb, text, "tf32_tensor_tflops")
    assert c["status"] == "supported" and "sparsity" not in c["qualifiers"], c


def test_a_sparsity_word_after_its_own_figure_still_qualifies_it(gpukb):
    c = _claim(gpukb, "L4 的 FP16 算力为 242 TFLOPS（稀疏）。", "fp16_tensor_tflops")
    assert c["qualifiers"].get("sparsity") is True and c["status"] == "supported", c


def test_a_count_of_vcpus_is_no_count_of_cards(gpukb):
    text = "p4d.24xlarge: 96 vCPUs, 1,152 GiB of RAM and 320 GB of GPU memory across its eight A100s."
    claims = gpukb.check(text).to_json()["claims"]
    assert not [c for c in claims if c["attribute"] == "gpu_count" and c["value"] == 96], claims
    assert not [c for c in claims if c["attribute"] == "memory_gb" and c["status"] in WRONG], claims
    # the sum over the eight GPUs is the instance's total GPU memory (tests/test_check_instance_totals.py)
    assert _claim(gpukb, text, "gpu_memory_total_gb")["status"] == "supported"


@pytest.mark.parametrize("text, status", [
    ("The RTX 4090 is an Ampere-generation card.", "incorrect"),
    ("The H100 is Hopper-based.", "supported"),
])
def test_an_architecture_said_as_generation_or_base_is_read(gpukb, text, status):
    c = _claim(gpukb, text, "architecture")
    assert c["status"] == status, c


@pytest.mark.parametrize("text", ["The RTX 4090 has been on sale since October 2022.", "RTX 4090 于 2022 年 10 月开售。"])
def test_on_sale_since_is_a_launch(gpukb, text):
    c = _claim(gpukb, text, "launch_year")
    assert c["value"] == 2022 and c["status"] == "supported", c
