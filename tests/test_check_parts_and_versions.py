"""Two readings of a figure that is not what gpukb's reference or estimate speaks of: a requirement said of one
part of a run ("the KV cache … consumes 80 GB"; guard component_named) and a figure given for a board width no
catalogued version of the product has ("150W Single-Slot"; guard unknown_form_factor). Both are unclear, never
incorrect; the same figures said of the whole run or of a known version stay judged. Sentences written for these
tests."""
from __future__ import annotations

import pytest


def _claim(gpukb, text: str, attribute: str, value: float) -> dict:
    return next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute and c["value"] == value)


def _codes(c: dict) -> set[str]:
    return {r["code"] for r in c.get("unclear_because", [])}


@pytest.mark.parametrize("text, value", [
    ("At 8K context with a batch of 8, the KV cache for a 70B FP16 model still consumes around 80 GB.", 80.0),
    ("7B 模型全参数微调时，优化器状态占用约 20 GB 显存。", 20.0),
])
def test_a_parts_memory_is_not_the_runs_total(gpukb, text, value):
    c = _claim(gpukb, text, "memory_required", value)
    assert c["status"] == "unclear" and "component_named" in _codes(c), c
    why = next(r for r in c["unclear_because"] if r["code"] == "component_named")
    assert why["en"] and why["zh"], why


@pytest.mark.parametrize("text", [
    "Full fine-tuning a 7B model in mixed precision with AdamW needs about 40 GB of GPU memory.",
    # checkpointing is a technique, not a part of memory
    "With gradient checkpointing, full fine-tuning a 7B model with AdamW needs about 40 GB.",
])
def test_a_runs_total_stays_judged(gpukb, text):
    c = _claim(gpukb, text, "memory_required", 40.0)
    assert c["status"] == "understated" and "component_named" not in _codes(c), c


@pytest.mark.parametrize("text", [
    "NVIDIA Tesla V100 cards detailed – 150W Single-Slot & 300W Dual-Slot PCIe accelerators",
    "The A100 comes as a single-slot 150 W card.",
    "A100 的单槽版本功耗为 150W。",
])
def test_a_figure_of_a_board_width_gpukb_does_not_catalogue_is_unclear(gpukb, text):
    c = _claim(gpukb, text, "tdp_w", 150.0)
    assert c["status"] == "unclear" and "unknown_form_factor" in _codes(c), c


@pytest.mark.parametrize("text", [
    "The A100 PCIe is a dual-slot card drawing 150 W.",     # the A100 PCIe is dual-slot: its 250 W is known
    "The T4 is a single-slot card drawing 150 W.",           # the T4 is single-slot: its 70 W is known
])
def test_a_figure_of_a_known_board_width_stays_judged(gpukb, text):
    c = _claim(gpukb, text, "tdp_w", 150.0)
    assert c["status"] == "incorrect" and "unknown_form_factor" not in _codes(c), c
