"""A product named in a parenthetical remark ("(up from 80 GB on H100)", "(like the A100 before it)") is not the
subject of a figure outside the parenthesis; a bare name in brackets ("≥24GB(A10)") still labels the figure
beside it. Sentences written for these tests."""
from __future__ import annotations

import pytest


def _claims(gpukb, text):
    return [(c["subject"], c["attribute"], c["value"], c["status"]) for c in gpukb.check(text).to_json()["claims"]]


def test_a_figure_after_an_aside_about_another_product_is_the_sentences_subjects(gpukb):
    got = _claims(gpukb, "The B200 comes with 192 GB of HBM3e memory (up from 80 GB HBM3 on H100) and a memory "
                         "bandwidth of 8 TB/s.")
    assert ("gpu:B200", "memory_bandwidth", 8.0, "supported") in got, got
    assert not [c for c in got if c[0].startswith("gpu:H100") and c[1] == "memory_bandwidth"], got


@pytest.mark.parametrize("text, subject", [
    ("The H100 (like the A100 before it) has 3.35 TB/s of memory bandwidth.", "gpu:H100"),
    ("显存≥24GB(A10)即可。", "gpu:A10"),
])
def test_the_subject_is_outside_the_remark_or_the_bare_label(gpukb, text, subject):
    got = _claims(gpukb, text)
    assert got and got[0][0] == subject, got
