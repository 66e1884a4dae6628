"""Serving and parallel splits as practitioners deploy them (issue 33): vLLM's share of each card and its
token budget per step, tensor-parallel sizes that divide the attention heads, FP8 KV caches and attention
kernels only where the GPU runs them, and the trained context limit."""
from __future__ import annotations

import pytest

from ._engine import bundled


@pytest.fixture(scope="module")
def kb():
    return bundled()


def notes_with(a, text):
    return [n for n in a["notes"] if text in n]


# ---- vLLM: the engine's memory fraction, its token budget and the sequences it serves at once
def test_vllm_takes_its_share_of_each_card_and_it_is_said_and_overridable(kb):
    body = {"model": "llama-3-8b", "method": "inference", "gpu": "A10"}
    whole = kb.query(body).to_json()
    vllm = kb.query({**body, "engine": "vllm"}).to_json()
    assert vllm["scenario"]["gpu_memory_utilization"] == 0.9 and notes_with(vllm, "R-VLLM-gmu")
    assert vllm["capacity"]["per_gpu"] < whole["capacity"]["per_gpu"]
    half = kb.query({**body, "engine": "vllm", "gpu_memory_utilization": 0.5}).to_json()
    assert half["capacity"]["per_gpu"] == pytest.approx(vllm["capacity"]["per_gpu"] * 0.5 / 0.9, rel=1e-3)
    assert not notes_with(half, "gpu_memory_utilization not given")


