"""A bandwidth written with spaces round its slash ("720 GB / s") is a bandwidth, not a memory size; and a
card's figure more than twice the largest any version of it has is not called wrong when its sentence says
it gives a sum ("a total of"), even if it names the card and the attribute. Sentences written for these
tests."""
from __future__ import annotations

import pytest

from tests._engine import checked

from gpukb.engine.text.extract import extract


@pytest.fixture(scope="module")
def vocab(gpukb):
    return gpukb.kb.vocab


@pytest.mark.parametrize("text, value", [
    ("The T4 has 320 GB / s of memory bandwidth.", 320),
    ("The T4 has 320 GB /s of memory bandwidth.", 320),
    ("T4 显存带宽为 320 GB / s。", 320),
    ("The H100 SXM reaches 3.35 TB / s of memory bandwidth.", 3.35),
])
def test_a_spaced_slash_is_a_bandwidth(vocab, text, value):
    claims = extract(text, vocab).claims
    assert [c.value for c in claims if c.attribute == "memory_bandwidth"] == [value], [(c.attribute, c.value) for c in claims]
    assert not [c for c in claims if c.attribute == "memory_gb"]


@pytest.mark.parametrize("text", ["The A100 comes as 40 GB / 80 GB cards.", "The T4 has 16 GB / SXM none."])
def test_sizes_either_side_of_a_slash_stay_sizes(vocab, text):
    claims = extract(text, vocab).claims
    assert [c for c in claims if c.attribute == "memory_gb"] and not [c for c in claims if c.attribute == "memory_bandwidth"]


def statuses(gpukb, text: str, attribute: str) -> set[str]:
    return {c["status"] for c in checked(gpukb, text, attribute)}


@pytest.mark.parametrize("text", [
    "The server's A100 has a total of 320GB of HBM2 with a memory bandwidth of 12.4 TB/s.",
    "该服务器的 A100 合计 320GB 显存，显存带宽 12.4 TB/s。",
])
def test_a_stated_figure_far_beyond_every_version_in_a_sum_is_unclear(gpukb, text):
    assert statuses(gpukb, text, "memory_bandwidth") == {"unclear"}


def test_a_stated_figure_without_a_sum_is_still_judged(gpukb):
    assert statuses(gpukb, "The A100 has a memory bandwidth of 12.4 TB/s.", "memory_bandwidth") == {"incorrect"}
    assert statuses(gpukb, "The T4 has a TDP of 250 W.", "tdp_w") == {"incorrect"}
