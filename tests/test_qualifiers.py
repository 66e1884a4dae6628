"""Tests of engine.kb.qualifiers: the flat qualifier forms durable_rules matches, parsed back once."""
from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpukb.engine.kb import qualifiers as q
from gpukb.engine.kb.vocabulary import Interval


def test_canon_and_flat_list():
    assert q.canon(True) == "true" and q.canon(["b", "a", 3]) == "3|a|b" and q.canon(7) == "7"
    assert json.loads(q.canon(Interval(1.0, 4.0))) [:2] == [1.0, 4.0]


def test_a_signature_parses_to_a_read_only_mapping_and_is_cached():
    sig = "condition=a=b;method=full;junk"
    got = q.scope(sig)
    assert dict(got) == {"condition": "a=b", "method": "full"}
    assert q.scope(sig) is got                      # parsed once
    with pytest.raises(TypeError):
        got["method"] = "lora"                      # a cached parse cannot be changed by a caller
    assert dict(q.scope(None)) == {} == dict(q.scope(""))


def test_items_chains_and_members():
    assert q.chains("fine_tuning>training|inference") == (("fine_tuning", "training"), ("inference",))
    assert q.items("fine_tuning>training|inference") == ("fine_tuning", "inference")
    assert q.items("") == () and q.items(None) == ()
    assert q.has_item("fine_tuning>training", "training") and not q.has_item("fine_tuning>training", "fine")
    assert not q.has_item(None, "x")
    assert q.members("a|b") == frozenset({"a", "b"})


@pytest.mark.parametrize("a,b,want", [
    ("[1, 4, false, false]", "[4, 8, false, false]", False), ("[1, 4]", "[5, 8]", True),
    ("[1, 4]", "[x", True), ("[1]", "[1]", False),                 # unreadable intervals compare as text
    ("fine_tuning>training", "training", False), ("fine_tuning>training", "inference>serving", True),
    ("a|b", "b|c", False), ("a|b", "c", True), ("full", "full", False), ("full", "lora", True)])
def test_values_conflict(a, b, want):
    assert q.values_conflict(a, b) is want and q.values_conflict(b, a) is want


@given(st.dictionaries(st.sampled_from(["method", "task", "gpus", "model"]),
                       st.text(st.characters(blacklist_characters=";", blacklist_categories=("Cs",)), max_size=8)))
def test_a_signature_round_trips(d):
    sig = ";".join(f"{k}={v}" for k, v in sorted(d.items()))
    assert dict(q.scope(sig)) == d


def test_a_chain_written_is_read_back():
    flat = q.flat_list([q.flat_chain(["fine_tuning", "training"]), q.flat_chain(["inference"])])
    assert flat == "fine_tuning>training|inference"
    assert q.chains(flat) == (("fine_tuning", "training"), ("inference",))
