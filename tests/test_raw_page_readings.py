"""Readings that real pages need, each a general fact, on sentences written for these tests (figures: NVIDIA H100,
H200, A100, A800, RTX 4090 datasheets; Google Cloud machine types; bytes per parameter and the ZeRO paper):

- a product named after "version of" ("an enhanced version of the H100") is what another is compared with;
- a product named right after the figure that no known product precedes ("1,307.4 TFLOPS for the MI300X versus …
  the H100") may own it when gpukb does not know it; an instance gpukb does not know owns its own RAM;
- "3,958 TFLOPS*" whose footnote the text lacks is marked as datasheets mark with-sparsity rates;
- "1 360 Go" may be one number grouped by a space;
- a bound said as what to look for ("FP32算力(≥25TOPS为佳)") is a buyer's threshold;
- a requirement of a run sharded by DeepSpeed with no GPU count is per GPU of an unknown count;
- a full fine-tune's need that states AdamW but no precision lies in the practice band (pure BF16 to mixed);
- "you can fine-tune a 7B model on a 24 GB GPU" leaves the method open (LoRA and QLoRA are fine-tuning too);
- a heading that calls the product another version ("H20“阉割版”真相") heads no section of the product;
- a value a few words after the product's predecessor is named ("its predecessor on the Hopper architecture") is
  the predecessor's, and figures whose product is named only after them, after a word of comparison ("…, on par
  with the T4"), are what it is compared with;
- a requirement in a line about host RAM ("CPU training memory = …") is not GPU memory."""
from __future__ import annotations

import pytest

from ._engine import checked

WRONG = ("incorrect", "overstated", "understated", "misattributed", "contradicted", "inconsistent_with_derivation")


def _wrong(gpukb, text):
    return [(c["subject"], c["attribute"], c["value"]) for c in checked(gpukb, text) if c["status"] in WRONG]


def _codes(gpukb, text, attribute):
    return [r["code"] for c in checked(gpukb, text, attribute) for r in c.get("unclear_because", [])]


def test_a_product_named_after_version_of_is_compared_with(gpukb):
    text = "The H200 is an enhanced version of the H100 that upgrades to 141GB of HBM3e with 4.8TB/s of bandwidth."
    assert not _wrong(gpukb, text)
    assert _wrong(gpukb, "The H100 upgrades to 141GB of HBM3e.")      # said of the H100 itself, it is judged


def test_an_unknown_product_right_after_the_figure_may_own_it(gpukb):
    text = "Peak dense FP16 is 1,307.4 TFLOPS for the MI300X versus about 990 TFLOPS for the H100."
    assert not _wrong(gpukb, text)
    text = "最大规格方面，g6.48xlarge 有 8 张 L4、768 GiB 内存，而 g2-standard-96 为 8 张 L4、384 GB 内存。"
    assert not _wrong(gpukb, text)


def test_a_marked_sparse_figure_without_its_footnote(gpukb):
    text = "| Spec | H100 SXM |\n|---|---|\n| FP8 Tensor Core | 3,958 TFLOPS* |"
    assert "marked_sparse" in _codes(gpukb, text, "fp8_tensor_tflops")
    # unmarked, the with-sparsity figure given as the dense rate is still called wrong
    assert _wrong(gpukb, "| Spec | H100 SXM |\n|---|---|\n| Dense FP8 Tensor Core | 3,958 TFLOPS |")


TABLE = ("| Model | LoRA (rank 16) VRAM | Full FT (AdamW) VRAM | Full FT (bf16+DeepSpeed) VRAM |\n|---|---|---|---|\n"
         "| Llama 3 8B | ~20 GB | {adamw} | ~38 GB |\n| Mistral 7B | ~18 GB | ~56 GB | ~34 GB |")


def test_a_sharded_runs_need_without_a_gpu_count(gpukb):
    text = TABLE.format(adamw="~62 GB")
    got = {c["value"]: c for c in checked(gpukb, text, "memory_required")}
    assert "sharded_count_unstated" in [r["code"] for r in got[38.0]["unclear_because"]]
    # the LoRA column is no sharded run's
    assert "sharded_count_unstated" not in [r["code"] for r in got[20.0].get("unclear_because", [])]
    assert not _wrong(gpukb, text)


