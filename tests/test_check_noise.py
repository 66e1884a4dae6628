"""Figures and words the checker must not turn into claims the text does not make, and figures it must
give to the right product (issue #31: noise before recall). Sentences written for these tests, not taken
from any gold passage."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.kb.vocabulary import Vocabulary
from gpukb.engine.text.extract import extract

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def said(text: str, vocab: Vocabulary, attribute: str) -> list[tuple]:
    return sorted((c.subject, c.value, tuple((c.qualifiers or {}).get("compared_to") or ()))
                  for c in extract(text, vocab).claims if c.attribute == attribute)


# -- a direction word compares the quantity named nearest to it ------------------------------------------
@pytest.mark.parametrize("text", [
    "The L4 keeps its compute modest, but its memory bandwidth is higher than the T4's.",
    "A10 的算力一般，但显存带宽比 T4 更高。",
    "L4 的功耗低于 A10，算力也不高。",
])
def test_a_direction_word_beside_another_quantity_is_no_throughput_comparison(vocab, text):
    assert said(text, vocab, "compute_ratio") == []


@pytest.mark.parametrize("text, expected", [
    ("A10 的显存一般，但算力比 T4 更强。", [("gpu:A10", "> 1", ("gpu:T4",))]),
    ("The A100 has more FP16 compute than the T4.", [("gpu:A100", "> 1", ("gpu:T4",))]),
])
def test_a_throughput_comparison_is_still_read(vocab, text, expected):
    assert said(text, vocab, "compute_ratio") == expected


def test_products_named_in_an_earlier_clause_are_not_what_is_compared_with(vocab):
    # "A/B correspond to C/D respectively, A is faster than E": E is compared with, not C or D
    got = said("L4 与 A10 分别对应 T4 与 V100，L4 算力强于 P100。", vocab, "compute_ratio")
    assert got and all(c == ("gpu:P100",) for _, _, c in got), got


# -- a figure's attribute goes by the nearest entity that can have it -------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("T4 | 企业/AI推理 | 中 | 8000(14G) |", [("gpu:T4", 14.0, ())]),
    ("L4 | inference, light training | 9000 (24G) |", [("gpu:L4", 24.0, ())]),
])
def test_a_method_word_between_a_gpu_and_its_size_does_not_hide_the_gpu(vocab, text, expected):
    assert said(text, vocab, "memory_gb") == expected


def test_a_workload_row_gives_no_gpu_a_memory_figure(vocab):
    text = ("The RTX 4090 is popular.\n| scheme | memory | hardware |\n|---|---|---|\n"
            "| INT4 inference | ~35 GB | one or two cards (e.g. 2x RTX 4090) |\n")
    assert said(text, vocab, "memory_gb") == []


# -- one figure, one claim -----------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["H100 | 242000 (80G) |", "H100（80GB 显存）适合大模型。"])
def test_a_size_several_variants_share_is_one_claim(vocab, text):
    assert len(said(text, vocab, "memory_gb")) == 1


# -- the same number in GB and GiB is the same figure ----------------------------------------------------
def test_a_figure_in_gb_equal_to_a_reference_in_gib_is_unclear_not_wrong(gpukb):
    claims = gpukb.check("Standard_NC24ads_A100_v4 has 80 GB of total GPU memory.").to_json()["claims"]
    c = next(c for c in claims if c["attribute"] == "gpu_memory_total_gb")
    assert c["status"] in ("unclear", "supported"), c
    if c["status"] == "unclear":
        assert "binary_prefix" in {r["code"] for r in c["unclear_because"]}


def test_a_figure_plainly_off_in_either_unit_is_still_wrong(gpukb):
    claims = gpukb.check("Standard_NC24ads_A100_v4 has 40 GB of total GPU memory.").to_json()["claims"]
    c = next(c for c in claims if c["attribute"] == "gpu_memory_total_gb")
    assert c["status"] == "incorrect", c
