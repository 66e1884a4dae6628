"""Serving with Hugging Face transformers before v4.45 (issue 33, release 2026.12.12): the prompt's forward pass
computes every position's logits in 16 bits and upcasts them to FP32 (R-HF-logits-all), 6 bytes per
batch × sequence × vocabulary element; newer releases keep the last position's only (R-HF-logits-last)."""
from __future__ import annotations

import pytest

from ._engine import proof_nodes

BODY = {"model": "qwen2-7b", "method": "inference", "gpu": "A100-80GB", "seq_len": 16384, "batch": 2}
VOCAB = 152064          # Qwen2-7B's published vocab_size


def test_every_prompt_position_adds_six_bytes_per_logit(kb):
    plain = kb.query(BODY).to_json()
    full = kb.query({**BODY, "full_prompt_logits": True}).to_json()
    assert full["memory"]["logits"] == pytest.approx(2 * 16384 * VOCAB * 6 / 1e9, rel=1e-3)
    # the rest of the sizing is what it was; only the logits come in beside it
    for k in ("weights", "kv_cache", "overhead"):
        assert full["memory"][k] == plain["memory"][k]
    assert full["memory"]["per_gpu_total"] == pytest.approx(plain["memory"]["per_gpu_total"] + full["memory"]["logits"], abs=0.01)
    rules = {(n.get("rule") or "").split("@")[0] for n in proof_nodes(full["explanation"]["tree"])}
    assert {"sizing.logits.prompt", "sizing.runtime.inference_prompt_logits"} <= rules
    assert full["scenario"]["full_prompt_logits"] is True and "full_prompt_logits" not in plain["scenario"]


def test_the_logits_decide_a_long_prompt_on_a_smaller_card(kb):
    body = {**BODY, "gpu": "L40S", "batch": 1, "seq_len": 32768}
    assert kb.query(body).to_json()["verdict"] == "fits"
    assert kb.query({**body, "full_prompt_logits": True}).to_json()["verdict"] == "does_not_fit"


def test_an_earlier_release_keeps_the_last_position_only(kb):
    old = kb.query({**BODY, "full_prompt_logits": True, "kb_version": "2026.12.11"}).to_json()
    assert old["memory"].get("logits", 0) == 0
    assert old["memory"]["per_gpu_total"] == pytest.approx(kb.query({**BODY, "kb_version": "2026.12.11"}).to_json()["memory"]["per_gpu_total"])


def test_vllm_and_training_ignore_it_and_say_so(kb):
    v = kb.query({**BODY, "engine": "vllm", "full_prompt_logits": True}).to_json()
    assert "full_prompt_logits" not in v["scenario"]
    assert any("full_prompt_logits" in n for n in v["notes"])
    t = kb.query({**BODY, "method": "lora", "full_prompt_logits": True}).to_json()
    assert "full_prompt_logits" not in t["scenario"] and any("full_prompt_logits" in n for n in t["notes"])


@pytest.mark.parametrize("value", ["yes", 1])
def test_it_must_be_a_boolean(kb, value):
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput) as e:
        kb.query({**BODY, "full_prompt_logits": value}).to_json()
    assert "full_prompt_logits" in str(e.value.issues[0].field)


@pytest.mark.parametrize("framework,expected", [("transformers 4.38.2 (PyTorch 2.1.2)", True),
                                                ("Transformers==4.44.2", True), ("transformers 4.46.1", False),
                                                ("vLLM 0.6.3", False), (None, False)])
def test_eval_reads_the_transformers_release_a_run_states(kb, framework, expected):
    from gpukb.engine.sizing.calibration import run_body
    view = kb.view(None)
    row = {"method": "inference", "model": "model:qwen2-7b", "seq_len": 8192, "batch": 1, "gpu": "gpu:A100-80GB",
           "gpus": 1, "framework": framework}
    assert run_body(row, view.kb.vocab, view).get("full_prompt_logits", False) is expected
