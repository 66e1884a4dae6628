"""A text that gives one product's attribute two or more figures none of its versions has speaks of several things
under that name (guard ``several_values``): none of those figures is called wrong. Sentences written for these tests."""
from __future__ import annotations

import pytest


def memory_claims(gpukb, text: str, subject: str) -> list[dict]:
    return [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_gb" and c["subject"] == subject]


@pytest.mark.parametrize("text", [
    "The A30 has 12 GB of memory in a two-way MIG split. The A30 has 6 GB of memory in a four-way MIG split.",
    "The T4 has 32 GB of memory. Many people say the T4 offers 24 GB of memory.",
    "T4 显卡有 32GB 显存。也有文章说 T4 配备 24GB 显存。",
])
def test_two_unexplained_figures_for_one_card_are_unclear(gpukb, text):
    subject = "gpu:A30" if "A30" in text else "gpu:T4"
    got = memory_claims(gpukb, text, subject)
    assert len(got) >= 2, got
    assert all(c["status"] == "unclear" for c in got), got
    assert all(any(r["code"] == "several_values" for r in c["unclear_because"]) for c in got)


@pytest.mark.parametrize("text", [
    "The T4 has 16 GB of GDDR6. Later the guide says the T4 has 32 GB of memory.",
    "The A100 comes in 40 GB and 80 GB versions. The T4 has 32 GB of memory.",
])
def test_one_wrong_figure_beside_the_cards_own_is_still_judged(gpukb, text):
    got = [c for c in memory_claims(gpukb, text, "gpu:T4") if c["value"] == 32]
    assert got and got[0]["status"] == "incorrect", got


def test_a_figure_another_guard_doubts_does_not_count(gpukb):
    # "an 8x T4 server gives 128 GB" is a total (doubted by its own guard), so the lone "24 GB" is judged on its own
    got = memory_claims(gpukb, "An 8x T4 server gives 128 GB of GPU memory. The T4 has 24 GB of memory.", "gpu:T4")
    by_value = {c["value"]: c for c in got}
    assert by_value[24]["status"] == "incorrect", got
    assert by_value[128]["status"] == "unclear", got
    assert all(r["code"] != "several_values" for r in by_value[128]["unclear_because"]), got


@pytest.mark.parametrize("text", ["Two T4s give you 32GB of GPU memory.", "两张 T4 共 32GB 显存。"])
def test_a_count_of_one_digit_cards_makes_a_total(gpukb, text):
    # a card named with one digit ("T4", "A2", "L4") counts as several as well as "two A100s" does
    got = memory_claims(gpukb, text, "gpu:T4")
    assert got and got[0]["status"] == "unclear", got
    assert any(r["code"] == "multiple_of_one_card" for r in got[0]["unclear_because"])
