"""Generation benchmarks count the tokens generated after the prompt in the sequence (issue 33): with Hugging
Face transformers before v4.45 the prompt's forward pass computes every prompt position's logits
(R-HF-logits-all), but each generated token is decoded in a forward pass of its own that computes one
position's logits, so the logits cover the prompt only (seq_len − new_tokens), while the KV cache holds the
whole sequence."""
from __future__ import annotations

import pytest

from ._engine import proof_nodes

BODY = {"model": "qwen2-7b", "method": "inference", "gpu": "A100-80GB", "seq_len": 8192, "batch": 2,
        "full_prompt_logits": True}
VOCAB = 152064          # Qwen2-7B's published vocab_size


def test_the_prompt_logits_leave_out_the_generated_tokens(kb):
    whole = kb.query(BODY).to_json()
    part = kb.query({**BODY, "new_tokens": 2048}).to_json()
    assert whole["memory"]["logits"] == pytest.approx(2 * 8192 * VOCAB * 6 / 1e9, rel=1e-3)
    assert part["memory"]["logits"] == pytest.approx(2 * (8192 - 2048) * VOCAB * 6 / 1e9, rel=1e-3)
    # the KV cache still holds the whole sequence, prompt and generated tokens
    assert part["memory"]["kv_cache"] == whole["memory"]["kv_cache"]
    assert part["memory"]["per_gpu_total"] == pytest.approx(
        whole["memory"]["per_gpu_total"] - whole["memory"]["logits"] + part["memory"]["logits"], abs=0.01)
    assert part["scenario"]["new_tokens"] == 2048
    rules = {(n.get("rule") or "").split("@")[0] for n in proof_nodes(part["explanation"]["tree"])}
    assert "sizing.logits.prompt" in rules


def test_a_one_token_prompt_holds_one_position_of_logits(kb):
    part = kb.query({**BODY, "batch": 1, "seq_len": 2049, "new_tokens": 2048}).to_json()
    assert 0 < part["memory"]["logits"] <= round(1 * VOCAB * 6 / 1e9, 3)      # one position, at the 3 decimals shown


def test_more_new_tokens_than_the_sequence_leave_one_prompt_position(kb):
    part = kb.query({**BODY, "batch": 1, "seq_len": 1024, "new_tokens": 5000}).to_json()
    assert 0 < part["memory"]["logits"] <= round(1 * VOCAB * 6 / 1e9, 3)      # one position, at the 3 decimals shown


def test_without_full_prompt_logits_new_tokens_changes_nothing(kb):
    body = {k: v for k, v in BODY.items() if k != "full_prompt_logits"}
    a, b = kb.query(body).to_json(), kb.query({**body, "new_tokens": 2048}).to_json()
    assert a["memory"]["per_gpu_total"] == b["memory"]["per_gpu_total"]


def test_training_ignores_it_and_says_so(kb):
    t = kb.query({"model": "qwen2-7b", "method": "lora", "gpu": "A100-80GB", "new_tokens": 128}).to_json()
    assert "new_tokens" not in t["scenario"] and any("new_tokens" in n for n in t["notes"])


@pytest.mark.parametrize("value", ["many", -1])
def test_it_must_be_a_count(kb, value):
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput) as e:
        kb.query({**BODY, "new_tokens": value}).to_json()
    assert "new_tokens" in str(e.value.issues[0].field)


@pytest.mark.parametrize("note,seq_len,expected", [
    ("batch size 1, generating 2048 tokens after the input (seq_len = input + 2048)", 2049, 2048),
    ("the benchmark generates 512 new tokens per request", 4096, 512),
    ("generating 2048 tokens", 1024, None),          # not fewer than the sequence: not read as its output
    ("prefill only, no generation", 4096, None)])
def test_eval_reads_a_benchmarks_output_length(kb, note, seq_len, expected):
    from gpukb.engine.sizing.calibration import run_body
    view = kb.view(None)
    row = {"method": "inference", "model": "model:qwen2-7b", "seq_len": seq_len, "batch": 1, "gpu": "gpu:A100-80GB",
           "gpus": 1, "framework": "transformers 4.38.2", "note": note}
    assert run_body(row, view.kb.vocab, view).get("new_tokens") == expected
