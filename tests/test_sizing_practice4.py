"""Sizing open models from their published config.json (issue 33, release 2026.12.29): a model a run names by
its Hugging Face repository is sized with its own layers, heads, MLP width, vocabulary and tied head, not with the
assumed Llama-3 shape (a 128,256-token untied vocabulary and 8 key/value heads). Cases of my own, not gold rows."""
from __future__ import annotations

import pytest

from gpukb.engine.kb.names import QUANTIZED_WORDS, TUNED_WORDS, catalogued_model

from ._engine import bundled

NEW = ["open-llama-3b", "open-llama-7b", "baichuan-7b", "baichuan-13b", "baichuan2-7b", "baichuan2-13b", "yi-6b",
       "yi-9b", "yi-34b", "internlm-20b", "starcoder", "qwen1.5-7b", "qwen2-1.5b", "phi-4", "chatglm-6b", "gpt2-124m"]
# a model whose MLP is one GELU projection (not gated) has no intermediate_size fact: that attribute is a gated MLP's width
UNGATED = {"starcoder", "chatglm-6b", "gpt2-124m"}


@pytest.fixture(scope="module")
def kb():
    return bundled()


def _llama_count(layers, hidden, heads, kv_heads, mlp, vocab, tied=False, qkv_bias=False):
    hd = hidden // heads
    per = 2 * hidden * hidden + 2 * hidden * kv_heads * hd + 3 * hidden * mlp + 2 * hidden
    per += (hidden + 2 * kv_heads * hd) if qkv_bias else 0
    return vocab * hidden * (1 if tied else 2) + layers * per + hidden


def test_release_adds_the_configs(kb):
    before, after = kb.kb.release("2026.12.28"), kb.kb.release("2026.12.29")
    for m in NEW:
        for attr in ("params", "layers", "hidden_size", "heads", "kv_heads", "vocab_size", "intermediate_size"):
            fid = f"R-{m}-{attr}"
            if attr == "intermediate_size" and m in UNGATED:
                assert fid not in after.facts, fid
                continue
            assert fid not in before.facts and fid in after.facts, fid
            fact = after.facts[fid]
            assert "config.json" in fact.citation
            # where the file was read: the publisher's repository (high) or copies of it (medium, and the citation says so)
            assert "huggingface.co/" in fact.citation, fid
            assert fact.confidence in ("high", "medium")
            if "was not read here" in fact.citation:
                assert fact.confidence == "medium", fid


def test_params_are_counted_from_the_config(kb):
    facts = kb.kb.release("2026.12.29").facts
    # the same shape as LLaMA-7B (huggyllama/llama-7b: 6,738,415,616 parameters)
    assert _llama_count(32, 4096, 32, 32, 11008, 32000) == 6_738_415_616
    assert facts["R-baichuan-7b-params"].value == pytest.approx(_llama_count(32, 4096, 32, 32, 11008, 64000) / 1e9)
    assert facts["R-yi-34b-params"].value == pytest.approx(_llama_count(60, 7168, 56, 8, 20480, 64000) / 1e9)
    assert facts["R-qwen2-1.5b-params"].value == pytest.approx(
        _llama_count(28, 1536, 12, 2, 8960, 151936, tied=True, qkv_bias=True) / 1e9)
    assert facts["R-starcoder-tie_embeddings"].value is True and facts["R-starcoder-kv_heads"].value == 1
    assert facts["R-open-llama-7b-params"].value == pytest.approx(6_738_415_616 / 1e9)
    assert facts["R-gpt2-124m-params"].value == pytest.approx(0.124439808)     # GPT-2 small's well-known 124M
    assert facts["R-chatglm-6b-params"].value == pytest.approx(6.2, abs=0.05)  # the model card's 6.2B


@pytest.mark.parametrize("repo,model", [("openlm-research/open_llama_3b", "model:open-llama-3b"),
                                        ("openlm-research/open_llama_7b", "model:open-llama-7b"),
                                        ("THUDM/chatglm-6b", "model:chatglm-6b"),
                                        ("openai-community/gpt2", "model:gpt2-124m"),
                                        ("baichuan-inc/Baichuan2-7B-Chat", "model:baichuan2-7b"),
                                        ("01-ai/Yi-34B-Chat", "model:yi-34b"),
                                        ("bigcode/starcoder", "model:starcoder"),
                                        ("Qwen/Qwen2-1.5B-Instruct", "model:qwen2-1.5b")])
def test_repositories_name_the_catalogued_model(kb, repo, model):
    assert catalogued_model(repo, kb.kb.vocab, TUNED_WORDS | QUANTIZED_WORDS) == model


def test_a_small_vocabulary_is_not_counted_as_llama3s(kb):
    """QLoRA keeps the embeddings and head unquantized: Baichuan-7B's 64,000-token vocabulary, not an assumed
    128,256, and its loss's logits likewise."""
    body = {"method": "qlora", "precision": "nf4", "batch": 2, "seq_len": 1024, "gpu": "A100-40GB"}
    known = kb.query(dict(body, model="baichuan-7b")).to_json()["memory"]
    assumed = kb.query(dict(body, params=kb.kb.release("2026.12.29").facts["R-baichuan-7b-params"].value * 1e9)).to_json()["memory"]
    assert known["weights"] < assumed["weights"] - 0.5        # 64,256 fewer rows of both matrices
    assert known["logits"] == pytest.approx(assumed["logits"] * 64000 / 128256, rel=0.01)


def test_a_tied_head_is_stored_once(kb):
    body = {"method": "inference", "precision": "bf16", "batch": 1, "seq_len": 512, "gpu": "A100-80GB"}
    a = kb.query(dict(body, model="qwen2-1.5b")).to_json()["memory"]
    assert a["weights"] == pytest.approx(2 * 1.543714304, rel=0.01)


def test_an_earlier_release_cannot_size_the_new_names(kb):
    """The catalog entries are facts of 2026.12.29: an earlier release has no parameter count for them."""
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput):
        kb.query({"model": "yi-6b", "method": "inference", "gpu": "A100-80GB", "kb_version": "2026.12.28"})
