"""The alias lexicon: entity mentions found in text by their vocabulary aliases (English and Chinese),
sized variants picked from an adjacent memory size, and the vocabulary's cue patterns, each compiled
once per vocabulary. Shared by the question parser (:mod:`.ask_parser`) and the claim extractor
(:mod:`.extract`).
"""
from __future__ import annotations

import re
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .vocabulary import Vocabulary

_SEP = re.compile(r"[\s\-_.]+")
_DIGIT_LETTER = re.compile(r"(?<=[0-9])(?=[a-z])")


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    eid: str
    kind: str


_LEXICONS: "weakref.WeakKeyDictionary[Vocabulary, tuple[tuple[str, tuple[tuple[re.Pattern[str], str, bool, str], ...]], ...]]" = \
    weakref.WeakKeyDictionary()


def _alias_pattern(alias: str) -> str:
    """A regex for one lower-cased alias: separators are interchangeable, latin ends need word boundaries.

    "llama2-13b" also matches "llama2 13b" and "Llama 2-13B"; "a100 80gb" matches "a100 80 gb"; an alias
    ending in a digit takes a plural "s" ("A100s"); a latin start may follow "4x" ("4xA100").
    """
    tokens = [t for t in _SEP.split(alias) if t]
    body = r"[\s\-_.]*".join(r"\s?".join(re.escape(p) for p in _DIGIT_LETTER.split(t)) for t in tokens)
    head, tail = tokens[0][0], tokens[-1][-1]
    if head.isascii() and head.isalnum():
        body = r"(?:(?<![a-z0-9])|(?<=[0-9]x))" + body
    if tail.isascii() and tail.isdigit():
        body += r"(?:'?s)?(?![a-z0-9])"
    elif tail.isascii() and tail.isalnum():
        body += r"(?![a-z0-9])"
    return body


def per_vocabulary(cache: "weakref.WeakKeyDictionary", vocab: Vocabulary, build: Any) -> Any:
    """``build(vocab)`` computed once per vocabulary object (recomputed for one that cannot be cached)."""
    try:
        cached = cache.get(vocab)
    except TypeError:
        cached = None
    if cached is None:
        cached = build(vocab)
        try:
            cache[vocab] = cached
        except TypeError:
            pass
    return cached


def _anchor(alias: str) -> str:
    """Text every match of the alias's pattern contains literally: its first token up to the first place
    where the pattern allows a space (between a digit and a letter), so most patterns can be skipped
    with a substring test."""
    first = next((t for t in _SEP.split(alias) if t), "")
    return _DIGIT_LETTER.split(first)[0]


def _lexicon(vocab: Vocabulary) -> tuple[tuple[str, tuple[tuple[re.Pattern[str], str, bool, str], ...]], ...]:
    """Compiled alias patterns by their literal anchor: (anchor, ((pattern, entity id, whether the id ends in
    a digit, its kind), ...)); cached per vocabulary object."""
    def build(v: Vocabulary) -> tuple[tuple[str, tuple[tuple[re.Pattern[str], str, bool, str], ...]], ...]:
        by_anchor: dict[str, list[tuple[re.Pattern[str], str, bool, str]]] = {}
        for a, eid in sorted(v.aliases().items(), key=lambda kv: (-len(kv[0]), kv[0])):
            if a.strip() and _SEP.sub("", a):
                by_anchor.setdefault(_anchor(a), []).append((re.compile(_alias_pattern(a)), eid, eid[-1:].isdigit(),
                                                             v.kind_of(eid) or ""))
        return tuple((anchor, tuple(entries)) for anchor, entries in by_anchor.items())
    return per_vocabulary(_LEXICONS, vocab, build)


_RECENT: "weakref.WeakKeyDictionary[Vocabulary, OrderedDict[str, tuple[Match, ...]]]" = weakref.WeakKeyDictionary()
_RECENT_TEXTS = 8                 # texts remembered per vocabulary: a check reads its text several times
_RECENT_LOCK = threading.Lock()


#: the size part of a cloud instance's name right after its family's (AWS "g6.12xlarge", "p4d.24xlarge", Tencent
#: "GN7.2XLARGE32", "GN10Xp.20XLARGE320")
INSTANCE_SIZE = re.compile(r"\.\d*(?:x?large|medium|small|micro|nano|metal)\d*(?![a-z0-9])")


