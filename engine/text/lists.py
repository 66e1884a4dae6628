"""Lists and pronouns for the claim extractor: the runs of product names that one statement is made of
("A、B 和 C 都支持 X", "GI3/GI3N", "neither the A nor the B"), the products a pronoun stands for ("它们",
"they": the list the previous sentences named), a statement of one member spread to its whole list,
a figure two products are said to share ("与 L40S 相同"), abbreviated lists of variants ("ZeRO-2/3": ZeRO-2 and
ZeRO-3) and a heading line that states a verdict
of the product it names or the passage is about. The list words and pronouns are vocabulary data
(``cues.coreference``)."""
from __future__ import annotations

import re
import weakref
from dataclasses import replace
from typing import Any

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match, per_vocabulary
from .subject import HARDWARE, Candidate, subject_of
from .tokens import any_match
from .guard_base import vocab_cues
from .workload import verdict_attributes

#: claims about a name itself (it exists, its vendor): said of each mention, never spread to a list
_OWN = ("exists", "vendor", "family")
_PAREN = re.compile(r"[（(][^（(）)]{0,40}[）)]")
_SIZE_FIRST = re.compile(r"\d+(?:\.\d+)?\s*g(?:b|ib)?[\s\-]*(?:nvidia\s+)?")
_ABBREV = re.compile(r"\s*/\s*(\d{1,2})(?![0-9a-z])")
_TAIL_DIGITS = re.compile(r"(\d{1,2})$")
_SEP = re.compile(r"[\s\-_.]+")
_INDEX: "weakref.WeakKeyDictionary[Vocabulary, dict[str, str]]" = weakref.WeakKeyDictionary()


def groups(low: str, ents: list[_Match], t: dict[str, Any]) -> list[list[_Match]]:
    """The runs of hardware names of one kind joined by list words (a parenthesis after a name, "A10
    （24GB）、L4", stays inside the run); a name standing alone is a run of one."""
    out: list[list[_Match]] = []
    for m in (m for m in ents if m.kind in HARDWARE):
        prev = out[-1][-1] if out else None
        gap = _PAREN.sub("", low[prev.end:m.start]) if prev is not None else ""
        if prev is not None and prev.kind == m.kind and prev.end <= m.start and any_match(t["coref"]["joiner"], gap):
            out[-1].append(m)
        else:
            out.append([m])
    return out


def spread(low: str, found: list[Candidate], runs: list[list[_Match]], vocab: Vocabulary) -> list[Candidate]:
    """"A 和 B 都支持 X": a claim about the last-named member of a list (the subject nearest before its
    statement) is the same claim about every member. Claims about a name itself are not spread, nor
    those of a list whose names each carry a parenthesis of their own."""
    out: list[Candidate] = []
    for c in found:
        if c.attribute in _OWN:
            continue
        run = next((r for r in reversed(runs) if len(r) > 1 and r[-1].eid == c.subject and r[-1].end <= c.end), None)
        # "a 24GB RTX 3090 or RTX 4090": a size written before the first name of a list is each one's
        lead = next((r for r in runs if len(r) > 1 and r[0].eid == c.subject and c.attribute == "memory_gb"
                     and isinstance(c.value, (int, float))
                     and _SIZE_FIRST.fullmatch(low, c.start, r[0].start)), None)
        if lead is not None:
            out += [replace(c, subject=m.eid, qualifiers=dict(c.qualifiers), end=max(c.end, m.end)) for m in lead[1:]
                    if m.eid != c.subject and not any(x.attribute == c.attribute and (x.subject == m.eid or (
                        vocab.generic(x.subject) == m.eid and vocab.names_size(x.subject, float(c.value)))) for x in found)]
            continue
        if run is None or any(_PAREN.search(low, a.end, b.start) for a, b in zip(run, run[1:])):
            continue                  # "A（24GB）、B（40GB）": each name with a figure of its own
        for m in run[:-1]:
            if m.eid != c.subject:
                out.append(replace(c, subject=m.eid, qualifiers=dict(c.qualifiers), start=min(c.start, m.start)))
    return out


#: right before a word of sameness: it is denied ("不一样", "not the same")
_DENIED = re.compile(r"(?:不|没有?|并非|并不|not\s+(?:quite\s+)?)\s*$")
#: how far (in characters) before the figure it shares a word of sameness may stand
_SAME_REACH = 48
#: where a clause turns to another statement ("…, but the L20 is a 275W card", "the same memory as the RTX 4090 but
#: a much lower 150 W", "，但")
_TURN = re.compile(r"(?<![a-z])(?:but|while|whereas|though|although|yet)(?![a-z])|[,，;；]\s*(?:但|但是|而|不过)|[;；]")


