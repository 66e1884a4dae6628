"""A verdict that a full fine-tune fits on one card, said with no optimizer and no precision, is judged against
what common setups need (pure BF16 to mixed-precision AdamW), as a verdict on N cards is (guard
``count_within_practice``). Sentences written for these tests."""
from __future__ import annotations

import pytest


def verdicts(gpukb, text: str) -> list[dict]:
    return [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_verdict"]


@pytest.mark.parametrize("text", [
    "A 7B model can be fully fine-tuned on a single A100 80GB.",
    "全量微调 7B 模型，一张 A100 80GB 就够了。",
])
def test_a_one_card_verdict_within_practice_is_unclear(gpukb, text):
    got = verdicts(gpukb, text)
    assert got and got[0]["status"] == "unclear", got
    assert any(r["code"] == "count_within_practice" for r in got[0]["unclear_because"])


@pytest.mark.parametrize("text", [
    "A 70B model can be fully fine-tuned on a single A100 80GB.",
    "A 13B model can be fully fine-tuned on one RTX 4090.",
])
def test_a_one_card_verdict_beyond_every_setup_stays_wrong(gpukb, text):
    got = verdicts(gpukb, text)
    assert got and got[0]["status"] == "inconsistent_with_derivation", got
