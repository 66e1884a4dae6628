"""Readings that keep `check` from calling true sentences wrong: a product sold in versions (the GH200 with
96 GB HBM3 or 144 GB HBM3e), a rate written "每秒 10TB", a figure after "versus" or in a change "from X to Y",
a total of two products, a measured speed-up beyond the spec ratios, a "tight" memory verdict. Sentences
written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation", "misattributed"}


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


def _flags(gpukb, text: str) -> list[tuple]:
    return [(c["subject"], c["attribute"], c["value"], c["status"]) for c in _claims(gpukb, text) if c["status"] in WRONG]


@pytest.mark.parametrize("text", [
    "The GH200 has 144 GB of HBM3e memory.",
    "The GH200 uses HBM3e.",
    "英伟达 GH200 增加 HBM3e 内存。",
    "The GH200 memory bandwidth is 4.9 TB/s.",
])
def test_a_figure_of_one_version_of_a_product_is_not_wrong(gpukb, text):
    claims = _claims(gpukb, text)
    assert claims and not _flags(gpukb, text), claims
    assert any(c["status"] == "scope_dependent" for c in claims), claims


def test_a_version_figure_is_explained_with_its_condition(gpukb):
    (c,) = [c for c in _claims(gpukb, "The GH200 has 144 GB of memory.") if c["attribute"] == "memory_gb"]
    (f,) = [f for f in c["findings"] if f["kind"] == "scope_dependent"]
    assert "144 GB HBM3e version" in f["explanation"]["en"] and f["rule"].startswith("audit.ref.version.quantity@")


@pytest.mark.parametrize("text,kind", [
    ("The GH200 has 200 GB of HBM3e memory.", "incorrect"),
    ("The GH200 uses GDDR6.", "incorrect"),
])
def test_a_figure_of_no_version_is_still_wrong(gpukb, text, kind):
    assert [f[3] for f in _flags(gpukb, text)][:1] == [kind], _claims(gpukb, text)


def test_a_figure_per_second_is_a_bandwidth(gpukb):
    claims = _claims(gpukb, "H100 SXM 的显存带宽为每秒 3.35TB。")
    assert [(c["attribute"], c["status"]) for c in claims] == [("memory_bandwidth", "supported")], claims


def test_a_total_of_two_named_products_is_not_one_cards(gpukb):
    assert not _flags(gpukb, "一个封装中的两个GH200芯片将具有282GB的HBM3e内存。")
    assert not _flags(gpukb, "HBM3e 总带宽为每秒 10TB。GH200 的 CPU 有 72 核。")


def test_the_figure_after_versus_is_the_other_products(gpukb):
    text = "The H100 SXM uses 700W versus 350W for the PCIe version."
    assert not _flags(gpukb, text), _claims(gpukb, text)
    # the product's own figure is still checked
    assert ("gpu:H100-80GB", "tdp_w", 500.0, "incorrect") in _flags(gpukb, "The H100 SXM uses 500W versus 350W for the PCIe version.")


def test_a_change_in_a_clause_naming_no_product_is_not_the_compared_products(gpukb):
    text = "整卡功耗 300W，相比于 RTX 4090 低了 150W，另外显存从 GDDR6X 换成 GDDR6 也能节省功耗。"
    assert not [f for f in _flags(gpukb, text) if f[1] == "memory_type"], _claims(gpukb, text)
    # said of the product itself, the change's result is its own
    assert ("gpu:RTX-4090", "memory_type", "GDDR6", "incorrect") in _flags(gpukb, "RTX 4090 的显存从 GDDR6X 换成 GDDR6。")


def test_nvlink_link_totals_are_not_memory_bandwidth(gpukb):
    assert not _flags(gpukb, "With 12 links for an A100 GPU this brings the total bandwidth to 600 GB/s.")


@pytest.mark.parametrize("text,status", [
    ("In our fine-tuning test the A100 was about 13× faster than the T4.", "scope_dependent"),
    ("The A100 is about 5× faster than the T4 for training.", "supported"),
    ("The A100 is 100× faster than the T4.", "overstated"),
])
def test_a_speed_up_beyond_the_spec_ratios_rests_on_the_workload(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "performance_gain"]
    assert c["status"] == status, c


@pytest.mark.parametrize("text,status", [
    ("For 7B inference in FP16 you need about 14 GB, so a 16 GB T4 is tight.", "supported"),
    ("A 16 GB T4 is tight for serving a 1B model in FP16.", "inconsistent_with_derivation"),
])
def test_a_tight_verdict_means_most_of_the_card_is_used(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["value"] == "high_pressure"]
    assert c["status"] == status, c


@pytest.mark.parametrize("text,year", [
    ("The NVIDIA V100, launched in 2017, is still common.", 2017),
    ("在GTC 2017大会上，NVIDIA正式发布了Tesla V100。", 2017),
    ("B200 (2024): the first Blackwell GPU.", 2024),
    ("The L4 was announced in March 2023.", 2023),
])
def test_a_launch_year_is_read_and_agrees(gpukb, text, year):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "launch_year"]
    assert c["value"] == year and c["status"] == "supported", c


def test_a_launch_year_is_a_year_not_a_magnitude(gpukb):
    # 2015 is within 1% of 2017, but a year is right only when it is the year
    (c,) = [c for c in _claims(gpukb, "The V100 GPU, released in 2015, was the first with Tensor Cores.")
            if c["attribute"] == "launch_year"]
    assert c["status"] == "incorrect", c


def test_a_launch_year_one_off_may_be_the_announcements(gpukb):
    (c,) = [c for c in _claims(gpukb, "The L40S, launched in 2022, targets inference.") if c["attribute"] == "launch_year"]
    assert c["status"] == "unclear" and c["unclear_because"][0]["code"] == "year_off_by_one", c


@pytest.mark.parametrize("text", [
    "Since its launch the T4 has served many teams, and in the summer of 2023 second-hand prices fell.",
    "The A100 and the H100 were released in 2020 and 2022.",
    "The T4 is cheap and in 2024 we launched our new service on it.",
    "我们在 2024 年推出了基于 T4 的新服务。",
])
def test_a_year_far_from_a_launch_word_or_of_two_gpus_is_no_launch_year(gpukb, text):
    assert not [c for c in _claims(gpukb, text) if c["attribute"] == "launch_year"]


def test_sizes_written_as_alternatives_are_not_a_one_size_products(gpukb):
    # the figures follow a name the reader cannot make out; written as alternatives, they are not the 4090's
    text = "除了 RTX 4090、RTX 4x80 16GB/12GB 显卡，NVIDIA 还发布了新卡。"
    assert not [f for f in _flags(gpukb, text) if f[1] == "memory_gb"], _claims(gpukb, text)
    assert ("gpu:RTX-4090", "memory_gb", 12.0, "incorrect") in _flags(gpukb, "The RTX 4090 has 12GB of memory.")


def test_figures_labelled_in_brackets_are_each_their_own(gpukb):
    text = "H100 SXM: 80 GB @ 3.35 TB/s, 3.96 PFLOPS (FP8), 1.98 PFLOPS (FP16), 67 TFLOPS (FP32), 700 W."
    got = {(c["attribute"], c["value"]): c["status"] for c in _claims(gpukb, text)}
    # with-sparsity figures given as the rate: overstated, and read as the FP8 and FP16 figures they are labelled
    assert got[("fp8_tensor_tflops", 3.96)] == "overstated" and got[("fp16_tensor_tflops", 1.98)] == "overstated"
    assert got[("fp32_tflops", 67.0)] == "supported", got


def test_a_flattened_table_with_a_long_label_word_is_read_by_column(gpukb):
    text = ("SpecificationH100 SXMH100 PCIe\nTDP (Power)700W350W\nGPU Memory80GB HBM380GB HBM3\n"
            "Memory Bandwidth3.35 TB/s2.0 TB/s\n")
    got = {(c["subject"], c["attribute"], str(c["value"])): c["status"] for c in _claims(gpukb, text)}
    assert got[("gpu:H100-PCIe", "tdp_w", "350.0")] == "supported"
    assert got[("gpu:H100-PCIe", "memory_type", "HBM3")] == "incorrect"       # the PCIe card has HBM2e
    assert got[("gpu:H100-80GB", "memory_type", "HBM3")] == "supported", got


@pytest.mark.parametrize("text,attribute,status", [
    ("The B200 delivers 9 PFLOPS of FP4.", "fp4_tensor_tflops", "supported"),
    ("The GH200 has 8 PFLOPS of AI performance.", "ai_tflops", "unverifiable"),
    ("GH200 还将拥有每秒 8 千万亿次的人工智能计算能力。", "ai_tflops", "unverifiable"),
    ("The H100 SXM delivers 1.98 PFLOPS of FP16 with sparsity.", "fp16_tensor_tflops", "supported"),
])
def test_petaflops_and_precisions_other_than_fp16_are_read_as_such(gpukb, text, attribute, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"].endswith(("tflops", "tops"))]
    assert (c["attribute"], c["status"]) == (attribute, status), c


def test_a_product_labelling_a_line_after_comparison_is_the_lines_subject(gpukb):
    text = "性能比较 H100 SXM: 80 GB @ 3.35 TB/s, 67 TFLOPS (FP32)"
    assert {c["subject"] for c in _claims(gpukb, text)} == {"gpu:H100-80GB"}


def test_a_checks_block_is_the_view_of_its_facts(gpukb):
    from gpukb.engine.kb.store import ReleaseView
    from gpukb.engine.text.check import claims_of, reader, text_id
    view = gpukb.view(None)
    text = "The T4 has 16 GB of GDDR6 memory. The A100 80GB has 2 TB/s."
    claims, _, _ = claims_of(text, text_id(text, view.name), view, None, reader(text, view))
    sources = set(view.source_ids)
    block = view.with_claims(claims, sources)
    facts = {f.id: f for f in view.reference}
    facts.update({c.id: c for c in claims})
    anew = ReleaseView(view.kb, view.release, facts, sources)
    assert block.facts == anew.facts and block.reference == anew.reference
    assert block.by_subject_attr == anew.by_subject_attr and claims


@pytest.mark.parametrize("text,status", [
    ("The B200 has 8 TB/s of memory bandwidth.", "supported"),         # the Blackwell brief's figure
    ("The B200 has 7.7 TB/s of memory bandwidth.", "scope_dependent"),  # the later HGX B200 figure
    ("The B200 has 6 TB/s of memory bandwidth.", "incorrect"),
])
def test_a_figure_of_the_products_main_version_is_supported_not_scoped(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_bandwidth"]
    assert c["status"] == status, c


def test_a_memory_technology_after_instead_of_is_what_it_is_not(gpukb):
    text = "The RTX A6000 uses GDDR6 memory instead of HBM2, as it is an actively cooled card."
    assert not _flags(gpukb, text), _claims(gpukb, text)
    assert [c["value"] for c in _claims(gpukb, text) if c["attribute"] == "memory_type"] == ["GDDR6"]


def test_more_than_a_card_can_hold_is_not_enough(gpukb):
    text = "A 7B model under full fine-tuning with AdamW needs roughly 112 GB, more than a single A100-80GB can hold."
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_verdict"]
    assert (c["value"], c["status"]) == ("insufficient", "supported"), c


def test_memory_figures_in_a_models_table_row_are_not_the_cards(gpukb):
    text = ("| Model Size | FP16 Weights | Optimizer States | Total Memory | Min GPUs |\n|---|---|---|---|---|\n"
            "| 34B (CodeLlama) | 68 GB | 136 GB | 284-296 GB | 4x H100 |\n")
    assert not [f for f in _flags(gpukb, text) if f[1] == "memory_gb"], _claims(gpukb, text)
    # a product's own row keeps its figures
    assert ("gpu:T4", "memory_gb", 32.0, "incorrect") in _flags(gpukb, "| GPU | Memory |\n|---|---|\n| T4 | 32 GB |\n")


def test_a_total_labelled_before_the_figure_is_no_cards(gpukb):
    assert not _flags(gpukb, "Total: 580-620GB minimum, requiring 8x H100 80GB GPUs.")


def test_a_products_own_memory_in_brackets_makes_the_other_anothers(gpukb):
    text = "它配备141GB HBM3e高速记忆体，带宽高达4.8TB/s，几乎是H100(80GB HBM3，3.35TB/s)的两倍。"
    assert not [f for f in _flags(gpukb, text) if f[1] == "memory_type"], _claims(gpukb, text)


def test_two_sizes_after_a_sized_name_are_its_siblings(gpukb):
    assert not _flags(gpukb, "| Feature |\nNVIDIA A6000 |\nNVIDIA A100 40GB/80GB |\n")


def test_a_size_written_before_a_products_name_is_that_products(gpukb):
    text = "无论你手上有24GB A100、12GB 3090，还是仅8GB的RTX 3070，都能找到方案。"
    flags = _flags(gpukb, text)
    assert ("gpu:A100", "memory_gb", 24.0, "incorrect") in flags and ("gpu:RTX-3090", "memory_gb", 12.0, "incorrect") in flags
    assert not _flags(gpukb, "无论你手上有80GB A100、24GB 3090，都能找到方案。")


def test_the_pcie_version_after_a_sentence_about_the_h100_is_the_h100_pcie(gpukb):
    text = ("The NVIDIA H100 comes in two form factors: SXM and PCIe. The SXM version offers 700W TDP. "
            "The PCIe version has 350W TDP, no NVLink, and is optimized for inference.")
    got = {(c["subject"], c["attribute"], str(c["value"])): c["status"] for c in _claims(gpukb, text)}
    assert got[("gpu:H100-80GB", "tdp_w", "700.0")] == "supported" and got[("gpu:H100-PCIe", "tdp_w", "350.0")] == "supported"
    # the sentence names no product: a wrong figure is read as the H100 PCIe's, and doubted, not called wrong
    (c,) = _claims(gpukb, "The H100 is sold as SXM and PCIe. The PCIe version has 700W TDP.")
    assert (c["subject"], c["status"], c["unclear_because"][0]["code"]) == ("gpu:H100-PCIe", "unclear", "subject_from_context")


def test_the_hgx_b200s_fp64_tensor_figure_is_a_version_of_the_b200s(gpukb):
    claims = _claims(gpukb, "| Spec | HGX B200 |\n|---|---|\n| FP64/FP64 Tensor Core | 37 TFLOPS |")
    assert [(c["attribute"], c["status"]) for c in claims] == [("fp64_tensor_tflops", "scope_dependent")], claims
