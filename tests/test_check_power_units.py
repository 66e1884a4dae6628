"""Power given in kilowatts (Blackwell boards are rated in kW) is a power like watts: 1 kW = 1,000 W.
Sentences written for these tests."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("text, status", [
    ("The B200 has a TDP of 1 kW.", "supported"),
    ("The H100 SXM draws up to 0.7 kW.", "supported"),
    ("The H100 SXM has a TDP of 1.5 kW.", "incorrect"),
    ("B200 的功耗为 1 千瓦。", "supported"),
])
def test_kilowatts_are_read_as_power(gpukb, text, status):
    c = next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "tdp_w")
    assert c["status"] == status, c
