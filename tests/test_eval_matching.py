"""How `gpukb eval real` and `eval check` match a reported claim to a labelled one by subject: the same id, a
GPU's generic name and one of its variants, or a family and the one GPU it carries; two different variants of
one GPU are two subjects."""
from __future__ import annotations

import pytest

from gpukb.engine.evals.check import _same_subject


@pytest.mark.parametrize("gold, got, same", [
    ("gpu:A100-40GB", "gpu:A100-40GB", True),
    ("gpu:A100", "gpu:A100-80GB", True),
    ("gpu:A100-40GB", "gpu:A100", True),
    ("gpu:A100-40GB", "gpu:A100-80GB", False),
    ("gpu:A100", "gpu:H100", False),
])
def test_subjects_match_by_generic_name_but_not_across_variants(gpukb, gold, got, same):
    assert _same_subject(gold, got, gpukb.view()) is same
