"""Russian and Ukrainian unit spellings ("94 ГБ", "3,9 ТБ/с", "700 Вт") are read as GB, TB/s and W, so a
Russian spec sentence is checked like an English one. Sentences written for these tests; figures from the
NVIDIA H100 NVL product brief (94 GB HBM3, 3.9 TB/s, 350-400 W)."""
from __future__ import annotations

from ._engine import checked


def test_russian_units_are_read(gpukb):
    got = {(c["attribute"], c["value"], c["status"]) for c in
           checked(gpukb, "H100 NVL имеет 94 ГБ памяти HBM3 с пропускной способностью 3,9 ТБ/с и TDP 400 Вт.")}
    assert {("memory_gb", 94.0, "supported"), ("memory_bandwidth", 3.9, "supported"), ("tdp_w", 400.0, "supported")} <= got


def test_a_wrong_figure_in_russian_is_judged(gpukb):
    got = checked(gpukb, "## NVIDIA H100 NVL\nЭта карта оснащена 94 ГБ памяти HBM3.\nЕё TDP достигает 700 Вт.", "tdp_w")
    assert [(c["value"], c["status"]) for c in got] == [(700.0, "incorrect")]


def test_a_bandwidth_is_not_a_memory_size(gpukb):
    got = checked(gpukb, "H100 NVL: 3,9 ТБ/с.")
    assert [c["attribute"] for c in got] == ["memory_bandwidth"]
