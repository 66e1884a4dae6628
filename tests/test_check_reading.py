"""How `check` reads real pages (issue 31): whose figure a number is, which bandwidth it is, tables copied
without their borders, and figures that are no claim (a size in a product's name, a network speed). Every
sentence here was written for these tests; none is taken from a gold passage."""
from __future__ import annotations

import pytest


def _claims(gpukb, text: str, lang: str | None = None) -> list[dict]:
    return gpukb.check(text, lang).to_json()["claims"]


def _find(gpukb, text: str, subject: str, attribute: str, lang: str | None = None) -> list[dict]:
    """The claims of ``subject`` (or of one of its variants, "gpu:H100-80GB" for "gpu:H100": a figure of a
    product sold in variants is read as the variant's whose figure it is) and ``attribute``."""
    return [c for c in _claims(gpukb, text, lang)
            if c["subject"] in (subject, *(subject + "-" + v for v in ("80GB", "40GB", "PCIe", "NVL", "SXM")))
            and c["attribute"] == attribute]


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
    assert c["status"] == "unclear" and "pcie_link" in {r["code"] for r in c["unclear_because"]}, c
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
    answer = gpukb.check(text).to_json()
    assert not [c for c in answer["claims"] if c["attribute"] == "memory_gb"], answer["claims"]
    assert any("network speed" in n["reason"] and word in n["reason"] for n in answer["not_understood"])


# --- bytes per parameter: of the number format, optimizer or method the sentence names, never of nothing

@pytest.mark.parametrize("text,subject,value,status", [
    ("| 精度 | 每参数 |\n|---|---|\n| FP32 | 4 字节 |", "precision:fp32", 4, "supported"),
    ("INT8 量化后每个参数占 1 字节。", "precision:int8", 1, "supported"),
    ("BF16 stores each weight in 2 bytes per parameter.", "precision:bf16", 2, "supported"),
    ("An INT4 weight takes 2 bytes per parameter.", "precision:int4", 2, "incorrect"),
    ("Full fine-tuning needs about 16 GB of VRAM per billion parameters.", "method:full", 16, None),
])
def test_bytes_per_parameter_are_the_named_formats_or_methods(gpukb, text, subject, value, status):
    [c] = _find(gpukb, text, subject, "bytes_per_param")
    assert c["value"] == value and (status is None or c["status"] == status), c


def test_bytes_per_parameter_said_of_two_formats_are_two_claims(gpukb):
    text = "Weights take 2 bytes per parameter in FP16 or BF16."
    got = {c["subject"] for c in _claims(gpukb, text) if c["attribute"] == "bytes_per_param"}
    assert got == {"precision:fp16", "precision:bf16"}


@pytest.mark.parametrize("text", [
    "The T4 supports FP16. Gradients: 2 bytes per parameter.",       # no format named in its sentence
    "梯度：每个参数 2 字节。",
    "A 70B model in FP16 needs 140,000,000,000 bytes.",              # a total, not a rate per parameter
])
def test_bytes_per_parameter_of_nothing_named_is_no_claim(gpukb, text):
    assert not [c for c in _claims(gpukb, text) if c["attribute"] == "bytes_per_param"]


@pytest.mark.parametrize("text,status", [
    ("The AdamW optimizer keeps 8 bytes per parameter of states.", "unclear"),   # without the FP32 master copy
    ("AdamW 优化器每个参数占 12 字节。", "supported"),                                # with it
    ("AdamW takes 3 bytes per parameter.", "incorrect"),
    ("AdamW needs 24 bytes per parameter.", "incorrect"),
])
def test_an_optimizers_bytes_one_master_copy_off_are_not_wrong(gpukb, text, status):
    [c] = _find(gpukb, text, "optimizer:adamw", "bytes_per_param")
    assert c["status"] == status, c


# --- a product sold in variants: a figure only one variant has is that variant's; one none has is wrong

