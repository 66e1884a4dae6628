"""A table row whose first cell names a GPU gpukb does not know is that card's row: its cells are nobody
else's (not the row above's product). Tables written for these tests."""
from __future__ import annotations

TABLE = ("| GPU | Architecture | VRAM | Memory Type |\n|---|---|---|---|\n"
         "| RTX 3090 | Ampere | 24 GB | GDDR6X |\n| RTX 3090 Ti | Ampere | 24 GB | GDDR6X |\n"
         "| RTX A4000 | Ampere | 16 GB | GDDR6 |\n| RTX A6000 | Ampere | 48 GB | GDDR6 |")


def test_the_cells_of_an_unknown_cards_row_are_nobody_elses(gpukb):
    answer = gpukb.check(TABLE).to_json()
    by_subject = {}
    for c in answer["claims"]:
        by_subject.setdefault(c["subject"], []).append((c["attribute"], c["value"]))
    assert sorted(by_subject["gpu:RTX-3090"]) == [("memory_gb", 24.0), ("memory_type", "GDDR6X")], by_subject
    assert ("memory_gb", 48.0) in by_subject["gpu:RTX-A6000"]
    reasons = " ".join(n["reason"] for n in answer["not_understood"])
    assert "RTX 3090 Ti" in reasons and "A4000" in reasons, reasons


def test_a_one_product_spec_table_under_its_heading_is_still_read(gpukb):
    claims = gpukb.check("## RTX 3090\n| Spec | Value |\n|---|---|\n| VRAM | 24 GB |\n| Memory | GDDR6X |").to_json()["claims"]
    assert {(c["subject"], c["attribute"], c["status"]) for c in claims} == {
        ("gpu:RTX-3090", "memory_gb", "supported"), ("gpu:RTX-3090", "memory_type", "supported")}, claims


def test_an_empty_corner_cell_keeps_the_columns_in_place(gpukb):
    """"| | A100 | H100 |": the header's empty first cell is a column too, so each figure is its own column's
    product's (dropping it shifted every figure one product to the right)."""
    text = "| | T4 | A10 |\n|---|---|---|\n| Memory | 16 GB | 24 GB |\n| TDP | | 150 W |"
    got = {(c["subject"], c["attribute"], c["value"]) for c in gpukb.check(text).to_json()["claims"]}
    assert ("gpu:T4", "memory_gb", 16.0) in got and ("gpu:A10", "memory_gb", 24.0) in got, got
    assert ("gpu:A10", "tdp_w", 150.0) in got and not any(s == "gpu:T4" and a == "tdp_w" for s, a, _ in got), got


def _facts(gpukb, text: str) -> dict[tuple[str, str], str]:
    return {(c["subject"], c["attribute"]): c["status"] for c in gpukb.check(text).to_json()["claims"]}


def test_a_memory_type_written_with_two_sizes_is_said_of_each_size(gpukb):
    """"40GB/80GB HBM2e": HBM2e for the 40 GB A100 (which has HBM2) is wrong, for the 80 GB one right; one size
    that names two versions ("80GB": the H100 SXM or PCIe) names neither."""
    got = _facts(gpukb, "| Spec | A100 | H100 |\n|---|---|---|\n| GPU Memory | 40GB/80GB HBM2e | 80GB HBM3 |")
    assert got[("gpu:A100-40GB", "memory_type")] == "incorrect", got
    assert got[("gpu:A100-80GB", "memory_type")] == "supported", got
    assert not any(s.startswith("gpu:H100-") and a == "memory_type" for s, a in got), got


def test_a_columns_memory_size_names_the_variant_of_its_other_cells(gpukb):
    text = "| | A100 | H100 |\n|---|---|---|\n| Memory | 40GB | 80GB |\n| Memory type | HBM2e | HBM3 |"
    got = _facts(gpukb, text)
    assert got[("gpu:A100-40GB", "memory_type")] == "incorrect", got