def test_adamw_stated_keeps_the_practice_band(gpukb):
    # 8B x 8 bytes (pure BF16 AdamW) = 64 GB: within what common full fine-tunes need
    assert not _wrong(gpukb, TABLE.format(adamw="~62 GB"))
    # far below even pure BF16, it is still too little
    assert _wrong(gpukb, TABLE.format(adamw="~20 GB")) == [("model:llama-3-8b", "memory_required", 20.0)]


def test_fine_tune_alone_leaves_the_method_open(gpukb):
    text = "Top pick: the NVIDIA GeForce RTX 3090.\nWith it you can fine-tune a 7B model in an afternoon."
    assert not _wrong(gpukb, text)
    # a full fine-tune said so is judged: 7B x 16 bytes is far beyond 24 GB
    assert _wrong(gpukb, "You can fully fine-tune a 7B model on a single RTX 3090.")




def test_a_rates_unit_before_its_figure(gpukb):
    text = "Each billion parameters needs roughly 2GB of VRAM in FP16 precision, meaning a 7B model requires 14GB minimum."
    assert not _wrong(gpukb, text)
    assert "per_unit_rate" in _codes(gpukb, text, "memory_required")


def test_a_part_of_the_runs_memory_named_after_the_figure(gpukb):
    # Llama-2-70B keeps 320 KiB of FP16 KV cache per token (80 layers x 8 KV heads x 128 x 2 x 2 bytes): 10.7 GB at 32K
    text = "A 70B model at 32K context can need 8GB+ just for the cache."
    assert not _wrong(gpukb, text) and "component_named" in _codes(gpukb, text, "memory_required")


@pytest.mark.parametrize("text", ["Two RTX 4090s can serve a 70B model.", "双卡 RTX 4090 即可部署 70B 模型。"])
def test_a_serving_count_between_4_bit_and_16_bit_weights(gpukb, text):
    # 70B x 0.5 byte = 35 GB fits two 24 GB cards; x 2 bytes = 140 GB does not: which one the text means is open
    assert not _wrong(gpukb, text)


def test_a_serving_count_below_even_4_bit_weights_is_judged(gpukb):
    assert _wrong(gpukb, "One RTX 4090 can serve a 70B model.")


def test_a_k_quants_bytes_per_parameter_is_not_plain_int4s(gpukb):
    text = "Rule of thumb: at Q4_K_M quantization, a model needs roughly 0.7 GB of VRAM per billion parameters for its weights."
    assert not _wrong(gpukb, text)


@pytest.mark.parametrize("text", ["使用4张A800-40G显卡进行72B模型LoRA微调的可行性分析。",
                                  "A feasibility study: fine-tuning a 70B model with LoRA on 4 A100 80GB GPUs."])
def test_a_feasibility_study_states_no_verdict(gpukb, text):
    assert not _wrong(gpukb, text)


def test_a_text_cut_right_after_a_units_start(gpukb):
    # an excerpt ending in "1008 GB" (of "1008 GB/s", the RTX 4090's bandwidth) says no memory size
    assert not _wrong(gpukb, "Token speed is limited by memory bandwidth. The RTX 4090's 1008 GB")
    # with the sentence closed, a 1008 GB memory size would still be read as said
    assert "cut_off" not in _codes(gpukb, "The RTX 4090's 1008 GB of memory is plenty.", "memory_gb")


def test_an_arrow_with_words_after_it_is_a_change(gpukb):
    assert not _wrong(gpukb, "原始 70B FP16 模型：140GB → 量化后仅 ~40GB。")


