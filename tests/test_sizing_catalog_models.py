"""Issue #33: more open models in the catalog, heads tied to the embeddings counted once, activation
offloading, and the measured runs that name a Hugging Face repository resolved to the catalog."""
from __future__ import annotations

import pytest

from ._engine import bundled

NEW = ["phi-1.5", "phi-2", "phi-3-mini", "chatglm2-6b", "chatglm3-6b", "llama-3.2-1b", "llama-3.2-3b", "qwen2-0.5b",
       "qwen2-7b", "gemma-2b", "gemma-7b"]


@pytest.fixture(scope="module")
def kb():
    return bundled()


def _ref(kb, subject, attribute):
    return kb.view().ref(f"model:{subject}", attribute)


@pytest.mark.parametrize("name", NEW)
def test_new_models_have_their_configuration(kb, name):
    for attr in ("layers", "hidden_size", "heads", "kv_heads", "vocab_size", "max_context", "intermediate_size"):
        f = _ref(kb, name, attr)
        assert f is not None, (name, attr)
        assert "config.json" in f.citation


def test_models_with_a_read_parameter_count_are_sized_by_name(kb):
    for name in ("phi-1.5", "phi-2", "phi-3-mini", "llama-3.2-1b", "llama-3.2-3b"):
        a = kb.query({"model": name, "method": "lora", "gpu": "A100-80GB"}).to_json()
        assert a["verdict"] == "fits", name


def _qlora_weights(kb, body):
    return kb.query({"method": "qlora", "gpu": "A100-80GB", **body}).to_json()["memory"]["weights"]


def test_tied_head_is_counted_once(kb):
    """Llama 3.2 3B ties its head to the embeddings: of the embeddings and head (QLoRA keeps them unquantized,
    in FP32 after PEFT's k-bit preparation, in 16 bits without it) one 128,256 x 3,072 matrix is stored, not two,
    so it is lighter than the same parameter count with an untied head (the parameter-count-only approximation)."""
    matrix_gb = 128256 * 3072 / 1e9
    for body, unquantized in (({"kbit_preparation": True}, 4), ({}, 2)):
        tied = _qlora_weights(kb, {"model": "llama-3.2-3b", **body})
        untied = _qlora_weights(kb, {"params": 3.21e9, **body})
        # the untied approximation has a different shape, so only the direction and the size of the gap are checked
        assert tied < untied
        assert untied - tied == pytest.approx(matrix_gb * (unquantized - 0.516), rel=0.35)


def test_untied_model_keeps_two_matrices(kb):
    """Llama 3.1 8B (no tie fact) keeps embeddings and head: 2 x vocab x hidden in 16 bits."""
    a = kb.query({"model": "llama-3.1-8b", "method": "qlora", "gpu": "A100-80GB"}).to_json()
    v, h, p = 128256, 4096, 8.03e9
    lora = a["memory"]["weights"] - ((p - 2 * v * h) * 0.516 + 2 * v * h * 2) / 1e9
    assert 0 < lora < 0.5


def test_activation_offloading_moves_the_checkpoints(kb):
    body = {"model": "llama-3.2-3b", "method": "full", "precision": "bf16", "gpu": "A100-80GB", "seq_len": 4096,
            "batch": 2, "gradient_checkpointing": True}
    kept = kb.query(body).to_json()["memory"]["activations"]
    off = kb.query({**body, "activation_offloading": True}).to_json()["memory"]["activations"]
    # the 2·s·b·h bytes of each of the 28 layers go to host memory
    assert kept - off == pytest.approx(28 * 2 * 4096 * 2 * 3072 / 1e9, rel=0.01)


def test_activation_offloading_without_checkpointing_is_noted(kb):
    body = {"model": "llama-3.2-3b", "method": "full", "precision": "bf16", "gpu": "A100-80GB", "seq_len": 1024,
            "gradient_checkpointing": False}
    a = kb.query({**body, "activation_offloading": True}).to_json()
    assert a["memory"]["activations"] == kb.query(body).to_json()["memory"]["activations"]
    assert any("activation_offloading" in n for n in a["notes"])


