"""What a run's framework does unless told (kb/frameworks.yaml, data with citations) and what LoRA over a k-bit
base holds (issue 33): the frameworks' defaults are read from data, each cited; axolotl casts the norms and the
embedding modules back to 16 bits after PEFT's k-bit preparation; LoRA over an 8-bit or a GPTQ 4-bit base keeps
the frozen linear layers in that precision."""
from __future__ import annotations

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
    assert frameworks.defaults(root, "torchtune", True) == {"chunked_cross_entropy": True}
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
