"""Check any text: the claims it states, judged by the audit's rules with their evidence.

The claims come from :mod:`extract`; they are audited as one more source would be, against the
reference tier and gpukb's own sizing (the same rules as ``gpukb audit``, no second checker), in a
block that holds the reference tier and the text's claims only, so a check costs a fraction of a full
audit. The result is kept for a while so that each finding can be explained like any conclusion
(``/v1/conclusions/<finding id>/explain``).
"""
from __future__ import annotations

import hashlib
from bisect import bisect_left
import re
from typing import TYPE_CHECKING, Any

from ..core.errors import BadInput, Issue, NotFound, TooLarge, require_text
from ..kb.ids import bare, finding_source
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval, Vocabulary
from ..core.terms import FINDING_KINDS, label as term_label
from ..audit.result import AuditResult, audit_block
from ..audit.blocks import reachable_reference
from .bands import Bands, error_bands, verdict_of
from .guard import Guards
from .guard_list import DOCUMENT_GUARDS
from .document_guards import figures_by_product
from .figure_guards import network_speed
from .footnotes import footnoted, header_sparsity
from .guard_base import last_figure, point_of
from .extract import extract
from ..kb.labels import shown_value
from ..kb.names import name_unknowns_in_check
from .tokens import aligned_lower
from .form_factor import form_factor_said
from ..models.base import OMIT
from ..models.check import MAX_CHECK_CHARS, CheckAnswer, CheckedClaim, CheckFinding, WrongLine   # the limit is declared with the body
from ..models.vocab import Bilingual

if TYPE_CHECKING:
    from ..core.session import Session

#: statuses after which a claim needs a correction a reader can use
WRONG = ("incorrect", "misattributed", "overstated", "understated", "inconsistent_with_derivation")
#: the status of a claim the audit found wrong but whose reading is in doubt (engine/text/guard.py)
UNCLEAR = "unclear"


def judged(text: str, view: ReleaseView, claims: list[Fact], res: AuditResult,
           guards: Guards | None = None, bands: Bands | None = None) -> dict[str, dict[str, Any]]:
    """Each claim's status as ``check`` reports it: the audit's, or ``unclear`` with the guards' reasons
    where the audit found it wrong but the reading of the text is in doubt (precision before recall).
    ``guards``: the text's, when the caller read them already (:func:`reader`); ``bands``: a training method's
    error band against published measurements (:func:`..sizing.calibration.band_of`), so that a verdict on a
    run whose memory need is within that band of the GPU's capacity is not called wrong."""
    guards = guards or reader(text, view)
    out: dict[str, dict[str, Any]] = {}
    for c in claims:
        st = dict(res.status_of(c.id))
        if st["status"] in WRONG:
            reasons = guards.reasons(c, st["status"], verdict_of(res, c, st["status"], bands))
            if reasons:
                st = {"status": UNCLEAR, "audit_status": st["status"], "unclear_because": reasons}
        out[c.id] = st
    # then the text as a whole: several wrong figures for one thing are a misreading
    wrong = [c for c in claims if out[c.id]["status"] in WRONG]
    figures = figures_by_product(wrong, view.kb.vocab)
    for c in wrong:
        st = out[c.id]
        reasons = guards.reasons(c, st["status"], None, DOCUMENT_GUARDS, figures)
        if reasons:
            out[c.id] = {"status": UNCLEAR, "audit_status": st["status"], "unclear_because": reasons}
    return out


CHECK_PREFIX = "X"


def reader(text: str, view: ReleaseView) -> Guards:
    """The guards' reading of ``text`` (its products, sentences, sections and tables), made once per check
    and given to :func:`claims_of` and :func:`judged`."""
    return Guards(text, aligned_lower(text, view.kb.vocab), view)


def _check_input(text: Any) -> None:
    require_text(text, "text", "text", MAX_CHECK_CHARS, TooLarge, " (split it)")


