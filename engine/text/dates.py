"""Launch years, for the claim extractor: "The V100, launched in 2017", "在GTC 2017大会上，NVIDIA正式发布了
Tesla V100", "B200 (2024): 9 PFLOPS". A year is read as a GPU's launch year only when its sentence names that
one GPU and nothing else of its kind, and either says it was launched (cues.launch, in both languages) with
no other year, or writes the year in brackets right after the name. Nothing here names a product: the
words are the vocabulary's."""
from __future__ import annotations

import re
import weakref

from ..kb.lexicon import Match as _Match, per_vocabulary
from ..kb.vocabulary import Vocabulary
from .subject import Candidate

__all__ = ["launch_years"]

#: a calendar year of the GPU era, not part of a longer number ("1,2022") or a model name ("H2002023" is read by
#: tables); a comma before it ("显存,2022 年发布": a Chinese comma, normalised) ends the clause before it
_YEAR = re.compile(r"(?<![\d.])(?<!\d,)(19[89]\d|20[0-4]\d)(?!\d|[.,]\d|\s*(?:gb|tb|w\b|mhz|tflops|tops|年代|s\b))")
#: a year in brackets right after a name ("V100 (2017):")
_BRACKET_YEAR = re.compile(r"\s*[（(]\s*(19[89]\d|20[0-4]\d)\s*[)）]")
#: how far a year may stand from the word saying the GPU was launched
_NEAR = 30

_CUES: "weakref.WeakKeyDictionary[Vocabulary, dict[str, tuple[re.Pattern[str], ...]]]" = weakref.WeakKeyDictionary()


def _launch(vocab: Vocabulary) -> dict[str, tuple[re.Pattern[str], ...]]:
    return per_vocabulary(_CUES, vocab, lambda v: {k: tuple(re.compile(p) for p in ps)
                                                   for k, ps in (v.cues.get("launch") or {}).items()})


def launch_years(low: str, s: int, e: int, ents: list[_Match], vocab: Vocabulary) -> list[Candidate]:
    """The launch-year claim of the one GPU sentence ``[s, e)`` names (none when it names several)."""
    gpus = [m for m in ents if m.kind == "gpu"]
    if not gpus or len({m.eid for m in gpus}) != 1:
        return []
    gpu = gpus[0]
    bracket = _BRACKET_YEAR.match(low, gpu.end, e)
    if bracket is not None:
        return [Candidate(gpu.start, bracket.end(), gpu.eid, "launch_year", int(bracket.group(1)), confidence=0.7)]
    years = [m for m in _YEAR.finditer(low, s, e)]
    if len({m.group(1) for m in years}) != 1:
        return []
    y = years[0]
    cues = _launch(vocab)
    cues = [m for rx in cues.get("verb", ()) for m in rx.finditer(low, s, e)
            if not any(rx.search(low, s, m.start()) for rx in cues.get("not_by", ()))]
    if not any(m.start() - _NEAR <= y.start() <= m.end() + _NEAR for m in cues):
        return []
    a, b = min(gpu.start, y.start()), max(gpu.end, y.end())
    return [Candidate(a, b, gpu.eid, "launch_year", int(y.group(1)), confidence=0.7)]
