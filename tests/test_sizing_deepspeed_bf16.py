"""DeepSpeed's bf16 mode keeps FP32 master weights, gradient partitions and optimizer states beside the BF16
weights; pure BF16 (torchtune, FSDP over a bf16 model) keeps none (issue 33, release 2026.12.17). And ms-swift's
QLoRA runs are measured without PEFT's k-bit preparation."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.sizing.calibration import run_body
from gpukb.engine.sizing.recommend import variant_body

# a 13B full fine-tune in BF16 sharded with DeepSpeed ZeRO-2 over 8 cards
ZERO2 = {"model": "llama-2-13b", "method": "full", "precision": "bf16", "gpu": "A100-80GB", "gpus": 8, "zero": 2,
         "seq_len": 1024, "batch": 1, "gradient_checkpointing": True}
PARAMS_13B = 13.02e9        # Llama 2 13B


def test_a_zero_stage_in_bf16_keeps_fp32_master_weights_and_states(kb):
    ds, pure = kb.query(ZERO2).to_json(), kb.query({**ZERO2, "master_weights": False}).to_json()
    assert ds["scenario"]["master_weights"] is True and pure["scenario"]["master_weights"] is False
    assert any("R-DS-bf16-master" in str(n) for n in ds["notes"])
    assert not any("R-DS-bf16-master" in str(n) for n in pure["notes"])
    # AdamW over an FP32 master copy: 4 + 2 x 4 bytes per parameter, against pure BF16's 2 x 2
    assert ds["memory"]["optimizer"] == pytest.approx(PARAMS_13B * 12 / 1e9, rel=2e-2)
    assert pure["memory"]["optimizer"] == pytest.approx(PARAMS_13B * 4 / 1e9, rel=2e-2)
    # BF16 weights and gradients either way
    assert ds["memory"]["weights"] == pure["memory"]["weights"] == pytest.approx(PARAMS_13B * 2 / 1e9, rel=2e-2)
    assert ds["memory"]["per_gpu_total"] > pure["memory"]["per_gpu_total"] + PARAMS_13B * 8 / 8 / 1e9
    assert "sizing.optbytes.ds_bf16_master" in json.dumps(ds["explanation"])
    assert "sizing.optbytes.ds_bf16_master" not in json.dumps(pure["explanation"])


def test_deepspeed_bf16_is_sized_as_its_mixed_precision_layout(kb):
    for zero in (1, 2, 3):
        ds, mixed = kb.query({**ZERO2, "zero": zero}).to_json(), kb.query({**ZERO2, "zero": zero, "precision": "mixed"}).to_json()
        assert ds["memory"]["per_gpu_model_states"] == pytest.approx(mixed["memory"]["per_gpu_model_states"])
        assert ds["memory"]["per_gpu_total"] == pytest.approx(mixed["memory"]["per_gpu_total"])


def test_pure_bf16_unless_deepspeed_is_named(kb):
    # several GPUs and no strategy: sharded as assumed, in the precision asked (pure BF16)
    open_strategy = {k: v for k, v in ZERO2.items() if k != "zero"}
    a = kb.query(open_strategy).to_json()
    assert a["scenario"]["zero"] == 3 and "master_weights" not in a["scenario"]
    assert a["memory"]["optimizer"] == pytest.approx(PARAMS_13B * 4 / 1e9, rel=2e-2)
    # PyTorch FSDP1 shards the bf16 module itself
    f = kb.query({**ZERO2, "zero": 3, "fsdp1": True}).to_json()
    assert "master_weights" not in f["scenario"]
    assert f["memory"]["optimizer"] == pytest.approx(PARAMS_13B * 4 / 1e9, rel=2e-2)
    # plain data parallelism (zero 0) and one GPU: pure BF16
    assert "master_weights" not in kb.query({**ZERO2, "zero": 0}).to_json()["scenario"]
    assert "master_weights" not in kb.query({**ZERO2, "gpus": 1}).to_json()["scenario"]


def test_master_weights_only_chooses_for_bf16_full_training(kb):
    lora = kb.query({**ZERO2, "method": "lora", "master_weights": True}).to_json()
    assert "master_weights" not in lora["scenario"]
    assert any("master_weights ignored" in str(n) for n in lora["notes"])
    mixed = {**ZERO2, "precision": "mixed"}
    assert kb.query({**mixed, "master_weights": False}).to_json()["memory"] == kb.query(mixed).to_json()["memory"]
    # the field states the layout on one GPU too (DeepSpeed's BF16 optimizer without ZeRO)
    one = {**ZERO2, "gpus": 1, "zero": 0}
    assert kb.query({**one, "master_weights": True}).to_json()["memory"]["optimizer"] > kb.query(one).to_json()["memory"]["optimizer"]


def test_releases_before_2026_12_17_size_bf16_as_pure(kb):
    old = {**ZERO2, "kb_version": "2026.12.16"}
    a = kb.query(old).to_json()
    assert "master_weights" not in a["scenario"]
    assert a["memory"] == kb.query({**ZERO2, "master_weights": False}).to_json()["memory"]
    given = kb.query({**old, "master_weights": True}).to_json()
    assert "master_weights" not in given["scenario"] and given["memory"] == a["memory"]
    assert any("2026.12.17" in str(n) for n in given["notes"])


def test_a_bad_master_weights_value_is_refused(kb):
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput):
        kb.query({**ZERO2, "master_weights": "yes"}).to_json()


def test_measured_fsdp_runs_in_bf16_are_pure_and_deepspeed_runs_are_not_told(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"method": "full", "model": "model:llama-2-13b", "precision": "bf16", "gpu": "gpu:A100-80GB", "gpus": 8,
           "sharding": "fsdp", "offload": "none", "framework": "torchtune"}
    assert run_body(row, vocab, view)["master_weights"] is False
    assert "master_weights" not in run_body({**row, "sharding": "zero2", "framework": "deepspeed"}, vocab, view)
    assert "master_weights" not in run_body({**row, "precision": "mixed"}, vocab, view)


def test_sharding_a_pure_bf16_run_as_a_recommendation_keeps_it_pure():
    s = {k: v for k, v in ZERO2.items() if k != "zero"}
    assert variant_body({**s, "zero": 0}, {"zero": 3})["master_weights"] is False
    assert variant_body({**s, "zero": 2, "master_weights": True}, {"zero": 3})["master_weights"] is True
    assert "master_weights" not in variant_body({**s, "precision": "mixed"}, {"zero": 3})


def test_ms_swift_qlora_runs_skip_pefts_kbit_preparation(kb):
    """swift sft builds its PEFT adapters without prepare_model_for_kbit_training (no FP32 embeddings and head)."""
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"method": "qlora", "model": "model:llama-2-13b", "precision": "nf4", "gpu": "gpu:A100-80GB", "gpus": 1,
           "lora_rank": 8, "framework": "transformers Trainer + PEFT + bitsandbytes"}
    assert run_body(row, vocab, view)["kbit_preparation"] is True
    swift = run_body({**row, "framework": "ms-swift (swift sft; transformers Trainer, PEFT)"}, vocab, view)
    assert swift["kbit_preparation"] is False
    assert kb.query(swift).to_json()["memory"]["per_gpu_total"] < kb.query(run_body(row, vocab, view)).to_json()["memory"]["per_gpu_total"]
