"""Readings found with probe passages in the styles of Chinese and Japanese pages: an ASCII comma after a memory
type's digit ("GDDR6,320 GB/s") parts two figures, it groups no thousands; a wave dash ("300〜350 W") makes a
range; a figure right after a form factor's name ("PCIe 300〜350 W") under a heading naming both versions is that
version's. Sentences written for these tests."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text, value", [
    ("T4:16 GB GDDR6,320 GB/s,70 W;", 320.0),       # NVIDIA T4 datasheet: 320 GB/s
    ("A10:24 GB GDDR6,600 GB/s,150 W;", 600.0),     # NVIDIA A10 datasheet: 600 GB/s
])
def test_a_comma_after_a_memory_types_digit_groups_no_thousands(gpukb, text, value):
    got = checked(gpukb, text, "memory_bandwidth")
    assert [(c["value"], c["status"]) for c in got] == [(value, "supported")], got


def test_a_wave_dash_makes_a_range(gpukb):
    got = checked(gpukb, "NVIDIA H100 PCIe 的功耗为 300〜350 W。", "tdp_w")
    assert got and got[0]["value"] == [300.0, 350.0], got


def test_a_figure_after_another_versions_form_factor_is_not_called_wrong(gpukb):
    text = "### H100 SXM と H100 PCIe の比較\n- 最大消費電力:SXM 700 W、PCIe 300〜350 W\n"
    got = checked(gpukb, text, "tdp_w")
    assert got and all(c["status"] != "incorrect" for c in got), got
    assert any("other_form_factor" in [g["code"] for g in c.get("unclear_because") or []] for c in got), got
    assert [c["status"] for c in checked(gpukb, "The H100 SXM draws 350 W.", "tdp_w")] == ["incorrect"]


@pytest.mark.parametrize("text, value, status", [
    ("کارت H100 SXM دارای ۸۰ گیگابایت حافظه HBM3 و پهنای باند ۳٫۳۵ TB/s است.", 3.35, "supported"),   # Persian digits
    ("بطاقة T4 تحتوي على ٣٢ GB من الذاكرة.", 32.0, "unclear"),   # Arabic-Indic digits: read, no memory word gpukb knows
    ("H100 SXM में 3.35 TB/s और ८० GB HBM3 मेमोरी है।", 80.0, "supported"),  # Devanagari digits
])
def test_digits_of_other_scripts_are_read(gpukb, text, value, status):
    got = [c for c in checked(gpukb, text) if c["value"] == value]
    assert [c["status"] for c in got] == [status], checked(gpukb, text)


def test_a_count_of_cores_is_no_count_of_cards(gpukb):
    # Tencent Cloud GN7.8XLARGE128: 32 vCPUs, 128 GB, one T4
    got = checked(gpukb, "GN7.8XLARGE128  32核 128GB  T4 × 1")
    assert not [c for c in got if c["attribute"] == "gpu_count" and c["value"] == 32.0], got
    assert [c["value"] for c in got if c["attribute"] == "vcpu"] == [32.0], got
