"""Pronouns, removals and contrasts in real-page prose. A sentence that opens with a pronoun for one product ("It
carries …", "该卡 …") speaks of the one product the sentence before it names; a product named later in that
sentence is not its subject. "取消了 NVLink" / "dropped NVLink" denies the feature. ", which the 4090 cannot" is a
contrast: the verdict before it is not the 4090's. A card without Tensor Cores (P100) has no Tensor Core rate to
misstate. Sentences written for these tests; figures from the NVIDIA T4, P100 and RTX 3090/4090 specifications."""
from __future__ import annotations

from ._engine import checked


def _got(gpukb, text, attribute=None):
    return [(c["subject"], c["value"], c["status"]) for c in checked(gpukb, text, attribute)]


def test_a_pronoun_opening_a_sentence_is_the_product_before_it(gpukb):
    # the T4 has GDDR6 (NVIDIA T4 datasheet): said to have HBM2, it is wrong; said GDDR6, right
    assert _got(gpukb, "The NVIDIA T4 is a Turing-based inference card.\nIt carries 16 GB of HBM2 memory.", "memory_type") == \
        [("gpu:T4", "HBM2", "incorrect")]
    assert _got(gpukb, "The NVIDIA T4 is a Turing-based inference card.\nIt carries 16 GB of GDDR6 memory.", "memory_type") == \
        [("gpu:T4", "GDDR6", "supported")]
    # two products before the pronoun: whose it is stays unclear
    assert [s for *_, s in _got(gpukb, "The A100 and the T4 are popular. It carries 16 GB of HBM2.", "memory_type")] == ["unclear"]


def test_a_product_named_after_the_pronouns_words_is_not_its_subject(gpukb):
    text = "RTX 3090 显存 24GB。\n该卡支持 NVLink 桥接，两张卡可以直接互联（40 系的 4090 已经取消了 NVLink）。"
    got = _got(gpukb, text, "nvlink")
    assert ("gpu:RTX-4090", False, "supported") in got
    assert not any(s == "incorrect" for *_, s in got), got


def test_a_dropped_feature_is_denied(gpukb):
    assert _got(gpukb, "The RTX 4090 dropped NVLink.", "nvlink") == [("gpu:RTX-4090", False, "supported")]


def test_which_another_cannot_is_a_contrast(gpukb):
    text = "With 32GB it can hold a 13B model in FP16 (about 26 GB of weights), which the 24GB RTX 4090 cannot."
    assert not any(s in ("incorrect", "inconsistent_with_derivation") for *_, s in _got(gpukb, text, "memory_verdict"))
    # said of the 4090 itself, the same verdict is judged (13B x 2 bytes = 26 GB > 24 GB)
    assert _got(gpukb, "A 13B model in FP16 fits on a single RTX 4090.", "memory_verdict") == \
        [("gpu:RTX-4090", "sufficient", "inconsistent_with_derivation")]


def test_a_card_without_tensor_cores_has_no_tensor_rate_to_misstate(gpukb):
    text = "老卡回顾：Tesla P100（2016 年，Pascal 架构）\nSXM2 版本 FP16 算力 21.2 TFLOPS、FP32 10.6 TFLOPS、FP64 5.3 TFLOPS。"
    assert [s for *_, s in _got(gpukb, text, "fp16_tensor_tflops")] == ["unclear"]
    # an Ampere card's missing FP8 stays judged: FP8 is a precision it lacks, not a card without Tensor Cores
    assert [s for *_, s in _got(gpukb, "The A100 delivers 624 TFLOPS of FP8 Tensor compute.", "fp8_tensor_tflops")] == ["incorrect"]
    assert [s for *_, s in _got(gpukb, "A100: FP8 312 TFLOPS.", "fp8_tensor_tflops")] == ["incorrect"]


def test_pronouns_in_other_languages(gpukb):
    # the RTX 3090 has 936 GB/s (1,008 GB/s is the RTX 4090's)
    text = "RTX 3090 はいまでも 24GB の VRAM が魅力です。\nこのカードは GDDR6X・384bit で、メモリ帯域は 1,008 GB/s です。"
    assert _got(gpukb, text, "memory_bandwidth") == [("gpu:RTX-3090", 1008.0, "incorrect")]
    text = "RTX 3090 はいまでも 24GB の VRAM が魅力です。\nこのカードは GDDR6X・384bit で、メモリ帯域は 936 GB/s です。"
    assert _got(gpukb, text, "memory_bandwidth") == [("gpu:RTX-3090", 936.0, "supported")]
