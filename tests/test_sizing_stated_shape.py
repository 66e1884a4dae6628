"""A sizing answer states the shape it assumed for a model given only by its parameter count (the rules'
approximation), beside its other assumptions. Questions written for this test."""
from __future__ import annotations


def test_a_model_given_by_its_size_is_sized_with_a_stated_shape(gpukb):
    a = gpukb.ask("can I fully fine-tune a 13B model on 4 A100 80GB").to_json()
    (note,) = [n for n in a["notes"] if "Llama-shaped" in n]
    assert "40 layers" in note and "128,256-token vocabulary" in note, note
    named = gpukb.ask("can I fully fine-tune Llama 2 13B on 4 A100 80GB").to_json()
    assert not [n for n in named["notes"] if "Llama-shaped" in n], named["notes"]