@pytest.mark.parametrize("text,status,variant", [
    ("The H100 delivers 756 TFLOPS of FP16.", "supported", "gpu:H100-PCIe"),
    ("The H100's FP8 throughput is 1,979 TFLOPS.", "supported", "gpu:H100-80GB"),
    ("The H100's FP8 throughput reaches 5,000 TFLOPS.", "incorrect", "gpu:H100-80GB"),
    ("H100 的 FP16 Tensor 算力为 1979 TFLOPS。", "overstated", "gpu:H100-80GB"),      # the with-sparsity figure as dense
])
def test_a_figure_of_a_product_with_variants_is_judged_against_the_nearest_variant(gpukb, text, status, variant):
    [c] = [c for c in _claims(gpukb, text) if c["attribute"].endswith("tensor_tflops")]
    assert c["status"] == status and c["subject"] == variant, c


def test_a_with_sparsity_figure_of_a_product_with_variants_is_not_called_wrong(gpukb):
    for c in _claims(gpukb, "The H100 delivers 1,979 TFLOPS of FP16 with sparsity."):
        assert c["status"] != "incorrect", c


# --- a product named after the figure as what it is compared with does not own the figure

@pytest.mark.parametrize("text,lang", [
    ("L4 的显存带宽达 900 GB/s，较 T4 提升 3 倍。", "zh"),
    ("The L4 has 900 GB/s of memory bandwidth, compared with the T4.", None),
])
def test_a_product_compared_after_the_figure_is_no_rival_owner(gpukb, text, lang):
    [c] = _find(gpukb, text, "gpu:L4", "memory_bandwidth", lang)
    assert c["status"] == "incorrect", c


def test_a_figure_after_the_compared_product_is_still_in_doubt(gpukb):
    text = "Compared with the T4, the L4 offers 900 GB/s."
    for c in _claims(gpukb, text):
        if c["attribute"] == "memory_bandwidth":
            assert c["status"] != "incorrect", c


# --- a table's cell border ends a clause: "不支持" in one cell denies nothing in the next

def test_a_denial_in_one_cell_does_not_deny_the_next_cells_figure(gpukb):
    text = "| 指标 | T4 | L4 |\n|---|---|---|\n| FP8 | 不支持 | 900 TFLOPS |"
    [c] = _find(gpukb, text, "gpu:L4", "fp8_tensor_tflops")
    assert c["status"] in ("incorrect", "unclear"), c


def test_a_denial_in_the_same_cell_still_denies(gpukb):
    text = "| 指标 | L4 |\n|---|---|\n| 显存 | 不是 48 GB |"
    assert not _find(gpukb, text, "gpu:L4", "memory_gb")


# --- a table cell's attribute is its row's: another attribute's equal figure does not make it doubtful

def test_a_table_cell_equal_to_another_attributes_figure_is_still_judged(gpukb):
    text = "| 指标 | A100 |\n|---|---|\n| FP32 | 19.5 TFLOPS |\n| FP64 | 19.5 TFLOPS |"
    [c] = _find(gpukb, text, "gpu:A100", "fp64_tflops")
    assert c["status"] == "incorrect", c


# --- a size followed by a variant's word names the variant ("the 80GB version"), it states no memory

@pytest.mark.parametrize("text", [
    "A100 的显存采用 HBM2e，80GB 版本带宽可达 2TB/s。",
    "For the A100, the 40GB version offers 1.6 TB/s.",
    "The A100's 80GB model costs more.",
])
def test_a_size_naming_a_variant_is_no_memory_claim(gpukb, text):
    assert not _find(gpukb, text, "gpu:A100", "memory_gb"), _claims(gpukb, text)


@pytest.mark.parametrize("text,status", [
    ("The T4 has 24GB of memory in every version.", "incorrect"),   # the word is not right after the size
    ("The A100 has 80GB of memory.", "supported"),
])
def test_a_memory_figure_without_a_variant_word_is_still_a_claim(gpukb, text, status):
    subject = "gpu:T4" if "T4" in text else "gpu:A100"
    [c] = _find(gpukb, text, subject, "memory_gb")
    assert c["status"] == status, c


# --- a figure after a Chinese comma is a figure ("HBM3，80GB"); "1,979" is one figure

def test_a_figure_right_after_a_comma_is_read_by_the_guards(gpukb):
    # the variant word after "80GB" is only seen when the figure after the comma is found
    assert not _find(gpukb, "H100 显存升级为 HBM3,80GB 版本带宽达 3.35TB/s。", "gpu:H100", "memory_gb")