def match_entities(low: str, vocab: Vocabulary) -> list[Match]:
    """Entity mentions in text order; on overlap the longest mention wins, then one read without a plural
    "s" ("L40S" is the L40S, not two L40s), then the earliest. The last few texts' mentions are kept, so
    the extractor, the guards and the unknown-name check of one text read it once."""
    recent = per_vocabulary(_RECENT, vocab, lambda v: OrderedDict())
    with _RECENT_LOCK:
        hit = recent.get(low)
        if hit is not None:
            recent.move_to_end(low)
            return list(hit)
    out = _match_entities(low, vocab)
    # "RTX 3090 Ti" names another card than "RTX 3090" (cues product_suffix): no mention of the latter
    suffixes = [rx for val, rx in cue_patterns(vocab)["product_suffix"] if val == "other"]
    out = [f for f in out if f.kind != "gpu" or not any(rx.match(low, f.end) for rx in suffixes)]
    # "g6.12xlarge", "GN7.2XLARGE32": a family's name with a size after it names one instance size; a size the
    # catalog knows is matched whole (the longer mention wins), so this one is a size gpukb does not know, not the family
    out = [f for f in out if f.kind != "family" or not INSTANCE_SIZE.match(low, f.end)]
    with _RECENT_LOCK:
        recent[low] = tuple(out)
        while len(recent) > _RECENT_TEXTS:
            recent.popitem(last=False)
    return out


def _match_entities(low: str, vocab: Vocabulary) -> list[Match]:
    found: list[tuple[Match, bool]] = []
    for anchor, entries in _lexicon(vocab):
        i = low.find(anchor)
        if i < 0:
            continue
        at = []                                # the anchor's places (overlapping ones too)
        while i >= 0:
            at.append(i)
            i = low.find(anchor, i + 1)
        for rx, eid, digit_end, kind in entries:
            after = 0
            for i in at:
                # every match begins with its anchor: trying the pattern at the anchor's places, left to right
                # and past the last match, finds what rx.finditer(low) finds, without scanning the whole text
                m = rx.match(low, i) if i >= after else None
                if m is not None and m.end() > m.start():
                    after = m.end()
                    found.append((Match(m.start(), m.end(), eid, kind), digit_end and low[m.end() - 1] == "s"))
    found.sort(key=lambda xp: (-(xp[0].end - xp[0].start), xp[1], xp[0].start, xp[0].eid))
    found = [x for x, _ in found]
    taken = [False] * len(low)
    chosen: list[Match] = []
    for f in found:
        if not any(taken[f.start:f.end]):
            chosen.append(f)
            for i in range(f.start, f.end):
                taken[i] = True
    return sorted(chosen, key=lambda x: x.start)


_CUES: "weakref.WeakKeyDictionary[Vocabulary, dict[str, tuple[tuple[str, re.Pattern[str]], ...]]]" = weakref.WeakKeyDictionary()


def cue_patterns(vocab: Vocabulary) -> dict[str, tuple[tuple[str, re.Pattern[str]], ...]]:
    """The vocabulary's cue patterns, compiled once per vocabulary: group -> ((value, pattern), ...)."""
    return per_vocabulary(_CUES, vocab, lambda v: {
        g: tuple((val, re.compile(p)) for val, ps in (getattr(v, "cues", {}).get(g) or {}).items() for p in ps)
        for g in ("method", "precision", "intent", "scale", "question_fact", "question_fact_fallback", "question_fact_not", "optimizer", "engine", "kv_cache_dtype", "claim_check", "method_contrast",
                  "product_suffix")})


def generic_model(eid: str, vocab: Vocabulary) -> bool:
    """A model entity with no fixed size (a family such as "Llama", or "LLMs in general")."""
    label = str(vocab.entities.get(eid, {}).get("name", "")).lower()
    return "(family)" in label or "in general" in label


def resolve_variant(m: Match, masked: str, vocab: Vocabulary) -> str:
    """Pick a sized variant from an adjacent memory size: "80GB A100" or "A100 (80 GB)" → A100-80GB."""
    variants = vocab.entities.get(m.eid, {}).get("variants") or []
    if not variants:
        return m.eid
    sizes: list[str] = []
    before = re.search(r"(\d{2,3})\s*g(?:b|ib)?\s*$", masked[max(0, m.start - 10):m.start])
    after = re.match(r"\s*\(?\s*(?:with\s+)?(\d{2,3})\s*g(?:b|ib)?s?(?![a-z0-9])", masked[m.end:m.end + 16])
    sizes += [x.group(1) for x in (after, before) if x]
    for size in sizes:
        for v in variants:
            if str(v).lower().endswith(f"-{size}gb"):
                return str(v)
    return m.eid
