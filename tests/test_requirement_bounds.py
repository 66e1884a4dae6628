"""A memory requirement stated as a bound: "needs far more than a T4's 16 GB" is a lower bound of 16 GB (the
bound word reaches over the owner's name), and a bound gpukb's estimate lies beyond on the side it allows is true as
stated, never an understatement; a bound on the wrong side is still flagged. Sentences of our own."""
from __future__ import annotations

import pytest

from ._engine import checked

NEGATIVE = ("incorrect", "overstated", "understated")


@pytest.mark.parametrize("text, value", [
    ("Full fine-tuning a 13B model needs far more than a T4's 16 GB.", "> 16"),
    ("Fully fine-tuning a 7B model needs more than an A10's 24 GB.", "> 24"),
    ("Full fine-tuning a 13B model needs more than 16 GB.", "> 16"),
])
def test_a_lower_bound_below_the_estimate_is_no_understatement(gpukb, text, value):
    need = checked(gpukb, text, "memory_required")
    assert [c["value"] for c in need] == [value]
    assert need[0]["status"] not in NEGATIVE
    assert "loose_bound" in [u["code"] for u in need[0].get("unclear_because") or []]


def test_a_bound_on_the_wrong_side_is_still_flagged(gpukb):
    # a 13B full fine-tune needs far more than 16 GB: "less than 16 GB" understates it
    need = checked(gpukb, "Full fine-tuning a 13B model needs less than 16 GB.", "memory_required")
    assert [c["status"] for c in need] == ["understated"]


def test_an_owner_without_a_bound_word_gives_no_bound(gpukb):
    # "the T4's 16 GB is not enough": no bound word before the owner, so no bound is read into a figure
    need = checked(gpukb, "Full fine-tuning a 13B model needs the T4's 16 GB and more.", "memory_required")
    assert all(not str(c["value"]).startswith((">", "<")) for c in need)


def test_at_least_is_a_minimum_requirement_and_is_judged(gpukb):
    # "最低显存要求 ≥ 16 GB" / "requires at least 16 GB" says a 16 GB card is enough: a full 13B fine-tune is not
    need = checked(gpukb, "Full fine-tuning a 13B model requires at least 16 GB of VRAM.", "memory_required")
    assert [c["status"] for c in need] == ["understated"]