def spread_same(low: str, s: int, e: int, found: list[Candidate], hardware: list[_Match], vocab: Vocabulary) -> list[Candidate]:
    """"L20 的 FP32 算力与 L40S 相同，都是约 91.6 TFLOPS", "the A800 keeps the A100's 600 GB/s NVLink bandwidth":
    a sentence that names two products of one kind and says, next to a figure, that it is the same for both
    (cues ``check_guard.same_value``, not denied, before the figure and within ``_SAME_REACH`` of it, no turn
    of the sentence between) states it of each. Only a product's own figure is shared, never a comparison's."""
    kinds = {vocab.generic(m.eid): m.kind for m in hardware if s <= m.start < e and m.kind in HARDWARE}
    if len(kinds) != 2 or len(set(kinds.values())) != 1:
        return []
    cues = [m for rx in vocab_cues(vocab, "same_value") for m in rx.finditer(low, s, e)
            if not _DENIED.search(low, max(s, m.start() - 8), m.start())]
    one, other = kinds
    have = {(vocab.generic(c.subject), c.attribute) for c in found}
    out: list[Candidate] = []
    for c in found:
        own, spec = vocab.generic(c.subject), vocab.attributes.get(c.attribute)
        if own not in kinds or c.attribute in _OWN or spec is None or spec.dimension == "ratio" or spec.enum == "verdict" \
                or any(str(v).split(":")[0] in HARDWARE for v in _flat(c.qualifiers.values())):
            continue
        near = [m for m in cues if m.end() <= c.end and c.end - m.end() <= _SAME_REACH
                and not _TURN.search(low, m.end(), c.end)]      # (a claim's span may start at its subject)
        twin = other if own == one else one
        if near and (twin, c.attribute) not in have:
            have.add((twin, c.attribute))
            out.append(replace(c, subject=twin, qualifiers=dict(c.qualifiers), confidence=c.confidence * 0.9))
    return out


def _flat(values) -> list[Any]:
    return [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]


def pronoun_list(low: str, s: int, e: int, t: dict[str, Any]) -> bool:
    """The sentence speaks of several products by a pronoun ("they", "它们", "二者")."""
    return any_match(t["coref"]["plural"], low[s:e])


def spread_to_referents(found: list[Candidate], run: list[_Match]) -> list[Candidate]:
    """"They have no NVLink" after "the L4 and the A10 …": a claim about the last product of the list the
    previous sentences named (what the subject resolution carried) is a claim about each of them."""
    if len(run) < 2:
        return []
    ids = [m.eid for m in run]
    out: list[Candidate] = []
    for c in found:
        if c.attribute in _OWN or c.subject != ids[-1]:
            continue
        out += [replace(c, subject=x, qualifiers=dict(c.qualifiers)) for x in dict.fromkeys(ids[:-1]) if x != c.subject]
    return out


def _alias_index(vocab: Vocabulary) -> dict[str, str]:
    """Each alias without its separators ("zero-3" → "zero3") → entity id."""
    return per_vocabulary(_INDEX, vocab, lambda v: {_SEP.sub("", a): eid for a, eid in sorted(v.aliases().items(), key=lambda kv: -len(kv[0]))})


def abbreviated(low: str, mentions: list[_Match], vocab: Vocabulary) -> list[_Match]:
    """"ZeRO-2/3", "stage 2/3": a name ending in a number followed by "/N" also names the variant whose
    name ends in N, when the vocabulary knows one of the same kind (each such variant as a mention of its
    number)."""
    index = _alias_index(vocab)
    taken = {(m.start, m.end) for m in mentions}
    out: list[_Match] = []
    for m in mentions:
        d = _TAIL_DIGITS.search(low, m.start, m.end)
        pos = m.end
        while d is not None:
            a = _ABBREV.match(low, pos)
            if a is None:
                break
            eid = index.get(_SEP.sub("", low[m.start:d.start()] + a.group(1)))
            if eid is None or eid == m.eid or vocab.kind_of(eid) != m.kind or (a.start(1), a.end(1)) in taken:
                break
            out.append(_Match(a.start(1), a.end(1), eid, m.kind))
            pos = a.end()
    return out


def heading_verdict(low: str, masked: str, s: int, e: int, verdict: str, ents: list[_Match],
                    carried: dict[str, _Match], t: dict[str, Any], vocab: Vocabulary) -> list[Candidate]:
    """"✅ 适合 L4 的场景", "Where the A10 falls short": a heading with a verdict states it of the product it
    names, else of the product the passage is about (none when neither is known)."""
    out: list[Candidate] = []
    for attr in verdict_attributes(masked, s, e, verdict, t):
        kinds = tuple(k for k in vocab.attributes[attr].applies_to if k in HARDWARE)
        subj, conf = subject_of(kinds, e, ents, carried, (s, e), topic_first=True)
        if subj is not None:
            out.append(Candidate(s, e, subj, attr, verdict, modality="verdict", confidence=conf * 0.7))
    return out
