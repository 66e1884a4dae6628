"""Mentions read differently in advice (engine/text/mentions.py), on sentences written for
these tests (none taken from the bundled articles), with the sentences that must not change."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def advice(text: str, vocab: Vocabulary) -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    for c in extract(text, vocab).claims:
        if c.attribute in ("recommended_precision", "recommended_technique"):
            out.setdefault(c.attribute, []).append(sorted(c.value))
    return out


@pytest.mark.parametrize("text, precisions", [
    ("On a GN7 instance, use BF16/FP16 mixed precision.", ["precision:bf16", "precision:fp16"]),
    ("在 GN10Xp 上建议启用 FP16 混合精度。", ["precision:fp16"]),
    ("若要在 GN7 上训练，建议搭配：\nbf16/fp16 自动混合精度+gradient_checkpointing\n", ["precision:bf16", "precision:fp16"]),
    ("For the L4, we recommend BF16 AMP.", ["precision:bf16"]),
])
def test_mixed_precision_advised_with_its_precisions(vocab, text, precisions):
    got = advice(text, vocab)
    assert got.get("recommended_precision") == [precisions]
    assert ["technique:mixed_precision"] in got.get("recommended_technique", [])


@pytest.mark.parametrize("text", [
    "On a GN7 instance, use mixed precision.",
    "GN7 上建议开启混合精度。",
])
def test_mixed_precision_alone_is_the_technique_not_a_precision(vocab, text):
    got = advice(text, vocab)
    assert got.get("recommended_technique") == [["technique:mixed_precision"]]
    assert "recommended_precision" not in got


@pytest.mark.parametrize("text", [
    "The L4 runs mixed precision well.",               # no advice
    "即使开启混合精度，T4 也放不下 13B 模型。",              # a concession, not advice
    "When using mixed precision on a V100, memory stays under 32 GB.",
])
def test_mixed_precision_not_advised_states_no_advice(vocab, text):
    assert advice(text, vocab) == {}


def test_plain_precision_advice_is_unchanged(vocab):
    got = advice("On an A10, use BF16.", vocab)
    assert got == {"recommended_precision": [["precision:bf16"]]}
