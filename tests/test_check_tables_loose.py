"""Markdown tables whose outer pipes are left out (GitHub Markdown allows it, and pages copied as text often
lose them) are read as tables: the column header names the product, the row header the attribute.
Tables written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

from gpukb.engine.text.tokens import layout


@pytest.mark.parametrize("text", [
    "Spec | NVIDIA T4 | NVIDIA A10 |\n---|---|---|\nGPU Memory | 32GB GDDR6 | 24GB GDDR6 |\nMemory Bandwidth | 320 GB/s | 600 GB/s |\n",
    "Spec | NVIDIA T4 | NVIDIA A10\n--- | --- | ---\nGPU Memory | 32GB GDDR6 | 24GB GDDR6\nMemory Bandwidth | 320 GB/s | 600 GB/s\n",
    "We compared two cards.\n指标 | T4 | A10 |\n:--|:--:|--:|\n显存 | 32GB | 24GB |\n显存带宽 | 320 GB/s | 600 GB/s |\n",
])
def test_a_table_without_outer_pipes_gives_each_column_its_product(gpukb, text):
    claims = gpukb.check(text).to_json()["claims"]
    mem = {c["subject"]: c for c in claims if c["attribute"] == "memory_gb"}
    assert mem["gpu:T4"]["value"] == 32 and mem["gpu:T4"]["status"] == "incorrect", claims
    assert mem["gpu:A10"]["value"] == 24 and mem["gpu:A10"]["status"] == "supported", claims
    bw = {c["subject"]: c["status"] for c in claims if c["attribute"] == "memory_bandwidth"}
    assert bw == {"gpu:T4": "supported", "gpu:A10": "supported"}, claims


def test_prose_with_a_pipe_is_not_a_table():
    low = "the t4 | a budget card | has 16 gb.\nthe a10 has 24 gb.\n"
    assert layout(low) == []


def test_a_loose_table_ends_at_the_first_line_without_a_pipe():
    low = "spec | t4 | a10 |\n---|---|---|\nmemory | 16 gb | 24 gb |\nthe a10 is faster.\n"
    rows = layout(low)
    assert [low[r.start:r.end] for r in rows] == ["spec | t4 | a10 |", "memory | 16 gb | 24 gb |"]
    assert [len(r.cells) for r in rows] == [3, 3]