def text_id(text: str, release: str) -> str:
    """The source id a checked text gets: X + a digest of the text and the release."""
    return CHECK_PREFIX + hashlib.sha1(f"{release}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()[:10]


def claims_of(text: str, sid: str, view: ReleaseView, lang: str | None = None,
              guards: Guards | None = None) -> tuple[list[Fact], list[dict[str, Any]], str]:
    """The text's claims as KB claims of source ``sid`` (validated like a claim file's), the passages
    not understood, and the text's language; ``guards``: as for :func:`judged`."""
    vocab = view.kb.vocab
    ex = extract(text, vocab, lang)
    facts: list[Fact] = []
    skipped: list[dict[str, Any]] = [{"span": [s, e], "quote": text[s:e], "reason": "no statement gpukb can check"}
                                     for s, e in ex.not_understood]
    sparse = _sparsity_reader(vocab)
    guards = guards or reader(text, view)
    low = guards.low
    breaks = [i for i, ch in enumerate(text) if ch == "\n"]        # a claim's line: the breaks before it
    for c in ex.claims:
        said = sparse(low, c)           # True: with sparsity; False: said to be dense; None: not said
        if said is not None and "sparsity" in vocab.qualifiers:
            c.qualifiers = {**(c.qualifiers or {}), "sparsity": said}
        if (ff := form_factor_said(guards, c.start, c.subject, c.attribute)) is not None:
            c.qualifiers = {**(c.qualifiers or {}), "form_factor": ff}     # "A100 80GB SXM": that version's figure
        line = bisect_left(breaks, c.start) + 1
        where = {"file": "<text>", "line": line}
        norm, errs = vocab.check_value(c.attribute, c.value, c.unit, where)
        quals, qerrs = vocab.check_qualifiers(c.qualifiers or None, where)
        if errs or qerrs:
            skipped.append({"span": [c.start, c.end], "quote": text[c.start:c.end],
                            "reason": "; ".join(i.message for i in errs + qerrs)})
            continue
        subject = _variant_of(c.subject, c.attribute, norm, quals, view) or c.subject
        fid = f"{sid}-C{len(facts) + 1:03d}"
        facts.append(Fact(fid, 1, "claim", subject, c.attribute, c.value, c.unit, norm, quals, "<text>", line,
                          source=sid, quote=text[c.start:c.end], span=[c.start, c.end], modality=c.modality,
                          approx=c.approx, confidence=f"{c.confidence:.2f}"))
    facts = _in_scope(text, view, facts, skipped, guards)
    skipped.sort(key=lambda x: x["span"])
    skipped = name_unknowns_in_check(text, skipped, [tuple(f.span or (0, 0)) for f in facts], vocab)
    return facts, skipped, ex.lang


def _variant_of(subject: str, attribute: str, norm: Any, quals: dict[str, Any] | None, view: ReleaseView) -> str | None:
    """A figure said of a product that comes in variants ("H100": SXM or PCIe), the reference giving it per variant
    only: read as the variant whose figure is nearest, so a figure one variant has is that variant's, and one no
    variant has is wrong whichever is meant. Only for plain figures (no qualifier such as "with sparsity")."""
    vocab = view.kb.vocab
    variants = vocab.entities.get(subject, {}).get("variants") or ()
    if not variants or quals or not isinstance(norm, Interval) or norm.kind != "number" or view.ref(subject, attribute):
        return None
    x = norm.point()
    refs = [(v, view.ref(v, attribute)) for v in variants]
    points = [(v, r.norm.point()) for v, r in refs if r is not None and isinstance(r.norm, Interval) and r.norm.kind == "number"]
    if not x or len(points) != len(variants) or any(not p for _, p in points):
        return None
    return min(points, key=lambda vp: (abs(x - vp[1]) / vp[1], vp[0]))[0]


#: attributes that judge a product (enough, suitable ...): said of no named product, they are not read
#: as a claim about the product of an earlier sentence
VERDICTS = ("memory_verdict", "suitability", "host_memory_verdict", "bandwidth_verdict", "cost_effectiveness",
            "stability_risk", "storage_io", "min_gpus", "max_params")
#: attributes a bare mention of a product "states" (it exists, is catalogued): kept only when they can be wrong
MENTIONS = ("exists", "in_catalog")


def _in_scope(text: str, view: ReleaseView, facts: list[Fact], skipped: list[dict[str, Any]],
              guards: Guards) -> list[Fact]:
    """The claims a reader takes from the text: a figure the text asks about, supposes or denies is no
    claim and goes to not_understood with the reason (:meth:`Guards.unstated`); a verdict about a product
    its sentence, table or section does not name goes there too (gpukb does not guess whom it judges), as does a
    figure of an accelerator the vocabulary names but the reference tier has no figures of (an AMD Instinct, a
    Gaudi); a mention that only says a catalogued product exists is dropped."""
    vocab = view.kb.vocab
    out = []
    for f in facts:
        why = guards.unstated(f)
        if why is not None:                  # a question, a hypothesis or a denied figure: no claim
            skipped.append({"span": list(f.span or []), "quote": f.quote, "reason": why["en"]})
            continue
        if vocab.named_only(f.subject):       # an accelerator gpukb has no figures of
            skipped.append({"span": list(f.span or []), "quote": f.quote,
                            "reason": f"said of {vocab.label(f.subject)}: not checked"})
            continue
        if f.attribute in VERDICTS and not guards.named_in_scope(f):
            skipped.append({"span": list(f.span or []), "quote": f.quote,
                            "reason": f"a verdict ({f.attribute}) whose sentence names no product; gpukb does not "
                                      f"guess that it is about {vocab.label(f.subject)}"})
            continue
        speed = network_speed(guards.low, f, vocab)
        if speed is not None:                # "IB 架构配套 800G": a link speed, not a memory size
            skipped.append({"span": list(f.span or []), "quote": f.quote,
                            "reason": f"the figure stands beside “{text[speed[0]:speed[1]]}”: a network speed in Gb/s, "
                                      "not a memory size"})
            continue
        if guards.names_size(f):
            continue                         # "A100（80GB）": the size names the variant; it states nothing more
        if guards.unnamed_card(f):
            skipped.append({"span": list(f.span or []), "quote": f.quote,
                            "reason": f"the sentence sizes a card it does not name: it says nothing of {vocab.label(f.subject)}"})
            continue
        listed = view.ref(f.subject, "in_catalog")
        if f.attribute in MENTIONS and f.value is True and listed is not None and listed.value is True:
            continue                         # "GN7 exists": nothing to report of a catalogued product
        out.append(f)
    return out


#: how far from a claim's span a sparsity word still qualifies its figure ("1,979 TFLOPS (with sparsity)", "242 TFLOPS
#: in FP16 Tensor Core operations (with sparsity)"); the window stops earlier at the next figure or clause (``_STOP``)
SPARSITY_REACH = 60


def _sparsity_reader(vocab):
    """Whether a throughput claim's figure is stated as the with-sparsity one (True), as the dense one (False) or
    neither (None) (vocabulary cues ``sparsity``), by words near it, else a footnote mark on it or its table header."""
    cues = vocab.cues.get("sparsity") or {}
    yes = [re.compile(p) for p in cues.get("true", ())]
    no = [re.compile(p) for p in cues.get("false", ())]

    def read(low: str, c) -> bool | None:
        spec = vocab.attributes.get(c.attribute)
        if spec is None or spec.dimension != "compute":
            return None
        fig = last_figure(low, (c.start, c.end))
        at = fig.start() if fig else c.start
        # the words after the figure up to the next figure or clause, and those just before it back to the
        # previous figure or clause ("624 TOPS，稀疏时为 1248 TOPS": the cue is the second figure's)
        after = low[c.end:min(len(low), c.end + SPARSITY_REACH)]
        cut = min([m.start() for m in _STOP.finditer(after)] or [len(after)])
        if cut < len(after) and after[cut].isdigit():
            # "156 TFLOPS（稀疏 312）", "(sparse: 312)": a word leading into (or in brackets with) the next figure is its
            after = _before_lead(after[:cut], yes)
        else:
            after = after[:cut]
        before = low[max(0, at - SPARSITY_REACH):at]
        before = before[max([m.end() for m in _STOP.finditer(before)] or [0]):]
        after = low[at:c.end] + " " + after       # a word right after the figure is its own ("1,979 TFLOPS with
        if any(rx.search(after) for rx in no):    # sparsity" after "989 TFLOPS of dense BF16"): it wins
            return False                          # said to be dense
        if any(rx.search(after) for rx in yes) or (any(rx.search(before) for rx in yes)
                                                   and not any(rx.search(before) for rx in no)):
            return True
        return False if any(rx.search(before) for rx in no) else footnoted(low, c.end, yes) or header_sparsity(low, at, yes, no)
    return read


#: what may stand between a sparsity word and the figure it introduces ("稀疏时为 ", "sparse: ")
_LEAD_GAP = re.compile(r"(?:时|性)?\s*(?:[:：=]|为|是|约|~)?\s*")


def _before_lead(seg: str, cues: list[re.Pattern[str]]) -> str:
    """``seg`` (the words up to the next figure) without a sparsity cue that only a separator parts from that
    figure, or that a bracket opened before it holds ("156 TFLOPS(희소성 사용 시 312 TFLOPS)"): the next figure's."""
    seg = re.sub(r"[(（][^()（）]*$", "", seg)
    for rx in cues:
        for m in rx.finditer(seg):
            if _LEAD_GAP.fullmatch(seg, m.end()):
                return seg[:m.start()]
    return seg

#: where a sparsity word stops reaching: another figure, a clause or sentence break
#: ("2:4 sparsity" is no figure; a full stop before a space ends a sentence)
_STOP = re.compile(r"(?<![a-z\d.,:：])\d(?!\s?[:：]\s?\d(?!\d))|[，;；。\n|]|,(?!\d{3})|\.(?=\s)")


def audit_claims(state: Session, view: ReleaseView, claims: list[Fact], whole_tier: bool = False) -> AuditResult:
    """The audit of ``claims`` alone, in a block with the reference facts they can reach (or, with
    ``whole_tier``, the whole reference tier: the same findings, slower)."""
    block = view.with_claims(claims, set(view.source_ids) | {c.source for c in claims if c.source})
    return audit_block(state, block, None if whole_tier else reachable_reference(view, claims))


def check_answer(state: Session, text: str, lang: str | None = None, kb_version: str | None = None) -> CheckAnswer:
    """The answer of ``gpukb check`` and ``POST /v1/check``, built here as its typed model."""
    _check_input(text)
    if lang is not None and lang not in ("en", "zh"):
        raise BadInput(f"unknown language {lang!r}", [Issue(f"unknown language {lang!r}", field="lang", allowed=["en", "zh"])])
    view = state.view(kb_version)
    sid = text_id(text, view.name)
    guards = reader(text, view)
    claims, skipped, text_lang = claims_of(text, sid, view, lang, guards)
    res = audit_claims(state, view, claims)
    state.remember_check(sid, res)
    statuses = judged(text, view, claims, res, guards, error_bands(state, view))
    out = [_checked(c, statuses[c.id], res, view, lang or text_lang) for c in claims]
    return CheckAnswer.of(kb_version=view.name, text_id=sid, lang=lang or text_lang, wrong=what_is_wrong(out, view.kb.vocab),
                          claims=out, not_understood=skipped, summary=summary(out, skipped))


def _checked(c: Fact, st: dict[str, Any], res: AuditResult, view: ReleaseView, lang: str) -> CheckedClaim:
    """One claim of the text as the answer reports it: what it says, its status, findings and correction."""
    vocab = view.kb.vocab
    unclear = st["status"] == UNCLEAR
    return CheckedClaim.of(
        id=c.id, span=list(c.span or []), quote=c.quote, subject=c.subject, subject_label=vocab.label(c.subject),
        attribute=c.attribute,
        attribute_label={lg: vocab.attribute_label(c.attribute, lg, c.qualifiers) for lg in ("en", "zh")},
        value=c.value, value_text=shown_value(c, vocab, lang),
        qualifiers={k: (v.as_dict() if isinstance(v, Interval) else v) for k, v in c.qualifiers.items()},
        modality=c.modality, confidence=float(c.confidence or 0), status=st["status"],
        findings=[_finding(f) for f in res.findings_for(c.id)], correction=correction(c, st["status"], res, view),
        unit=OMIT if c.unit is None else c.unit, reason=st.get("reason") or OMIT,
        audit_status=st["audit_status"] if unclear else OMIT, unclear_because=st["unclear_because"] if unclear else OMIT)


def what_is_wrong(claims: list[CheckedClaim], vocab: Vocabulary) -> list[WrongLine]:
    """The answer's first part: each claim found wrong, one line per language with its correction."""
    out = []
    for c in claims:
        status = c.status.value
        if status not in WRONG:
            continue
        fix = c.correction
        label = {lang: term_label("finding", status, lang) for lang in ("en", "zh")}
        out.append(WrongLine.of(claim=c.id, span=c.span, quote=c.quote, status=status,
                                en=f"“{c.quote}” is {label['en']}" + (f": {fix.en}" if fix and fix.en else "."),
                                zh=f"“{c.quote}”{label['zh']}" + (f"：{fix.zh}" if fix and fix.zh else "。")))
    return out


def _finding(f: dict[str, Any]) -> CheckFinding:
    keep = ("id", "kind", "basis", "evidence", "explanation", "rule", "premises", "grounds", "via")
    return CheckFinding.of(**{k: f[k] for k in keep if k in f}, explain=f"/v1/conclusions/{f['id']}/explain")


def correction(c: Fact, status: str, res: AuditResult, view: ReleaseView) -> dict[str, str] | None:
    """What a reader can say instead of a wrong claim, in English and Chinese: the reference value
    with its citation, else the audit's own explanation."""
    if status not in WRONG:
        return None
    vocab = view.kb.vocab
    wrong = [f for f in res.findings_for(c.id) if f["kind"] in WRONG]
    top = next((f for f in wrong if f["kind"] == status), None)
    if top is None:
        return None
    refs = [view.facts.get(bare(k)) for f in [top] + wrong for k in f.get("evidence") or []]
    refs = [r for r in refs if r is not None and r.tier == "reference" and r.attribute == c.attribute]
    refs.sort(key=lambda r: r.subject != c.subject)         # the claim's own subject first, then what it inherits from
    for ref in refs[:1]:
        name = vocab.label(c.subject)
        via = "" if ref.subject == c.subject else f" ({vocab.label(ref.subject)})"
        en, zh = (vocab.attribute_label(c.attribute, lang, ref.qualifiers) for lang in ("en", "zh"))
        said_en, said_zh = shown_value(c, vocab, "en"), shown_value(c, vocab, "zh")
        if isinstance(c.value, (int, float)) and c.unit not in (None, "", "1") and c.unit not in said_en:  # "9 POPS" as written
            said_en = said_zh = ("~" if c.approx else "") + f"{c.value:g} {c.unit}"
        # the claim's figure is the evidence's in another scope (its with-sparsity rate): say which
        twin = next((r for r in refs[1:] if r.subject == ref.subject and r.qualifiers != ref.qualifiers
                     and _same_figure(r, c)), None)
        is_en = f", which is its {vocab.attribute_label(c.attribute, 'en', twin.qualifiers)}" if twin else ""
        is_zh = f"（后者是其{vocab.attribute_label(c.attribute, 'zh', twin.qualifiers)}）" if twin else ""
        return {"en": f"{name}{via}: {en} is {shown_value(ref, vocab, 'en')}, not {said_en}{is_en} [{ref.citation}].",
                "zh": f"{name}{via} 的{zh}为 {shown_value(ref, vocab, 'zh')}，而非 {said_zh}{is_zh}（{ref.citation}）。"}
    return {"en": top["explanation"]["en"], "zh": top["explanation"]["zh"]}


def _same_figure(a: Fact, b: Fact) -> bool:
    """Two facts of one quantity with the same figure (within a thousandth)."""
    x, y = point_of(a), point_of(b)
    return x is not None and y is not None and abs(x - y) <= 1e-3 * max(abs(x), abs(y))


def summary(claims: list[CheckedClaim], skipped: list[dict[str, Any]]) -> Bilingual:
    """One sentence per language: how many claims, their statuses, and what was not understood."""
    counts = {k: sum(1 for c in claims if c.status.value == k) for k in FINDING_KINDS + (UNCLEAR,)}
    parts_en = [f"{n} {k.replace('_', ' ')}" for k, n in counts.items() if n]
    parts_zh = [f"{term_label('finding', k, 'zh') if k != UNCLEAR else '存疑未判'} {n} 条" for k, n in counts.items() if n]
    en = f"{len(claims)} checkable claim{'s' if len(claims) != 1 else ''} found" + (f": {', '.join(parts_en)}" if parts_en else "")
    zh = f"发现 {len(claims)} 条可核查的说法" + (f"：{'，'.join(parts_zh)}" if parts_zh else "")
    if skipped:
        en += f"; {len(skipped)} passage{'s' if len(skipped) != 1 else ''} not understood"
        zh += f"；{len(skipped)} 段未能解析"
    return Bilingual.of(en=en + ".", zh=zh + "。")


def check_of(state: Session, sid: str, cid: str) -> AuditResult:
    """The audit of the checked text ``sid`` (``X<digest>``), recalled, or recomputed from the text the
    store kept; ``cid`` (the id asked for) names what is missing when neither is possible."""
    res = state.recalled_check(sid)
    if res is None:      # checked by another process of the same server: recomputed from the text it kept
        res = state.recheck(sid) if hasattr(state, "recheck") else None
    if res is None:
        raise NotFound(f"no recent check holds {cid[:120]!r}; check the text again to explain its findings",
                       [Issue("the check that made this finding is no longer kept", field="id")])
    return res


def finding_of(state: Session, fid: str) -> tuple[AuditResult, dict[str, Any]]:
    """A finding of a recent check, by id (``A-X<digest>-C001-...``)."""
    res = check_of(state, finding_source(fid), fid)
    f = next((x for x in res.findings if x["id"] == fid), None)
    if f is None:
        raise NotFound(f"no finding {fid[:120]!r}", [Issue(f"no finding {fid[:120]!r}", field="id")])
    return res, f