def test_vllm_serves_as_many_sequences_as_its_kv_pool_holds(kb):
    a = kb.query({"model": "llama-3-8b", "method": "inference", "gpu": "H100-80GB", "engine": "vllm",
                  "seq_len": 4096, "batch": 1}).to_json()
    sv = a["serving"]
    # Llama-3-8B: 32 layers × 8 KV heads × 128 dims × 2 (K and V) × 2 bytes = 131,072 bytes per token
    assert sv["kv_per_sequence_gb"] == pytest.approx(32 * 8 * 128 * 2 * 2 * 4096 / 1e9, rel=1e-3)
    assert sv["max_sequences"] == int(sv["kv_pool_gb"] // sv["kv_per_sequence_gb"])
    fp8 = kb.query({"model": "llama-3-8b", "method": "inference", "gpu": "H100-80GB", "engine": "vllm",
                    "seq_len": 4096, "batch": 1, "kv_cache_dtype": "fp8"}).to_json()
    assert fp8["serving"]["kv_per_sequence_gb"] == pytest.approx(sv["kv_per_sequence_gb"] / 2, rel=1e-3)
    assert fp8["serving"]["max_sequences"] >= 2 * sv["max_sequences"]


@pytest.mark.parametrize("gpu, budget", [("A10", 2048), ("L40S", 2048), ("A100-80GB", 2048), ("H100-80GB", 8192)])
def test_vllm_token_budget_defaults_as_vllm_serve_sets_it(kb, gpu, budget):
    a = kb.query({"model": "llama-3-8b", "method": "inference", "gpu": gpu, "engine": "vllm"}).to_json()
    assert a["scenario"]["max_num_batched_tokens"] == budget
    assert notes_with(a, f"assumed {budget:,}") and notes_with(a, "R-VLLM-batched-tokens-default")


def test_prefill_buffers_are_bounded_by_the_token_budget_not_batch_times_context(kb):
    body = {"model": "llama-3-8b", "method": "inference", "gpu": "H100-80GB", "seq_len": 8192, "batch": 8}
    plain = kb.query(body).to_json()["memory"]["overhead"]
    budget = kb.query({**body, "max_num_batched_tokens": 4096}).to_json()["memory"]["overhead"]
    ctx = 500 * 2 ** 20 / 1e9
    # bytes per token of the forward buffers: Llama-3-8B's gated MLP holds three 16-bit tensors of
    # intermediate_size 14,336 (release 2026.12.11; 16 · h before it)
    per_token = 3 * 2 * 14336
    assert plain - ctx == pytest.approx(per_token * 8 * 8192 / 1e9, rel=1e-3)
    assert budget - ctx == pytest.approx(per_token * 4096 / 1e9, abs=0.002)
    # vLLM reserves a whole step of its budget (its profile run), even for one short request
    short = kb.query({"model": "llama-3-8b", "method": "inference", "gpu": "H100-80GB", "engine": "vllm",
                      "seq_len": 256, "batch": 1}).to_json()["memory"]["overhead"]
    assert short - ctx == pytest.approx(per_token * 8192 / 1e9, abs=0.002)
    assert kb.query({"model": "llama-3-8b", "method": "inference", "gpu": "H100-80GB", "engine": "vllm",
                     "seq_len": 256, "batch": 1, "max_num_batched_tokens": 1024}).to_json()["memory"]["overhead"] < short


def test_serving_fields_on_training_are_ignored_and_said(kb):
    a = kb.query({"model": "llama-2-7b", "method": "lora", "gpu": "A10", "engine": "vllm"}).to_json()
    assert "max_num_batched_tokens" not in a["scenario"] and any("engine" in n for n in a["notes"])


# ---- tensor parallelism: sizes that divide the attention heads
@pytest.mark.parametrize("model, heads", [("qwen2.5-7b", 28), ("gpt2-1.5b", 25), ("qwen2.5-0.5b", 14), ("llama-2-13b", 40)])
def test_the_minimum_inference_split_is_tensor_parallel_times_pipeline(kb, model, heads):
    for gpu in ("T4", "L4"):
        for seq, batch in ((2048, 64), (32768, 8), (32768, 32)):
            a = kb.query({"model": model, "method": "inference", "gpu": gpu, "seq_len": seq, "batch": batch}).to_json()
            n = a["min_gpus"]
            if a["verdict"] == "fits" or not n or n == 1:
                continue
            tp = max(t for t in (1, 2, 4, 8) if heads % t == 0 and n % t == 0)
            assert tp == 1 or tp in (2, 4, 8)
            if heads % 2 == 0:
                assert tp >= 2 and n in (2, 4, 8) or n % tp == 0, (model, gpu, n)
            assert n not in (3, 5, 6, 7) or heads % 2 == 1, (model, gpu, seq, batch, n)
            again = kb.query({"model": model, "method": "inference", "gpu": gpu, "seq_len": seq, "batch": batch, "gpus": n}).to_json()
            assert again["verdict"] == "fits"


def test_a_split_with_pipeline_stages_says_so(kb):
    a = kb.query({"model": "qwen2.5-7b", "method": "inference", "gpu": "T4", "seq_len": 32768, "batch": 16}).to_json()
    assert a["min_gpus"] == 8
    assert notes_with(a, "tensor parallelism over 4 GPUs") and notes_with(a, "× 2 pipeline stages")


def test_a_shape_estimated_from_the_parameter_count_splits_over_deployable_counts(kb):
    for params in (30e9, 70e9, 180e9):
        for gpu in ("T4", "A10", "A100-40GB"):
            n = kb.query({"params": params, "method": "inference", "gpu": gpu}).to_json()["min_gpus"]
            assert n in (1, 2, 4, 8) or n % 8 == 0, (params, gpu, n)


def test_a_given_gpu_count_that_no_tensor_parallel_group_can_use_is_said(kb):
    three = kb.query({"model": "llama-2-13b", "method": "inference", "gpu": "A10", "gpus": 3}).to_json()
    assert notes_with(three, "3 GPUs cannot form one tensor-parallel group")
    assert notes_with(three, "40 attention heads") and notes_with(three, "allows is 2")
    four = kb.query({"model": "llama-2-13b", "method": "inference", "gpu": "A10", "gpus": 4}).to_json()
    assert not notes_with(four, "tensor-parallel group")
    # training shards by data parallelism / ZeRO, which any count can do
    train = kb.query({"model": "llama-2-13b", "method": "lora", "gpu": "A10", "gpus": 3}).to_json()
    assert not notes_with(train, "tensor-parallel group")


def test_more_gpus_is_only_offered_with_a_deployable_count(kb):
    a = kb.query({"model": "qwen2.5-7b", "method": "inference", "gpu": "T4", "seq_len": 32768, "batch": 16}).to_json()
    more = [r for r in a["recommendations"] if r["action"] == "more_gpus"]
    assert more and all(r.get("detail", a["min_gpus"]) in (2, 4, 8) or r.get("detail", 8) % 4 == 0 for r in more)


# ---- kernels only where the GPU runs them
def test_flash_attention_on_an_older_gpu_is_sized_as_memory_efficient_sdpa_and_said(kb):
    body = {"model": "llama-2-7b", "method": "lora", "seq_len": 4096, "flash_attention": True}
    t4 = kb.query({**body, "gpu": "T4"}).to_json()
    assert notes_with(t4, "FlashAttention 2 does not run on T4") and notes_with(t4, "R-SDPA-mem-efficient")
    off = kb.query({**body, "gpu": "T4", "flash_attention": False}).to_json()
    assert t4["memory"]["activations"] < off["memory"]["activations"]       # the same saving, by SDPA
    assert not notes_with(kb.query({**body, "gpu": "A10"}).to_json(), "FlashAttention 2 does not run")


def test_fp8_kv_cache_is_recommended_only_where_fp8_is_native_and_flagged_elsewhere(kb):
    body = {"model": "llama-3-8b", "method": "inference", "seq_len": 32768, "batch": 16}
    l4 = kb.query({**body, "gpu": "L4"}).to_json()                    # compute capability 8.9
    a10 = kb.query({**body, "gpu": "A10"}).to_json()                  # 8.6
    assert l4["verdict"] == a10["verdict"] == "does_not_fit"
    assert "fp8_kv_cache" in {r["action"] for r in l4["recommendations"]}
    assert "fp8_kv_cache" not in {r["action"] for r in a10["recommendations"]}
    asked = kb.query({**body, "gpu": "A10", "kv_cache_dtype": "fp8"}).to_json()
    assert notes_with(asked, "A10 has no native FP8")
    assert asked["memory"]["kv_cache"] == pytest.approx(a10["memory"]["kv_cache"] / 2, abs=0.002)
    assert not notes_with(kb.query({**body, "gpu": "L4", "kv_cache_dtype": "fp8"}).to_json(), "no native FP8")


# ---- the context a model was trained for
def test_a_serving_context_beyond_the_trained_one_is_said_in_both_languages(kb):
    a = kb.query({"model": "llama-2-13b", "method": "inference", "gpu": "A100-80GB", "engine": "vllm", "seq_len": 16384}).to_json()
    assert a["context_limit"]["max_context"] == 4096
    zh = kb.query({"model": "llama-2-13b", "method": "inference", "gpu": "A100-80GB", "engine": "vllm", "seq_len": 16384}).to_json()
    assert any(getattr(n, "zh", "").find("RoPE") >= 0 for n in zh["notes"])


# ---- adapters on sharded runs
def test_qlora_under_zero3_shards_its_4_bit_base_and_ddp_replicates_it(kb):
    body = {"model": "llama-2-70b", "method": "qlora", "gpu": "A100-40GB", "gpus": 4, "optimizer": "adamw"}
    z3 = kb.query({**body, "zero": 3}).to_json()
    ddp = kb.query({**body, "zero": 0}).to_json()
    assert z3["memory"]["weights"] == ddp["memory"]["weights"]
    assert z3["memory"]["per_gpu_model_states"] < ddp["memory"]["per_gpu_model_states"] / 3
    assert z3["verdict"] == "fits"
