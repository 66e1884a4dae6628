"""Who a figure belongs to when a sentence names a second product only as an owner ("the H100's 80 GB") or as
what another equals ("the same 80 GB as the H100"): the later clause keeps the sentence's subject. Sentences of
our own."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text", [
    "H800 keeps the H100's 80 GB of HBM3 but cuts NVLink bandwidth to 400 GB/s.",
    "The H800 has the same 80 GB as the H100 but cuts NVLink bandwidth to 400 GB/s.",
    "The H800 offers memory identical to that of the H100, yet its NVLink bandwidth is 400 GB/s.",
])
def test_the_later_clause_keeps_the_sentences_subject(gpukb, text):
    nvlink = checked(gpukb, text, "nvlink_bandwidth")
    assert [c["subject"] for c in nvlink] == ["gpu:H800"]
    assert nvlink[0]["status"] == "supported"


@pytest.mark.parametrize("text, subject", [
    ("The H100's memory is 80 GB and its bandwidth is 3.35 TB/s.", "gpu:H100"),      # the owner is all there is
    ("The A100 is fast, but the H100's bandwidth is 3.35 TB/s.", "gpu:H100"),         # its own clause
])
def test_an_owner_keeps_its_own_noun_phrase(gpukb, text, subject):
    bw = checked(gpukb, text, "memory_bandwidth")
    assert bw and all(c["subject"].startswith(subject) for c in bw)
    assert not any(c["status"] in ("incorrect", "overstated", "understated") for c in bw)


def test_a_wrong_figure_after_an_owner_is_still_flagged_on_the_subject(gpukb):
    # the H800's NVLink is 400 GB/s (NVIDIA's H800 datasheet): 900 GB/s is the H100's, not the H800's
    nvlink = checked(gpukb, "H800 keeps the H100's 80 GB of HBM3 but cuts NVLink bandwidth to 900 GB/s.", "nvlink_bandwidth")
    assert [(c["subject"], c["status"]) for c in nvlink] == [("gpu:H800", "incorrect")]


@pytest.mark.parametrize("text", [
    "At 24 GB, the A10 has the same memory as the RTX 4090 but a much lower 150 W TDP.",
    "The A10 has the same 24 GB as the RTX 4090 yet draws only 150 W.",
])
def test_sameness_stops_at_the_turn_of_the_sentence(gpukb, text):
    # the A10's board power is 150 W (NVIDIA's A10 datasheet); the RTX 4090's 450 W is not said to be the same
    tdp = checked(gpukb, text, "tdp_w")
    assert [c["subject"] for c in tdp] == ["gpu:A10"] and tdp[0]["status"] == "supported"


def test_sameness_before_the_figure_still_spreads(gpukb):
    # "the same ... as" with no turn between it and the figure states the figure of both products
    mem = checked(gpukb, "The RTX 4090 has the same memory as the RTX 3090, 24 GB.", "memory_gb")
    assert {c["subject"] for c in mem} == {"gpu:RTX-4090", "gpu:RTX-3090"}
