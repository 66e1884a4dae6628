"""Statements relating one product to others, for the claim extractor: instances recommended instead of
the product a passage speaks of ("建议升级到 GN7-A10", "upgrade to a GN10Xp"). The words are vocabulary
data (``cues.advice.upgrade``)."""
from __future__ import annotations

from typing import Any

from ..kb.lexicon import Match as _Match
from .subject import HARDWARE, Candidate, topic
from .tokens import negated, segment

#: the kinds of product one is advised to move to
TARGETS = ("family", "instance", "platform")


def upgrades(low: str, masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
             t: dict[str, Any]) -> list[Candidate]:
    """"如果需要训练更大模型，建议升级到 GN7-V100 或 GN7-A10", "T4 users should move to an A10 instance":
    the products named after an upgrade word in its clause are the instances recommended for the
    hardware named before the word in the sentence, else for the product the passage is about. A
    negated upgrade ("no need to upgrade to …", "不必换成 …") recommends nothing."""
    out: list[Candidate] = []
    for rx in t["upgrade"]:
        for cue in rx.finditer(low, s, e):
            a, b = segment(masked, s, e, cue.start())
            targets = [m for m in ents if m.kind in TARGETS and cue.end() <= m.start < b]
            if not targets or negated(masked, a, cue.start(), cue.end(), cue.end(), t):
                continue
            before = [m for m in ents if m.kind in HARDWARE and m.end <= cue.start() and m not in targets]
            if before:
                subj, conf = before[-1].eid, 0.6
            else:
                subj, conf = topic(("family", "instance", "gpu"), carried)
            ids = list(dict.fromkeys(m.eid for m in targets if m.eid != subj))
            if subj is None or not ids:
                continue
            out.append(Candidate(cue.start(), targets[-1].end, subj, "recommended_instance", ids,
                                 modality="recommendation", confidence=conf))
    return out
