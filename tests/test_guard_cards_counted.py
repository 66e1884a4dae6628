"""A memory figure in a sentence that counts several of the cards ("more than four A100s", "across 8 GPUs", "两张")
is set against their total or shared by them: not being one card's size is no error (guard cards_counted). The same
figure said of one card is still judged. Sentences written for these tests."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "overstated", "understated"}


def _memory(gpukb, text):
    return [str(getattr(c.status, "value", c.status)) for c in gpukb.check(text).claims if c.attribute == "memory_gb"]


@pytest.mark.parametrize("text", [
    "Serving 512 long requests takes 350 GB of HBM, more than four A100s hold.",
    "The KV cache alone needs 300 GB, which takes at least four H100 80GB cards.",
    "With 8 A100 GPUs you get 600 GB of usable memory for the model.",
])
def test_a_figure_set_against_several_cards_is_not_called_wrong(gpukb, text):
    got = _memory(gpukb, text)
    assert not WRONG & set(got), got


@pytest.mark.parametrize("text", ["The A100 has 350 GB of HBM.", "The H100 comes with 300 GB of memory."])
def test_the_figure_said_of_one_card_is_judged(gpukb, text):
    assert WRONG & set(_memory(gpukb, text)), text