# --- a generic fine-tuning word right after a method's name is that method's, not full fine-tuning

@pytest.mark.parametrize("text,lang", [
    ("LoRA fine-tuning of a 7B model needs about 16 GB.", None),
    ("用 LoRA 微调 7B 模型需要约 16GB 显存。", "zh"),
    ("QLoRA fine-tuning a 7B model needs about 6 GB.", None),
])
def test_a_methods_fine_tuning_phrase_is_that_method(gpukb, text, lang):
    reqs = [c for c in _claims(gpukb, text, lang) if c["attribute"] == "memory_required"]
    assert reqs and all(c["qualifiers"].get("method") in ("method:lora", "method:qlora") for c in reqs), reqs
    assert all(c["status"] not in ("understated", "incorrect") for c in reqs), reqs


def test_full_fine_tuning_after_another_method_in_the_sentence_stays_full(gpukb):
    text = "QLoRA needs 6 GB for a 7B model, while full fine-tuning of a 7B model needs 120 GB."
    full = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required" and "120" in c["quote"]]
    assert full and full[0]["qualifiers"].get("method") == "method:full", full


# --- a header that is only a count's noun makes its column's bare numbers counts

@pytest.mark.parametrize("text,subject,attribute,value", [
    ("| Instance | GPU Type | GPUs |\n|---|---|---|\n| g5.12xlarge | NVIDIA A10G | 4 |", "instance:g5.12xlarge", "gpu_count", 4),
    ("| 实例 | vCPU 数 | GPU 数量 |\n|---|---|---|\n| g5.12xlarge | 48 | 4 |", "instance:g5.12xlarge", "vcpu", 48),
    ("| 实例 | vCPU 数 | GPU 数量 |\n|---|---|---|\n| g5.12xlarge | 48 | 4 |", "instance:g5.12xlarge", "gpu_count", 4),
])
def test_a_count_column_is_read_as_counts(gpukb, text, subject, attribute, value):
    [c] = _find(gpukb, text, subject, attribute)
    assert float(c["value"]) == value and c["status"] == "supported", c


def test_a_bare_number_under_a_header_that_is_not_a_count_is_no_count(gpukb):
    text = "| Instance | GPU Type | Year |\n|---|---|---|\n| g5.12xlarge | NVIDIA A10G | 2021 |"
    assert not [c for c in _claims(gpukb, text) if c["attribute"] in ("gpu_count", "vcpu")]


# --- the GPU an instance carries is not a rival owner of the instance's per-GPU figure

@pytest.mark.parametrize("text,status", [
    ("p3dn.24xlarge 配备 8 块 16 GB 显存的 V100。", "incorrect"),
    ("The p3dn.24xlarge has eight V100 GPUs with 16 GB each.", "incorrect"),
    ("The p3dn.24xlarge has eight V100 GPUs with 32 GB each.", "supported"),
])
def test_an_instances_own_gpu_does_not_make_its_figure_doubtful(gpukb, text, status):
    [c] = _find(gpukb, text, "instance:p3dn.24xlarge", "memory_gb")
    assert c["status"] == status, c


def test_a_figure_not_said_of_each_gpu_stays_in_doubt_beside_the_gpus(gpukb):
    # the instance's host memory, read as GPU memory: the GPUs named beside it keep it in doubt
    for c in _claims(gpukb, "The p4d.24xlarge has eight A100 GPUs and 1152 GB of memory."):
        assert not (c["attribute"] == "memory_gb" and c["status"] == "incorrect"), c


# --- "推荐系统", "recommendation models": a workload's name, not advice nor a verdict

@pytest.mark.parametrize("text,lang", [
    ("T4 常用于推荐系统：INT8 量化模型使推荐推理吞吐量提升 3 倍。", "zh"),
    ("The T4 serves recommendation models at INT8.", None),
    ("The T4 serves recommender workloads well with FP16.", None),
])
def test_a_recommender_workload_is_no_advice(gpukb, text, lang):
    assert not [c for c in _claims(gpukb, text, lang) if c["attribute"].startswith("recommended_")], _claims(gpukb, text, lang)


