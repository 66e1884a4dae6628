"""A verdict that a full fine-tune fits on one card, said with no optimizer and no precision, is judged against
what common setups need (pure BF16 to mixed-precision AdamW), as a verdict on N cards is (guard
``count_within_practice``). Sentences written for these tests."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("text, status", [
    ("A 7B model can be fully fine-tuned on a single A100 80GB.", "unclear"),       # pure BF16 fits, AdamW does not
    ("全量微调 7B 模型，一张 A100 80GB 就够了。", "unclear"),
    ("A 70B model can be fully fine-tuned on a single A100 80GB.", "inconsistent_with_derivation"),   # beyond every setup
    ("A 13B model can be fully fine-tuned on one RTX 4090.", "inconsistent_with_derivation"),
])
def test_a_one_card_verdict_is_weighed_against_practice(gpukb, text, status):
    got = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_verdict"]
    assert got and got[0]["status"] == status, got
    if status == "unclear":
        assert any(r["code"] == "count_within_practice" for r in got[0]["unclear_because"])
