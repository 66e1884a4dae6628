"""Megatron-style tensor-parallel training (issue 33, release 2026.12.20): over a tensor-parallel group of t GPUs each
holds about 1/t of the model states and vocabulary-parallel logits (R-MEGATRON-tp, Shoeybi et al. 2019) and the
activations Korthikanti et al. give for tensor parallelism, s·b·h·(10 + 24/t + 5·a·s/(h·t)) per layer, or
s·b·h/t·(34 + 5·a·s/h) with sequence parallelism (R-ACT-coef-tp). The measured-runs evaluator reads it from a row's
own sharding and framework."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.core.errors import BadInput
from gpukb.engine.sizing.calibration import run_body

# 7B BF16 pre-training at 4k tokens on eight 80 GB H100s, AdamW, FlashAttention
PRE = {"model": "llama-2-7b", "method": "pretrain", "precision": "bf16", "gpu": "H100-80GB", "gpus": 8,
       "seq_len": 4096, "batch": 1, "flash_attention": True}
# Llama-2-7B's shape (kb catalog): 32 layers, hidden 4096, 32 heads
LAYERS, HIDDEN, HEADS = 32, 4096, 32


def _tp(**extra):
    return {**PRE, "tensor_parallel": 8, **extra}


def test_tp8_fits_an_80gb_card_where_data_parallel_replication_does_not(kb):
    tp = kb.query(_tp()).to_json()
    replicas = kb.query({**PRE, "zero": 0}).to_json()
    assert tp["scenario"]["tensor_parallel"] == 8 and tp["scenario"]["zero"] == 0
    assert tp["verdict"] == "fits" and replicas["verdict"] == "does_not_fit"
    assert tp["memory"]["per_gpu_total"] <= tp["capacity"]["per_gpu"] < replicas["memory"]["per_gpu_total"]


def test_per_gpu_model_states_fall_as_one_over_t(kb):
    for t in (2, 4, 8):
        m = kb.query(_tp(tensor_parallel=t)).to_json()["memory"]
        assert m["per_gpu_model_states"] == pytest.approx(m["model_states"] / t, rel=1e-3)
    totals = [kb.query(_tp(tensor_parallel=t)).to_json()["memory"]["per_gpu_total"] for t in (2, 4, 8)]
    assert totals[0] > totals[1] > totals[2]
    # two groups of four: data parallelism over the groups replicates each rank's share, no extra buckets
    m = kb.query(_tp(tensor_parallel=4)).to_json()["memory"]
    assert m["per_gpu_model_states"] == pytest.approx(m["model_states"] / 4, rel=1e-3) and not m.get("comm_buffers")


def _activations_gb(kb, **extra):
    """One GPU's activations: its total less the model states, weight copies, logits and comm buffers it holds."""
    a = kb.query(_tp(**extra)).to_json()
    m, t = a["memory"], a["scenario"]["tensor_parallel"]
    return m["per_gpu_total"] - (m["model_states"] + m.get("weight_copies", 0) + m["logits"]
                                 + m.get("comm_buffers", 0)) / t - m["overhead"], m


def test_activations_follow_korthikanti_table_2(kb):
    sbh = PRE["seq_len"] * PRE["batch"] * HIDDEN
    act, m = _activations_gb(kb)
    # t = 1's coefficient (34, plus the FP32 norm upcasts the t = 1 rules count) is m["activations"] / (L·s·b·h)
    coef = m["activations"] * 1e9 / (LAYERS * sbh)
    assert coef == pytest.approx(34 + 8, rel=1e-3)
    assert act == pytest.approx(LAYERS * sbh * (coef - 24 + 24 / 8) / 1e9, rel=1e-3)
    # sequence parallelism splits every part: s·b·h/t·coefficient
    sp, _ = _activations_gb(kb, sequence_parallel=True)
    assert sp == pytest.approx(LAYERS * sbh * coef / 8 / 1e9, rel=1e-3)
    # eager attention keeps the scores, split over t: 5·a·s/(h·t)
    eager, _ = _activations_gb(kb, flash_attention=False)
    assert eager - act == pytest.approx(LAYERS * sbh * 5 * HEADS * PRE["seq_len"] / (HIDDEN * 8) / 1e9, rel=1e-3)


def test_the_proof_names_the_rule_and_its_citation(kb):
    a = kb.query(_tp()).to_json()
    proof = json.dumps(a["explanation"], ensure_ascii=False)
    assert "sizing.tensor_parallel.training" in proof and "sizing.tensor_parallel.activations" in proof
    assert "R-MEGATRON-tp" in proof and "R-ACT-coef-tp" in proof
    assert "sizing.zero.stage0\"" not in proof
    sources = json.dumps(a["sources"])
    assert "1909.08053" in sources and "2205.05198" in sources
    # the rules' descriptions come in both languages
    assert "张量并行" in proof and "tensor parallel" in proof.lower()


def test_a_group_is_only_what_the_query_says(kb):
    open_strategy = kb.query(PRE).to_json()
    assert "tensor_parallel" not in open_strategy["scenario"] and open_strategy["scenario"]["zero"] == 3
    for extra, word in (({"gpus": 6}, "multiple"), ({"zero": 1}, "ZeRO"),
                        ({"method": "inference", "flash_attention": None}, "inference")):
        body = {k: v for k, v in _tp(**extra).items() if v is not None}
        a = kb.query(body).to_json()
        assert "tensor_parallel" not in a["scenario"]
        said = [n for n in a["notes"] if "tensor_parallel" in str(n)]
        assert said and word in str(said[0])
        assert "已忽略 tensor_parallel" in getattr(said[0], "zh", "")
    a = kb.query({**PRE, "sequence_parallel": True}).to_json()
    assert any("sequence_parallel" in str(n) for n in a["notes"]) and "sequence_parallel" not in a["scenario"]
    with pytest.raises(BadInput):
        kb.query(_tp(tensor_parallel="eight")).to_json()
    with pytest.raises(BadInput):
        kb.query(_tp(sequence_parallel="yes")).to_json()


def test_releases_before_2026_12_20_do_not_model_it(kb):
    old = {**PRE, "zero": 0, "kb_version": "2026.12.19"}
    a = kb.query({**old, "tensor_parallel": 8}).to_json()
    assert "tensor_parallel" not in a["scenario"]
    assert a["memory"] == kb.query(old).to_json()["memory"]
    assert any("2026.12.20" in str(n) for n in a["notes"])


def test_measured_runs_read_tp_from_their_own_fields(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"id": "X1", "method": "pretrain", "model": "model:llama-2-7b", "precision": "bf16", "gpus": 8,
           "gpu": "gpu:H100", "sharding": "tensor_parallel", "optimizer": "none",
           "framework": "Megatron-Core (TP=4, DistributedDataParallel)"}
    body = run_body(row, vocab, view)
    assert body["tensor_parallel"] == 4 and "zero" not in body
    # no optimizer step: sized with an optimizer that keeps no state
    assert body["optimizer"] == "sgd_nomomentum"
    assert run_body({**row, "framework": "Megatron-LM"}, vocab, view)["tensor_parallel"] == 8
    assert "tensor_parallel" not in run_body({**row, "sharding": "zero3"}, vocab, view)
    assert "tensor_parallel" not in run_body({**row, "method": "inference"}, vocab, view)


def test_the_cli_names_the_group_it_sized(kb):
    from gpukb.server.cli_render import render_sizing
    text = render_sizing(kb.query(_tp()), "en")
    assert "tensor_parallel=8" in text.splitlines()[0]
