"""FSDP1 gradient accumulation under no_sync (issue 33, release 2026.12.23; query field fsdp_no_sync): on the
micro-batches that do not sync, PyTorch's FullyShardedDataParallel accumulates the full model gradients instead of
gradient shards (R-FSDP-no-sync-grads, its no_sync documentation), and the Hugging Face Trainer and Accelerate's
accumulate call the model's no_sync there. Every GPU then holds the whole model's unsharded gradients, in the
precision the layers compute in, in place of its gradient shard; more GPUs do not divide them."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.core.errors import BadInput
from gpukb.engine.sizing.calibration import run_body


def _query(kb, body: dict) -> dict:
    """The sizing answer as the JSON the API serves."""
    return kb.query(body).to_json()

# a 7B full fine-tune in mixed precision over eight 80 GB A100s, FSDP1 full shard
BASE = {"model": "llama-2-7b", "method": "full", "precision": "mixed", "gpu": "A100-80GB", "gpus": 8, "zero": 3,
        "fsdp1": True, "seq_len": 2048, "batch": 1, "gradient_checkpointing": True}
NOSYNC = {**BASE, "fsdp_no_sync": True}


def test_every_gpu_holds_the_whole_models_unsharded_gradients(kb):
    # both step AdamW fused, so each peaks in the backward pass (a foreach step's tensor, R-TORCH-adamw-foreach-temp,
    # would be the plain run's peak: tests/test_sizing_optimizer_step.py)
    fused = {"fused_optimizer": True}
    plain, acc = _query(kb, BASE | fused), _query(kb, NOSYNC | fused)
    assert acc["scenario"]["fsdp_no_sync"] is True and "fsdp_no_sync" not in plain["scenario"]
    n = 6.74e9                                   # Llama-2-7B's parameters
    grads16 = n * 2 / 1e9                        # unsharded, in the 16 bits the layers compute in
    # the gradient shards (16-bit and DeepSpeed's FP32 partition, 2 + 2 bytes over 8 GPUs) give way to them, and the
    # running layer's own gradient is one of them
    layer = n / 32 * 2 / 1e9
    extra = grads16 - layer - n * (2 + 2) / 8 / 1e9
    assert acc["memory"]["per_gpu_total"] - plain["memory"]["per_gpu_total"] == pytest.approx(extra, abs=0.01)
    # the states themselves are unchanged
    for k in ("weights", "gradients", "optimizer", "model_states"):
        assert acc["memory"][k] == plain["memory"][k]


def test_more_gpus_do_not_divide_them(kb):
    def growth(gpus: int) -> float:
        return (_query(kb, {**NOSYNC, "gpus": gpus})["memory"]["per_gpu_total"]
                - _query(kb, {**BASE, "gpus": gpus})["memory"]["per_gpu_total"])
    assert growth(16) > growth(8) > growth(4)


def test_the_minimum_gpu_count_counts_them(kb):
    """A 13B full fine-tune on 40 GB cards: the unsharded gradients (26 GB) leave little room for the shards."""
    q = {**BASE, "model": "llama-2-13b", "gpu": "A100-40GB", "gpus": 2}
    plain, acc = _query(kb, q), _query(kb, {**q, "fsdp_no_sync": True})
    assert acc["min_gpus"] > plain["min_gpus"]
    at = _query(kb, {**q, "fsdp_no_sync": True, "gpus": acc["min_gpus"]})
    assert at["verdict"] == "fits"
    below = _query(kb, {**q, "fsdp_no_sync": True, "gpus": acc["min_gpus"] - 1})
    assert below["verdict"] == "does_not_fit"


def test_the_proof_cites_pytorchs_no_sync_documentation(kb):
    a = _query(kb, NOSYNC)
    proof = json.dumps(a["explanation"], ensure_ascii=False)
    assert "sizing.zero3.working_set_no_sync@1" in proof and "R-FSDP-no-sync-grads" in proof
    assert "no_sync" in json.dumps(a["sources"])


@pytest.mark.parametrize("change", [{"fsdp1": False}, {"zero": 2}, {"method": "lora", "precision": "bf16"},
                                    {"offload": "params"}])
def test_it_is_only_for_fsdp1_full_shard_full_training(kb, change):
    a = _query(kb, {**NOSYNC, **change})
    assert "fsdp_no_sync" not in a["scenario"]
    said = [n for n in a["notes"] if "fsdp_no_sync" in str(n)]
    assert said and "FSDP1" in str(said[0]) and "fsdp_no_sync" in getattr(said[0], "zh", "")
    assert a["memory"] == _query(kb, {**BASE, **change})["memory"]


def test_releases_before_2026_12_23_do_not_model_it(kb):
    old = {**BASE, "kb_version": "2026.12.22"}
    a = _query(kb, {**old, "fsdp_no_sync": True})
    assert "fsdp_no_sync" not in a["scenario"] and a["memory"] == _query(kb, old)["memory"]
    assert any("2026.12.23" in str(n) for n in a["notes"])


def test_a_bad_value_is_a_400(kb):
    with pytest.raises(BadInput):
        _query(kb, {**BASE, "fsdp_no_sync": "yes"})


def test_measured_runs_set_it_where_the_trainer_accumulates(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"id": "X1", "method": "full", "model": "model:llama-2-7b", "precision": "mixed", "gpus": 8,
           "gpu": "gpu:A100-80GB", "sharding": "fsdp", "framework": "transformers + Accelerate FSDP",
           "note": "command: --gradient_accumulation_steps 2 --bf16"}
    assert run_body(row, vocab, view)["fsdp_no_sync"] is True
    # one micro-batch per step, a loop of its own (llama-recipes), FSDP2, or LoRA: not set
    assert "fsdp_no_sync" not in run_body({**row, "note": "--gradient_accumulation_steps 1"}, vocab, view)
    assert "fsdp_no_sync" not in run_body({**row, "framework": "llama-recipes (PyTorch FSDP, transformers)"}, vocab, view)
    assert "fsdp_no_sync" not in run_body({**row, "framework": "torchtune (FSDP2) trainer"}, vocab, view)
    assert "fsdp_no_sync" not in run_body({**row, "method": "lora"}, vocab, view)


def test_the_cli_takes_the_flag(kb):
    from gpukb.server.cli_args import build_parser
    args = build_parser().parse_args(["query", "--model", "llama-2-7b", "--zero", "3", "--fsdp1", "--fsdp-no-sync"])
    assert args.fsdp_no_sync is True
