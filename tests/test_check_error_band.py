"""A verdict on a run is called wrong only when gpukb's sizing is decisive: when its estimate of the memory a GPU
needs is within its error band against published measurements of the method's runs (the band a sizing answer
states, ``borderline``), the run may fit or not, and a text's verdict either way is unclear, never wrong (guard
within_error_band). Sentences written for these tests."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpukb.engine.text.guard_list import GUARDS

BAND = {"low": 0.75, "high": 1.25, "points": 40}


def _codes(c: dict) -> set[str]:
    return {r["code"] for r in c.get("unclear_because", [])}


def _guard(verdict):
    test = next(g.test for g in GUARDS if g.name == "within_error_band")
    return test(SimpleNamespace(verdict=verdict))


@pytest.mark.parametrize("need, capacity, doubted", [
    (18.6, 15.6, True),      # capacity 0.84 x the need: inside 0.75-1.25
    (10.0, 12.4, True),
    (40.0, 15.6, False),     # decisive: far more than the card holds
    (10.0, 15.6, False),     # decisive: far less
])
def test_the_band_decides_whether_a_verdict_is_doubted(need, capacity, doubted):
    got = _guard({"need_gb": need, "capacity_gb": capacity, "band": BAND, "method": "method:lora"})
    assert (got is not None) == doubted, got
    if got:
        assert got["low"] == f"{need * 0.75:.1f}" and got["points"] == "40"


def test_no_verdict_no_doubt():
    assert _guard(None) is None


@pytest.mark.parametrize("text", ["You can fine-tune a 7B model with LoRA on a single 16 GB T4.",
                                  "T4 显卡可以用 LoRA 微调 7B 模型。"])
def test_a_verdict_on_a_borderline_run_is_unclear_as_the_sizing_answer_says(gpukb, text):
    sizing = gpukb.ask("Can a T4 fine-tune a 7B model with LoRA?").to_json()
    c = next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_verdict")
    if sizing.get("borderline"):
        assert c["status"] == "unclear" and "within_error_band" in _codes(c), c
        why = next(r for r in c["unclear_because"] if r["code"] == "within_error_band")
        assert str(sizing["band"]["points"]) in why["en"] and why["zh"], why
    else:
        assert "within_error_band" not in _codes(c), c


def test_a_decisive_verdict_stays_wrong(gpukb):
    c = next(c for c in gpukb.check("A single A100 80GB can serve a 70B model in FP16.").to_json()["claims"]
             if c["attribute"] == "memory_verdict")
    assert c["status"] == "inconsistent_with_derivation" and "within_error_band" not in _codes(c), c
