"""The parenthesis test of the subject reader (:func:`engine.text.subject._in_aside`) bisects the text's
brackets, read once per text; it answers as a scan of the text around each name does, on random texts."""
from __future__ import annotations

import random
import re

from gpukb.engine.kb.lexicon import Match
from gpukb.engine.text.subject import _in_aside


def _scanned(m, text: str, pos: int) -> bool:
    opened = max(text.rfind("(", 0, m.start), text.rfind("（", 0, m.start))
    if opened < 0 or max(text.rfind(")", opened, m.start), text.rfind("）", opened, m.start)) >= 0:
        return False
    shut = min((i for i in (text.find(")", m.end), text.find("）", m.end)) if i >= 0), default=-1)
    if shut < 0 or opened < pos <= shut:
        return False
    return bool(re.search(r"[^\s,，、/]", text[opened + 1:m.start] + text[m.end:shut]))


def test_bisecting_the_brackets_answers_as_the_scan():
    rng = random.Random(7)
    alphabet = "ab ,、/(（)）"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        start = rng.randrange(len(text))
        end = rng.randint(start, len(text))
        m = Match(start, end, "gpu:T4", "gpu")
        pos = rng.randint(0, len(text))
        assert _in_aside(m, text, pos) == _scanned(m, text, pos), (text, start, end, pos)


def test_a_remark_in_brackets_is_an_aside_and_a_bare_label_is_not():
    text = "384 GB (up from 80 GB on H100) and 8 TB/s"
    at = text.index("H100")
    assert _in_aside(Match(at, at + 4, "gpu:H100", "gpu"), text, 0)
    text = "≥24GB(A10)"
    at = text.index("A10")
    assert not _in_aside(Match(at, at + 3, "gpu:A10", "gpu"), text, 0)
