"""Statements relating one product to others in the claim extractor (engine/text/relations.py),
on sentences written for these tests (none taken from the bundled articles), with the sentences that
must not produce a claim."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def upgrades(text: str, vocab: Vocabulary) -> list[tuple[str, list[str]]]:
    return [(c.subject, sorted(c.value)) for c in extract(text, vocab).claims if c.attribute == "recommended_instance"]


@pytest.mark.parametrize("text, expected", [
    ("GN7 适合入门。如果要训练 13B 模型，建议升级到 GN10Xp 或 GI3。", [("family:GN7", ["family:GI3", "family:GN10Xp"])]),
    ("Start on GN7. For larger models, upgrade to a GN10Xp instance.", [("family:GN7", ["family:GN10Xp"])]),
    ("T4 users should move to GN7-A10 for training.", [("gpu:T4", ["family:GN7-A10"])]),
    ("V100 显存不够时，可以迁移到 GI3N。", [("gpu:V100", ["family:GI3N"])]),
])
def test_an_upgrade_recommends_instances_for_the_product_spoken_of(vocab, text, expected):
    assert upgrades(text, vocab) == expected


@pytest.mark.parametrize("text", [
    "GN7 适合入门，不必升级到 GN10Xp。",                     # negated
    "There is no need to upgrade to GN10Xp.",              # negated, and nothing to upgrade from
    "建议升级到最新驱动。",                                  # no product to move to
    "GN7 适合入门。记得把 PyTorch 升级到 2.1。",               # software, not an instance
])
def test_no_upgrade_without_a_target_product_or_when_negated(vocab, text):
    assert upgrades(text, vocab) == []
