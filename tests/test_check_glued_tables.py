"""Tables copied from web pages without their cell borders: the header's names run together (one of them may
be found on its own, "3090" of "RTX 4090RTX 3090"), a size runs into its memory technology ("48 GB GDDR6X24
GB"), a precision's name into the first figure ("FP3219.5 TFLOPS"), and a last column may compare the two
("2.6x"). Each figure goes to the product of its column. Tables written for these tests."""
from __future__ import annotations

import pytest


def _claims(gpukb, text):
    return {(c["subject"], c["attribute"], c["value"]): c for c in gpukb.check(text).to_json()["claims"]}


def test_a_name_the_lexicon_finds_inside_a_glued_header_is_one_of_its_columns(gpukb):
    got = _claims(gpukb, "ModelRTX 4090RTX 3090\nMemory bandwidth1008 GB/s936 GB/s\nTDP450 W350 W")
    assert got[("gpu:RTX-4090", "memory_bandwidth", 1008.0)]["status"] == "supported"
    assert got[("gpu:RTX-3090", "memory_bandwidth", 936.0)]["status"] == "supported"
    assert got[("gpu:RTX-4090", "tdp_w", 450.0)]["status"] == "supported"


def test_a_wrong_cell_of_a_glued_table_is_flagged_for_its_column(gpukb):
    got = _claims(gpukb, "SpecificationRTX 4090RTX 3090\nMemory bandwidth1152 GB/s936 GB/s")
    assert got[("gpu:RTX-4090", "memory_bandwidth", 1152.0)]["status"] == "incorrect"
    assert got[("gpu:RTX-3090", "memory_bandwidth", 936.0)]["status"] == "supported"


def test_sizes_run_into_their_memory_technology_are_read_with_it(gpukb):
    got = _claims(gpukb, "SpecL40SA100 80GB\nMemory48 GB GDDR680 GB HBM2e")
    assert got[("gpu:L40S", "memory_gb", 48.0)]["status"] == "supported"
    assert got[("gpu:A100-80GB", "memory_gb", 80.0)]["status"] == "supported"
    assert got[("gpu:A100-80GB", "memory_type", "HBM2e")]["status"] == "supported"


@pytest.mark.parametrize("text", ["指标A100H100提升\nFP3219.5 TFLOPS67 TFLOPS3.4x\nFP649.7 TFLOPS34 TFLOPS3.5x",
                                  "MetricA100H100Gain\nFP3219.5 TFLOPS67 TFLOPS3.4x\nFP649.7 TFLOPS34 TFLOPS3.5x"])
def test_a_precision_run_into_its_figure_and_a_last_ratio_column(gpukb, text):
    got = _claims(gpukb, text)
    assert got[("gpu:A100", "fp32_tflops", 19.5)]["status"] == "supported"
    assert got[("gpu:A100", "fp64_tflops", 9.7)]["status"] == "supported"
    assert any(k[0].startswith("gpu:H100") and k[1:] == ("fp64_tflops", 34.0) for k in got), got.keys()
    assert not any(k[2] in (3219.5, 649.7, 3.4, 3.5) for k in got), got.keys()


def test_thousands_separators_and_figures_without_units(gpukb):
    got = _claims(gpukb, "SpecA100 40GBH100 SXM\nMemory bandwidth1,555 GB/s3,350 GB/s\nCUDA cores691216896")
    assert got[("gpu:A100-40GB", "memory_bandwidth", 1555.0)]["status"] == "supported"
    assert got[("gpu:H100-80GB", "memory_bandwidth", 3350.0)]["status"] == "supported"
    assert len(got) == 2, got.keys()          # the cores' figures ran together with no unit to split them by
