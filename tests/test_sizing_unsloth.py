"""Unsloth's defaults as kb/frameworks.yaml states them, with their citation: its "unsloth" gradient checkpointing
offloads each layer's checkpointed input to host memory, and its cross-entropy kernel keeps only the 16-bit logits.
A run naming Unsloth gets them unless it states the field itself; a query answers the same when given them."""
from __future__ import annotations

from pathlib import Path

from gpukb.engine.sizing import frameworks
from gpukb.engine.sizing.calibration import run_body

ROOT = Path(__file__).resolve().parents[1] / "kb"
ROW = {"id": "X1", "method": "qlora", "model": "model:llama-3.1-8b", "gpu": "gpu:T4", "gpus": 1, "batch": 2,
       "seq_len": 2048, "gradient_checkpointing": True, "framework": "Unsloth (FastLanguageModel, SFTTrainer)"}


def test_unsloth_offloads_checkpointed_activations_and_keeps_16_bit_logits():
    got = frameworks.defaults(ROOT, "Unsloth 2024.8", True)
    assert got.get("activation_offloading") is True and got.get("chunked_cross_entropy") is True
    assert frameworks.defaults(ROOT, "Unsloth 2024.8", False) == {}       # serving: no training defaults


def test_a_run_naming_unsloth_is_sized_with_them_unless_it_says_otherwise(kb):
    body = run_body(ROW, kb.kb.vocab, kb.view(None))
    assert body["activation_offloading"] is True and body["chunked_cross_entropy"] is True
    off = run_body({**ROW, "chunked_cross_entropy": False}, kb.kb.vocab, kb.view(None))
    assert off["chunked_cross_entropy"] is False


def test_offloading_and_the_16_bit_loss_lower_the_need(kb):
    base = {"model": "llama-3.1-8b", "method": "qlora", "gpu": "T4", "batch": 2, "seq_len": 2048, "gradient_checkpointing": True}
    plain = kb.query(base).memory.total
    unsloth = kb.query({**base, "activation_offloading": True, "chunked_cross_entropy": True}).memory.total
    assert unsloth < plain - 1.0, (plain, unsloth)
