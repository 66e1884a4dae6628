"""Product names run together without a boundary, as tables copied from web pages lose their cell borders
("参数RTX 4090A100 80GB", "A100H100"): the lexicon reads a name only at word boundaries, so neither name
is found. A run of Latin letters and digits that holds no name, and that is wholly a sequence of two or
more known names (separators ignored), is read as those names; a header row copied without borders may
lead with its label cell, a word of letters only ("SpecA100-40GBH100 SXM"), and end with another run into the
last name ("A100H100Gain")."""
from __future__ import annotations

import re
from bisect import bisect_left
import weakref
from itertools import accumulate

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match, per_vocabulary

#: a run of Latin letters and digits, with the separators a name may hold, within one line
_RUN = re.compile(r"[a-z0-9](?:[a-z0-9 \t\-_.]*[a-z0-9])?")
_SEP = re.compile(r"[\s\-_.]")
#: the longest label word a header row's names may follow ("spec", "model", "gpu")
_LABEL = 14
#: the longest run tried (a table row pasted as one line is split into many runs anyway)
_MAX_RUN = 60

_NAMES: "weakref.WeakKeyDictionary[Vocabulary, tuple[dict[str, str], int]]" = weakref.WeakKeyDictionary()


def _names(vocab: Vocabulary) -> tuple[dict[str, str], int]:
    """Every alias of a hardware product without separators -> its entity, and the longest one's length."""
    def build(v: Vocabulary) -> tuple[dict[str, str], int]:
        out = {}
        for alias, eid in v.aliases().items():
            key = _SEP.sub("", str(alias).lower())
            if key and key.isascii() and v.kind_of(eid) in ("gpu", "family", "instance"):
                out.setdefault(key, eid)
        return out, max((len(k) for k in out), default=0)
    return per_vocabulary(_NAMES, vocab, build)


def glued(low: str, mentions: list[Match], vocab: Vocabulary) -> list[Match]:
    """The names glued together in runs of ``low`` that no mention covers (see the module's docstring); a name
    the lexicon found inside such a run ("3090" of "SpecificationRTX 4090RTX 3090") must lie within one of the
    run's names, which replace it (:func:`with_glued`)."""
    names, longest = _names(vocab)
    taken = sorted((m.start, m.end) for m in mentions)
    starts = [s for s, _ in taken]
    reach = list(accumulate((e for _, e in taken), max))      # the furthest end of the mentions so far
    out: list[Match] = []
    for run in _RUN.finditer(low):
        a, b = run.span()
        if b - a > _MAX_RUN:
            continue
        first = bisect_left(starts, a)
        inner = taken[first:bisect_left(starts, b)]
        crossing = bool(first) and reach[first - 1] > a         # a mention that starts before the run ends in it
        pos = [i for i in range(a, b) if not _SEP.match(low[i])]     # the run's characters, separators left out
        if crossing or any(e > b for _, e in inner) or all(any(s <= i < e for s, e in inner) for i in pos):
            continue                                             # a name crosses its ends, or names cover it
        chars = "".join(low[i] for i in pos)
        best: list[list[tuple[int, int]] | None] = [None] * (len(chars) + 1)   # fewest names covering chars[:k]
        best[0] = []
        for k in range(1, min(_LABEL, len(chars)) + 1):
            if chars[:k].isalpha() and low[pos[0]:pos[k - 1] + 1].isalpha() and chars[:k] not in names:
                best[k] = []           # the label cell's word before the names
        for k in range(1, len(chars) + 1):
            for j in range(max(0, k - longest), k):
                prev = best[j]
                if prev is not None and chars[j:k] in names and (best[k] is None or len(prev) + 1 < len(best[k] or ())):
                    best[k] = prev + [(j, k)]
        n = len(chars)                 # ... and a label cell's word after them ("A100H100Gain")
        pieces = best[n] or next((best[k] for k in range(n - 1, max(0, n - _LABEL) - 1, -1)
                                  if chars[k:].isalpha() and low[pos[k - 1]:pos[-1] + 1].isalnum() and best[k]), None)
        if pieces is None or len(pieces) < 2:
            continue
        found = [Match(pos[j], pos[k - 1] + 1, names[chars[j:k]], vocab.kind_of(names[chars[j:k]]) or "") for j, k in pieces]
        if all(any(g.start <= s and e <= g.end for g in found) for s, e in inner):
            out += found
    return out


def with_glued(low: str, mentions: list[Match], vocab: Vocabulary) -> list[Match]:
    """``mentions`` and the glued names of ``low``, in text order, without the mentions a glued name holds."""
    new = glued(low, mentions, vocab)
    kept = [m for m in mentions if not any(g.start <= m.start and m.end <= g.end for g in new)]
    return sorted(kept + new, key=lambda m: m.start)
