"""Product names run together without a boundary, as tables copied from web pages lose their cell borders
("参数RTX 4090A100 80GB", "A100H100"): the lexicon reads a name only at word boundaries, so neither name
is found. A run of Latin letters and digits that holds no name, and that is wholly a sequence of two or
more known names (separators ignored), is read as those names; a header row copied without borders may
lead with its label cell, a word of letters only ("SpecA100-40GBH100 SXM")."""
from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate
import weakref

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
    """The names glued together in runs of ``low`` that hold no mention (see the module's docstring)."""
    names, longest = _names(vocab)
    taken = sorted((m.start, m.end) for m in mentions)
    starts = [s for s, _ in taken]
    reach = list(accumulate((e for _, e in taken), max))      # the furthest end of the mentions so far
    out: list[Match] = []
    for run in _RUN.finditer(low):
        a, b = run.span()
        before = bisect_left(starts, b)                          # the mentions that start before the run ends
        if b - a > _MAX_RUN or (before and reach[before - 1] > a):     # ... and one of them ends inside it
            continue
        pos = [i for i in range(a, b) if not _SEP.match(low[i])]     # the run's characters, separators left out
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
        pieces = best[len(chars)]
        if pieces is None or len(pieces) < 2:
            continue
        for j, k in pieces:
            eid = names[chars[j:k]]
            out.append(Match(pos[j], pos[k - 1] + 1, eid, vocab.kind_of(eid) or ""))
    return out
