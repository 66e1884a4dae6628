"""A fit verdict on a model named by its size at a stated precision ("a 13B model in FP16 fits on a single RTX
4090") is a verdict on serving that many weights, judged; one whose weights alone exceed the card is wrong even
when the rest of the estimate lies within its measured error band; a belief the text reports ("I thought my 3090
would be enough") states nothing. Sentences written for these tests (13B x 2 bytes = 26 GB > a 24 GB card)."""
from __future__ import annotations

from ._engine import checked


def _verdicts(gpukb, text):
    return [c["status"] for c in checked(gpukb, text, "memory_verdict")]


def test_a_size_at_a_precision_is_a_workload(gpukb):
    assert _verdicts(gpukb, "A 13B model in FP16 fits on a single RTX 4090.") == ["inconsistent_with_derivation"]
    assert _verdicts(gpukb, "一个 13B 模型用 FP16 可以在单张 RTX 4090 上运行。") == ["inconsistent_with_derivation"]
    # 7B x 2 bytes = 14 GB fits; whether the use fits depends on what the text leaves open: not wrong
    assert all(s not in ("inconsistent_with_derivation", "incorrect") for s in _verdicts(gpukb, "A 7B model in FP16 fits on a single RTX 4090."))


def test_weights_beyond_the_card_are_not_within_the_error_band(gpukb):
    assert _verdicts(gpukb, "The RTX 4090 can run a 13B model in FP16.") == ["inconsistent_with_derivation"]


def test_a_reported_belief_states_nothing(gpukb):
    got = checked(gpukb, "I thought my RTX 3090 with 24GB VRAM would be enough for Llama 3 70B in FP16.", "memory_verdict")
    assert all(c["status"] not in ("inconsistent_with_derivation", "incorrect") for c in got)

