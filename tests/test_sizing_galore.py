"""GaLore and Q-GaLore (issue 33, release 2026.12.23; query fields galore_rank and q_galore): the optimizer keeps its
states on the gradients of the blocks' attention and MLP weights projected to rank r, beside one min(m, n) x r
projection matrix per weight (R-GALORE-states: Zhao et al. 2024, Table 1, mr + 2nr for Adam), while the embeddings,
the output head and the norms keep the plain optimizer; Q-GaLore stores those weights in INT8 with FP32 group scales
(R-QGALORE-int8-weights) and the projection matrices in INT4, one uint8 byte each (R-QGALORE-int4-projection).
The expected figures below are computed here from the LLaMA-7B shape, not read from the rules."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.core.errors import BadInput
from gpukb.engine.sizing.calibration import run_body


def _query(kb, body: dict) -> dict:
    """The sizing answer as the JSON the API serves."""
    return kb.query(body).to_json()

# LLaMA-7B (Touvron et al. 2023, Table 2): 6.7B parameters, 32 layers, hidden 4096, 32 heads, 32,000-token vocabulary
N, L, H, V = 6.7e9, 32, 4096, 32000
BASE = {"model": "llama-7b", "method": "pretrain", "precision": "bf16", "optimizer": "adamw8bit", "seq_len": 256,
        "batch": 1, "gpu": "RTX-4090", "gradient_checkpointing": False}
GALORE = {**BASE, "galore_rank": 1024}


def _galore_optimizer_gb(rank: int, state_bytes: float, proj_bytes: float, plain_bpp: float) -> float:
    """GaLore's optimizer memory for LLaMA-7B by hand: two Adam states of r x n and one m x r projection per
    projected weight (m <= n), the plain optimizer for the embeddings and the head."""
    regular = 2 * V * H
    ff = ((N - regular) / L - 4 * H * H) / (3 * H)          # what a layer leaves after q, k, v, o, over 3 matrices
    mats = [(H, H)] * 4 + [(H, ff)] * 3                      # (m, n) with m <= n
    states = sum(2 * min(rank, m) * n * state_bytes for m, n in mats)
    proj = sum(m * min(rank, m) * proj_bytes for m, n in mats)
    return (regular * plain_bpp + L * (states + proj)) / 1e9


def test_the_catalog_has_llama_7b(kb):
    a = _query(kb, BASE)
    proof = json.dumps(a["explanation"])
    assert "R-llama-7b-params" in proof and "R-llama-7b-vocab_size" in proof
    assert a["memory"]["weights"] == pytest.approx(N * 2 / 1e9, abs=6e-4)


def test_galore_keeps_the_states_of_projected_gradients(kb):
    plain, g = _query(kb, BASE)["memory"], _query(kb, GALORE)
    assert g["scenario"]["galore_rank"] == 1024
    # 8-bit Adam in pure BF16: two 1-byte states; the projection in the gradient's BF16
    assert g["memory"]["optimizer"] == pytest.approx(_galore_optimizer_gb(1024, 1, 2, 2), abs=6e-4)
    assert plain["optimizer"] == pytest.approx(N * 2 / 1e9, abs=6e-4)
    assert g["memory"]["optimizer"] < 0.45 * plain["optimizer"]
    # the weights and the gradients are the plain run's
    assert g["memory"]["weights"] == plain["weights"] and g["memory"]["gradients"] == plain["gradients"]


def test_adamw_in_mixed_precision_keeps_the_master_copy_of_every_weight(kb):
    q = {**GALORE, "precision": "mixed", "optimizer": "adamw", "gpu": "A100-80GB"}
    opt = _query(kb, q)["memory"]["optimizer"]
    # AMP's FP32 weights are the master copy: 8 bytes of plain AdamW states, FP32 states and projections of GaLore
    assert opt == pytest.approx(_galore_optimizer_gb(1024, 4, 4, 8), abs=6e-4)


def test_a_rank_beyond_the_matrices_projects_nothing_away(kb):
    big = _query(kb, {**GALORE, "galore_rank": 65536})["memory"]["optimizer"]
    assert big == pytest.approx(_galore_optimizer_gb(65536, 1, 2, 2), abs=6e-4)
    # every state is then full size: the plain optimizer's states plus square projection matrices
    assert big > _query(kb, BASE)["memory"]["optimizer"]


def test_q_galore_stores_the_projected_weights_in_int8_and_the_projections_in_int4(kb):
    g, q = _query(kb, GALORE)["memory"], _query(kb, {**GALORE, "q_galore": True})
    regular = 2 * V * H
    assert q["scenario"]["q_galore"] is True
    assert q["memory"]["weights"] == pytest.approx((regular * 2 + (N - regular) * (1 + 8 / 256)) / 1e9, abs=6e-4)
    assert q["memory"]["optimizer"] == pytest.approx(_galore_optimizer_gb(1024, 1, 1 + 4 / 256, 2), abs=6e-4)
    assert q["memory"]["optimizer"] < g["optimizer"] and q["memory"]["weights"] < 0.55 * g["weights"]


def test_the_proof_cites_the_papers(kb):
    a = _query(kb, {**GALORE, "q_galore": True})
    proof = json.dumps(a["explanation"], ensure_ascii=False)
    for key in ("sizing.galore.projected@1", "sizing.full.optimizer_galore@1", "sizing.full.weights_qgalore@1",
                "R-GALORE-states", "R-QGALORE-int8-weights", "R-QGALORE-int4-projection"):
        assert key in proof
    assert "sizing.full.optimizer_galore" not in json.dumps(_query(kb, BASE)["explanation"])


@pytest.mark.parametrize("change", [{"method": "lora", "precision": "bf16"}, {"gpus": 2, "zero": 3, "gpu": "A100-80GB"},
                                    {"method": "inference", "optimizer": None}])
def test_it_is_only_for_full_training_on_replicas(kb, change):
    body = {k: v for k, v in {**GALORE, **change}.items() if v is not None}
    a = _query(kb, body)
    assert "galore_rank" not in a["scenario"]
    said = [n for n in a["notes"] if "galore_rank" in str(n)]
    assert said and "GaLore" in str(said[0]) and "galore_rank" in getattr(said[0], "zh", "")
    same = {k: v for k, v in body.items() if k != "galore_rank"}
    assert a["memory"] == _query(kb, same)["memory"]


def test_q_galore_needs_a_rank(kb):
    a = _query(kb, {**BASE, "q_galore": True})
    assert "q_galore" not in a["scenario"] and any("galore_rank" in str(n) for n in a["notes"])
    assert a["memory"] == _query(kb, BASE)["memory"]


def test_releases_before_2026_12_23_do_not_model_it(kb):
    old = {**BASE, "model": "llama-2-7b", "kb_version": "2026.12.22"}
    a = _query(kb, {**old, "galore_rank": 1024})
    assert "galore_rank" not in a["scenario"] and a["memory"] == _query(kb, old)["memory"]
    assert any("2026.12.23" in str(n) for n in a["notes"])


@pytest.mark.parametrize("bad", [{"galore_rank": 0}, {"galore_rank": 12.5}, {"galore_rank": "big"},
                                 {"galore_rank": 128, "q_galore": "yes"}])
def test_a_bad_value_is_a_400(kb, bad):
    with pytest.raises(BadInput):
        _query(kb, {**BASE, **bad})


def test_measured_runs_read_galore_from_the_script(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"id": "X1", "method": "pretrain", "model": "hf:someone/llama_7b (LLaMA-7B architecture, configs/x.json)",
           "params_b": 6.7, "precision": "bf16", "optimizer": "adamw8bit", "gpus": 1, "gpu": "unknown:unstated",
           "quote": "--rank 512 --optimizer galore_adamw8bit_per_layer", "framework": "a pre-training script"}
    body = run_body(row, vocab, view)
    assert body["model"] == "llama-7b" and "params" not in body
    assert body["galore_rank"] == 512 and body["optimizer_in_backward"] is True and body["q_galore"] is False
    q = run_body({**row, "quote": "--optimizer q_galore_adamw8bit", "note": "rank 1024 gradient projection"},
                 vocab, view)
    assert q["galore_rank"] == 1024 and q["q_galore"] is True and q["optimizer_in_backward"] is False
    plain = run_body({**row, "quote": "--rank 512 --optimizer adamw8bit"}, vocab, view)
    assert "galore_rank" not in plain and "optimizer_in_backward" not in plain
    assert "galore_rank" not in run_body({**row, "method": "lora"}, vocab, view)


def test_the_cli_takes_the_flags(kb):
    from gpukb.server.cli_args import build_parser
    args = build_parser().parse_args(["query", "--model", "llama-7b", "--method", "pretrain", "--galore-rank", "1024",
                                      "--q-galore"])
    assert args.galore_rank == 1024 and args.q_galore is True
