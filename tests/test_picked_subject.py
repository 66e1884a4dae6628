"""A phrase that picks one of the products a sentence compares ("the PCIe card", "the SXM5 module", "the former",
"后者") names the subject of what follows it, not the product named last; a phrase that picks none of them, or
several, leaves the figure with no subject. Sentences written for these tests."""
from __future__ import annotations

from ._engine import checked


def _of(gpukb, text, attribute):
    return {(c["subject"], c["value"]) for c in checked(gpukb, text, attribute)}


def test_the_form_factor_picks_its_product(gpukb):
    text = ("H100 PCIe vs H100 SXM: both have 80 GB, but the PCIe card uses HBM2e at 2 TB/s "
            "while the SXM5 module uses HBM3 at 3.35 TB/s.")
    assert _of(gpukb, text, "memory_type") == {("gpu:H100-PCIe", "HBM2e"), ("gpu:H100-80GB", "HBM3")}
    assert all(c["status"] == "supported" for c in checked(gpukb, text))


def test_former_and_latter_pick_the_first_and_the_second(gpukb):
    got = checked(gpukb, "Between the L4 and the T4, the former draws 72 W and the latter 70 W.", "tdp_w")
    assert all(c["status"] != "incorrect" for c in got), got
    assert ("gpu:L4", 72.0) in {(c["subject"], c["value"]) for c in got}


def test_a_wrong_figure_of_the_picked_product_is_still_judged(gpukb):
    # the H100 PCIe uses HBM2e (NVIDIA H100 PCIe product brief): said to use HBM3, it is wrong
    got = checked(gpukb, "H100 PCIe vs H100 SXM: the PCIe card uses HBM3.", "memory_type")
    assert [(c["subject"], c["status"]) for c in got] == [("gpu:H100-PCIe", "incorrect")]