@pytest.mark.parametrize("text,lang", [
    ("推荐在 T4 上使用 INT8 推理。", "zh"),
    ("We recommend INT8 on the T4.", None),
])
def test_advice_to_use_a_precision_is_still_advice(gpukb, text, lang):
    assert [c for c in _claims(gpukb, text, lang) if c["attribute"] == "recommended_precision"], _claims(gpukb, text, lang)


# --- a sentence sizing a card it does not name says nothing of the product named before

@pytest.mark.parametrize("text,lang", [
    ("H100 很强。这类模型在单张 24GB 显存的消费级显卡上就能完成微调。", "zh"),
    ("The H100 is fast. A 7B model fits on a 24 GB card with QLoRA.", None),
])
def test_an_unnamed_cards_size_is_not_the_earlier_products(gpukb, text, lang):
    assert not [c for c in _claims(gpukb, text, lang) if c["subject"].startswith("gpu:H100")], _claims(gpukb, text, lang)


@pytest.mark.parametrize("text,subject,status", [
    ("The T4 is a 24 GB card.", "gpu:T4", "incorrect"),
    ("T4 是一张 16GB 显存的显卡。", "gpu:T4", "supported"),
])
def test_a_named_cards_size_is_still_its_memory(gpukb, text, subject, status):
    [c] = _find(gpukb, text, subject, "memory_gb")
    assert c["status"] == status, c


# --- "无稀疏", "without sparsity" qualify a figure (dense): they deny neither it nor the next one

@pytest.mark.parametrize("text,lang", [
    ("特性 NVIDIA L4 NVIDIA T4\nFP16 (半精度) ~121 TFLOPS (无稀疏) ~65 TFLOPS (无稀疏) 两者差距大\n", "zh"),
    ("The L4 delivers 121 TFLOPS of FP16 (without sparsity); the T4 delivers 65 TFLOPS of FP16.", None),
])
def test_a_sparsity_qualifier_denies_no_figure(gpukb, text, lang):
    [c] = _find(gpukb, text, "gpu:T4", "fp16_tensor_tflops", lang)
    assert c["status"] == "supported", c


@pytest.mark.parametrize("text", ["T4 的 FP16 算力不是 130 TFLOPS。", "The T4 does not deliver 130 TFLOPS of FP16."])
def test_a_denied_figure_is_still_no_claim(gpukb, text):
    assert not _find(gpukb, text, "gpu:T4", "fp16_tensor_tflops")


# --- a table copied as text: a row of named values, one per product, is read cell by cell

def test_a_borderless_rows_named_values_go_to_their_columns(gpukb):
    text = "参数 NVIDIA T4 NVIDIA L4\n架构 Turing Ada Lovelace\n接口 PCIe 3.0 x16 PCIe 4.0 x16\n"
    got = {(c["subject"], c["attribute"]): (c["value"], c["status"]) for c in _claims(gpukb, text)}
    assert got[("gpu:T4", "architecture")] == ("Turing", "supported")
    assert got[("gpu:L4", "architecture")] == ("Ada Lovelace", "supported")
    assert got[("gpu:T4", "host_link")] == ("pcie3_x16", "supported")
    assert ("gpu:L4", "host_link") in got and got[("gpu:L4", "host_link")][0] != "pcie3_x16"


def test_a_borderless_row_with_fewer_values_than_products_is_not_split(gpukb):
    text = "Spec NVIDIA T4 NVIDIA L4\nInterface PCIe 4.0 x16 (both cards)\n"
    for c in _claims(gpukb, text):
        if c["attribute"] == "host_link" and c["subject"] == "gpu:T4":
            assert c["status"] != "incorrect", c


# --- FP64 on the Tensor Cores is its own rate; the words trailing one figure ("… of FP64 on its Tensor
# Cores") are not the next figure's

