"""A model's memory need stated with no method ("a 13B model needs 26 GB in FP16") and a figure said to be the
weights' alone ("14 GB just for the weights"): read, and checked against the least and the most demanding use
of the model (serving it, full fine-tuning) or against parameters x bytes. Sentences written for these tests,
not taken from any gold passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation"}


def _memory(gpukb, text: str) -> list[dict]:
    return [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_required"]


@pytest.mark.parametrize("text", [
    "A 13B model needs 26 GB of GPU memory in FP16.",
    "A 70-billion-parameter model needs about 140 GB in FP16.",
    "Llama 3 70B needs about 40 GB at 4-bit.",
    "So a 7B model at FP16 needs about 7 × 2 = 14GB just for weights.",
    "The weights of a 70B model take 140 GB in FP16.",
    "A 7B model requires at least 14 GB of VRAM in FP16.",
    "A 7-billion-parameter model needs 28 GB in FP32.",
    "一个 7B 模型 FP16 需要约 14GB 显存。",
    "7B 模型 INT4 需要约 5GB 显存。",
    "- 13B 模型: 约 26GB (FP16)",
    "Requires a lot of memory (13B model = 26GB FP16 weights + 78GB gradients).",
])
def test_true_model_needs_are_read_and_not_flagged(gpukb, text):
    claims = _memory(gpukb, text)
    assert claims, text
    assert not [c for c in claims if c["status"] in WRONG], claims


@pytest.mark.parametrize("text,kind", [
    ("A 7B model needs 4 GB in FP16.", "understated"),
    ("The weights of a 70B model take 70 GB in FP16.", "understated"),
    ("A 13B model needs 300 GB in FP16.", "overstated"),
    ("A 70B model needs 20 GB at 4-bit.", "understated"),
    ("13B 模型 INT4 需要 3GB 显存。", "understated"),
])
def test_false_model_needs_are_flagged(gpukb, text, kind):
    claims = _memory(gpukb, text)
    assert [c["status"] for c in claims] == [kind], claims


def test_a_need_between_serving_and_full_training_depends_on_the_method(gpukb):
    (c,) = _memory(gpukb, "A 13B model needs 100 GB in FP16.")
    assert c["status"] == "scope_dependent" and "method" not in c["qualifiers"]
    assert c["subject"] == "concept:model-memory"


def test_with_no_precision_the_least_demanding_use_is_4_bit_serving(gpukb):
    # 4 GB is what a 7B model's weights take in 4 bits: not understated when the text states no precision
    (c,) = _memory(gpukb, "A 7B model needs about 4 GB of VRAM.")
    assert c["status"] not in WRONG, c


def test_a_part_other_than_the_weights_is_no_need(gpukb):
    claims = _memory(gpukb, "Full fine-tuning of a 13B model needs 26GB FP16 weights + 78GB gradients.")
    assert [c["value"] for c in claims] == [26.0] and claims[0]["qualifiers"]["component"] == ["weights"]


def test_a_lines_method_label_carries_to_its_sentences(gpukb):
    text = "• QLoRA: quantises the frozen base to 4 bits. A 7B model needs about 6 GB.\n"
    (c,) = _memory(gpukb, text)
    assert c["qualifiers"]["method"] == "method:qlora", c


def test_a_size_labelled_line_gives_the_models_need(gpukb):
    (c,) = _memory(gpukb, "- 70B 模型: 最少 35-40 GB (INT4)\n")
    assert c["subject"] == "concept:model-memory" and c["status"] == "supported", c


def test_a_weights_column_is_checked_as_the_weights(gpukb):
    text = "| Model size | FP16 (weights) | INT8 |\n|---|---|---|\n| 7B | ~14GB | ~7GB |\n| 70B | ~70GB | ~70GB |\n"
    claims = _memory(gpukb, text)
    weights = [c for c in claims if c["qualifiers"].get("component") == ["weights"]]
    assert [c["value"] for c in weights] == [14.0, 70.0]
    assert [c["status"] for c in weights] == ["supported", "understated"], weights
