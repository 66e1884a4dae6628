"""Claim builders of the extractor (engine/answers/extract_claims.py) on sentences written for these
tests (none taken from the bundled articles), with the sentences that must not produce a claim."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.answers.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def effects(text: str, vocab: Vocabulary) -> list[tuple[str, list]]:
    return sorted((c.subject, sorted(c.value)) for c in extract(text, vocab).claims if c.attribute == "effect")


# -- an effect stated after a list of techniques is each one's ---------------------------------------------
@pytest.mark.parametrize("text, subjects", [
    ("换成 ZeRO-2/3 之后，可以明显减少显存占用。", ["technique:zero2", "technique:zero3"]),
    ("Switching to ZeRO stage 2/3 reduces GPU memory use.", ["technique:zero2", "technique:zero3"]),
    ("开启梯度检查点和 FlashAttention 能降低显存占用。", ["technique:flash_attention", "technique:gradient_checkpointing"]),
    ("Gradient checkpointing or FlashAttention cut GPU memory.", ["technique:flash_attention", "technique:gradient_checkpointing"]),
])
def test_an_effect_after_a_list_of_techniques_is_each_ones(vocab, text, subjects):
    assert [s for s, _ in effects(text, vocab)] == subjects


@pytest.mark.parametrize("text, subjects", [
    ("After ZeRO-2, FlashAttention reduces GPU memory further.", ["technique:flash_attention"]),   # not a list
    ("用了 ZeRO-3 以后，梯度检查点还能降低显存占用。", ["technique:gradient_checkpointing"]),
    ("ZeRO-3 is slow on PCIe.", []),                                                           # no effect named
])
def test_an_effect_is_not_spread_beyond_its_list(vocab, text, subjects):
    assert [s for s, _ in effects(text, vocab)] == subjects
