"""A size-named version with its form factor ("80GB SXM 版本") after a passage naming the GPU is that version; a
figure said as a difference in German, French, Spanish, Portuguese, Italian or Russian ("50 W weniger als die
L40S") is no product's figure; Polish "z rzadkością" marks a sparse rate. Passages written for these tests;
figures from the NVIDIA A100, L4, L40S and RTX 6000 Ada datasheets."""
from __future__ import annotations

import pytest

from ._engine import checked


def _wrong(gpukb, text):
    return [(c["subject"], c["attribute"], c["value"]) for c in checked(gpukb, text)
            if c["status"] in ("incorrect", "overstated", "understated", "misattributed")]


def test_a_size_named_version_after_the_gpu_was_named(gpukb):
    text = ("问：A100 40GB 和 A100 80GB 有什么区别？\n答：两者算力相同。\n"
            "40GB 版本使用 HBM2，带宽 1,555 GB/s；80GB 版本使用 HBM2e，带宽 2,039 GB/s。")
    got = {(c["subject"], c["attribute"], c["value"]) for c in checked(gpukb, text)}
    assert ("gpu:A100-80GB", "memory_bandwidth", 2039.0) in got and ("gpu:A100-40GB", "memory_bandwidth", 1555.0) in got
    assert _wrong(gpukb, text) == []


@pytest.mark.parametrize("text", [
    "Die RTX 6000 Ada braucht 300 W, also 50 W weniger als die L40S.",
    "Sie braucht nur 300 W, also 50 W weniger als die L40S.",
    "Elle ne consomme que 300 W, soit 50 W de moins que la L40S.",
    "Consume solo 300 W, 50 W menos que la L40S.",
])
def test_a_difference_and_the_product_compared_with_are_no_claims_of_it(gpukb, text):
    # the L40S draws 350 W: neither the 50 W difference nor the other card's 300 W is its figure
    assert _wrong(gpukb, text) == []


def test_the_compared_product_keeps_its_own_figures(gpukb):
    assert [c["status"] for c in checked(gpukb, "Die L40S braucht 300 W.", "tdp_w")] == ["incorrect"]


def test_polish_sparsity(gpukb):
    got = checked(gpukb, "NVIDIA L4 — najważniejsze parametry:\n- FP8: 485 TFLOPS (z rzadkością)", "fp8_tensor_tflops")
    assert [c["status"] for c in got] == ["supported"]