def test_gold_rows_naming_a_repository_use_the_catalog(kb):
    from gpukb.engine.sizing.calibration import run_body
    row = {"model": "hf:meta-llama/Llama-3.2-3B", "params_b": 3.21, "method": "full", "framework": "torchtune",
           "chunked_cross_entropy": False, "activation_offloading": True, "gpu": "gpu:A100"}
    body = run_body(row, kb.kb.vocab, kb.view())
    assert body["model"] == "llama-3.2-3b" and "params" not in body
    assert body["chunked_cross_entropy"] is False and body["activation_offloading"] is True


def test_torchtune_rows_record_their_techniques():
    """Only the README's own words: the optimization-flags table is cumulative, LoRA/QLoRA skip
    optimizer_in_bwd and AdamW8bit."""
    from gpukb.engine.core.yamlio import load_file
    from pathlib import Path
    runs = {r["id"]: r for r in load_file(Path(__file__).parent.parent / "kb" / "gold" / "measured_runs.yaml")["runs"]}
    assert runs["M009"]["chunked_cross_entropy"] is False and runs["M012"]["chunked_cross_entropy"] is True
    assert runs["M015"]["activation_offloading"] is True and runs["M014"]["activation_offloading"] is False
    assert runs["M016"]["optimizer_in_backward"] is True and runs["M017"]["optimizer_in_backward"] is False
    assert runs["M018"]["activation_offloading"] is True
    assert runs["M001"]["packed_dataset"] is True and "activation_offloading" not in runs["M001"]


@pytest.mark.parametrize("model,billions", [("chatglm2-6b", 6.2436), ("chatglm3-6b", 6.2436), ("qwen2-7b", 7.6156),
                                            ("qwen2-0.5b", 0.4940), ("gemma-2b", 2.5062), ("gemma-7b", 8.5377)])
def test_every_catalogued_llm_can_be_sized(kb, model, billions):
    """A model with a configuration in the catalog has a parameter count (counted from that configuration when
    its card gives none), so a question about it is answered, not refused."""
    a = kb.query({"model": model, "method": "inference", "precision": "fp16", "gpu": "A100-80GB"}).to_json()
    assert a["memory"]["weights"] == pytest.approx(2 * billions, rel=1e-3)


def test_no_catalogued_llm_lacks_what_sizing_needs(kb):
    view = kb.view()
    llms = [e for e in kb.kb.vocab.entities if e.startswith("model:") and view.ref(e, "layers") is not None]
    assert llms and [e for e in llms if view.ref(e, "params") is None] == []


@pytest.mark.parametrize("model,layers,kv_heads,head_dim", [("gemma-7b", 28, 16, 256), ("gemma-2-9b", 42, 8, 256),
                                                            ("gemma-2-27b", 46, 16, 128), ("llama-3.1-8b", 32, 8, 128)])
def test_the_kv_cache_is_as_wide_as_the_configured_heads(kb, model, layers, kv_heads, head_dim):
    """Keys and values are kv_heads × head_dim wide: a configuration's head_dim where it sets one (Gemma), else
    hidden / heads (Llama)."""
    a = kb.query({"model": model, "method": "inference", "gpu": "H100-80GB", "seq_len": 4096, "batch": 2}).to_json()
    assert a["memory"]["kv_cache"] == pytest.approx(2 * layers * 4096 * 2 * kv_heads * head_dim * 2 / 1e9, rel=1e-3)


def test_head_dim_is_not_read_in_a_release_without_it(kb):
    old = kb.query({"model": "gemma-2-9b", "method": "inference", "gpu": "H100-80GB", "seq_len": 4096, "kb_version": "2026.12.8"}).to_json()
    # 2026.12.8 sized Gemma 2 9B's heads as hidden / heads = 3,584 / 16 = 224 wide
    assert old["memory"]["kv_cache"] == pytest.approx(2 * 42 * 4096 * 8 * 224 * 2 / 1e9, rel=1e-3)
