"""What PyTorch FSDP1's CPU offload keeps on the GPU and what Gemma 2's final logit soft-capping keeps for the
backward pass (issue 33, release 2026.12.16)."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.sizing.calibration import run_body

# a 7B full fine-tune in pure BF16 (no FP32 master copy: FSDP over a bf16 model, as FSDP2 runs it; from 2026.12.17 a
# ZeRO stage in bf16 is otherwise DeepSpeed's FP32 master layout) sharded over 4 GPUs, its parameters offloaded to the host
OFFLOAD = {"model": "llama-2-7b", "method": "full", "precision": "bf16", "gpu": "A100-80GB", "gpus": 4, "zero": 3,
           "offload": "params", "seq_len": 4096, "batch": 1, "gradient_checkpointing": True, "master_weights": False}
PARAMS_7B = 6.74e9          # Llama 2 7B


def test_fsdp1_cpu_offload_keeps_the_gradient_shards_on_the_gpu(kb):
    deepspeed, fsdp1 = kb.query(OFFLOAD).to_json(), kb.query({**OFFLOAD, "fsdp1": True}).to_json()
    assert fsdp1["scenario"]["fsdp1"] is True and "fsdp1" not in deepspeed["scenario"]
    # every parameter's 16-bit gradient, over the 4 GPUs, beside what parameter offload keeps
    shards = PARAMS_7B * 2 / 4 / 1e9
    assert fsdp1["memory"]["per_gpu_total"] - deepspeed["memory"]["per_gpu_total"] == pytest.approx(shards, rel=1e-2)
    assert "R-FSDP-offload-grad-shard" in json.dumps(fsdp1["explanation"])
    # the whole model's parts and what goes to the host do not change
    for k in ("weights", "gradients", "optimizer", "activations", "logits"):
        assert fsdp1["memory"][k] == deepspeed["memory"][k]
    # more GPUs, smaller shards
    eight = kb.query({**OFFLOAD, "fsdp1": True, "gpus": 8}).to_json()
    assert eight["memory"]["per_gpu_total"] < fsdp1["memory"]["per_gpu_total"]


def test_fsdp1_only_matters_with_parameter_offload_and_is_new_in_2026_12_16(kb):
    sharded = {**OFFLOAD, "offload": "none"}
    assert kb.query({**sharded, "fsdp1": True}).to_json()["memory"] == kb.query(sharded).to_json()["memory"]
    old = {**OFFLOAD, "kb_version": "2026.12.15"}
    assert kb.query({**old, "fsdp1": True}).to_json()["memory"]["per_gpu_total"] == kb.query(old).to_json()["memory"]["per_gpu_total"]
    # LoRA trains only the adapters: their gradient shards are all FSDP1 keeps
    lora = {**OFFLOAD, "method": "lora", "lora_rank": 16}
    gap = kb.query({**lora, "fsdp1": True}).to_json()["memory"]["per_gpu_total"] - kb.query(lora).to_json()["memory"]["per_gpu_total"]
    assert 0 < gap < 0.05


def test_measured_fsdp_runs_are_fsdp1_unless_their_framework_uses_fully_shard(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"method": "full", "model": "model:llama-2-7b", "precision": "bf16", "gpu": "gpu:A100-80GB", "gpus": 4,
           "sharding": "fsdp", "offload": "optimizer_and_params", "framework": "accelerate + PyTorch FSDP"}
    assert run_body(row, vocab, view)["fsdp1"] is True
    assert "fsdp1" not in run_body({**row, "framework": "torchtune"}, vocab, view)
    assert "fsdp1" not in run_body({**row, "framework": "torchtitan (FSDP2)"}, vocab, view)
    assert "fsdp1" not in run_body({**row, "sharding": "zero3_offload", "framework": "deepspeed"}, vocab, view)


# Gemma 2 2B: 256,000-token vocabulary, final_logit_softcapping 30
GEMMA2 = {"model": "gemma-2-2b", "method": "lora", "precision": "bf16", "seq_len": 4096, "batch": 1,
          "gradient_checkpointing": True, "chunked_cross_entropy": True, "vram_gb": 24}
ELEMENTS = 4096 * 256000


def test_final_logit_softcapping_keeps_one_more_logit_tensor(kb):
    new, old = kb.query(GEMMA2).to_json(), kb.query({**GEMMA2, "kb_version": "2026.12.15"}).to_json()
    # tanh's output, in the 16-bit head's dtype, beside the chunked loss's 16-bit logits
    assert new["memory"]["logits"] - old["memory"]["logits"] == pytest.approx(ELEMENTS * 2 / 1e9, rel=1e-3)
    assert "R-LOGITS-softcap" in json.dumps(new["explanation"])
    # a card between the two needs: the soft-capped copy decides the fit
    need_old, need_new = old["memory"]["per_gpu_total"], new["memory"]["per_gpu_total"]
    between = {**GEMMA2, "vram_gb": round((need_old + need_new) / 2, 2)}
    assert kb.query(between).to_json()["verdict"] == "does_not_fit"
    assert kb.query({**between, "kb_version": "2026.12.15"}).to_json()["verdict"] == "fits"


def test_softcapping_follows_the_heads_dtype_and_only_gemma_2(kb):
    qlora = {**GEMMA2, "method": "qlora", "precision": "nf4", "kbit_preparation": True}
    new, old = kb.query(qlora).to_json(), kb.query({**qlora, "kb_version": "2026.12.15"}).to_json()
    # PEFT's k-bit preparation gives an FP32 head: the soft-capped copy takes 4 bytes per element
    assert new["memory"]["logits"] - old["memory"]["logits"] == pytest.approx(ELEMENTS * 4 / 1e9, rel=1e-3)
    # Gemma (1) has the same vocabulary and no soft-capping
    gemma = {**GEMMA2, "model": "gemma-7b"}
    assert kb.query(gemma).to_json()["memory"]["logits"] == kb.query({**gemma, "kb_version": "2026.12.15"}).to_json()["memory"]["logits"]
