"""A Tensor Core rate read from a figure whose words never say Tensor and that is exactly the card's own FP32
rate may be the card's FP16 rate on its shader cores (guard non_tensor_rate): unclear, not incorrect. Sentences
and tables written for these tests."""
from __future__ import annotations

import pytest


def _one(gpukb, text: str, subject: str) -> dict:
    return next(c for c in gpukb.check(text).to_json()["claims"]
                if c["attribute"] == "fp16_tensor_tflops" and c["subject"] == subject)


@pytest.mark.parametrize("text, subject", [
    ("The RTX 3090 delivers 35.6 TFLOPS of FP16.", "gpu:RTX-3090"),
    ("RTX 3090 的 FP16 算力为 35.6 TFLOPS。", "gpu:RTX-3090"),
    ("| GPU | VRAM | FP16 TFLOPS |\n|---|---|---|\n| RTX A6000 | 48 GB | 38.7 |\n| RTX 3090 | 24 GB | 35.6 |",
     "gpu:RTX-A6000"),
])
def test_an_fp16_figure_that_is_the_cards_fp32_rate_without_a_tensor_word_is_unclear(gpukb, text, subject):
    c = _one(gpukb, text, subject)
    assert c["status"] == "unclear" and "non_tensor_rate" in {r["code"] for r in c["unclear_because"]}, c


@pytest.mark.parametrize("text", [
    "The RTX 3090 delivers 35.6 TFLOPS of FP16 Tensor Core throughput.",   # said to be the Tensor rate: wrong
    "RTX 3090 的 FP16 张量算力为 35.6 TFLOPS。",
    "The RTX 3090 delivers 20 TFLOPS of FP16.",                            # no rate of the card at all
])
def test_a_tensor_word_or_another_figure_keeps_it_wrong(gpukb, text):
    c = _one(gpukb, text, "gpu:RTX-3090")
    assert c["status"] == "incorrect", c
