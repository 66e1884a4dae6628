"""The Tesla P100 comes as a 16 GB PCIe card, a 12 GB PCIe card and an SXM2 board (release 2026.12.28): a
statement about "the P100" that holds for one of them is not called wrong, one that holds for none still is,
and the release before keeps the PCIe card's figures unscoped. Sentences written for these tests."""
from __future__ import annotations

import pytest

from tests._engine import checked

WRONG = {"incorrect", "misattributed", "overstated", "understated"}


def statuses(gpukb, text: str, kb_version: str | None = None) -> set[str]:
    return {c["status"] for c in checked(gpukb, text, kb_version=kb_version)}


@pytest.mark.parametrize("text", [
    "The Tesla P100 comes with 12 GB or 16 GB of HBM2 memory.",
    "特斯拉 P100 配备 12GB 显存。",
    "The Tesla P100 has a TDP of 300 W.",
    "The P100 SXM2 delivers 10.6 TFLOPS of FP32.",
    "The Tesla P100 12GB has 549 GB/s of memory bandwidth.",
    "The Tesla P100 has 732 GB/s of memory bandwidth.",
    "The P100 PCIe has 9.3 TFLOPS of FP32 and a TDP of 250 W.",
])
def test_a_figure_of_one_version_is_not_wrong(gpukb, text):
    got = statuses(gpukb, text)
    assert got and not got & WRONG, got


@pytest.mark.parametrize("text", [
    "The P100 has 24 GB of HBM2 memory.",
    "The Tesla P100 offers 12 TFLOPS of FP32.",
    "The Tesla P100 has 900 GB/s of memory bandwidth.",
])
def test_a_figure_of_no_version_is_still_wrong(gpukb, text):
    assert statuses(gpukb, text) & WRONG


def test_the_release_before_judged_the_pcie_card_alone(gpukb):
    assert "incorrect" in statuses(gpukb, "The Tesla P100 has a TDP of 300 W.", kb_version="2026.12.27")
