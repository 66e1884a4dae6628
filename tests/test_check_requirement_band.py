"""A stated memory need is called over- or understated only outside gpukb's measured error band of its total for
the run (the ratios measured / estimated over published runs of the method): inside it, the text may describe a
setup that takes that much (guard requirement_within_band). Sentences written for these tests."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpukb.engine.kb.vocabulary import Interval
from gpukb.engine.text.guard_list import GUARDS

BAND = {"low": 0.75, "high": 1.9, "points": 40}


def _guard(status, lo, hi, verdict):
    test = next(g.test for g in GUARDS if g.name == "requirement_within_band")
    return test(SimpleNamespace(verdict=verdict, status=status, claim=SimpleNamespace(norm=Interval(lo, hi))))


@pytest.mark.parametrize("status, lo, hi, doubted", [
    ("overstated", 180, 180, True),       # 1.8 x the estimate: measured runs reach 1.9 x
    ("overstated", 300, 300, False),      # 2.3 x: beyond every measured run
    ("understated", 80, 80, True),        # 0.8 x: measured runs go down to 0.75 x
    ("understated", 50, 50, False),
    ("understated", 90, None, True),      # "at least 90 GB": its lower end is inside
])
def test_the_band_decides_whether_a_requirement_is_doubted(status, lo, hi, doubted):
    got = _guard(status, lo, hi, {"need_gb": 100.0, "band": BAND, "method": "method:full"})
    assert (got is not None) == doubted, got
    if got:
        assert got["low"] == "75.0" and got["high"] == "190.0" and got["method"] == "full"


def test_a_verdict_is_left_to_within_error_band():
    v = {"need_gb": 100.0, "capacity_gb": 80.0, "band": BAND, "method": "method:full"}
    assert _guard("overstated", 150, 150, v) is None and _guard("overstated", 150, 150, None) is None


def _claim(gpukb, text):
    return next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_required")


def _band(gpukb, method):
    from gpukb.engine.sizing.calibration import band_of
    return band_of(gpukb, gpukb.view(None), method)


@pytest.mark.parametrize("text", ["Full fine-tuning of a 7B model needs about 200 GB of GPU memory.",
                                  "全量微调 7B 模型大约需要 200GB 显存。"])
def test_a_need_inside_the_measured_band_is_unclear_with_the_band_in_the_reason(gpukb, text):
    c = _claim(gpukb, text)
    est = float(c["findings"][0]["explanation"]["en"].split("computes ")[1].split(" GB")[0]) if c.get("findings") else None
    band = _band(gpukb, "full")
    if est is None or band is None or not (200 <= est * band["high"]):
        pytest.fail(f"the premise changed: estimate {est}, band {band}")
    assert c["status"] == "unclear" and c["audit_status"] == "overstated", c
    why = next(r for r in c["unclear_because"] if r["code"] == "requirement_within_band")
    assert str(band["points"]) in why["en"] and "GB" in why["zh"], why


@pytest.mark.parametrize("text, status", [
    ("Full fine-tuning of a 7B model needs about 600 GB of GPU memory.", "overstated"),
    ("LoRA fine-tuning a 7B model in FP16 needs about 8 GB of GPU memory.", "understated"),
])
def test_a_need_far_outside_the_band_stays_wrong(gpukb, text, status):
    c = _claim(gpukb, text)
    assert c["status"] == status, c
