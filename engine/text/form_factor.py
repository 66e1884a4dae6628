"""The board version a claim's product is named with ("A100 80GB SXM", "A100 PCIe 80GB", "V100 SXM2"), when
the reference gives the claim's attribute per version: the claim is then judged against that version's
figure, not against whichever version is nearest ("the A100 80GB SXM has 1,935 GB/s" is the PCIe card's figure)."""
from __future__ import annotations

import re
from typing import Any

from ..kb.store import ReleaseView
from .guard_base import own_ids
from .subject import FORM_FACTOR, FORM_WORD, form_token

#: a form factor right after a product's name, over its memory size ("A100 80GB SXM4", "A100 (PCIe, 40 GB)")
_AFTER_NAME = re.compile(rf"[\s\-_(（]*(?:\d{{2,3}}\s*gb[\s\-_,，]*)?({FORM_FACTOR})(?![a-z])")


def versions(view: ReleaseView, subject: str, attribute: str) -> dict[str, str]:
    """The form factors the reference gives ``attribute`` of ``subject`` per version, by their token
    ("sxm" -> "SXM", "sxm2" -> "SXM2", "pcie" -> "PCIe"); empty when it gives one figure for all."""
    out: dict[str, str] = {}
    ids = (subject, *(view.kb.vocab.entities.get(subject, {}).get("variants") or ()))   # "A100": its 40 and 80 GB cards
    for r in (r for e in ids for r in view.by_subject_attr.get((e, attribute), [])):
        ff = (r.qualifiers or {}).get("form_factor") if r.tier == "reference" else None
        if isinstance(ff, str) and re.fullmatch(r"[A-Za-z]+\d?", ff):
            out[ff.lower()] = ff
    return out


def form_factor_said(guards: Any, pos: int, subject: str, attribute: str) -> str | None:
    """The form factor (as the reference writes it) that the sentence of the claim at ``pos`` names its product with,
    right after the last mention of it (else the heading of its section does: "NVIDIA V100 SXM2" over a spec list);
    None when it names none, names several, or the reference gives the attribute one figure for every version.

    The sentence (or heading) must name one form factor only (:data:`.subject.FORM_WORD`): "A100 80GB SXM vs PCIe: 400 W
    and 300 W" is left alone."""
    view, low = guards.view, guards.low
    known = versions(view, subject, attribute)
    if not known:
        return None
    own = own_ids(view.kb.vocab, subject)
    for start, end in (guards.unit(pos), guards.section(pos) or (0, 0)):
        named = [m for m in guards.mentions if start <= m.start and m.end <= end and m.eid in own]
        if named:
            break
    else:
        return None
    m = _AFTER_NAME.match(low, named[-1].end)
    if m is None or {form_token(w) for w in FORM_WORD.findall(low, start, end)} != {form_token(m.group(1))}:
        return None
    word = m.group(1)
    return known.get(word) or known.get(form_token(word))
