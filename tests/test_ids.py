"""Tests of engine.kb.ids: the KB's identifiers parsed in one place."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpukb.engine.kb.ids import (CLAIM_ID, ClaimId, FactRef, bare, finding_id, finding_source, ref_head,
                                 source_of)


@pytest.mark.parametrize("text,want", [("S000-C003", ClaimId("S000", 3)), ("S012-C1234", ClaimId("S012", 1234)),
                                       ("S000-C03", None), ("R-T4-memory_gb", None), ("S000-C003@1", None),
                                       (None, None), (42, None)])
def test_claim_ids_parse_into_source_and_number(text, want):
    assert ClaimId.parse(text) == want


@given(st.integers(0, 999), st.integers(1, 9999))
def test_a_claim_id_round_trips(src, num):
    cid = ClaimId(f"S{src:03d}", num)
    assert CLAIM_ID.match(str(cid)) and ClaimId.parse(str(cid)) == cid


@pytest.mark.parametrize("text,want", [("S001-C005@2", ("S001-C005", "2")), ("R-T4-memory_gb", ("R-T4-memory_gb", None)),
                                       ("R-x@", ("R-x", "")), ("a@b@c", ("a", "b@c"))])
def test_fact_refs_split_at_the_first_at_sign(text, want):
    assert tuple(FactRef.parse(text)) == want
    assert bare(text) == want[0]


def test_sources_and_heads():
    assert source_of("S003-C010") == "S003" and source_of("Xab12-C001") == "Xab12" and source_of("S003") == "S003"
    assert ref_head("R-T4-memory_gb@1") == ("R", "T4") and ref_head("R-x") == ("R", "x")


@pytest.mark.parametrize("other,detail,want", [(None, None, "A-S002-C010-incorrect"),
                                               ("R-T4-memory_gb", None, "A-S002-C010-incorrect-R-T4-memory_gb"),
                                               ("S001-C001", "precision", "A-S002-C010-incorrect-S001-C001-precision"),
                                               (None, ["not", "text"], "A-S002-C010-incorrect")])
def test_finding_ids_name_claim_kind_other_and_detail(other, detail, want):
    fid = finding_id("S002-C010", "incorrect", other, detail)
    assert fid == want and finding_source(fid) == "S002"
