"""Who a statement is about, for the claim extractor: the candidate claim itself, the subject of a
statement (the nearest fitting entity, the passage's product carried from earlier sentences, the product
a table's heading names), the family a carried GPU's statement belongs to, the vendor opening a
product's name and the general concept a statement naming no product is about."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..kb.lexicon import Match as _Match
from ..kb.vocabulary import Vocabulary
from .tokens import any_match, negated

HARDWARE = ("gpu", "family", "instance")
PRODUCTS = ("family", "instance", "product", "platform")
#: the key prefix under which ``carried`` holds the products named by the line heading a table
HEADING = "heading:"

@dataclass
class Candidate:
    """One claim read from the text, before the audit judges it."""

    start: int
    end: int
    subject: str
    attribute: str
    value: Any
    unit: str | None = None
    qualifiers: dict[str, Any] = field(default_factory=dict)
    modality: str = "spec"
    confidence: float = 0.8
    approx: bool = False

    def as_dict(self, text: str) -> dict[str, Any]:
        d = {"span": [self.start, self.end], "quote": text[self.start:self.end], "subject": self.subject,
             "attribute": self.attribute, "value": self.value, "qualifiers": self.qualifiers,
             "modality": self.modality, "confidence": round(self.confidence, 2)}
        if self.unit is not None:
            d["unit"] = self.unit
        if self.approx:
            d["approx"] = True
        return d


def in_aside(m: _Match, text: str, pos: int) -> bool:
    """``m`` is named inside a parenthesis that does not hold ``pos`` and says more than the name ("384 GB (up
    from 80 GB on H100) and 8 TB/s"): a remark about another product, not the subject of a figure outside it.
    A bare name in brackets ("≥24GB(A10)") labels the figure beside it."""
    opened = max(text.rfind("(", 0, m.start), text.rfind("（", 0, m.start))
    if opened < 0 or max(text.rfind(")", opened, m.start), text.rfind("）", opened, m.start)) >= 0:
        return False                       # not inside a parenthesis
    shut = min((i for i in (text.find(")", m.end), text.find("）", m.end)) if i >= 0), default=-1)
    if shut < 0 or opened < pos <= shut:
        return False                       # unclosed, or the statement is inside it too
    return bool(re.search(r"[^\s,，、/]", text[opened + 1:m.start] + text[m.end:shut]))


#: what ends a clause inside a comma-delimited piece: a contrast ("... but cuts NVLink to 400 GB/s") or a semicolon
_CLAUSE_BREAK = re.compile(r"(?<![a-z])(?:but|yet|while|whereas)(?![a-z])|[;；]")


def possessive(m: _Match, plain: str) -> bool:
    """``m`` is named as an owner ("the H100's 80 GB", the name's match taking its "'s"): it owns the noun phrase
    after it, not a later clause. ``plain`` is the unmasked text."""
    return plain[max(m.start, m.end - 2):m.end] in ("'s", "’s") or re.match(r"['’]s(?![a-z])", plain[m.end:m.end + 3]) is not None


def _last_not_owner(before: list[_Match], plain: str) -> _Match | None:
    """The last of ``before`` not named as an owner (:func:`possessive`), or None."""
    return next((m for m in reversed(before) if not possessive(m, plain)), None)


#: a form factor's name, which tells one version of a product from another ("SXM5", "PCIe", "NVL")
FORM_FACTOR = r"pcie|sxm\d?|nvl"
#: a form factor's name standing as a word of its own ("H100 SXM5", "SXM 700 W、PCIe 300 W")
FORM_WORD = re.compile(rf"(?<![a-z0-9])({FORM_FACTOR})(?![a-z])")
#: a noun phrase that picks one of the products a sentence compares: "the former", "the latter", 前者, 后者, or a
#: form factor or memory size with a noun ("the PCIe card", "the SXM5 module", "the 80GB version", "PCIe 版")
_PICK = re.compile(rf"(?<![a-z])the\s+(former|latter)(?![a-z])|(前者|后者)"
                   rf"|(?<![a-z])the\s+({FORM_FACTOR}|\d{{2,3}}\s*gb)\s+(?:cards?|versions?|models?|variants?|modules?|boards?"
                   rf"|parts?|editions?|ones?)(?![a-z])|(?<![a-z0-9])({FORM_FACTOR}|\d{{2,3}}\s*gb)\s*(?:版本?|型号|款)")


def form_token(word: str) -> str:
    """A form factor or size as names hold it: spaces out and a generation's digit off ("SXM5" is the "H100 SXM")."""
    return re.sub(r"\s+|(?<=[a-z])\d$", "", word)


def picked(before: list[_Match], plain: str, pos: int) -> _Match | None | bool:
    """The product that a picking phrase between the last product named before ``pos`` and ``pos`` points to
    ("H100 PCIe vs H100 SXM: ... the PCIe card uses HBM2e", "A 与 B：前者 ..."): the first or second product
    named, or the one whose name holds the form factor or size; False when the phrase points to none or to
    several (the figure has no subject the text makes sure of); None when there is no such phrase."""
    if not before:
        return None
    found = list(_PICK.finditer(plain, before[-1].end, pos))
    if not found:
        return None
    m = found[-1]
    order = list({b.eid: b for b in before}.values())          # the products in the order first named
    if m.group(1) or m.group(2):
        if len(order) < 2:
            return False
        return order[0] if (m.group(1) or m.group(2)) in ("former", "前者") else order[1] if len(order) == 2 else False
    token = form_token(m.group(3) or m.group(4))
    hits = [b for b in order if token in re.sub(r"[\s\-]+", "", plain[b.start:b.end])]
    return hits[0] if len(hits) == 1 else False


def subject_of(kinds: tuple[str, ...], pos: int, ents: list[_Match], carried: dict[str, _Match],
               seg: tuple[int, int], topic_first: bool = False, text: str | None = None,
               plain: str | None = None) -> tuple[str | None, float]:
    """The entity a statement at ``pos`` is about: the nearest one of a fitting kind before it (in its
    clause first), else after it in its clause, else the last one of the previous sentences. With
    ``topic_first`` (verdicts, which judge the product a passage is about), the passage's product comes
    before hardware named later in the sentence ("…扩展性差；低于 A100" judges the passage's product).
    With ``text``, a product named in a parenthesis that does not hold the statement is passed over when
    the sentence names another outside it (:func:`in_aside`). With ``plain`` (the unmasked text), a product
    named as an owner ("the H100's 80 GB") is no subject of a later clause (:func:`possessive`), and a phrase that
    picks one of the products named ("the PCIe card", "the latter") names the subject (:func:`picked`)."""
    fit = [m for m in ents if m.kind in kinds]
    if text is not None:
        outside = [m for m in fit if not in_aside(m, text, pos)]
        fit = outside if outside else fit
    if topic_first and not [m for m in fit if m.end <= pos or m.start < seg[1]]:
        for k in kinds:
            if k in carried:
                return carried[k].eid, 0.55
    before = [m for m in fit if m.end <= pos]
    if plain is not None and (pick := picked(before, plain, pos)) is not None:
        return (pick.eid, 0.8) if pick else (None, 0.0)     # "the PCIe card", "the latter": the product it picks
    in_seg = [m for m in before if m.start >= seg[0]]
    if in_seg:
        last = in_seg[-1]
        if plain is not None and possessive(last, plain) and _CLAUSE_BREAK.search(plain, last.end, pos):
            owner = _last_not_owner(before, plain)     # "H800 keeps the H100's 80 GB but cuts NVLink to 400 GB/s"
            if owner is not None:
                return owner.eid, 0.7
        return last.eid, 0.9
    after = [m for m in fit if m.start >= pos and m.end <= seg[1]]
    if after:
        return after[0].eid, 0.8
    if before:
        owner = _last_not_owner(before, plain) if plain is not None and possessive(before[-1], plain) else None
        if owner is not None:       # the owner of one noun phrase ("the H100's 80 GB") is not a later clause's subject
            return owner.eid, 0.7
        return before[-1].eid, 0.8
    if fit:
        return fit[0].eid, 0.65
    for k in kinds:                # a table row: the product the line heading its table names
        if HEADING + k in carried:
            return carried[HEADING + k].eid, 0.6
    if any(m.kind in HARDWARE for m in ents):
        return None, 0.0          # the sentence speaks of other hardware: no subject from earlier sentences
    for k in kinds:
        if k in carried:
            return carried[k].eid, 0.55
    return None, 0.0


def figure_subject(attr: str, vocab: Vocabulary, pos: int, ents: list[_Match], carried: dict[str, _Match],
                   seg: tuple[int, int], text: str, plain: str | None = None) -> tuple[str, str | None, float]:
    """(attribute, subject, confidence) of a figure read as ``attr``: a GPU-memory sum with no instance or family
    to own it ("一台 8 卡服务器共有 320GB 显存") is read as the cards' memory, which the check's guards then doubt."""
    subj, conf = subject_of(vocab.attributes[attr].applies_to, pos, ents, carried, seg, text=text, plain=plain)
    if subj is None and attr == "gpu_memory_total_gb":
        attr = "memory_gb"
        subj, conf = subject_of(vocab.attributes[attr].applies_to, pos, ents, carried, seg, text=text, plain=plain)
    return attr, subj, conf


def host_of(subject: str | None, ents: list[_Match], masked: str, s: int, pos: int, t: dict[str, Any]) -> str | None:
    """In "GN7 carries the T4 and supports X", X is said of GN7: a GPU that is the object of a family's
    "carries" earlier in the sentence hands the statement back to the family, unless the statement sits
    in a parenthesis right after the GPU's name ("A10（24GB 显存）" is the A10's)."""
    gpu = next((m for m in reversed(ents) if m.eid == subject and m.end <= pos), None)
    if gpu is not None and re.match(r"\s*[（(][^）)]*$", masked[gpu.end:pos]):
        return None
    for h in carries(masked, s, pos, [m for m in ents if m.end <= pos], t):
        if subject in h.value:
            return h.subject
    return None


def widen(c: Candidate, ents: list[_Match], seg: tuple[int, int]) -> None:
    """Grow a claim's span to its subject when the subject is named in the same clause."""
    for m in ents:
        if m.eid == c.subject and seg[0] <= m.start <= seg[1]:
            c.start, c.end = min(c.start, m.start), max(c.end, m.end)


#: between an instance and the GPU it carries: a colon or parenthesis, then maybe a count of cards ("p4d.24xlarge: 8× A100")
_CARRIED_AFTER = re.compile(r"\s*(?:实例|系列|instances?|series)?\s*[（(:：]\s*(?:\d{1,2}\s*(?:[×x*]|张|块|颗|卡)\s*)?(?:nvidia\s*)?")


def carries(masked: str, s: int, e: int, ents: list[_Match], t: dict[str, Any]) -> list[Candidate]:
    """"GN7 is based on the T4", "GN7 实例搭载 T4", "p4d.24xlarge: 8× A100 40GB": the GPU of an instance family or
    size (a variant when its size is named)."""
    out = []
    hosts = [m for m in ents if m.kind in ("family", "instance")]
    for h in hosts:
        # "GN7-T4": a GPU name joined to the family's is part of the family's name
        gpus = [m for m in ents if m.kind == "gpu" and m.start >= h.end and m.start - h.end <= 64
                and not re.fullmatch(r"-?", masked[h.end:m.start])]
        if not gpus:
            continue
        g = gpus[0]
        between = masked[h.end:g.start]
        if not any_match(t["carries"], between) and not _CARRIED_AFTER.fullmatch(between):
            continue                  # "GN7-T4" is a product name, "GN7 vs T4" a comparison
        value = [g.eid] + [m.eid for m in gpus[1:] if re.fullmatch(r"\s*(?:/|或|or|and|和|、)\s*", masked[gpus[0].end:m.start]) ]
        if negated(masked, h.end, g.start, g.end, min(e, g.end + 8), t) and "\ue000" not in between:
            continue                              # "GN7 does not use an A100" is not a statement of its GPU
        out.append(Candidate(h.start, g.end, h.eid, "gpu", value, confidence=0.85))
    return out


def topic(kinds: tuple[str, ...], carried: dict[str, _Match]) -> tuple[str | None, float]:
    """The product a passage is about: the last one named of the first fitting kind."""
    for k in kinds:
        if k in carried:
            return carried[k].eid, 0.5
    return None, 0.0


def vendor_prefix(m: _Match, low: str, t: dict[str, Any]) -> str | None:
    """The vendor whose name opens a product's mention ("腾讯云 GN7" as one alias)."""
    for eid, alias in t["vendors"]:
        if low.startswith(alias, m.start) and m.end - m.start > len(alias):
            return eid
    return None


def topic_concept(text: str, t: dict[str, Any], general: bool = True) -> str | None:
    """The general concept a statement naming no product is about, by the words of ``text`` (the last
    concept of ``cues.topic`` is the most general one, only taken with ``general``)."""
    topics = t["topics"] if general else t["topics"][:-1]
    return next((eid for eid, rxs in topics if any_match(rxs, text)), None)


#: between a GPU's name and the instance or family it sits in ("the A10G in AWS G5 instances has 24 GB"):
#: the instance is where the GPU is, the GPU stays what the sentence speaks of
_LOCATIVE = re.compile(r"\s*(?:(?:gpus?|cards?|accelerators?)\s+)?(?:(?:used|found|offered|deployed|available)\s+)?"
                       r"(?:in|on|inside|within)\s+(?:the\s+|an?\s+|each\s+|every\s+)?")


def locative_gpu(low: str, before: list[Any]) -> Any | None:
    """The GPU named right before the instance or family that is the last product named in ``before``
    (mentions in text order, all before the figure), joined by "in"/"on" (see ``_LOCATIVE``); else None.

    >>> from gpukb.engine.kb.lexicon import Match
    >>> ms = [Match(4, 8, "gpu:A10G", "gpu"), Match(12, 18, "family:aws-g5", "family")]
    >>> locative_gpu("the a10g in aws g5 has 48 gb", ms).eid
    'gpu:A10G'
    """
    if len(before) < 2 or before[-1].kind not in ("instance", "family") or before[-2].kind != "gpu":
        return None
    gpu, host = before[-2], before[-1]
    return gpu if _LOCATIVE.fullmatch(low, gpu.end, host.start) else None

