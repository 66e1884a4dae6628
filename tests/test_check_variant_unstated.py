"""A verdict that a run fits, or a GPU count said to be enough, on a product named without its memory size whose
versions differ in memory (A100 40 / 80 GB) is unclear when the run fits a larger version: gpukb sizes the
smallest (guard variant_unstated). A claim that it does not fit, or one that fails even on the largest
version, stays wrong. Sentences written for these tests."""
from __future__ import annotations

import pytest


def _claim(gpukb, text, attribute):
    return next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute)


def _codes(c):
    return {r["code"] for r in c.get("unclear_because", [])}


@pytest.mark.parametrize("text, attribute", [
    ("Two A100 cards are enough to serve a 70B model in FP16.", "memory_verdict"),
    ("推理需求：70B模型在FP16精度下需要约140GB显存，推荐配置为两块A100显卡。", "min_gpus"),
])
def test_a_run_that_fits_the_larger_version_is_unclear(gpukb, text, attribute):
    c = _claim(gpukb, text, attribute)
    assert c["status"] == "unclear" and "variant_unstated" in _codes(c), c
    why = next(r for r in c["unclear_because"] if r["code"] == "variant_unstated")
    assert "40 / 80 GB" in why["en"] and "40 / 80 GB" in why["zh"]


@pytest.mark.parametrize("text, attribute, status", [
    ("You can serve a 70B model in FP16 on one A100.", "memory_verdict", "inconsistent_with_derivation"),
    ("A single A100 cannot serve a 7B model in FP16.", "memory_verdict", "inconsistent_with_derivation"),
    ("Two A100 40GB cards are enough to serve a 70B model in FP16.", "memory_verdict", "inconsistent_with_derivation"),
])
def test_a_claim_wrong_on_every_version_or_named_by_size_stays_wrong(gpukb, text, attribute, status):
    c = _claim(gpukb, text, attribute)
    assert c["status"] == status and "variant_unstated" not in _codes(c), c
