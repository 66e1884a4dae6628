"""Figures as German, French, Spanish, Italian, Portuguese and Dutch texts write them (decimal commas, dots between
thousands) are read as the numbers they are, with those languages' words for memory, bandwidth, power, precision
and sparsity; a round figure the product's own figure rounds to is not called wrong; two hedged cells of a table
row are two figures, not a range. Sentences written for these tests."""
from __future__ import annotations

import pytest

from tests._engine import checked

WRONG = {"incorrect", "overstated", "understated", "misattributed"}


@pytest.mark.parametrize("text, attribute, value", [
    ("Die H100 SXM bietet eine Speicherbandbreite von 3,35 TB/s und 80 GB HBM3.", "memory_bandwidth", 3.35),
    ("Die NVIDIA A100 80GB SXM bietet 2.039 GB/s Speicherbandbreite und 19,5 TFLOPS FP32.", "memory_bandwidth", 2039.0),
    ("Die NVIDIA A100 80GB SXM bietet 2.039 GB/s Speicherbandbreite und 19,5 TFLOPS FP32.", "fp32_tflops", 19.5),
    ("La L40S ofrece 48 GB de memoria GDDR6 y 864 GB/s de ancho de banda; su rendimiento FP32 es de 91,6 TFLOPS.", "fp32_tflops", 91.6),
    ("A RTX 4090 tem 24 GB de GDDR6X, largura de banda de 1.008 GB/s e TDP de 450 W; FP32: 82,6 TFLOPS.", "memory_bandwidth", 1008.0),
    ("La H200 dispone di 141 GB di HBM3e con una larghezza di banda di 4,8 TB/s.", "memory_bandwidth", 4.8),
    ("De L4 heeft 24 GB geheugen, 300 GB/s bandbreedte en een TDP van 72 W; FP32 30,3 TFLOPS.", "fp32_tflops", 30.3),
    ("Le T4 offre 16 Go de GDDR6, 320 Go/s de bande passante et 8,1 TFLOPS en FP32.", "memory_gb", 16.0),
    ("Le T4 offre 16 Go de GDDR6, 320 Go/s de bande passante et 8,1 TFLOPS en FP32.", "memory_bandwidth", 320.0),
    ("Die H100 SXM erreicht 1.979 TFLOPS FP16 mit Sparsity, die L4 hat 24 GB und 300 GB/s; FP32 30,3 TFLOPS.", "fp16_tensor_tflops", 1979.0),
    ("El V100 de 32 GB alcanza 900 GB/s y 15,7 TFLOPS en FP32; consume 300 W en SXM2.", "fp32_tflops", 15.7),
])
def test_a_continental_figure_is_read_as_its_number_and_agrees(gpukb, text, attribute, value):
    claims = checked(gpukb, text, attribute)
    assert [c["value"] for c in claims] == [value]
    assert claims[0]["status"] == "supported", claims[0]


def test_a_text_without_a_decimal_comma_is_read_the_english_way(gpukb):
    """"1.979 TFLOPS" alone may be either: not read as a thousand, and not called wrong (guard dot_thousands)."""
    claims = checked(gpukb, "Die H100 SXM erreicht 1.979 TFLOPS FP16 mit Sparsity.", "fp16_tensor_tflops")
    assert [c["value"] for c in claims] == [1.979] and claims[0]["status"] not in WRONG


@pytest.mark.parametrize("text, attribute", [
    ("Die A100 80GB bietet eine Speicherbandbreite von 1,2 TB/s.", "memory_bandwidth"),
    ("A L4 tem 48 GB de memória e largura de banda de 300 GB/s.", "memory_gb"),
    ("La H200 offre 4,0 TB/s di larghezza di banda.", "memory_bandwidth"),
    ("El T4 tiene 24 GB de memoria GDDR6 y 320 GB/s.", "memory_gb"),
])
def test_a_wrong_continental_figure_is_still_found(gpukb, text, attribute):
    assert {c["status"] for c in checked(gpukb, text, attribute)} & WRONG


@pytest.mark.parametrize("text", [
    "The H100 SXM has 3.35 TB/s of bandwidth and 1,979 TFLOPS of FP16 with sparsity.",     # English format
    "H100 的显存带宽为 3.35 TB/s，FP16 稀疏算力 1,979 TFLOPS。",
    "显存 16,32GB 两档可选的 V100 带宽 900 GB/s。",          # a comma between sizes in Chinese is no decimal comma
])
def test_a_text_with_decimal_points_keeps_its_reading(gpukb, text):
    values = {c["value"] for c in checked(gpukb, text)}
    assert not values & {1.979, 3350.0, 16.32}


@pytest.mark.parametrize("text", [
    "H100 avrà 80GB di memoria HBM3 come standard, fornendo 3TB/s di larghezza di banda.",
    "The H100 SXM has about 3,000 GB/s of memory bandwidth.",
    "The RTX 4090 draws 500 W.",                # 450 W rounds (half up) to 500 W
])
def test_a_round_figure_the_reference_rounds_to_is_unclear_not_wrong(gpukb, text):
    claims = [c for c in checked(gpukb, text) if c["attribute"] in ("memory_bandwidth", "tdp_w")]
    assert claims and all(c["status"] not in WRONG for c in claims)
    assert any(r["code"] == "round_figure" for c in claims for r in c.get("unclear_because") or [])


@pytest.mark.parametrize("text", [
    "The A100 40GB has 2 TB/s of memory bandwidth.",       # 1,555 GB/s: more than a rounding away
    "The RTX 4090 has a TDP of 400 W.",                    # 450 W does not round down to 400 W
    "The H100 SXM offers 3.0 TB/s memory bandwidth.",      # two significant digits: 3.35 is not 3.0
    "The L4 has 200 GB/s memory bandwidth.",
])
def test_a_figure_beyond_its_rounding_is_still_wrong(gpukb, text):
    assert {c["status"] for c in checked(gpukb, text)} & WRONG


def test_two_hedged_cells_of_a_row_are_two_figures(gpukb):
    text = "| GPU | V100 | H100 SXM |\n|---|---|---|\n| Memory bandwidth | ~900 GB/s | ~3.35 TB/s |"
    values = sorted(c["value"] for c in checked(gpukb, text, "memory_bandwidth"))
    assert values == [3.35, 900.0]
