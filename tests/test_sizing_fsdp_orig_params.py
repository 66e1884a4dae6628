"""LoRA under PyTorch FSDP1 with use_orig_params=True and the adapters wrapped in the same FSDP units as the frozen
layers they adapt (issue 33, release 2026.12.22; query field fsdp_orig_params): the unit's flat parameter gets one
gradient for all of it, so the frozen base gets gradients as if it were not frozen (R-FSDP-frozen-grads, PyTorch's FSDP
documentation), sharded over the GPUs like a full fine-tune's, and the backward pass's working set holds the running
unit's full gradient. Lightning Fabric's FSDPStrategy sets use_orig_params=True and LitGPT wraps each Block, so the
measured-runs evaluator sets it for LitGPT's multi-GPU LoRA rows; PEFT through Accelerate wraps the adapters apart."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.sizing.calibration import run_body

# 13B LoRA in pure BF16 over four 40 GB A100s, FSDP1 full shard
BASE = {"model": "llama-2-13b", "method": "lora", "precision": "bf16", "gpu": "A100-40GB", "gpus": 4, "zero": 3,
        "fsdp1": True, "seq_len": 1024, "batch": 1, "lora_rank": 8, "gradient_checkpointing": True}
MIXED = {**BASE, "fsdp_orig_params": True}


def test_the_frozen_base_gets_gradients_as_large_as_the_weights(kb):
    apart, mixed = kb.query(BASE).to_json(), kb.query(MIXED).to_json()
    assert mixed["scenario"]["fsdp_orig_params"] is True and "fsdp_orig_params" not in apart["scenario"]
    m, a = mixed["memory"], apart["memory"]
    # adapters only without it; the weights' size (frozen base in BF16 + adapters) with it
    assert a["gradients"] < 0.01 * a["weights"]
    assert m["gradients"] == pytest.approx(m["weights"], rel=1e-6)
    # only the adapters have optimizer states either way
    assert m["optimizer"] == pytest.approx(a["optimizer"], rel=1e-9)
    # sharded over the four GPUs, plus one more layer-sized set in the working set (the running unit's gradient)
    extra = m["per_gpu_total"] - a["per_gpu_total"]
    assert extra > (m["gradients"] - a["gradients"]) / 4
    layer = 13.0e9 / 40 * 2 / 1e9       # one block of Llama-2-13B in BF16, about 0.65 GB
    assert extra == pytest.approx((m["gradients"] - a["gradients"]) / 4 + layer, rel=0.1)


def test_it_can_decide_a_fit(kb):
    """On two 40 GB cards the frozen base's gradient shards are 13 GB more per GPU."""
    two = {**BASE, "gpus": 2, "seq_len": 2048, "batch": 1, "gradient_checkpointing": False}
    assert kb.query(two).to_json()["verdict"] == "fits"
    mixed = kb.query({**two, "fsdp_orig_params": True}).to_json()
    assert mixed["verdict"] == "does_not_fit"
    # and the minimum count shards the frozen base's gradients too
    assert mixed["min_gpus"] > kb.query(two).to_json()["min_gpus"]


def test_the_proof_cites_pytorchs_fsdp_documentation(kb):
    a = kb.query(MIXED).to_json()
    proof = json.dumps(a["explanation"], ensure_ascii=False)
    assert "sizing.lora.gradients_fsdp_orig_params@1" in proof and "R-FSDP-frozen-grads" in proof
    assert "use_orig_params" in json.dumps(a["sources"])
    plain = json.dumps(kb.query(BASE).to_json()["explanation"])
    assert "sizing.lora.gradients_fsdp_orig_params@1" not in plain and "sizing.lora.gradients@2" in plain


@pytest.mark.parametrize("change", [{"method": "qlora", "precision": "nf4"}, {"fsdp1": False}, {"zero": 2},
                                    {"method": "full"}])
def test_it_is_only_for_lora_under_fsdp1_full_shard(kb, change):
    a = kb.query({**MIXED, **change}).to_json()
    assert "fsdp_orig_params" not in a["scenario"]
    said = [n for n in a["notes"] if "fsdp_orig_params" in str(n)]
    assert said and "FSDP1" in str(said[0]) and "fsdp_orig_params" in getattr(said[0], "zh", "")
    same = {k: v for k, v in {**MIXED, **change}.items() if k != "fsdp_orig_params"}
    assert a["memory"] == kb.query(same).to_json()["memory"]


def test_releases_before_2026_12_22_do_not_model_it(kb):
    old = {**BASE, "kb_version": "2026.12.21"}
    a = kb.query({**old, "fsdp_orig_params": True}).to_json()
    assert "fsdp_orig_params" not in a["scenario"] and a["memory"] == kb.query(old).to_json()["memory"]
    assert any("2026.12.22" in str(n) for n in a["notes"])
    facts = kb.view(None).facts
    assert "use_orig_params=True" in facts["R-FSDP-frozen-grads"].citation


def test_a_bad_value_is_a_400(kb):
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput):
        kb.query({**BASE, "fsdp_orig_params": "yes"}).to_json()


def test_measured_runs_set_it_for_litgpts_sharded_lora_only(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"id": "X1", "method": "lora", "model": "model:llama-2-7b", "precision": "bf16", "gpus": 4,
           "gpu": "gpu:A100-40GB", "sharding": "fsdp", "framework": "litgpt (lightning fabric)"}
    assert run_body(row, vocab, view)["fsdp_orig_params"] is True
    assert "fsdp_orig_params" not in run_body({**row, "framework": "transformers+trl+peft (accelerate)"}, vocab, view)
    assert "fsdp_orig_params" not in run_body({**row, "method": "full"}, vocab, view)
    assert "fsdp_orig_params" not in run_body({**row, "sharding": "none", "gpus": 1}, vocab, view)


def test_the_cli_takes_the_flag(kb):
    from gpukb.server.cli_args import build_parser
    args = build_parser().parse_args(["query", "--model", "llama-2-13b", "--method", "lora", "--fsdp-orig-params"])
    assert args.fsdp_orig_params is True
