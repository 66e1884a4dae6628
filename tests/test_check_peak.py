"""A product's figure given as the most it reaches ("up to 3.6 TB/s") states its peak, as spec sheets use the
words (rule audit.ref.quantity.peak_beyond); a workload's bound is no peak. Sentences written for these tests."""
from __future__ import annotations

import pytest


def _one(gpukb, text: str, attribute: str) -> dict:
    return next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute)


@pytest.mark.parametrize("text, attribute, status", [
    ("The L4 offers up to 300 GB/s of memory bandwidth.", "memory_bandwidth", "supported"),
    ("The T4 offers up to 900 GB/s of memory bandwidth.", "memory_bandwidth", "overstated"),
    ("The A10 delivers up to 600 GB/s of memory bandwidth.", "memory_bandwidth", "supported"),   # 600 GB/s
    ("The A10 delivers up to 300 GB/s of memory bandwidth.", "memory_bandwidth", "incorrect"),   # below its peak
    ("L4 的显存带宽最高 900 GB/s。", "memory_bandwidth", "incorrect"),      # "最高" reads as the figure itself
])
def test_up_to_a_figure_is_the_products_peak(gpukb, text, attribute, status):
    c = _one(gpukb, text, attribute)
    assert c["status"] == status, c


def test_a_workloads_bound_is_no_peak(gpukb):
    claims = gpukb.check("Fine-tuning a 7B model with LoRA needs up to 40 GB of GPU memory.").to_json()["claims"]
    assert all(c["status"] != "overstated" for c in claims), claims
