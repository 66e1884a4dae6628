"""Verdicts on workloads in the claim extractor (engine/text/workload.py), on sentences
written for these tests (none taken from the bundled articles), with the sentences that must not
produce a verdict."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def verdicts(text: str, vocab: Vocabulary, attribute: str = "suitability") -> list[tuple[str, object, str]]:
    """(subject, value, quote) of each verdict of ``attribute``, the workload of which names a task or method."""
    out = []
    for c in extract(text, vocab).claims:
        if c.attribute == attribute:
            assert c.qualifiers.get("task") or c.qualifiers.get("method"), c
            out.append((c.subject, c.value, text[c.start:c.end].strip("。. ")))
    return sorted(out)


# -- a piece of a sentence judging tasks of its own ---------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("GN10Xp 的网络带宽对单机训练是够用的，尤其适合推理和微调。", [("family:GN10Xp", "suitable", "尤其适合推理和微调")]),
    ("The L4 has plenty of host memory, and it is well suited to inference.",
     [("gpu:L4", "suitable", "and it is well suited to inference")]),
    ("V100 的网络带宽足够，也适合 LoRA 微调。", [("gpu:V100", "suitable", "也适合 LoRA 微调")]),
    ("GN7 的内存够用，不适合预训练。", [("family:GN7", "unsuitable", "不适合预训练")]),
])
def test_a_piece_with_a_verdict_on_its_own_tasks(vocab, text, expected):
    assert verdicts(text, vocab) == expected


@pytest.mark.parametrize("text", [
    "GN10Xp 的网络带宽是够用的，尤其是在单机上。",                 # the second piece names no task
    "The L4 has plenty of host memory, and a fast network.",
    "A10 的内存够用，是否适合推理还要看延迟。",                    # an open question
    "The T4 is designed for inference, and suited to it.",        # a role, not a verdict
])
def test_a_piece_without_a_task_or_asking_adds_no_suitability(vocab, text):
    assert verdicts(text, vocab) == []


def test_the_clause_verdict_is_not_repeated_by_its_piece(vocab):
    got = verdicts("V100 适合微调。", vocab)
    assert len(got) == 1 and got[0][:2] == ("gpu:V100", "suitable")
