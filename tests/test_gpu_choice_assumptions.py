"""A GPU-choice answer says what its need was sized with where the question is silent (precision, sequence length,
batch, ...), exactly as the sizing answer of the card it reports says it, in the question's language. Questions
written for these tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def lora_13b(gpukb):
    return gpukb.ask("What GPU do I need to fine-tune a 13B model with LoRA?")


def test_the_need_comes_with_what_was_assumed(lora_13b):
    assert lora_13b.kind == "gpu_choice" and lora_13b.choice
    said = "\n".join(lora_13b.notes)
    for field in ("seq_len", "batch", "lora_rank"):
        assert field in said, said


def test_the_notes_are_the_sizing_answers_of_the_reported_card(gpukb, lora_13b):
    direct = gpukb.query({"params": 13e9, "method": "lora", "gpu": lora_13b.choice})
    assert lora_13b.notes == direct.notes
    assert abs(direct.memory.total - lora_13b.need_gb) < 0.01


def test_a_stated_setting_is_not_listed_as_assumed(gpukb):
    a = gpukb.ask("What GPU do I need to fine-tune a 13B model with LoRA at sequence length 2048 and batch size 4?")
    assert a.kind == "gpu_choice"
    assert not any(n.startswith(("seq_len not given", "batch not given")) for n in a.notes), a.notes


def test_a_chinese_question_gets_chinese_notes(gpukb):
    a = gpukb.ask("用 LoRA 微调 13B 模型需要什么显卡？")
    assert a.kind == "gpu_choice" and a.notes
    assert any("未指定" in n for n in a.notes), a.notes


def test_the_cli_prints_the_assumptions(cli):
    code, out, _ = cli("ask", "What GPU do I need to fine-tune a 13B model with LoRA?")
    assert code == 0 and "Assumed" in out and "seq_len not given" in out, out