#: true sentences that only a reading above keeps from being called wrong, by the reading
NOT_WRONG = {
    "thousands grouped by a space": "| Type de machine | GPU | vCPU | Mémoire |\n|---|---|---|---|\n"
                                    "| a2-megagpu-16g | 16 x A100 40 Go | 96 | 1 360 Go |",
    "advice bound (zh)": "选型需重点关注 A100 的显存带宽(建议≥400GB/s)、FP32算力(≥25TOPS为佳)。",
    "advice bound (en)": "When choosing an A100 instance, look for at least 25 TFLOPS of FP32 throughput.",
    "heading calling another version": "## H20“阉割版”真相\n\n- 模块配置简化：移除 NVLink 高速互联接口，仅支持 PCIe 5.0 x16。",
    "bracket opened by vs.": "The key difference is the memory subsystem: HBM3e uses 6 stacks (vs. 5 in H100) and higher clock speeds.",
    "bracket opened by 相比": "H200 的显存升级为 HBM3e（相比 H100 的 HBM3），带宽达到 4.8 TB/s。",
    "predecessor's value (ru)": "Если сравнивать с предшественником на архитектуре Hopper, B200 в разы превосходит его.",
    "predecessor's value (zh)": "与前代 Hopper 架构相比，B200 的算力提升数倍。",
    "predecessor's value (en)": "The B200 delivers 8 TB/s, far more than its predecessor's 3.35 TB/s.",
    "another maker's accelerator (zh)": "华为昇腾 910B 的 FP16 算力达 256 TFLOPS，超越 H20 且成本更低。",
    "another maker's accelerator (en)": "Intel says Gaudi 3 reaches 1835 TFLOPS in BF16, 40% faster than the H100 in training.",
    "a modded card": "For training, the China-modded 4090 48 GB is the rational pick.",
    "a change's start (ru)": "Версия PCIe: показатель TDP снижен с 0,4 кВт до 0,25 кВт.",
    "compared with after the figures (zh)": "这颗芯片提供 int4 256Tops、int8 128Tops 的性能，功耗为 75W，与 NVIDIA 的 Tesla T4 基本持平。",
    "compared with after the figures (en)": "The chip delivers 128 TOPS of INT8 at 75 W, on par with NVIDIA's Tesla T4.",
    "2:4 sparsity after the figure": "The headline 1,979 TFLOPS of BF16 on an H100 SXM assumes 2:4 structured sparsity, so dense math tops out around 989 TFLOPS.",
    "host RAM (en)": "CPU training memory = weights × ~4 (FP32+AdamW) + activations. 350M fits in 16GB; 1B needs 64GB.",
    "a change's start (en)": "Compared with the SXM4 module, the A100 PCIe's TDP was cut from 400 W to 250 W.",
}


def test_an_accelerator_gpukb_has_no_figures_of_is_named_and_not_checked(gpukb):
    from ._engine import checked as _checked
    text = "The MI300X has 192 GB of HBM3, more than an H100."
    assert not [c for c in _checked(gpukb, text) if c["subject"] == "gpu:H100" and c["attribute"] == "memory_gb"]
    answer = gpukb.check(text).to_json()
    assert any("not an NVIDIA GPU" in s["reason"] and "MI300X" in s["quote"] for s in answer["not_understood"])
    # a name alone is still one gpukb has no figures of, and a question cannot size a run on it
    assert any("knows no GPU called MI300X" in s["reason"] for s in gpukb.check("入门可以选MI300X显卡。").to_json()["not_understood"])
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput) as e:
        gpukb.query({"model": "llama-2-7b", "method": "lora", "gpu": "MI300X"})
    assert "knows no GPU called AMD Instinct" in str(e.value)


def test_sparsity_said_in_another_sentence_does_not_reach_the_figure(gpukb):
    text = "Ampere added 2:4 structured sparsity. The A100 does 312 TFLOPS of FP16."
    (c,) = [c for c in checked(gpukb, text) if c["attribute"] == "fp16_tensor_tflops"]
    assert c["status"] == "supported" and not (c.get("qualifiers") or {}).get("sparsity")
    assert _wrong(gpukb, "Ampere added 2:4 structured sparsity. The A100 does 1,248 TFLOPS of FP16.")


def test_a_products_own_figures_named_first_are_still_judged(gpukb):
    assert _wrong(gpukb, "The Tesla T4 delivers 128 TOPS of INT8, on par with the chip.") == [("gpu:T4", "int8_tops", 128.0)]
    assert _wrong(gpukb, "Full fine-tuning a 1B model needs 64GB of GPU memory.")


def test_a_products_own_figure_after_a_change_is_still_judged(gpukb):
    # the change's end is the product's own: a wrong one is still called wrong
    assert _wrong(gpukb, "The A100 PCIe's TDP was cut from 400 W to 150 W.") == [("gpu:A100", "tdp_w", 150.0)]


def test_a_value_said_of_the_product_itself_is_still_judged(gpukb):
    assert _wrong(gpukb, "The B200 uses the Hopper architecture.")
    assert _wrong(gpukb, "B200 采用 Hopper 架构，是前代产品的继任者。")


@pytest.mark.parametrize("text", list(NOT_WRONG.values()), ids=list(NOT_WRONG))
def test_true_sentences_each_reading_keeps_from_being_called_wrong(gpukb, text):
    assert not _wrong(gpukb, text)
