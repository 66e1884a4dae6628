"""What the loss, PEFT's k-bit preparation and an unfused prompt pass hold (issue 33, release 2026.12.13): cross-entropy
on the logits in their own dtype, QLoRA's FP32 embeddings, head and hidden states, and the attention scores of
eager attention when serving."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.sizing.calibration import run_body

LORA = {"model": "llama-3.1-8b", "method": "lora", "precision": "bf16", "gpu": "H100-80GB", "seq_len": 8192,
        "batch": 2, "gradient_checkpointing": True}
QLORA = {"model": "llama-3.1-8b", "method": "qlora", "gpu": "A100-80GB", "seq_len": 4096, "batch": 2,
         "kbit_preparation": True}
VOCAB, HIDDEN, LAYERS = 128256, 4096, 32      # Llama 3.1 8B's configuration


def test_loss_in_the_logits_dtype_keeps_three_16_bit_tensors(kb):
    upcast, own = kb.query(LORA).to_json(), kb.query({**LORA, "logits_dtype_loss": True}).to_json()
    elements = 2 * 8192 * VOCAB
    # transformers' loss: 16-bit logits, FP32 upcast, FP32 log-probabilities, FP32 gradient = 14 bytes
    assert upcast["memory"]["logits"] == pytest.approx(elements * 14 / 1e9, rel=1e-3)
    # the loop's own nn.CrossEntropyLoss on 16-bit logits outside autocast: 3 × 2 bytes (R-LOGITS-own-dtype)
    assert own["memory"]["logits"] == pytest.approx(elements * 6 / 1e9, rel=1e-3)
    assert own["scenario"]["logits_dtype_loss"] is True
    assert "R-LOGITS-own-dtype" in json.dumps(own["explanation"])
    for k in ("weights", "gradients", "optimizer", "activations"):
        assert own["memory"][k] == upcast["memory"][k]
    # chunked cross-entropy still keeps only the 16-bit logits whole
    chunked = kb.query({**LORA, "logits_dtype_loss": True, "chunked_cross_entropy": True}).to_json()
    assert chunked["memory"]["logits"] == pytest.approx(elements * 2 / 1e9, rel=1e-3)


def test_loss_in_the_logits_dtype_is_not_known_to_an_older_release(kb):
    old = {**LORA, "kb_version": "2026.12.12"}
    assert kb.query({**old, "logits_dtype_loss": True}).to_json()["memory"]["logits"] == kb.query(old).to_json()["memory"]["logits"]


def test_kbit_preparation_upcasts_embeddings_head_and_hidden_states(kb):
    prepared, plain = kb.query(QLORA).to_json(), kb.query({**QLORA, "kbit_preparation": False}).to_json()
    assert prepared["scenario"]["kbit_preparation"] is True and "kbit_preparation" not in plain["scenario"]
    # not assumed unless given: QLoRA's paper, torchtune and LitGPT keep them in 16 bits
    assert kb.query({k: v for k, v in QLORA.items() if k != "kbit_preparation"}).to_json()["memory"] == plain["memory"]
    # the embeddings and the untied head, 2 × vocabulary × hidden parameters, take 4 bytes instead of 2
    assert prepared["memory"]["weights"] - plain["memory"]["weights"] == pytest.approx(2 * VOCAB * HIDDEN * 2 / 1e9, rel=1e-3)
    # an FP32 head gives FP32 logits: 3 × 4 bytes per element, whether or not the loss upcasts
    elements = 2 * 4096 * VOCAB
    assert prepared["memory"]["logits"] == pytest.approx(elements * 12 / 1e9, rel=1e-3)
    assert kb.query({**QLORA, "logits_dtype_loss": True}).to_json()["memory"]["logits"] == prepared["memory"]["logits"]
    assert plain["memory"]["logits"] == pytest.approx(elements * 14 / 1e9, rel=1e-3)
    # checkpointing (QLoRA's default) keeps each layer's input, FP32 along the residual stream: 4·s·b·h, not 2·s·b·h
    assert prepared["memory"]["activations"] - plain["memory"]["activations"] == \
        pytest.approx(LAYERS * 2 * 4096 * 2 * HIDDEN / 1e9, rel=1e-3)
    assert "R-PEFT-kbit-fp32" in json.dumps(prepared["explanation"])


def test_kbit_preparation_is_qlora_only_and_new_in_2026_12_13(kb):
    lora = {**LORA, "seq_len": 1024}
    assert kb.query({**lora, "kbit_preparation": True}).to_json()["memory"] == kb.query(lora).to_json()["memory"]
    old = {**QLORA, "kb_version": "2026.12.12"}
    assert kb.query(old).to_json()["memory"] == kb.query({**old, "kbit_preparation": False}).to_json()["memory"]


def test_an_unfused_prompt_pass_holds_the_running_layers_scores(kb):
    body = {"model": "llama-2-7b", "method": "inference", "precision": "fp16", "gpu": "A100-80GB", "seq_len": 8192}
    sdpa, eager = kb.query(body).to_json(), kb.query({**body, "flash_attention": False}).to_json()
    # 16-bit scores and softmax of 32 heads × 8192 × 8192 positions (R-INF-scores), wider than the MLP's buffers
    assert eager["memory"]["overhead"] - 0.524288 == pytest.approx(4 * 32 * 8192 * 8192 / 1e9, rel=1e-3)
    # SDPA keeps none: the widest buffers are the gated MLP's, 3 × intermediate_size (11,008) 16-bit values per token
    assert sdpa["memory"]["overhead"] - 0.524288 == pytest.approx(3 * 11008 * 2 * 8192 / 1e9, rel=1e-3)
    assert eager["memory"]["kv_cache"] == sdpa["memory"]["kv_cache"]
    assert "R-INF-scores" in json.dumps(eager["explanation"])
    # a short prompt's scores are narrower than the gated MLP's buffers: no change
    short = {**body, "seq_len": 128}
    assert kb.query({**short, "flash_attention": False}).to_json()["memory"]["overhead"] == kb.query(short).to_json()["memory"]["overhead"]
    # a release before 2026.12.13 does not count them
    old = {**body, "kb_version": "2026.12.12"}
    assert kb.query({**old, "flash_attention": False}).to_json()["memory"]["overhead"] == kb.query(old).to_json()["memory"]["overhead"]


def test_measured_runs_take_their_frameworks_practice(kb):
    view = kb.view(None)
    vocab = kb.kb.vocab
    row = {"method": "inference", "model": "model:llama-2-7b", "precision": "int4", "gpu": "gpu:RTX-4090",
           "gpus": 1, "seq_len": 4096, "batch": 1, "framework": "ExLlama (turboderp/exllama)"}
    assert run_body(row, vocab, view)["flash_attention"] is False
    assert "flash_attention" not in run_body({**row, "framework": "vLLM 0.6"}, vocab, view)
    # a stated attention wins over the framework's default
    assert run_body({**row, "attention": "sdpa"}, vocab, view)["flash_attention"] is True
    train = {"method": "lora", "model": "model:llama-3.1-8b", "precision": "bf16", "gpu": "gpu:H100", "gpus": 1,
             "seq_len": 8192, "batch": 2, "framework": "universal-llm-trainer (PyTorch, transformers 4.49.0)"}
    assert run_body(train, vocab, view)["logits_dtype_loss"] is True
    assert "logits_dtype_loss" not in run_body({**train, "framework": "transformers+trl+peft"}, vocab, view)
    peft = {**train, "method": "qlora", "precision": "nf4", "framework": "transformers+trl+peft"}
    assert run_body(peft, vocab, view)["kbit_preparation"] is True
    assert "kbit_preparation" not in run_body({**peft, "framework": "torchtune"}, vocab, view)