@pytest.mark.parametrize("text,attribute,value", [
    ("The A100 reaches 19.5 TFLOPS of FP64 on its Tensor Cores and 9.7 TFLOPS of plain FP64.", "fp64_tensor_tflops", 19.5),
    ("The A100 reaches 19.5 TFLOPS of FP64 on its Tensor Cores and 9.7 TFLOPS of plain FP64.", "fp64_tflops", 9.7),
    ("A100 的 FP64 Tensor 算力为 19.5 TFLOPS，FP64 算力为 9.7 TFLOPS。", "fp64_tflops", 9.7),
    ("FP32 19.5 TFLOPS FP64 9.7 TFLOPS on the A100.", "fp64_tflops", 9.7),       # label-figure pairs stay pairs
    ("The A100 has 19.5 TFLOPS of FP32 and 9.7 TFLOPS of FP64.", "fp32_tflops", 19.5),
])
def test_fp64_tensor_and_plain_fp64_are_told_apart(gpukb, text, attribute, value):
    [c] = _find(gpukb, text, "gpu:A100", attribute)
    assert float(c["value"]) == value and c["status"] == "supported", c


# --- document structure: a list under a verdict's sub-heading ("Good for", "适合：") in a product's section

@pytest.mark.parametrize("text", [
    "## L4\n\nGood for:\n\n- Full fine-tuning 13B models in bf16.\n",
    "L4: A Small Inference Card\n\nThe L4 is easy to find in the cloud.\n\nGood for\n\n  • Full fine-tuning 13B models in bf16.\n",
    "## L4\n\n适合：\n\n- 全量微调 13B 模型。\n",
])
def test_a_list_under_a_verdict_subheading_is_about_the_sections_product(gpukb, text):
    wrong = [c for c in _claims(gpukb, text) if c["subject"] == "gpu:L4" and c["attribute"] in ("suitability", "memory_verdict")
             and c["status"] in ("incorrect", "inconsistent_with_derivation", "overstated")]
    assert wrong, _claims(gpukb, text)


@pytest.mark.parametrize("text", [
    "## L4\n\n## Pricing\n\nCheap:\n\n- Full fine-tuning 13B models in bf16.\n",     # a heading of another topic
    "## L4\n\nThe A10 and the T4 are older.\n\nGood for:\n\n- Full fine-tuning 13B models in bf16.\n",   # others between
])
def test_a_list_outside_the_products_section_is_not_its_verdict(gpukb, text):
    for c in _claims(gpukb, text):
        assert not (c["subject"] == "gpu:L4" and c["status"] in ("incorrect", "inconsistent_with_derivation")), c


def test_a_bullet_written_after_spaces_is_a_list_item(gpukb):
    text = "## L4\n\nGood for\n\n  • LoRA on 7B models.\n"
    assert [c for c in _claims(gpukb, text) if c["subject"] == "gpu:L4" and c.get("qualifiers", {}).get("method") == "method:lora"]


# --- "the same as", "保持不变": the figure is each named product's, so another's equal figure is no doubt

@pytest.mark.parametrize("text,subject,status", [
    ("L20 与 L40 相比，其显存（48GB）保持不变。", "gpu:L40", "supported"),
    ("L4 与 T4 相比，其显存（24GB）保持不变。", "gpu:T4", "incorrect"),
    ("The A2 has the same 16 GB as the T4.", "gpu:A2", "supported"),
])
def test_a_figure_said_to_be_the_same_is_each_products(gpukb, text, subject, status):
    [c] = _find(gpukb, text, subject, "memory_gb")
    assert c["status"] == status, c


def test_the_same_word_in_another_clause_does_not_lift_the_doubt(gpukb):
    text = "The A10 has 16 GB, the same as before, while the T4 is shown with 24 GB."
    for c in _claims(gpukb, text):
        assert not (c["subject"] == "gpu:A10" and c["value"] == 24 and c["status"] == "incorrect"), c


@pytest.mark.parametrize("text,subject", [
    ("FP16 training needs 16 bytes per parameter.", None),                      # training's total, no format's width
    ("Full fine-tuning in FP16 needs 16 bytes per parameter.", "method:full"),
    ("AdamW in FP32 keeps 12 bytes per parameter.", "optimizer:adamw"),
])
def test_more_than_four_bytes_beside_a_format_is_trainings_not_the_formats(gpukb, text, subject):
    got = [c["subject"] for c in _claims(gpukb, text) if c["attribute"] == "bytes_per_param"]
    assert got == ([subject] if subject else []), got


