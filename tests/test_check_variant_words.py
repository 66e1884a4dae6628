"""A variant named by its own word ("an NVL variant", "PCIe 版本"), the attribute a figure's word names when a
parenthesis restates it ("733 TFLOPS of FP8 (1,466 with sparsity)"), a sparsity word right after a figure
(which wins over "dense" said of the figure before), counts of cards in words ("two 16 GB T4s"), and figures
that are another product's or another thing's (an RT core's rate, one HBM stack, a product gpukb does not
know). Sentences written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


@pytest.mark.parametrize("text,subject,attr,value", [
    ("Note: The H200 also comes in an NVL variant (PCIe card, 600 W, no NVSwitch fabric).", "gpu:H200-NVL", "tdp_w", 600),
    ("H100 的 PCIe 版本功耗为 350W。", "gpu:H100-PCIe", "tdp_w", 350),
    ("The H100 SXM version delivers 3.35 TB/s while the PCIe version offers 2 TB/s.", "gpu:H100-PCIe", "memory_bandwidth", 2),
])
def test_a_variant_named_by_its_own_word(gpukb, text, subject, attr, value):
    got = [c for c in _claims(gpukb, text) if c["attribute"] == attr and c["value"] == value]
    assert got and got[0]["subject"] == subject and got[0]["status"] == "supported", got


def test_a_figures_word_after_of_names_it_though_a_parenthesis_restates_it(gpukb):
    (c,) = [c for c in _claims(gpukb, "The L40S provides 733 TFLOPS of FP8 (1,466 with sparsity).") if c["value"] == 733]
    assert c["attribute"] == "fp8_tensor_tflops" and c["status"] == "supported"


def test_a_sparsity_word_right_after_a_figure_is_its_own(gpukb):
    text = "The H100 SXM delivers 989 TFLOPS of dense BF16 Tensor Core compute and 1,979 TFLOPS with sparsity."
    got = {c["value"]: (c["qualifiers"].get("sparsity"), c["status"]) for c in _claims(gpukb, text)}
    assert got[989] == (False, "supported") and got[1979] == (True, "supported"), got     # "dense": said to be dense


@pytest.mark.parametrize("text,status", [("Serving Llama-2-13B in FP16 needs two 16 GB T4s at least.", "supported"),
                                         ("Serving Llama-2-70B in FP16 needs two 16 GB T4s.", "understated")])
def test_a_count_of_cards_in_words(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "min_gpus"]
    assert c["subject"] == "gpu:T4" and c["value"] == 2 and c["status"] == status
    assert not [c for c in _claims(gpukb, text) if c["attribute"].startswith("memory")]


@pytest.mark.parametrize("text", [
    "L40S GPU内置有142个第三代RT核心,可提供212TFLOPS的光追性能。",
    "HBM3e Utilization: the B200 features 8 stacks of HBM3e (24GB each).",
    "B200 的每颗 HBM3e 堆栈容量为 24GB。",
    "The T4 draws 70W, while the RTX 2070 needs 175W.",
    "T4 是一张 16GB 显存的显卡。",
    "Factor L40S x12 H200 x8\nTotal memory 576 GB GDDR6 1,128 GB HBM3e\nMemory bandwidth 10.4 TB/s total 38.4 TB/s total\n",
    "H200 是 H100 的显存增强版：从H100的80GB HBM3升级到了141GB HBM3e，带宽也从3.35TB/s提升到了4.8TB/s。",
    "The H200 moves from the H100's 80 GB of HBM3 to 141 GB of HBM3e.",
])
def test_figures_of_another_thing_are_not_flagged(gpukb, text):
    claims = _claims(gpukb, text)
    assert not [c for c in claims if c["status"] in ("incorrect", "understated", "overstated")], claims


@pytest.mark.parametrize("text,attr,value", [("The H200 has 141 GB (HBM3e).", "memory_gb", 141),
                                             ("A10（24GB）适合推理。", "memory_gb", 24),
                                             ("The 8-GPU server has 640 GB in total; each H100 has 80 GB.", "memory_gb", 80)])
def test_a_cards_own_figure_stays_supported(gpukb, text, attr, value):
    assert any(c["attribute"] == attr and c["value"] == value and c["status"] == "supported" for c in _claims(gpukb, text))
