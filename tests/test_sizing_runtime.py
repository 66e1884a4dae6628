"""How a training step's runtime changes what it holds: torch.compile's recomputation of pointwise activations,
and what nvidia-smi shows beside the allocator's own count (issue 33)."""
from __future__ import annotations

import json

import pytest

EAGER = {"model": "llama-3.2-3b", "method": "full", "precision": "bf16", "gpu": "A100-80GB", "seq_len": 4096,
         "batch": 2, "gradient_checkpointing": False, "flash_attention": True}


def test_compile_keeps_korthikantis_cut_of_the_activations(kb):
    eager = kb.query(EAGER).to_json()
    compiled = kb.query({**EAGER, "torch_compile": True}).to_json()
    # eager keeps 34 + 8 (FP32 norm upcasts) bytes per s·b·h per layer, compiled 34 - 10 (R-ACT-compile-remat)
    assert compiled["memory"]["activations"] / eager["memory"]["activations"] == pytest.approx(24 / 42, rel=1e-3)
    assert compiled["scenario"]["torch_compile"] is True
    assert "R-ACT-compile-remat" in json.dumps(compiled["explanation"])
    # weights, gradients, optimizer states and logits are the same tensors either way
    for k in ("weights", "gradients", "optimizer", "logits"):
        assert compiled["memory"][k] == eager["memory"][k]


def test_compile_with_checkpointing_shrinks_only_the_recomputed_layer(kb):
    ck = {**EAGER, "gradient_checkpointing": True}
    a, b = kb.query(ck).to_json()["memory"]["activations"], kb.query({**ck, "torch_compile": True}).to_json()["memory"]["activations"]
    # the 2·s·b·h checkpoint of each layer stays; one layer's 42 → 24 bytes per s·b·h goes
    assert a - b == pytest.approx(4096 * 2 * 3072 * 18 / 1e9, rel=1e-3)


def test_compile_is_sized_as_eager_in_a_release_without_the_fact(kb):
    old = {**EAGER, "kb_version": "2026.12.8"}
    assert kb.query({**old, "torch_compile": True}).to_json()["memory"]["activations"] == kb.query(old).to_json()["memory"]["activations"]


def test_compile_is_no_inference_flag(kb):
    a = kb.query({"model": "llama-3.2-3b", "method": "inference", "gpu": "L4", "torch_compile": True}).to_json()
    assert any("torch_compile" in n for n in a["notes"])


@pytest.mark.parametrize("body", [
    {"model": "llama-2-7b", "method": "lora", "gpu": "A100-80GB"},
    {"model": "llama-2-7b", "method": "full", "gpu": "A100-80GB", "gradient_checkpointing": True},
    {"model": "llama-2-13b", "method": "full", "gpu": "A100-80GB", "gpus": 4},
])
def test_nvidia_smi_shows_the_allocators_fragmentation_in_fine_tuning(kb, body):
    m = kb.query(body).to_json()["memory"]
    context = m["per_gpu_total"] - m["per_gpu_allocated"]
    assert m["per_gpu_reserved"] == pytest.approx(m["per_gpu_allocated"] / (1 - 0.15) + context, abs=2e-3)


def test_plain_training_shows_no_fragmentation_figure(kb):
    m = kb.query({**EAGER, "seq_len": 512}).to_json()["memory"]
    assert m["per_gpu_reserved"] == pytest.approx(m["per_gpu_total"], abs=2e-3)


def test_fragmentation_never_decides_the_verdict(kb):
    """The allocator frees its cache and retries before it fails (R-TORCH-alloc-retry): a run whose tensors fit is
    called fitting even when the reserve nvidia-smi would show exceeds the card."""
    for seq in range(2048, 65536, 512):
        a = kb.query({"model": "llama-2-7b", "method": "lora", "gpu": "A100-80GB", "seq_len": seq,
                      "flash_attention": True}).to_json()
        m = a["memory"]
        if m["per_gpu_total"] <= a["capacity"]["per_gpu"] < m["per_gpu_reserved"]:
            assert a["verdict"] == "fits"
            return
    pytest.fail("no sequence length put the reserve alone over the card")


def test_inference_has_no_reserve_estimate(kb):
    m = kb.query({"model": "llama-2-7b", "method": "inference", "gpu": "A100-80GB"}).to_json()["memory"]
    assert "per_gpu_reserved" not in m


def test_the_cli_takes_torch_compile(cli):
    out = cli.json("query", "--model", "llama-3.2-3b", "--method", "full", "--gpu", "A100-80GB", "--seq-len", "4096",
                   "--no-gradient-checkpointing", "--torch-compile", "--json")
    assert out["scenario"]["torch_compile"] is True


@pytest.mark.parametrize("model", ["llama-2-7b", "model:llama-2-7b"])
def test_a_longest_context_beyond_the_trained_one_says_so(kb, model):
    a = kb.solve({"model": model, "method": "inference", "gpu": "A100-80GB"}, "seq_len").to_json()
    assert a["largest"] > 4096
    assert "4,096" in a["text"]["en"] and "R-llama-2-7b-max_context" in a["text"]["en"] and "4,096" in a["text"]["zh"]


def test_a_longest_context_within_the_trained_one_says_nothing_of_it(kb):
    a = kb.solve({"model": "llama-2-7b", "method": "full", "gpu": "T4", "batch": 64}, "seq_len").to_json()
    assert a["largest"] is None or a["largest"] <= 4096
    assert "max_position_embeddings" not in a["text"]["en"]


def test_eval_sizing_says_how_much_of_each_split_the_dev_band_covers(kb):
    from gpukb.engine.sizing.calibration import measured_runs
    rep = measured_runs(kb, kb.view(), splits=("dev",))
    dev = rep["splits"]["dev"]
    # the band is the narrowest that holds 90% of dev's ratios, so on dev it covers at least that
    assert dev["dev_band_covers"] >= 0.9 and dev["band"]["covers"] <= dev["sized"]


def test_a_step_fused_into_backward_holds_the_largest_gradient_tensor(kb):
    """One layer's gradients at a time, or the token embedding's whole gradient when that one tensor is larger
    (Llama 3.2 3B: 128,256 × 3,072 = 394M parameters against 3.21B / 28 = 115M per layer)."""
    body = {"model": "llama-3.2-3b", "method": "full", "precision": "bf16", "gpu": "A100-80GB",
            "optimizer_in_backward": True}
    assert kb.query(body).to_json()["memory"]["gradients"] == pytest.approx(128256 * 3072 * 2 / 1e9, rel=1e-3)
    # a 13B model with a 32k vocabulary: a layer (13.0B / 40) is larger than its embedding (32,000 × 5,120)
    big = kb.query({**body, "model": "llama-2-13b"}).to_json()["memory"]["gradients"]
    assert big > 32000 * 5120 * 2 / 1e9 and big == pytest.approx(13.0 / 40 * 2, rel=0.05)
