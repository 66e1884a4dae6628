"""The optimizer step of PyTorch's foreach AdamW (issue 33, release 2027.1): it computes the square root of the second
moments into a new tensor of their size while every model state is held (R-TORCH-adamw-foreach-temp), so a full
fine-tune whose activations are small peaks at the step. It is counted when asked (fused_optimizer false) and, not said,
for an FSDP1 run; a fused or for-loop step (fused_optimizer true), DeepSpeed's own Adam, an optimizer fused into the
backward pass and 8-bit optimizers hold no such tensor."""
from __future__ import annotations

import json

import pytest

# cases of our own: LLaMA-7B (6.7e9 parameters in the catalog), one sequence of 512 tokens with checkpointing, so the
# backward pass's activations and logits are far smaller than 4 bytes per parameter
RUN = {"model": "llama-7b", "method": "full", "precision": "mixed", "optimizer": "adamw", "gpu": "A100-80GB",
       "batch": 1, "seq_len": 512, "gradient_checkpointing": True, "flash_attention": True}


def _q(kb, **kw):
    return kb.query({**RUN, **kw}).to_json()


N = 6.7e9      # LLaMA-7B's parameters in the catalog (Touvron et al., Table 2)


def test_the_foreach_step_holds_the_second_moments_size_once_more(kb):
    foreach, fused = _q(kb, gpus=1, fused_optimizer=False), _q(kb, gpus=1, fused_optimizer=True)
    # a single-GPU run that does not say how AdamW steps is sized without the tensor
    assert _q(kb, gpus=1)["memory"]["per_gpu_total"] == fused["memory"]["per_gpu_total"]
    n = N
    step = foreach["memory"]["per_gpu_total"] - fused["memory"]["per_gpu_total"]
    # the step holds model states + 4 bytes per parameter + the CUDA context; the backward pass its activations instead
    assert step > 0
    assert foreach["memory"]["per_gpu_total"] == pytest.approx(
        foreach["memory"]["model_states"] + 4 * n / 1e9 + foreach["memory"]["overhead"], rel=0.02)
    assert "R-TORCH-adamw-foreach-temp" in json.dumps(foreach["explanation"])
    assert "R-TORCH-adamw-foreach-temp" not in json.dumps(fused["explanation"])


def test_fsdp1_shards_the_temporary_and_deepspeed_has_none(kb):
    fsdp1 = _q(kb, gpus=4, zero=3, fsdp1=True)      # not said: an FSDP1 run steps PyTorch's foreach AdamW
    fsdp1_fused = _q(kb, gpus=4, zero=3, fsdp1=True, fused_optimizer=True)
    n = N
    # over 4 GPUs the step's tensor is a quarter of 4 bytes per parameter, and it replaces the backward pass's
    # working set (gathered layers, activations) when larger
    assert fsdp1["memory"]["per_gpu_total"] > fsdp1_fused["memory"]["per_gpu_total"]
    assert fsdp1["memory"]["per_gpu_total"] - fsdp1_fused["memory"]["per_gpu_total"] < 4 * n / 4 / 1e9
    deepspeed = _q(kb, gpus=4, zero=3)
    assert deepspeed["memory"]["per_gpu_total"] == pytest.approx(
        _q(kb, gpus=4, zero=3, fused_optimizer=True)["memory"]["per_gpu_total"])


@pytest.mark.parametrize("change", [{"optimizer": "adamw8bit"}, {"optimizer_in_backward": True},
                                    {"method": "lora"}, {"offload": "optimizer", "zero": 2, "gpus": 2}])
def test_other_steps_hold_no_such_tensor(kb, change):
    assert _q(kb, **change, fused_optimizer=False)["memory"]["per_gpu_total"] == pytest.approx(
        _q(kb, **change, fused_optimizer=True)["memory"]["per_gpu_total"])


def test_a_release_before_the_fact_sizes_the_step_as_before(kb):
    old = {"kb_version": "2026.12.31", "fused_optimizer": False}
    assert _q(kb, **old)["memory"]["per_gpu_total"] == pytest.approx(
        _q(kb, **old | {"fused_optimizer": True})["memory"]["per_gpu_total"])
    assert _q(kb, fused_optimizer=False)["memory"]["per_gpu_total"] > _q(kb, **old)["memory"]["per_gpu_total"]


def test_the_flag_is_a_boolean(kb):
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput) as e:
        kb.query({**RUN, "fused_optimizer": "yes"})
    assert "fused_optimizer: expected true or false" in str(e.value)


def test_torchtune_runs_step_without_the_temporary(kb):
    from gpukb.engine.sizing.calibration import run_body
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"model": "model:llama-2-7b", "method": "full", "precision": "bf16", "optimizer": "adamw", "gpus": 1,
           "sharding": "none", "offload": "none", "gpu": "gpu:A100-80GB"}
    assert run_body({**row, "framework": "torchtune 52d1b838"}, vocab, view)["fused_optimizer"] is True
    assert "fused_optimizer" not in run_body({**row, "framework": "transformers Trainer"}, vocab, view)
