"""A model split layer by layer over GPUs in one process (Hugging Face Accelerate's device_map="auto", a naive
pipeline): each GPU holds about 1/N of the layers and their states, the last one the loss's logits (issue 33,
release 2026.12.18, R-ACCEL-layer-split). The measured-runs evaluator sizes a gold row so only when the row says so."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.core.errors import BadInput
from gpukb.engine.sizing.calibration import run_body

# a 34B-sized LoRA fine-tune in BF16 over three 48 GB cards, layers split by device_map
LORA = {"params": "34B", "method": "lora", "precision": "bf16", "gpu": "L40S", "gpus": 3, "seq_len": 1024,
        "batch": 2, "gradient_checkpointing": True}
# 70B FP16 inference over four 40 GB A100s
SERVE = {"model": "llama-2-70b", "method": "inference", "precision": "fp16", "gpu": "A100-40GB", "seq_len": 1024}


def test_a_layer_split_fits_where_a_whole_model_per_gpu_does_not(kb):
    split = kb.query({**LORA, "layer_split": True}).to_json()
    replicas = kb.query({**LORA, "zero": 0}).to_json()
    assert split["scenario"]["layer_split"] is True and split["scenario"]["zero"] == 0
    assert split["verdict"] == "fits" and replicas["verdict"] == "does_not_fit"
    # each GPU holds a third of the model states; plain data parallelism holds them all on each
    m = split["memory"]
    assert m["per_gpu_model_states"] == pytest.approx(m["model_states"] / 3, rel=1e-3)
    assert replicas["memory"]["per_gpu_model_states"] == pytest.approx(replicas["memory"]["model_states"], rel=1e-3)
    # the logits and the CUDA context are not divided; no data-parallel gradient buckets
    assert m["per_gpu_total"] > m["model_states"] / 3 + m["logits"] + m["overhead"]
    assert not m.get("comm_buffers") and replicas["memory"]["comm_buffers"] > 0


def test_per_gpu_weights_fall_as_one_over_n(kb):
    totals = {n: kb.query({**LORA, "gpus": n, "layer_split": True}).to_json()["memory"] for n in (2, 4, 8)}
    for n, m in totals.items():
        assert m["per_gpu_model_states"] == pytest.approx(m["model_states"] / n, rel=1e-3)
    assert totals[2]["per_gpu_total"] > totals[4]["per_gpu_total"] > totals[8]["per_gpu_total"]
    # what does not divide stays: eight GPUs hold more than an eighth of the total
    assert totals[8]["per_gpu_total"] > totals[8]["total"] / 8


def test_70b_fp16_inference_split_over_four_40gb_cards(kb):
    one = kb.query({**SERVE, "gpus": 1}).to_json()
    split = kb.query({**SERVE, "gpus": 4, "layer_split": True}).to_json()
    assert one["verdict"] == "does_not_fit" and split["verdict"] == "fits"
    m = split["memory"]
    assert m["per_gpu_model_states"] == pytest.approx(m["weights"] / 4, rel=1e-3)
    # the running layer's buffers and the context stay whole: more than a quarter of the total, within one card
    assert m["total"] / 4 < m["per_gpu_total"] <= split["capacity"]["per_gpu"]
    # the KV cache divides too: a longer context adds a quarter of its cache per GPU, not all of it
    long = kb.query({**SERVE, "gpus": 4, "layer_split": True, "seq_len": 4096, "batch": 8}).to_json()["memory"]
    grown = long["kv_cache"] - m["kv_cache"]
    assert grown > 1 and long["per_gpu_total"] - m["per_gpu_total"] - (long["overhead"] - m["overhead"]) == \
        pytest.approx(grown / 4, rel=0.02)


def test_the_proof_names_the_rule_and_its_citation(kb):
    a = kb.query({**LORA, "layer_split": True}).to_json()
    proof = json.dumps(a["explanation"], ensure_ascii=False)
    assert "sizing.layer_split.training" in proof and "R-ACCEL-layer-split" in proof
    assert "sizing.zero.stage0" not in proof
    assert any(s.get("id") == "R-ACCEL-layer-split" or "R-ACCEL-layer-split" in json.dumps(s) for s in a["sources"])
    assert "huggingface.co/docs/accelerate" in json.dumps(a["sources"])
    inf = json.dumps(kb.query({**SERVE, "gpus": 4, "layer_split": True}).to_json()["explanation"])
    assert "sizing.layer_split.inference" in inf and "sizing.inference.split\"" not in inf


def test_the_answer_says_it_in_english_and_chinese(kb):
    a = kb.query({**LORA, "layer_split": True}).to_json()
    assert "device_map" in json.dumps(a["explanation"], ensure_ascii=False)
    # the rules' descriptions come in both languages in the proof
    assert "按层切分" in json.dumps(a["explanation"], ensure_ascii=False)


def test_the_smallest_count_is_a_layer_split_count(kb):
    a = kb.query({**LORA, "gpus": 2, "layer_split": True, "seq_len": 4096, "batch": 4}).to_json()
    assert a["verdict"] == "does_not_fit" and a["min_gpus"] > 2 and not a.get("min_gpus_zero")
    n = a["min_gpus"]
    assert kb.query({**LORA, "gpus": n, "layer_split": True, "seq_len": 4096, "batch": 4}).to_json()["verdict"] == "fits"
    assert kb.query({**LORA, "gpus": n - 1, "layer_split": True, "seq_len": 4096, "batch": 4}).to_json()["verdict"] == "does_not_fit"


def test_a_split_is_only_what_the_query_says(kb):
    # several GPUs without a strategy: sharded as before (ZeRO-3 assumed), not split
    open_strategy = kb.query(LORA).to_json()
    assert "layer_split" not in open_strategy["scenario"] and open_strategy["scenario"]["zero"] == 3
    # one GPU, a ZeRO stage or CPU offload: the split is dropped with a note in English and Chinese
    for extra, word in (({"gpus": 1}, "gpus > 1"), ({"zero": 2}, "ZeRO"), ({"zero": 3, "offload": "params"}, "ZeRO")):
        a = kb.query({**LORA, **extra, "layer_split": True}).to_json()
        assert "layer_split" not in a["scenario"]
        said = [n for n in a["notes"] if "layer_split" in str(n)]
        assert said and word in str(said[0])
        assert "已忽略 layer_split" in getattr(said[0], "zh", "")
    with pytest.raises(BadInput):
        kb.query({**LORA, "layer_split": "auto"}).to_json()


def test_releases_before_2026_12_18_do_not_split(kb):
    old = {**LORA, "zero": 0, "kb_version": "2026.12.17"}
    a = kb.query({**old, "layer_split": True}).to_json()
    assert "layer_split" not in a["scenario"]
    assert a["memory"] == kb.query(old).to_json()["memory"]
    assert any("2026.12.18" in str(n) for n in a["notes"])


def test_measured_runs_are_split_only_when_their_text_says_so(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"id": "X1", "method": "lora", "model": "model:llama-2-13b", "precision": "bf16", "gpus": 2,
           "gpu": "gpu:A100-80GB", "sharding": None, "framework": "a script run with plain python",
           "note": "the model spread over both cards with device_map='auto'"}
    assert run_body(row, vocab, view)["layer_split"] is True
    assert "layer_split" not in run_body({**row, "note": "two cards"}, vocab, view)
    assert "layer_split" not in run_body({**row, "sharding": "zero3"}, vocab, view)
    assert "layer_split" not in run_body({**row, "gpus": 1}, vocab, view)


def test_the_cli_names_the_split_it_sized(kb):
    from gpukb.server.cli_render import render_sizing
    text = render_sizing(kb.query({**LORA, "layer_split": True}), "en")
    assert "layer_split" in text.splitlines()[0]
    assert "layer_split" not in render_sizing(kb.query({**LORA, "zero": 0}), "en").splitlines()[0]
