"""How `check` reads real pages (issue 31): whose figure a number is, which bandwidth it is, tables copied
without their borders, and figures that are no claim (a size in a product's name, a network speed). Every
sentence here was written for these tests; none is taken from a gold passage."""
from __future__ import annotations

import pytest


def _claims(gpukb, text: str, lang: str | None = None) -> list[dict]:
    return gpukb.check(text, lang)["claims"]


def _find(gpukb, text: str, subject: str, attribute: str, lang: str | None = None) -> list[dict]:
    return [c for c in _claims(gpukb, text, lang) if c["subject"] == subject and c["attribute"] == attribute]


# --- a datasheet figure makes a different figure wrong, with the correction

@pytest.mark.parametrize("text,subject,attribute", [
    ("The L4 draws 150 W.", "gpu:L4", "tdp_w"),
    ("The T4 has 24 GB of memory.", "gpu:T4", "memory_gb"),
])
def test_a_datasheet_figure_still_makes_a_wrong_figure_wrong(gpukb, text, subject, attribute):
    [c] = _find(gpukb, text, subject, attribute)
    assert c["status"] == "incorrect" and c["correction"], c


# --- a figure written onto its product's name belongs to it, even in a sentence naming two products

@pytest.mark.parametrize("text,lang", [
    ("The H20 reaches 4.0 TB/s of memory bandwidth, well below the H100's 8 TB/s.", None),
    ("L4 的显存带宽为 300GB/s，而 T4 的显存带宽为 900GB/s。", "zh"),
])
def test_a_figure_attached_to_its_product_is_judged_even_beside_another_product(gpukb, text, lang):
    wrong = [c for c in _claims(gpukb, text, lang) if c["attribute"] == "memory_bandwidth" and c["status"] == "incorrect"]
    assert len(wrong) == 1 and wrong[0]["subject"] in ("gpu:H100", "gpu:T4"), _claims(gpukb, text, lang)
    assert wrong[0]["correction"]


@pytest.mark.parametrize("text", ["A100 和 H100 的显存带宽分别是 2TB/s 和 8TB/s。",
                                  "The L4 vs. T4: 900 GB/s vs 300 GB/s of memory bandwidth."])
def test_figures_paired_with_a_list_of_products_are_not_given_to_the_nearest_name(gpukb, text):
    for c in _claims(gpukb, text):
        assert c["status"] != "incorrect", c


def test_a_figure_between_two_products_without_a_possessive_stays_unclear(gpukb):
    text = "Compared with the A10, the T4 offers 900 GB/s."       # "offers" is no possessive or linking word of the name
    for c in _claims(gpukb, text):
        if c["attribute"] == "memory_bandwidth" and c["subject"] == "gpu:A10":
            assert c["status"] != "incorrect", c


# --- a GPU's interconnect bandwidth is its NVLink bandwidth, not its memory bandwidth

@pytest.mark.parametrize("text,subject,value", [
    ("| 指标 | A100 | H100 |\n|---|---|---|\n| 互联带宽 | 600GB/s | 900GB/s |", "gpu:A100", 600),
    ("The A100 offers NVLink (600 GB/s) between cards.", "gpu:A100", 600),
    ("V100 的多卡间带宽为 300GB/s。", "gpu:V100", 300),
    ("H100 的 NVLink: 900 GB/s。", "gpu:H100", 900),
])
def test_an_interconnect_bandwidth_is_read_as_nvlink_bandwidth(gpukb, text, subject, value):
    found = _find(gpukb, text, subject, "nvlink_bandwidth")
    assert found and float(found[0]["value"]) == value, _claims(gpukb, text)
    assert not _find(gpukb, text, subject, "memory_bandwidth")


def test_an_interconnect_bandwidth_beside_pcie_words_is_unclear_not_a_wrong_nvlink_figure(gpukb):
    [c] = _find(gpukb, "A100 通过 PCIe 插槽安装，卡间带宽 64GB/s。", "gpu:A100", "nvlink_bandwidth", "zh")
    assert c["status"] == "unclear" and {r["code"] for r in c["unclear_because"]} == {"pcie_link"}, c
    [c] = _find(gpukb, "A100 的卡间带宽为 64GB/s。", "gpu:A100", "nvlink_bandwidth", "zh")
    assert c["status"] == "incorrect" and c["correction"], c               # no PCIe named: NVLink's, and wrong


