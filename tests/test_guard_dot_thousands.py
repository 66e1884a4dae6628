"""A figure written with one dot before three digits ("3.958 TFLOPS", "2.000 TFLOPS", "1.555 GB/s") is what German,
Italian, Spanish or Portuguese texts mean by 3,958, 2,000 and 1,555: when that reading is the product's own figure,
a wrong status from the decimal reading is withheld (guard dot_thousands). Sentences written for these tests."""
from __future__ import annotations

import pytest


def _claims(gpukb, text):
    return [(c.attribute, str(getattr(c.status, "value", c.status)), [g.code for g in (c.get("unclear_because") or [])])
            for c in gpukb.check(text).claims]


@pytest.mark.parametrize("text", [
    "Die H100 bietet 3.958 TFLOPS FP8 mit Sparsity.",
    "L'H100 può offrire fino a 2.000 TFLOPS FP16.",
    "La A100 40GB tiene 1.555 GB/s de ancho de banda.",
])
def test_a_dot_grouped_figure_that_is_the_products_own_is_not_called_wrong(gpukb, text):
    got = _claims(gpukb, text)
    assert got and all(s != "incorrect" for _, s, _ in got), got
    assert any("dot_thousands" in codes for _, _, codes in got), got


def test_a_decimal_figure_in_tb_per_second_still_reads_as_a_decimal(gpukb):
    assert ("memory_bandwidth", "supported", []) in _claims(gpukb, "The A100 80GB has a memory bandwidth of 2.039 TB/s.")


def test_a_dot_grouped_figure_that_is_no_figure_of_the_product_is_still_judged(gpukb):
    got = _claims(gpukb, "Die H100 bietet 5.123 TFLOPS FP8.")
    assert any(s == "incorrect" for _, s, _ in got), got
