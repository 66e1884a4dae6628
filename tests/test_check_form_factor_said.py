"""A product named with its board version ("A100 80GB SXM", "V100 SXM2", "A100 PCIe") is judged against that
version's figure when the reference gives the attribute per version; a sentence naming two versions is left to
the nearest-version reading. Sentences written for these tests; figures from the NVIDIA A100 datasheet (80GB
PCIe 1,935 GB/s and 300 W, 80GB SXM 2,039 GB/s and 400 W) and the V100 datasheet (PCIe 250 W, SXM2 300 W)."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text,attribute,status", [
    ("The A100 80GB SXM has 1,935 GB/s of memory bandwidth.", "memory_bandwidth", "incorrect"),
    ("The A100 80GB SXM has 2,039 GB/s of memory bandwidth.", "memory_bandwidth", "supported"),
    ("The A100 80GB SXM4 has a 400 W TDP.", "tdp_w", "supported"),
    ("The Tesla V100 SXM2 draws 250 W.", "tdp_w", "incorrect"),
    ("The Tesla V100 SXM2 draws 300 W.", "tdp_w", "supported"),
    ("The Tesla V100 PCIe draws 250 W.", "tdp_w", "supported"),
])
def test_the_named_version_is_judged(gpukb, text, attribute, status):
    assert [c["status"] for c in checked(gpukb, text, attribute)] == [status]


def test_two_versions_in_one_sentence_are_not_assigned(gpukb):
    got = checked(gpukb, "A100 80GB SXM vs PCIe: 400 W and 300 W.", "tdp_w")
    assert got and all(c["status"] not in ("incorrect", "overstated", "understated") for c in got)
    assert all("form_factor" not in (c.get("qualifiers") or {}) for c in got)


def test_the_heading_names_the_version_of_its_spec_list(gpukb):
    # the V100 SXM2 draws 300 W (250 W is the PCIe card's); the A100 80GB PCIe has 1,935 GB/s (2,039 is the SXM's)
    got = checked(gpukb, "NVIDIA V100 SXM2\nメモリ:32/16 GB HBM2\nメモリ帯域幅:900 GB/s\n最大消費電力:250 W", "tdp_w")
    assert [c["status"] for c in got] == ["incorrect"]
    got = checked(gpukb, "## NVIDIA A100 80GB PCIe\n- Memory bandwidth: 1,935 GB/s\n- TDP: 300 W")
    assert got and all(c["status"] == "supported" for c in got)
