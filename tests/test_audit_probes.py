"""The models an audit probes a claim with when the claim leaves the model open (engine/audit/blocks.py
catalog_models): a claim about a sequence length is probed with models trained for that length."""
from __future__ import annotations

from gpukb.engine.audit.blocks import catalog_models
from gpukb.engine.kb.vocabulary import Interval


def _trained(view, model):
    ref = view.ref(model, "max_context")
    return ref.norm.point() if ref is not None else None


def test_a_long_sequence_is_probed_with_models_trained_for_it(gpukb):
    view = gpukb.view(None)
    members = catalog_models(view, sequence=Interval(32768.0, None))
    assert members
    for _, model in members:
        assert view.ref(model, "input_tokens") is None, model          # no fixed-size input (a ViT's patches)
        assert (_trained(view, model) or 0) >= 32768, model


def test_without_a_length_every_sequence_model_is_a_candidate(gpukb):
    view = gpukb.view(None)
    plain = catalog_models(view, sequence=True)
    long = catalog_models(view, sequence=Interval(32768.0, None))
    assert set(long) < set(plain)
