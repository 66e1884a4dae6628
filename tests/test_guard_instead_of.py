"""A value right after "instead of" (or its equivalent in German, French, Spanish, Portuguese, Italian, Russian,
Vietnamese and Chinese), or right before "ではなく" / "대신", is what the product does not have: a wrong reading of it
is doubted, never called incorrect; the value the sentence gives the product is still checked. Sentences written
for these tests."""
from __future__ import annotations

import pytest

from tests._engine import checked


def _statuses(gpukb, text: str, attribute: str) -> dict:
    return {str(c["value"]): c["status"] for c in checked(gpukb, text, attribute)}


@pytest.mark.parametrize("text", [
    "Die H200 nutzt HBM3e statt HBM3.",
    "Le H200 utilise de la HBM3e au lieu de la HBM3.",
    "La H200 usa HBM3e en lugar de HBM3.",
    "A H200 usa HBM3e em vez de HBM3.",
    "La H200 usa HBM3e invece di HBM3.",
    "H200 использует HBM3e вместо HBM3.",
    "H200 sử dụng HBM3e thay vì HBM3.",
    "H200はHBM3ではなくHBM3eを採用している。",
    "H200은 HBM3 대신 HBM3e를 사용한다.",
])
def test_the_replaced_memory_type_is_not_called_incorrect(gpukb, text):
    got = _statuses(gpukb, text, "memory_type")
    assert got.get("HBM3") != "incorrect", got
    assert got.get("HBM3e", "supported") == "supported", got


@pytest.mark.parametrize("text", ["The H200 uses HBM3 instead of HBM3e.", "The H200 uses HBM3."])
def test_the_value_given_the_product_is_still_judged(gpukb, text):
    assert _statuses(gpukb, text, "memory_type").get("HBM3") == "incorrect"


def test_a_figure_after_rather_than_is_the_other_side(gpukb):
    got = _statuses(gpukb, "The A100 40GB has a memory bandwidth of 1,555 GB/s rather than 2,039 GB/s.", "memory_bandwidth")
    assert all(s != "incorrect" for s in got.values()), got
