"""Serving sized as practitioners serve (issue 33, release 2026.12.11): a forward pass's working buffers are the
widest tensors of its MLP, three tokens × intermediate_size tensors of a gated MLP (R-INF-mlp-gated, from each
catalogued model's intermediate_size), and Hugging Face generate keeps the last position's logits only
(R-HF-logits-last); and how eval sizing reads a published measurement (the tool its script uses, the catalogued
model a chat / instruct / quantized repository is a variant of)."""
from __future__ import annotations

import pytest

from ._engine import proof_nodes

CTX = 500 * 2 ** 20 / 1e9          # R-CUDA-context, the upper end of "a few hundred MiB" (answers round to 1 MB)


def _overhead_node(answer: dict) -> dict:
    found = [n for n in proof_nodes(answer["explanation"]["tree"]) if (n.get("rule") or "").startswith("sizing.overhead.")]
    assert found, "no overhead rule in the proof"
    return found[0]


@pytest.mark.parametrize("model,inter,hidden", [("qwen2.5-0.5b", 4864, 896), ("mistral-7b", 14336, 4096),
                                                ("gemma-2-9b", 14336, 3584)])
def test_forward_buffers_follow_the_mlp_width_not_the_hidden_size(kb, model, inter, hidden):
    """Three 16-bit tensors of intermediate_size per token (the activated gate, the up projection, their product),
    for batch × sequence tokens; a model whose MLP is 5.4 times as wide as its hidden size (Qwen2.5-0.5B) needs
    about twice what the 4h-wide ungated MLP of the earlier releases gave."""
    body = {"model": model, "method": "inference", "gpu": "A100-80GB", "seq_len": 12000, "batch": 3}
    a = kb.query(body).to_json()
    assert a["memory"]["overhead"] - CTX == pytest.approx(3 * 2 * inter * 12000 * 3 / 1e9, rel=1e-3)
    node = _overhead_node(a)
    assert node["rule"] == "sizing.overhead.inference_gated@2"
    cited = {p["fact"].split("@")[0] for p in node.get("premises") or []}
    assert {"R-INF-mlp-gated", "R-HF-logits-last", f"R-{model}-intermediate_size"} <= cited
    old = kb.query({**body, "kb_version": "2026.12.10"}).to_json()
    assert old["memory"]["overhead"] - CTX == pytest.approx(16 * hidden * 12000 * 3 / 1e9, rel=1e-3)
    # (its intermediate_size came in 2026.12.11 too: the earlier release sizes it as a model of unknown width, without
    # the unfused attention scores of 2026.12.13)
    assert _overhead_node(old)["rule"] == "sizing.overhead.inference_release_without_scores@1"
    # nothing else moves: weights and KV cache are what they were
    for k in ("weights", "kv_cache"):
        assert a["memory"][k] == old["memory"][k]


def test_an_older_release_keeps_its_buffers_even_for_a_model_it_knew_the_width_of(kb):
    """ChatGLM3-6B's ffn_hidden_size is in the catalog before 2026.12.11: the releases before it still size the
    4h-wide buffers, the new one the gated MLP's."""
    body = {"model": "chatglm3-6b", "method": "inference", "gpu": "A10", "seq_len": 4000}
    for release in ("2026.12.9", "2026.12.10"):
        old = kb.query({**body, "kb_version": release}).to_json()
        assert old["memory"]["overhead"] - CTX == pytest.approx(16 * 4096 * 4000 / 1e9, abs=2e-3), release
        assert _overhead_node(old)["rule"] == "sizing.overhead.inference_release_without_gated@1"
    new = kb.query(body).to_json()
    assert new["memory"]["overhead"] - CTX == pytest.approx(3 * 2 * 13696 * 4000 / 1e9, abs=2e-3)


def test_a_model_without_a_known_width_keeps_the_ungated_estimate(kb):
    """A parameter count alone (Llama-shaped approximation) and a catalogued model without intermediate_size
    (Mixtral's experts) keep 16 bytes × tokens × hidden, under the unchanged rule."""
    a = kb.query({"params": 7e9, "method": "inference", "vram_gb": 80, "seq_len": 5000, "batch": 2}).to_json()
    hidden = round((128 * 7e9 / 12) ** (1 / 3))
    assert a["memory"]["overhead"] - CTX == pytest.approx(16 * hidden * 5000 * 2 / 1e9, rel=1e-2)
    assert _overhead_node(a)["rule"] == "sizing.overhead.inference@4"
    m = kb.query({"model": "mixtral-8x7b", "method": "inference", "gpu": "H100-80GB", "gpus": 2, "seq_len": 5000}).to_json()
    assert _overhead_node(m)["rule"] == "sizing.overhead.inference@4"