def test_a_memory_bandwidth_beside_its_own_word_is_still_memory_bandwidth(gpukb):
    found = _find(gpukb, "The A100 80GB has 2 TB/s of memory bandwidth and NVLink at 600 GB/s.", "gpu:A100-80GB",
                  "memory_bandwidth")
    assert found and found[0]["status"] == "supported", found


# --- a figure whose product is in scope (a heading, "it", its line, a table copied as text) is checked

@pytest.mark.parametrize("text,subject,attribute", [
    ("NVIDIA T4\n\nIt has 16 GB of GDDR6 memory and draws 70 W.", "gpu:T4", "tdp_w"),          # a heading line
    ("The T4 is a small card. It has 16 GB of memory.\n\nIt draws 70 W.", "gpu:T4", "tdp_w"),   # "it": the text's one product
    ("L4 采用 Ada 架构，功耗仅 72W，其显存为 24GB。", "gpu:L4", "memory_gb"),                   # named earlier in its line
    ("Spec L4 T4\nMemory 24 GB 16 GB\nPower 72 W 70 W", "gpu:L4", "memory_gb"),                # a table copied as text
])
def test_a_figure_whose_product_is_in_scope_is_still_checked(gpukb, text, subject, attribute):
    found = _find(gpukb, text, subject, attribute)
    assert found and found[0]["status"] == "supported", _claims(gpukb, text)


# --- tables copied from a page without their borders: names, figures and words run together

def _table(gpukb, text):
    return {(c["subject"], c["attribute"]): c for c in _claims(gpukb, text)}


def test_a_borderless_table_with_a_label_before_its_glued_names_is_read_cell_by_cell(gpukb):
    text = ("How the three compare\n\nSpecT4L4A10\nVRAM16 GB GDDR624 GB GDDR624 GB GDDR6X\nTDP70W72W300W\n"
            "Memory BW320 GB/s300 GB/s600 GB/s\n")
    got = _table(gpukb, text)
    assert got[("gpu:T4", "memory_type")]["status"] == "supported"
    assert got[("gpu:A10", "memory_type")]["status"] == "incorrect"        # the A10 has GDDR6
    assert got[("gpu:L4", "tdp_w")]["status"] == "supported" and float(got[("gpu:L4", "tdp_w")]["value"]) == 72
    assert got[("gpu:A10", "tdp_w")]["status"] == "incorrect"              # 150 W
    assert float(got[("gpu:T4", "memory_bandwidth")]["value"]) == 320


def test_a_glued_row_that_cannot_be_split_gives_no_claim(gpukb):
    text = "SpecT4L4A10\nFP32 TFLOPS8.130.331.2\n"                         # 8.1 | 30.3 | 31.2, or 8.13 | 0.33 ...?
    assert not [c for c in _claims(gpukb, text) if c["attribute"] == "fp32_tflops"]


# --- a size that names the variant, a network speed: no claim

@pytest.mark.parametrize("text", ["Even an A100 (80GB) cannot hold it alone.", "一张 A100（80GB）也放不下。"])
def test_the_size_in_a_products_name_is_not_a_memory_claim(gpukb, text):
    assert not [c for c in _claims(gpukb, text) if c["attribute"] == "memory_gb"], _claims(gpukb, text)


def test_a_stated_memory_size_of_a_variant_is_still_a_claim(gpukb):
    [c] = _find(gpukb, "The A100 80GB has 80 GB of HBM2e memory.", "gpu:A100-80GB", "memory_gb")
    assert c["status"] == "supported"


@pytest.mark.parametrize("text,word", [("H20 集群仍配套 IB 网络 400G。", "IB"), ("Each H100 node has a RoCE 200G link.", "RoCE")])
def test_a_bare_g_figure_beside_network_words_is_a_link_speed_not_memory(gpukb, text, word):
    answer = gpukb.check(text)
    assert not [c for c in answer["claims"] if c["attribute"] == "memory_gb"], answer["claims"]
    assert any("network speed" in n["reason"] and word in n["reason"] for n in answer["not_understood"])
