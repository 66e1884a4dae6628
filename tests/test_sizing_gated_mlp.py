"""Activations of a gated MLP (issue 33, release 2026.12.31): without recomputation a SwiGLU or GeGLU layer keeps
four intermediate_size-wide 16-bit tensors (R-ACT-mlp-gated) where Korthikanti's 34 counts two 4h-wide ones
(R-ACT-mlp-4h); Phi-1.5 and Phi-2, whose intermediate_size is a plain GELU projection, are marked gated_mlp false."""
from __future__ import annotations

import json

import pytest

# cases of our own: one sequence of 2048 tokens, no recomputation, FlashAttention (no s x s scores)
RUN = {"method": "full", "gpu": "A100-80GB", "seq_len": 2048, "batch": 1, "gradient_checkpointing": False,
       "flash_attention": True}
TOKENS = 2048


def _acts(kb, **kw) -> dict:
    return kb.query({**RUN, **kw}).to_json()


def test_llama_layers_keep_the_gated_mlps_four_wide_tensors(kb):
    got = _acts(kb, model="llama-2-7b")
    # Llama 2 7B: 32 layers, h 4096, intermediate 11008; 34 - 16 + 8 * 11008 / 4096 + 8 (FP32 norm upcasts)
    coef = 34 - 16 + 8 * 11008 / 4096 + 8
    assert got["memory"]["activations"] == pytest.approx(32 * TOKENS * 4096 * coef / 1e9, rel=1e-3)
    proof = json.dumps(got["explanation"])
    assert "R-ACT-mlp-gated" in proof and "R-ACT-mlp-4h" in proof


def test_a_wider_mlp_keeps_more(kb):
    # per s·b·h the gated MLP's share grows with intermediate / hidden: Qwen2 7B (18944 / 3584) over Llama 2 7B
    llama = _acts(kb, model="llama-2-7b")["memory"]["activations"] / (32 * 4096)
    qwen = _acts(kb, model="qwen2-7b")["memory"]["activations"] / (28 * 3584)
    assert qwen > llama


def test_phi_2s_plain_gelu_mlp_keeps_the_4h_wide_tensors(kb):
    got = _acts(kb, model="phi-2")
    # Phi-2: 32 layers, h 2560; its intermediate_size (10240) is fc1's width, Korthikanti's 34 + 8 as before
    assert got["memory"]["activations"] == pytest.approx(32 * TOKENS * 2560 * (34 + 8) / 1e9, rel=1e-3)
    proof = json.dumps(got["explanation"])
    assert "sizing.activations.coefficient_plain_mlp" in proof and "R-phi-2-gated_mlp" in proof


def test_phi_2_inference_overhead_is_a_4h_wide_mlps(kb):
    new = kb.query({"model": "phi-2", "method": "inference", "gpu": "A100-80GB", "seq_len": 2048, "batch": 4})
    old = kb.query({"model": "phi-2", "method": "inference", "gpu": "A100-80GB", "seq_len": 2048, "batch": 4,
                    "kb_version": "2026.12.30"})
    # 16 bytes x tokens x hidden now, 3 x intermediate x 2 bytes (read as a gated MLP) before: 16 x 2560 < 6 x 10240
    diff = old.to_json()["memory"]["overhead"] - new.to_json()["memory"]["overhead"]
    assert diff == pytest.approx((6 * 10240 - 16 * 2560) * 4 * 2048 / 1e9, rel=1e-2)


def test_a_model_without_its_mlp_width_and_a_release_before_keep_the_34(kb):
    approx = _acts(kb, params=7e9)
    layers = round((128 * 7e9 / 12) ** (1 / 3) / 128)
    h = round((128 * 7e9 / 12) ** (1 / 3))
    assert approx["memory"]["activations"] == pytest.approx(layers * TOKENS * h * (34 + 8) / 1e9, rel=2e-3)
    old = _acts(kb, model="llama-2-7b", kb_version="2026.12.30")
    assert old["memory"]["activations"] == pytest.approx(32 * TOKENS * 4096 * (34 + 8) / 1e9, rel=1e-3)
