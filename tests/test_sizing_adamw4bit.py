"""torchao's AdamW4bit (issue 33, release 2026.12.23; optimizer adamw4bit): Adam's two moments held in 4 bits each,
half a byte per state (R-OPT-adamw4bit-states: torchao's low-bit optimizers README, after Li et al. 2023), so a
pure-BF16 full fine-tune keeps 1 byte of optimizer state per parameter, half of 8-bit AdamW's 2."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.core.errors import BadInput
from gpukb.engine.sizing.calibration import run_body


def _query(kb, body: dict) -> dict:
    """The sizing answer as the JSON the API serves."""
    return kb.query(body).to_json()

BASE = {"model": "llama-2-7b", "method": "full", "precision": "bf16", "gpu": "A100-80GB", "seq_len": 1024, "batch": 1,
        "gradient_checkpointing": True}


def test_four_bit_states_are_half_a_byte_each(kb):
    n = 6.74e9
    four, eight = _query(kb, {**BASE, "optimizer": "adamw4bit"}), _query(kb, {**BASE, "optimizer": "adamw8bit"})
    assert four["memory"]["optimizer"] == pytest.approx(n * 2 * 0.5 / 1e9, abs=6e-4)
    assert eight["memory"]["optimizer"] == pytest.approx(2 * four["memory"]["optimizer"], abs=1e-3)
    assert four["memory"]["weights"] == eight["memory"]["weights"]
    proof = json.dumps(four["explanation"])
    assert "R-OPT-adamw4bit-states" in proof and "sizing.optbytes@5" in proof


def test_fp16_mixed_precision_keeps_the_master_copy_beside_them(kb):
    a = _query(kb, {**BASE, "precision": "fp16", "optimizer": "adamw4bit"})
    assert a["memory"]["optimizer"] == pytest.approx(6.74e9 * (4 + 2 * 0.5) / 1e9, abs=6e-4)


def test_lora_adapters_take_it_too(kb):
    a = _query(kb, {"model": "llama-2-7b", "method": "lora", "precision": "bf16", "gpu": "A100-80GB",
                  "optimizer": "adamw4bit", "lora_rank": 16})
    b = _query(kb, {"model": "llama-2-7b", "method": "lora", "precision": "bf16", "gpu": "A100-80GB",
                  "optimizer": "adamw", "lora_rank": 16})
    # FP32 adapter master (4) + 2 x 0.5 against 4 + 2 x 4 bytes per adapter parameter
    assert a["memory"]["optimizer"] == pytest.approx(b["memory"]["optimizer"] * 5 / 12, rel=0.01)


def test_releases_before_2026_12_23_refuse_it(kb):
    with pytest.raises(BadInput) as exc:
        _query(kb, {**BASE, "optimizer": "adamw4bit", "kb_version": "2026.12.22"})
    assert "later release" in str(exc.value)


def test_measured_runs_read_torchaos_4bit_adamw(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"id": "X1", "method": "full", "model": "model:llama-2-7b", "precision": "bf16", "optimizer": None,
           "gpus": 1, "gpu": "gpu:A100-80GB", "quote": "ao 4-bit | 33.2 | 2900 | 42.27"}
    assert run_body(row, vocab, view)["optimizer"] == "adamw4bit"
    assert "optimizer" not in run_body({**row, "quote": "PyTorch (fused) | 51.6"}, vocab, view)
    assert run_body({**row, "optimizer": "adamw8bit"}, vocab, view)["optimizer"] == "adamw8bit"
