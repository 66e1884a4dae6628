"""One figure said of every product a sentence lists ("都", "均", "both", "all") is each product's: the
several-products and other-product's-figure guards do not doubt it, so a product it is wrong for is called
wrong and one it is right for stays supported; lists paired with figures ("respectively") keep their doubt.
Sentences written for these tests."""
from __future__ import annotations

import pytest


def by_subject(gpukb, text: str, attribute: str = "memory_gb") -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for c in gpukb.check(text).to_json()["claims"]:
        if c["attribute"] == attribute:
            out.setdefault(c["subject"], set()).add(c["status"])
    return out


@pytest.mark.parametrize("text", [
    "Both the T4 and the L4 have 24 GB of memory.",
    "T4 和 L4 都配备了 24GB 显存。",
    "T4、L4 等显卡均配备 24GB 显存。",
])
def test_a_figure_given_to_every_listed_product_is_judged_for_each(gpukb, text):
    got = by_subject(gpukb, text)
    assert got.get("gpu:T4") == {"incorrect"}, got
    assert "incorrect" not in got.get("gpu:L4", set()) and "unclear" not in got.get("gpu:L4", set()), got


def test_a_figure_right_for_every_listed_product_is_supported(gpukb):
    got = by_subject(gpukb, "A10 和 L4 均为 24GB 显存。")
    assert got and all(s == {"supported"} for s in got.values()), got


def test_lists_paired_with_figures_keep_their_doubt(gpukb):
    got = by_subject(gpukb, "The T4 and the L4 have 16 GB and 24 GB of memory respectively.")
    assert "incorrect" not in set().union(*got.values()), got
