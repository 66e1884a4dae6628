"""Tables read as tables (engine/text/tables.py): each cell one claim, the product from the
header or the row's first cell, the attribute from the other; on tables written for these tests."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def got(text: str, vocab: Vocabulary) -> list[tuple[str, str, object, str]]:
    return [(c.subject, c.attribute, c.value, text[c.start:c.end]) for c in extract(text, vocab).claims]


def test_column_per_product_markdown_table(vocab):
    text = ("| Spec | A10 | L4 | Note |\n|---|---|---|---|\n| GPU memory | 24 GB | 24 GB | same |\n"
            "| Memory bandwidth | 600 GB/s | 300 GB/s | A10 wins |")
    c = got(text, vocab)
    assert ("gpu:A10", "memory_bandwidth", 600.0, "600 GB/s") in c
    assert ("gpu:L4", "memory_bandwidth", 300.0, "300 GB/s") in c
    assert not any(s == "gpu:L4" and v == 600.0 for s, _, v, _ in c)
    # one claim per cell: the two 24 GB cells are two claims with their own spans
    spans = [(x.start, x.end) for x in extract(text, vocab).claims if x.attribute == "memory_gb"]
    assert len(set(spans)) == 2


def test_row_per_product_table_takes_bare_numbers_units_from_the_header(vocab):
    text = "| 型号 | 显存 | TDP(W) |\n|---|---|---|\n| T4 | 16GB | 70 |\n| A10 | 24GB | 150 |"
    c = got(text, vocab)
    assert ("gpu:T4", "tdp_w", 70.0, "70") in c
    assert ("gpu:A10", "tdp_w", 150.0, "150") in c
    assert ("gpu:A10", "memory_gb", 24.0, "24GB") in c
    assert not any(s == "gpu:T4" and v in (24.0, 150.0) for s, _, v, _ in c)


def test_a_name_inside_another_name_does_not_make_a_row_per_product_table(vocab):
    from gpukb.engine.text.tables import table_claims
    from gpukb.engine.text.tokens import aligned_lower, layout, tables
    from gpukb.engine.kb.lexicon import match_entities
    text = "| Size | Total memory |\n|---|---|\n| Standard_X4_T4_v3 | 64 GB |\n| Standard_X8_T4_v3 | 16 GB |"
    low = aligned_lower(text)
    assert table_claims(low, layout(low), match_entities(low, vocab), vocab, tables(vocab)).claims == []


def test_table_copied_as_text_assigns_the_ith_figure_to_the_ith_product(vocab):
    text = ("Spec NVIDIA T4 NVIDIA L4\nMemory 16 GB GDDR6 24 GB GDDR6\nMemory bandwidth 320 GB/s 300 GB/s\n"
            "FP32 ~8.1 TFLOPS ~30.3 TFLOPS")
    c = got(text, vocab)
    assert ("gpu:T4", "memory_gb", 16.0, "16 GB") in c
    assert ("gpu:L4", "memory_gb", 24.0, "24 GB") in c
    assert ("gpu:T4", "fp32_tflops", 8.1, "8.1 TFLOPS") in c
    assert ("gpu:L4", "fp32_tflops", 30.3, "30.3 TFLOPS") in c
    assert not any(isinstance(v, list) for _, a, v, _ in c if a == "fp32_tflops")     # two cells, not a range


def test_text_table_zh_and_a_line_with_other_figure_counts_left_alone(vocab):
    text = "参数 T4 A10\n显存容量 16GB 24GB\n显存带宽 320GB/s 600GB/s 更高 900GB/s"
    c = got(text, vocab)
    assert ("gpu:T4", "memory_gb", 16.0, "16GB") in c and ("gpu:A10", "memory_gb", 24.0, "24GB") in c
    # three bandwidth figures for two products: not read as table cells
    assert ("gpu:T4", "memory_bandwidth", 320.0, "320GB/s") not in c


def test_prose_naming_two_products_is_no_table_header(vocab):
    text = "The T4 and the A10 are both inference cards.\nMemory 16 GB 24 GB"
    assert ("gpu:T4", "memory_gb", 16.0, "16 GB") not in got(text, vocab)


def test_text_table_cell_words_follow_their_figure(vocab):
    text = "Spec RTX 4090 A100\nMemory 24 GB GDDR6X 80 GB HBM2e"
    c = got(text, vocab)
    types = {(s, v) for s, a, v, _ in c if a == "memory_type"}
    assert ("gpu:A100", "GDDR6X") not in types and ("gpu:A100", "HBM2e") in types
