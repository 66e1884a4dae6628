"""A memory bandwidth said of one die, HBM stack or chip ("each of the dies … 1TB/sec on a 1024-bit memory
interface", "per HBM3 stack", "每颗堆栈") is not the card's bandwidth: such a figure is unclear, never wrong.
Sentences written for these tests."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("text", [
    "Each of the B200 GPU dies comes with 1TB/sec of memory bandwidth on a 1024-bit memory interface.",
    "The H100 SXM moves about 0.7 TB/s per HBM3 stack.",
    "H100 每颗 HBM3 堆栈的带宽约为 0.7 TB/s。",
])
def test_a_bandwidth_of_one_part_is_unclear(gpukb, text):
    c = next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_bandwidth")
    assert c["status"] == "unclear" and "memory_part" in {r["code"] for r in c["unclear_because"]}, c


def test_a_cards_bandwidth_is_still_judged(gpukb):
    c = next(c for c in gpukb.check("The B200 has 5 TB/s of memory bandwidth.").to_json()["claims"]
             if c["attribute"] == "memory_bandwidth")
    assert c["status"] == "incorrect", c