# --- one GPU's throughput written as a multiple of another's ("是 B 的 4 倍", "4 times the B's")

@pytest.mark.parametrize("text,lang", [
    ("L40S 的 FP32 性能是 T4 的近 11 倍。", "zh"),
    ("The L40S offers 11 times the FP32 throughput of the T4.", None),
    ("The L40S delivers 11x the T4's FP32 performance.", None),
])
def test_a_multiple_of_another_gpus_throughput_is_a_compute_ratio(gpukb, text, lang):
    [c] = _find(gpukb, text, "gpu:L40S", "compute_ratio", lang)
    assert c["value"] == 11 and c["qualifiers"]["compared_to"] == ["gpu:T4"], c
    assert c["qualifiers"].get("metric") == "FP32" and c["status"] == "supported", c


@pytest.mark.parametrize("text,lang", [
    ("L40S 的显存是 T4 的 3 倍。", "zh"),                          # a multiple of memory, not of throughput
    ("如果 L40S 的 FP32 性能是 T4 的 11 倍，就选 L40S。", "zh"),      # in a condition
    ("The L40S is 11 times faster than the T4.", None),            # a speed-up, read as one elsewhere
])
def test_a_multiple_of_something_else_or_in_a_condition_is_no_compute_ratio(gpukb, text, lang):
    for c in _claims(gpukb, text, lang):
        assert not (c["attribute"] == "compute_ratio" and c["value"] == 11), c


def test_a_multiple_of_another_format_names_no_metric_and_is_not_judged(gpukb):
    text = "The L40S offers 11 times the INT8 throughput of the T4."
    for c in _find(gpukb, text, "gpu:L40S", "compute_ratio"):
        assert "metric" not in c["qualifiers"] and c["status"] not in ("supported", "incorrect"), c


def test_a_ratio_names_the_format_it_is_of(gpukb):
    [c] = _find(gpukb, "T4 的 FP16 算力只有 A10 的 50%。", "gpu:T4", "compute_ratio", "zh")
    assert c["qualifiers"].get("metric") == "FP16", c


# --- a count of cards written before a memory size: so many cards of that size, no memory figure

@pytest.mark.parametrize("text,lang", [
    ("Full fine-tuning of a 7B model needs 2× 80 GB (A100 / H100).", None),
    ("全量微调 7B 模型需要 2×80GB（A100/H100）。", "zh"),
    ("LoRA is light, but full fine-tuning of a 7B model needs 2 x 80 GB (A100 or H100).", None),
])
def test_a_count_before_a_card_size_is_how_many_such_cards(gpukb, text, lang):
    claims = _claims(gpukb, text, lang)
    counts = {c["subject"]: c for c in claims if c["attribute"] == "min_gpus"}
    assert set(counts) == {"gpu:A100-80GB", "gpu:H100-80GB"}, claims
    assert all(c["value"] == 2 and c["qualifiers"].get("method") == "method:full" for c in counts.values()), counts
    assert not [c for c in claims if c["attribute"] in ("memory_required", "memory_gb")], claims


@pytest.mark.parametrize("text", ["The server has 8x 80 GB of HBM3.",
                                  "Full fine-tuning of a 7B model needs 4× 24 GB cards."])
def test_a_counted_card_size_is_no_memory_figure_of_its_value(gpukb, text):
    for c in _claims(gpukb, text):
        assert c["attribute"] not in ("memory_required", "memory_gb", "min_gpus"), c


def test_a_memory_figure_without_a_count_is_still_a_requirement(gpukb):
    [c] = _find(gpukb, "Full fine-tuning of a 7B model needs 126 GB.", "concept:llm-full-finetune", "memory_required")
    assert c["value"] == 126, c


# --- a list item that is only a method's name, with its figure on the next line

