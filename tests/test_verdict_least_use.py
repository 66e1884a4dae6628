"""A verdict that a model fits at a stated precision, with no use stated, is sized for its least demanding use
(serving the weights at that precision, rule audit.derive.verdict.least_use): when even that does not fit, the
verdict is wrong; when it fits, it depends on the use. "does not fit" / "doesn't fit" is a negative verdict.
Sentences written for these tests."""
from __future__ import annotations

import pytest


def _verdicts(gpukb, text):
    return [(str(c.value), str(getattr(c.status, "value", c.status))) for c in gpukb.check(text).claims
            if c.attribute == "memory_verdict"]


def test_a_model_whose_weights_alone_do_not_fit_is_called_wrong(gpukb):
    assert _verdicts(gpukb, "Llama 2 70B in FP16 fits on a single A100 80GB.") == [("sufficient", "inconsistent_with_derivation")]


def test_the_proof_names_the_least_demanding_use(gpukb):
    a = gpukb.check("Llama 2 70B in FP16 fits on a single A100 80GB.")
    finding = a.claims[0].findings[0]
    assert "least-use" in str(finding.to_json()), finding.to_json()


@pytest.mark.parametrize("text", ["Llama 3 8B in FP16 fits on a 24 GB L4.", "Llama 2 70B in 4-bit fits on a single A100 80GB."])
def test_a_model_that_fits_when_served_depends_on_the_use(gpukb, text):
    assert _verdicts(gpukb, text) == [("sufficient", "scope_dependent")]


def test_no_precision_no_probe(gpukb):
    assert _verdicts(gpukb, "Llama 2 70B fits on a single A100 80GB.") == [("sufficient", "unverifiable")]


@pytest.mark.parametrize("text", ["Llama 2 70B in FP16 does not fit on a single A100 80GB.",
                                  "Llama 2 70B in FP16 doesn't fit on one A100 80GB.",
                                  "Llama 2 70B in FP16 doesn’t fit on one A100 80GB."])
def test_does_not_fit_is_a_negative_verdict_never_called_wrong(gpukb, text):
    got = _verdicts(gpukb, text)
    assert got and all(v == "insufficient" and s != "inconsistent_with_derivation" for v, s in got), got
