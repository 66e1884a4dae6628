"""Mentions read differently in advice, for the claim extractor: precision words advised are the
technique of training in that precision ("use mixed precision", "bf16/fp16 自动混合精度": the
mixed-precision technique, with BF16 and FP16 as its precisions). The words are vocabulary data
(``cues.advised_as``)."""
from __future__ import annotations

from typing import Any

from ..kb.lexicon import Match as _Match


def advised(ents: list[_Match], low: str, t: dict[str, Any]) -> list[_Match]:
    """The mentions of a piece of advice, with precision words that name a technique when advised
    (``cues.advised_as``) read as that technique."""
    out: list[_Match] = []
    for m in ents:
        if m.kind == "precision":
            eid = next((tech for tech, rxs in t["advised_as"] if any(rx.fullmatch(low, m.start, m.end) for rx in rxs)), None)
            if eid is not None:
                m = _Match(m.start, m.end, eid, "technique")
        out.append(m)
    return out