def test_a_method_item_with_a_figure_line_is_the_methods_memory(gpukb):
    text = "Memory by method\n\n  • Full fine-tune\n    126 GB\n\n    Every weight trained.\n\n  • LoRA\n    16.8 GB\n\n- QLoRA\n~6 GB\n"
    got = {(c["subject"], c["qualifiers"].get("method"), c["value"]) for c in _claims(gpukb, text)
           if c["attribute"] == "memory_required"}
    assert got == {("concept:llm-full-finetune", "method:full", 126), ("concept:llm-peft", "method:lora", 16.8),
                   ("concept:llm-peft", "method:qlora", 6)}, got


@pytest.mark.parametrize("text", [
    "  • Inference\n    14 GB\n",                          # no training method: not a method's requirement
    "  • Fine-tuning with LoRA on one card\n    16 GB\n",   # the line says more than the method's name
    "  • LoRA\n    16 GB of the 24 GB card\n",             # the figure line says more than the figure
])
def test_an_item_that_is_more_than_a_methods_name_gives_no_requirement(gpukb, text):
    for c in _claims(gpukb, text):
        assert c["attribute"] != "memory_required", c


# --- "reduces this to X GB": what a method brings memory down to is what it needs; a size after a figure is its own

@pytest.mark.parametrize("text,lang,sizes", [
    ("QLoRA brings this down to 8 GB for 7B models and 40 GB for 70B models.", None, {8: 7e9, 40: 70e9}),
    ("QLoRA 可以把 7B 模型的显存降低到 10GB。", "zh", {10: 7e9}),
])
def test_memory_a_method_reduces_to_is_its_requirement_with_each_figures_size(gpukb, text, lang, sizes):
    got = {c["value"]: c["qualifiers"]["params"]["lo"] for c in _claims(gpukb, text, lang)
           if c["attribute"] == "memory_required" and c["qualifiers"].get("method") == "method:qlora"}
    assert got == sizes, _claims(gpukb, text, lang)


@pytest.mark.parametrize("text", ["Gradient checkpointing reduces training time to 3 hours.",
                                  "The new driver reduces the price to 2 USD per hour."])
def test_reducing_something_else_is_no_memory_requirement(gpukb, text):
    for c in _claims(gpukb, text):
        assert c["attribute"] != "memory_required", c


# --- a unit announced before a colon, then figures listed by name

@pytest.mark.parametrize("text,lang,want", [
    ("Rules of thumb in bytes-per-parameter: LoRA ≈ 2.4 (frozen base), QLoRA ≈ 0.85 (4-bit base).", None,
     {"method:lora": 2.4, "method:qlora": 0.85}),
    ("单位为字节/参数：FP16 = 2，INT8 = 1。", "zh", {"precision:fp16": 2, "precision:int8": 1}),
])
def test_figures_listed_after_an_announced_unit_are_in_that_unit(gpukb, text, lang, want):
    got = {c["subject"]: c["value"] for c in _claims(gpukb, text, lang) if c["attribute"] == "bytes_per_param"}
    assert got == want, _claims(gpukb, text, lang)


@pytest.mark.parametrize("text", [
    "In 2024: LoRA = 3, QLoRA = 1.",                                  # a year, no unit announced
    "Bytes per parameter matter. Our picks: LoRA = 3, QLoRA = 1.",     # the unit is in another sentence
    "In bytes per parameter: LoRA is the lighter one, about 2.4.",     # the figure is not written onto a name
])
def test_figures_without_an_announced_unit_before_their_colon_are_not_read(gpukb, text):
    for c in _claims(gpukb, text):
        assert c["attribute"] != "bytes_per_param", c


# --- an unknown product written right against Chinese text is still named

@pytest.mark.parametrize("text,name", [
    ("对于个人学习,建议从RTX 4060Ti 16GB开始。", "RTX 4060Ti"),
    ("入门可以选MI300X显卡。", "MI300X"),
])
def test_an_unknown_name_glued_to_chinese_text_is_named(gpukb, text, name):
    reasons = " ".join(n["reason"] for n in gpukb.check(text, "zh").to_json()["not_understood"])
    assert f"called {name}" in reasons, reasons


def test_glued_chinese_text_makes_no_precision_or_size_a_product(gpukb):
    reasons = " ".join(n["reason"] for n in gpukb.check("显存为80GB，支持FP16和INT8，采用7nm工艺。", "zh").to_json()["not_understood"])
    assert "knows no" not in reasons, reasons