def test_a_token_budget_bounds_the_gated_buffers_too(kb):
    """vLLM's profile run reserves exactly max_num_batched_tokens tokens of buffers; a plain forward pass at most
    that many: the gated MLP's width applies to both."""
    body = {"model": "qwen2.5-14b", "method": "inference", "gpu": "H100-80GB", "seq_len": 2000, "batch": 16}
    plain = kb.query(body).to_json()["memory"]["overhead"] - CTX
    capped = kb.query({**body, "max_num_batched_tokens": 3000}).to_json()["memory"]["overhead"] - CTX
    vllm = kb.query({**body, "batch": 1, "seq_len": 100, "engine": "vllm", "max_num_batched_tokens": 3000}).to_json()
    assert plain == pytest.approx(6 * 13824 * 2000 * 16 / 1e9, rel=1e-3)
    assert capped == pytest.approx(6 * 13824 * 3000 / 1e9, rel=1e-3)
    assert vllm["memory"]["overhead"] - CTX == pytest.approx(capped, rel=1e-3)


def test_training_is_not_touched(kb):
    body = {"model": "qwen2.5-7b", "method": "lora", "gpu": "A100-80GB", "seq_len": 4096, "batch": 2}
    assert kb.query(body).to_json()["memory"] == kb.query({**body, "kb_version": "2026.12.10"}).to_json()["memory"]
    a = kb.ask("why not T4 for 13B full fine-tune").to_json()
    assert a["verdict"] == "does_not_fit"


def test_a_long_prompt_on_a_small_model_fits_where_full_logits_would_not(kb):
    """A 0.5B model with a 150k vocabulary and a 30k-token prompt: logits of every position would be 30k × 152k
    FP32 values (18 GB); generate keeps the last position's only, so the estimate stays a few GB and fits an L4."""
    a = kb.query({"model": "qwen2.5-0.5b", "method": "inference", "gpu": "L4", "seq_len": 30000}).to_json()
    assert a["verdict"] == "fits"
    assert a["memory"]["per_gpu_total"] < 4
    assert "logits" not in a["memory"] or not a["memory"]["logits"]


# ---- eval sizing: how a published measurement is read

def test_a_benchmark_whose_script_reads_the_allocator_is_compared_as_allocated():
    from gpukb.engine.sizing.calibration import compared_as
    url = "https://github.com/QwenLM/Qwen2.5/blob/main/docs/source/benchmark/speed_benchmark.rst"
    assert compared_as({"memory_kind": "GPU Memory (tool not stated)", "url": url}) == "allocated"
    assert compared_as({"memory_kind": "GPU Memory (tool not stated)", "url": "https://example.org/bench"}) == "total"
    assert compared_as({"memory_kind": "nvidia-smi", "url": None}) == "total"
    assert compared_as({"memory_kind": "torch.cuda.max_memory_allocated", "url": None}) == "allocated"


@pytest.mark.parametrize("name,expected", [
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "model:qwen2.5-7b"),
    ("Qwen/Qwen2.5-14B-Instruct-AWQ", "model:qwen2.5-14b"),
    ("meta-llama/Llama-2-70b-chat-hf", "model:llama-2-70b"),
    ("meta-llama/Llama-2-13b-hf", "model:llama-2-13b"),
    ("Qwen/Qwen2.5-0.5B", "model:qwen2.5-0.5b"),
    # open_llama_7b was the uncatalogued example until release 2026.12.29 catalogued it from its config.json
    # (kb/reference/models_config.yaml); open_llama_13b is not catalogued
    ("openlm-research/open_llama_7b", "model:open-llama-7b"),
    ("openlm-research/open_llama_13b", None),         # not catalogued
    ("Qwen/Qwen2.5-7B-Math-Instruct", None),          # a word that is not a variant's stays part of the name
    ("Qwen/Instruct", None),
])
def test_a_chat_instruct_or_quantized_repository_is_its_catalogued_base(kb, name, expected):
    from gpukb.engine.kb.names import QUANTIZED_WORDS, TUNED_WORDS, catalogued_model
    assert catalogued_model(name, kb.kb.vocab, TUNED_WORDS | QUANTIZED_WORDS) == expected


def test_a_quantized_repository_is_sized_with_its_base_architecture(kb):
    from gpukb.engine.sizing.calibration import run_body
    row = {"method": "inference", "model": "hf:Qwen/Qwen2.5-7B-Instruct-AWQ", "params_b": 7.6, "precision": "int4",
           "batch": 1, "seq_len": 4096, "gpu": "gpu:A100-80GB", "gpus": 1}
    body = run_body(row, kb.kb.vocab, kb.view())
    assert body["model"] == "qwen2.5-7b" and "params" not in body and body["precision"] == "int4"


@pytest.mark.parametrize("name,expected", [("Qwen2-7B-Instruct", "qwen2-7b"), ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b")])
def test_a_query_names_a_tuned_variant_by_its_repository(kb, name, expected):
    """Chat / instruct weights have their base's architecture: a query naming them sizes the base."""
    assert kb.query({"model": name, "method": "inference", "gpu": "A100-80GB"}).to_json()["scenario"]["model"] == expected


def test_a_quantized_checkpoint_is_not_silently_its_16_bit_base(kb):
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput) as e:
        kb.query({"model": "Llama-2-7b-GPTQ", "method": "inference", "gpu": "T4"}).to_json()
    assert "llama-2-7b" in str(e.value)
