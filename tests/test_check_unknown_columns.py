"""A table copied as text whose header also names GPUs gpukb does not know ("Spec GB300 B300 B200"): each such
name holds a column, so its figures go to no product, never to the known neighbour; a row that does not fit
the columns gives no claim. GB200 / GB300 are recognised as GPU names gpukb does not know. Tables written for
these tests."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.kb.names import unknown_mentions
from gpukb.engine.kb.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(Path(__file__).parents[1] / "kb" / "vocabulary.yaml")


TABLE = ("Spec GB300 B300 B200\n"
         "FP8 5 PFLOPS 4.5 PFLOPS 4.5 PFLOPS\n"
         "Memory 288 GB HBM3E 270 GB HBM3E 180 GB HBM3E\n"
         "FP16 2.5 PFLOPS 2.25 2.25 PFLOPS\n")


def _claims(gpukb, text):
    return gpukb.check(text).to_json()["claims"]


def test_the_known_gpu_gets_only_its_own_column(gpukb):
    got = {(c["subject"], c["attribute"], c["value"]): c["status"] for c in _claims(gpukb, TABLE)}
    assert got[("gpu:B200", "fp8_tensor_tflops", 4.5)] == "supported"
    assert got[("gpu:B200", "memory_gb", 180.0)] == "supported"
    assert not any(v in (5.0, 288.0, 270.0) for _, _, v in got), got


def test_a_row_that_does_not_fit_the_columns_gives_no_claim(gpukb):
    assert not [c for c in _claims(gpukb, TABLE) if c["attribute"] == "fp16_tensor_tflops"]


def test_no_figure_of_an_unknown_column_is_flagged(gpukb):
    assert all(c["status"] not in ("incorrect", "overstated", "understated") for c in _claims(gpukb, TABLE))


@pytest.mark.parametrize("text, names", [("Spec GB300 GB200 B200", ["GB300", "GB200"]),
                                         ("the GB200 NVL72 rack", ["GB200"])])
def test_grace_superchips_are_gpu_names_gpukb_does_not_know(vocab, text, names):
    assert [x["text"] for x in unknown_mentions(text, vocab) if x["kind"] == "gpu"] == names


def test_sizes_in_gb_are_still_no_gpu_names(vocab):
    assert unknown_mentions("80GB of HBM3 and a 24 GB card", vocab) == []
