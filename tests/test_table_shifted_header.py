"""Two general readings of copied spec tables and lists. A Markdown table whose header lost its empty corner cell
to its end ("| T4 | A10 | L4 | |" over "| Memory | 16 GB | 24 GB | 24 GB |") names the column after each name; and a
figure of a GPU of several sizes followed by one size in brackets ("1,555 GB/s (40GB)") is that version's figure.
Texts written for these tests."""
from __future__ import annotations

SHIFTED = """Three inference cards
| T4 | A10 | L4 | |
|---|---|---|---|
| Memory | 16 GB GDDR6 | 24 GB GDDR6 | 24 GB GDDR6 |
| Memory bandwidth | 320 GB/s | {a10} GB/s | 300 GB/s |
| Power | 70 W | 150 W | 72 W |
"""


def _claims(gpukb, text):
    return {(c.subject, c.attribute, c.value): str(getattr(c.status, "value", c.status)) for c in gpukb.check(text).claims}


def test_each_name_heads_the_column_after_its_own(gpukb):
    got = _claims(gpukb, SHIFTED.format(a10=600))
    assert got[("gpu:T4", "memory_gb", 16.0)] == "supported"
    assert got[("gpu:A10", "memory_bandwidth", 600.0)] == "supported"
    assert got[("gpu:L4", "tdp_w", 72.0)] == "supported"
    assert not any(s == "incorrect" for s in got.values()), got


def test_a_wrong_cell_of_a_shifted_table_is_its_columns_product(gpukb):
    got = _claims(gpukb, SHIFTED.format(a10=900))
    assert got[("gpu:A10", "memory_bandwidth", 900.0)] == "incorrect"
    assert [k for k, s in got.items() if s == "incorrect"] == [("gpu:A10", "memory_bandwidth", 900.0)]


def test_a_table_with_its_corner_cell_in_place_is_read_as_before(gpukb):
    text = "| | T4 | A10 |\n|---|---|---|\n| Memory | 16 GB | 24 GB |\n| Power | 70 W | 150 W |\n"
    got = _claims(gpukb, text)
    assert got[("gpu:T4", "memory_gb", 16.0)] == "supported" and got[("gpu:A10", "tdp_w", 150.0)] == "supported"


def test_a_size_in_brackets_after_a_figure_names_the_version(gpukb):
    got = _claims(gpukb, "The V100 has a memory bandwidth of 900 GB/s (32GB).")
    assert ("gpu:V100-32GB", "memory_bandwidth", 900.0) in got
    got = _claims(gpukb, "A100 的显存带宽为 1555GB/s（40GB）。")
    assert got[("gpu:A100-40GB", "memory_bandwidth", 1555.0)] == "supported"


def test_another_versions_figure_in_brackets_is_not_supported(gpukb):
    # 1,935 GB/s is the A100 80GB PCIe's bandwidth, not the 40GB's (1,555 GB/s)
    got = _claims(gpukb, "The A100 has a memory bandwidth of 1935 GB/s (40GB).")
    assert got[("gpu:A100-40GB", "memory_bandwidth", 1935.0)] != "supported", got


def test_a_size_that_names_two_versions_keeps_the_product(gpukb):
    got = _claims(gpukb, "The H100 has a memory bandwidth of 3.35 TB/s (80GB).")     # SXM and PCIe are both 80 GB
    assert any(k[0] == "gpu:H100" and k[1] == "memory_bandwidth" for k in got), got
