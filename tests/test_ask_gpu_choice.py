"""A sizing question that names no GPU ("How much VRAM does Llama 3 8B need?", "需要多少显存…") is answered over the
catalogued GPUs: the memory the run needs, the smallest cards that hold it, and the fewest cards of the largest
ones when none does or when the question asks how many. Questions written for these tests."""
from __future__ import annotations

import pytest

from gpukb.engine.ask.choice import single_cards


@pytest.fixture(scope="module")
def eight_b(gpukb):
    return gpukb.ask("How much VRAM does Llama 3 8B need for inference?")


def test_the_answer_is_a_gpu_choice_with_the_need(eight_b):
    assert eight_b.kind == "gpu_choice"
    assert eight_b.need_gb and 14 < eight_b.need_gb < 22          # 8B in 16 bits: 16 GB of weights and a little more
    assert eight_b.choice in eight_b.fitting


def test_the_chosen_cards_fit_and_every_smaller_card_tried_does_not(gpukb, eight_b):
    memory = {name: gb for gb, name in single_cards(gpukb.view())}
    fits = [o for o in eight_b.tried if o.verdict == "fits"]
    assert {o.gpu for o in fits} >= set(eight_b.fitting)
    smallest = min(memory[g] for g in eight_b.fitting)
    assert all(memory[g] == smallest for g in eight_b.fitting)
    assert all(o.verdict == "does_not_fit" for o in eight_b.tried if memory[o.gpu] < smallest)


def test_the_need_is_the_sizing_answers_on_the_chosen_card(gpukb, eight_b):
    direct = gpukb.query({"model": "llama-3-8b", "method": "inference", "gpu": eight_b.choice})
    assert direct.verdict == "fits"
    assert abs(direct.memory.total - eight_b.need_gb) < 0.01


def test_a_run_no_card_holds_lists_the_fewest_cards(gpukb):
    a = gpukb.ask("How much GPU memory does it take to fully fine-tune Llama 2 70B?")
    assert a.kind == "gpu_choice" and a.choice is None
    assert a.fewest and all(o.min_gpus >= 2 for o in a.fewest)
    assert [o.min_gpus for o in a.fewest] == sorted(o.min_gpus for o in a.fewest)
    assert "more than any single GPU" in a.answer


def test_how_many_lists_counts_even_when_one_card_holds_it(gpukb):
    a = gpukb.ask("How many GPUs do I need to serve Llama 3 70B?")
    assert a.kind == "gpu_choice" and a.parsed["ask_min_gpus"]
    assert any(o.min_gpus >= 2 for o in a.fewest)


def test_a_chinese_question_gets_a_chinese_answer(gpukb):
    a = gpukb.ask("用 LoRA 微调 Qwen2.5-14B 需要多少显存？")
    assert a.kind == "gpu_choice" and "显存" in a.answer and a.need_gb


def test_a_named_gpu_is_still_a_sizing_question(gpukb):
    assert gpukb.ask("How much VRAM does Llama 3 8B need on an L4?").kind == "sizing"
