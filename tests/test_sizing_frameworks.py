"""What a run's framework does unless told (kb/frameworks.yaml, data with citations) and what LoRA over a k-bit
base holds (issue 33): the frameworks' defaults are read from data, each cited; axolotl casts the norms and the
embedding modules back to 16 bits after PEFT's k-bit preparation; LoRA over an 8-bit or a GPTQ 4-bit base keeps
the frozen linear layers in that precision."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.core.errors import ValidationError
from gpukb.engine.sizing import frameworks
from gpukb.engine.sizing.calibration import run_body

TRAIN = {"method": "qlora", "model": "model:llama-2-7b", "precision": "nf4", "gpu": "gpu:A100-80GB", "gpus": 1,
         "seq_len": 2048, "batch": 2}


def test_framework_defaults_are_cited_data(kb):
    root = kb.kb.root
    entries = frameworks._load(str(root / "frameworks.yaml"))
    assert entries and all(phase in frameworks.PHASES for phase, _, _ in entries)
    assert frameworks.defaults(root, "torchtune", True) == {"chunked_cross_entropy": True, "fused_optimizer": True}
    assert frameworks.defaults(root, "Lit-GPT finetune/lora.py", True) == {"chunked_cross_entropy": True}
    assert frameworks.defaults(root, "ExLlama", True) == {} and frameworks.defaults(root, "ExLlama", False) == {
        "flash_attention": False}
    # the first entry that sets a field wins: ms-swift builds PEFT adapters without the k-bit preparation
    assert frameworks.defaults(root, "ms-swift (swift sft; transformers, peft)", True) == {"kbit_preparation": False}
    assert frameworks.defaults(root, "transformers + PEFT", True) == {"kbit_preparation": True}


def test_framework_defaults_are_checked(tmp_path):
    (tmp_path / "frameworks.yaml").write_text(
        "frameworks:\n  - {words: [x], phase: training, sets: {no_such_field: true}, citation: c}\n", encoding="utf-8")
    with pytest.raises(ValidationError):
        frameworks.defaults(tmp_path, "x", True)
    assert frameworks.defaults(tmp_path / "nowhere", "torchtune", True) == {}


def test_a_stated_field_wins_over_the_framework(kb):
    view, vocab = kb.view(None), kb.kb.vocab
    peft = {**TRAIN, "framework": "transformers + PEFT"}
    assert run_body(peft, vocab, view)["kbit_preparation"] is True
    tt = {**TRAIN, "method": "lora", "precision": "bf16", "framework": "torchtune", "chunked_cross_entropy": False}
    assert run_body(tt, vocab, view)["chunked_cross_entropy"] is False


def test_axolotl_keeps_its_embeddings_and_norms_16_bit(kb):
    # axolotl's load_model casts the norms and embed_tokens / lm_head back to the run's dtype after PEFT's k-bit
    # preparation (and skips it for QLoRA under FSDP): R-PEFT-kbit-fp32's FP32 copies do not apply
    view, vocab = kb.view(None), kb.kb.vocab
    row = {**TRAIN, "framework": "axolotl (transformers Trainer + PEFT)"}
    assert run_body(row, vocab, view)["kbit_preparation"] is False
    assert frameworks.defaults(kb.kb.root, "axolotl", True) == {"kbit_preparation": False}
    # a run that states the preparation keeps it
    assert run_body({**row, "kbit_preparation": True}, vocab, view).get("kbit_preparation") is not None


QLORA = {"model": "llama-2-7b", "method": "qlora", "gpu": "A100-80GB", "seq_len": 2048, "batch": 2, "lora_rank": 16}


def test_lora_over_an_8_bit_base_keeps_int8_weights(kb):
    nf4 = kb.query({**QLORA, "precision": "nf4"}).to_json()
    int8 = kb.query({**QLORA, "precision": "int8"}).to_json()
    int4 = kb.query({**QLORA, "precision": "int4"}).to_json()
    assert int8["scenario"]["precision"] == "int8" and int4["scenario"]["precision"] == "int4"
    params, embed = 6.738e9, 2 * 32000 * 4096          # Llama 2 7B; its embeddings and head stay 16-bit
    adapters = nf4["memory"]["weights"] - ((params - embed) * 0.516 + embed * 2) / 1e9
    assert int8["memory"]["weights"] == pytest.approx(((params - embed) * 1 + embed * 2) / 1e9 + adapters, rel=2e-3)
    assert int4["memory"]["weights"] == pytest.approx(((params - embed) * 0.5 + embed * 2) / 1e9 + adapters, rel=2e-3)
    # only the frozen weights differ: the adapters' gradients and states are the same
    for k in ("gradients", "optimizer", "activations", "logits"):
        assert int8["memory"][k] == nf4["memory"][k]
    assert any("R-LORA-kbit-base" in n for n in int8["notes"])
    assert "R-LORA-kbit-base" in json.dumps(int8["explanation"])


def test_a_release_before_the_kbit_base_sizes_it_in_nf4(kb):
    old = {**QLORA, "kb_version": "2026.12.25"}
    int8, nf4 = kb.query({**old, "precision": "int8"}).to_json(), kb.query({**old, "precision": "nf4"}).to_json()
    assert int8["scenario"]["precision"] == "nf4" and int8["memory"] == nf4["memory"]
    assert any("NF4" in n for n in int8["notes"])
    # a 16-bit precision still names the adapters and compute, in every release
    bf16 = kb.query({**QLORA, "precision": "bf16"}).to_json()
    assert bf16["scenario"]["precision"] == "nf4"
    assert bf16["memory"]["weights"] == kb.query({**QLORA, "precision": "nf4"}).to_json()["memory"]["weights"]
