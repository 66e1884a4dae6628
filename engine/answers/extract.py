"""Claims found in free text (English or Chinese), driven by the vocabulary.

The extractor reads what a sentence states about an entity the vocabulary knows: a quantity with its
unit tied to the nearest attribute word of that dimension ("16 GB of GDDR6 memory", "显存 24G"), a yes/no
attribute stated or denied ("no NVLink", "不支持 BF16"), the GPU an instance family carries, and a
workload verdict or requirement ("a T4 cannot fully fine-tune a 13B model", "7B 全量微调需要 112GB
显存"). Every word list is data (the ``cues`` and ``entities`` sections of kb/vocabulary.yaml); nothing
here names a GPU, a model or a sentence of a source.

Each claim keeps its span in the given text, a structure the audit can judge (subject, attribute,
value, unit, qualifiers, modality) and a confidence. Sentences that yield no claim are returned as not
understood, never dropped. The extractor is pure and deterministic and raises only ``BadInput`` for
input that is not text.
"""
from __future__ import annotations

import re
import unicodedata
import weakref
from dataclasses import dataclass, field
from typing import Any

from ..errors import BadInput, Issue
from ..kb.vocabulary import Vocabulary
from .ask_parser import _cues as _question_cues, _generic_model, _match_entities, _Match, _per_vocabulary, _resolve_variant

#: the concept a requirement of a method is stated about when the text names no model
METHOD_CONCEPT = {"full": "concept:llm-full-finetune", "lora": "concept:llm-peft", "qlora": "concept:llm-peft",
                  "pretrain": "concept:llm-pretrain"}
HARDWARE = ("gpu", "family", "instance")
TECHNIQUES = ("technique", "precision", "method", "software")
VERDICT_ATTRS = ("memory_verdict", "suitability")

_SENTENCE = re.compile(r"[^。！？!?；;\n]+[。！？!?；;]*")
_ENGLISH_STOP = re.compile(r"(?<=[a-z0-9)\]%])\.(?=\s+\S)")     # "… BF16. Next" (not "1.5", "e.g.x")
_COMMA = re.compile(r"[,，、|｜]")          # clause separators (table cells too)
# where a sentence turns to a second statement: ", but", "; while", "，但", "，而"
_CLAUSE = re.compile(r"[,，]\s*(?:but|while|whereas|although|however|yet)\b|[,，]\s*(?:但|但是|而|不过|然而|可是)")
_NUM = re.compile(r"(?<![0-9.\w])(\d{1,7}(?:\.\d{1,4})?)(?![0-9]|\.[0-9])")
_RANGE_JOIN = re.compile(r"\s*(?:-|–|—|~|～|to|到|至|or|或|/)\s*$")
_ZH_SCALE = {"千亿": 1e11, "百亿": 1e10, "亿": 1e8}
_ZH_PARAMS = re.compile(r"^\s*(千亿|百亿|亿)")
_MEMORY_WORDS = re.compile(r"(?<![a-z])(?:memory|vram|fit|oom)(?![a-z])|显存|放不下|装不下|放得下|装得下|爆显存")
_TRAIN_TASK = re.compile(r"(?<![a-z])train(?:s|ed|ing)?(?![a-z])|训练")
_INFER_TASK = re.compile(r"(?<![a-z])(?:inference|serv(?:e|es|ing)|deploy\w*)(?![a-z])|推理|部署")
_QUESTION = re.compile(r"[?？]\s*[\"'”」』)）]*\s*$|吗\s*[。.]?\s*$")     # a question states nothing
_PRIVATE = re.compile(r"[\ue000-\uf8ff]")
# entity mentions are masked, one private-use character per character, so positions stay aligned and
# numbers inside names ("Llama-2-13B", "A100 80GB") are not read as statements
_PLACEHOLDER = {"gpu": "\ue000", "family": "\ue001", "instance": "\ue002", "model": "\ue003"}
_NAMES = "".join(_PLACEHOLDER.values())
_GPU_AFTER = re.compile(r"\s*(?:x|×|\*)?\s*(?:nvidia\s*)?\ue000")


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


@dataclass
class Extraction:
    """The claims of a text and the sentences that yielded none."""

    text: str
    lang: str
    claims: list[Candidate]
    not_understood: list[tuple[int, int]]


@dataclass
class _Quantity:
    start: int
    end: int
    lo: float
    hi: float
    dimension: str
    unit: str
    bound: str | None = None
    approx: bool = False
    unit_at: int = 0               # where the unit's text starts ("8 vCPUs": the unit names the attribute)


# --- compiled cue tables (once per vocabulary) -------------------------------------------------------
_TABLES: "weakref.WeakKeyDictionary[Vocabulary, dict[str, Any]]" = weakref.WeakKeyDictionary()


def _tables(vocab: Vocabulary) -> dict[str, Any]:
    def build(v: Vocabulary) -> dict[str, Any]:
        cues = v.cues
        comp = lambda ps: tuple(re.compile(p) for p in ps)      # noqa: E731
        return {
            "attribute": {a: comp(ps) for a, ps in (cues.get("attribute") or {}).items()},
            "unit": tuple((k.split(":", 1)[0], k.split(":", 1)[1], re.compile(r"\s*(?:" + "|".join(ps) + ")"))
                          for k, ps in (cues.get("unit") or {}).items()),
            "neg_before": comp((cues.get("negation") or {}).get("before", ())),
            "neg_after": comp((cues.get("negation") or {}).get("after", ())),
            "bound": tuple((op, comp(ps)) for op, ps in (cues.get("bound") or {}).items()),
            "approx": comp((cues.get("approx") or {}).get("hedge", ())),
            "verdict": tuple((val, comp(ps)) for val, ps in (cues.get("verdict") or {}).items()),
            "carries": comp((cues.get("carries") or {}).get("verb", ())),
            "require": comp((cues.get("require") or {}).get("verb", ())),
            "possess": comp((cues.get("possess") or {}).get("verb", ())),
            "advice": comp((cues.get("advice") or {}).get("verb", ())),
            "use": comp((cues.get("advice") or {}).get("use", ())),
            "tasks": tuple((task, re.compile("|".join(re.escape(str(x).lower()) for x in (spec.get("en"), spec.get("zh")) if x)))
                           for task, spec in (v.enums.get("task") or {}).items() if isinstance(spec, dict)),
            "memory_types": tuple((val, re.compile(r"(?<![a-z0-9])" + re.escape(val.lower()) + r"(?![a-z0-9])"))
                                  for val in sorted(v.enums.get("memory_type") or {}, key=len, reverse=True)),
        }
    return _per_vocabulary(_TABLES, vocab, build)


# --- text helpers ------------------------------------------------------------------------------------
def aligned_lower(text: str) -> str:
    """A lower-cased, NFKC-normalised copy of ``text`` with the same length (one character for one), so
    spans found in it are spans of the original."""
    out = []
    for c in text:
        n = unicodedata.normalize("NFKC", c).lower()
        out.append(n if len(n) == 1 else c.lower() if len(c.lower()) == 1 else " ")
    return _PRIVATE.sub(" ", "".join(out))


def sentences(low: str) -> list[tuple[int, int]]:
    """Sentence spans: split at Chinese and English sentence ends, semicolons and line breaks."""
    out = []
    for m in _SENTENCE.finditer(low):
        start = m.start()
        for stop in _ENGLISH_STOP.finditer(low, m.start(), m.end()):
            out.append((start, stop.end()))
            start = stop.end()
        out.append((start, m.end()))
    return [(s + len(low[s:e]) - len(low[s:e].lstrip()), e) for s, e in out if low[s:e].strip().strip(".。").strip()]


def _any(rxs: tuple[re.Pattern[str], ...], text: str) -> bool:
    return any(rx.search(text) for rx in rxs)


def _first(pairs: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...], text: str) -> tuple[str, int, int] | None:
    """The earliest (then longest) match over (value, patterns) pairs: (value, start, end)."""
    best = None
    for val, rxs in pairs:
        for rx in rxs:
            m = rx.search(text)
            if m and (best is None or (m.start(), -(m.end() - m.start())) < (best[1], -(best[2] - best[1]))):
                best = (val, m.start(), m.end())
    return best


def quantities(low: str, start: int, end: int, vocab: Vocabulary) -> list[_Quantity]:
    """Numbers with a unit in ``low[start:end]``, with ranges ("16-32 GB", "40GB 或 80GB"), bounds
    ("at least 24GB", "24G 以上") and hedges ("约 16GB")."""
    t = _tables(vocab)
    out: list[_Quantity] = []
    for m in _NUM.finditer(low, start, end):
        x = float(m.group(1))
        after = m.end()
        zh = _ZH_PARAMS.match(low, after)
        if zh:
            q = _Quantity(m.start(), zh.end(), x * _ZH_SCALE[zh.group(1)], x * _ZH_SCALE[zh.group(1)], "params", "1")
        elif _GPU_AFTER.match(low, after) and float(x).is_integer():
            q = _Quantity(m.start(), after, x, x, "count", "1", unit_at=after)    # "4 A100s", "8x H100"
        else:
            q = None
            for dim, unit, rx in t["unit"]:
                u = rx.match(low, after)
                if u and u.end() > after and u.end() <= end:
                    q = _Quantity(m.start(), u.end(), x, x, dim, unit, unit_at=after)
                    break
        if q is None:
            continue
        prev = out[-1] if out else None
        if prev is not None and prev.dimension == q.dimension and prev.hi == prev.lo and \
                _RANGE_JOIN.search(low[prev.end:m.start()]) and m.start() - prev.end <= 6:
            prev.hi, prev.end = max(prev.hi, x), q.end
            continue
        # "16-32GB": a bare number joined to this one
        bare = re.search(r"(\d{1,7}(?:\.\d{1,4})?)\s*(?:-|–|~|～|到|至)\s*$", low[max(start, m.start() - 14):m.start()])
        if bare and (prev is None or prev.end <= m.start() - len(bare.group(0))):
            lo = float(bare.group(1))
            if lo < x:
                q.lo, q.start = lo, m.start() - len(bare.group(0))
        before, rest = low[max(start, q.start - 24):q.start], low[q.end:min(end, q.end + 12)]
        for op, rxs in t["bound"]:
            if any(rx.search(before) or (rx.pattern.startswith("^") and rx.search(rest)) for rx in rxs):
                q.bound = op
                break
        q.approx = any(rx.search(before) if not rx.pattern.startswith("^") else rx.search(rest) for rx in t["approx"])
        out.append(q)
    return out


def _negated(low: str, seg_start: int, cue_start: int, cue_end: int, seg_end: int, t: dict[str, Any]) -> bool:
    before, after = low[seg_start:cue_start], low[cue_end:seg_end]
    return any(rx.search(before) for rx in t["neg_before"]) or any(rx.search(after) for rx in t["neg_after"])


def _segment(low: str, s: int, e: int, pos: int) -> tuple[int, int]:
    """The comma-delimited piece of sentence [s, e) around ``pos``."""
    left = max([m.end() for m in _COMMA.finditer(low, s, pos)] or [s])
    right = next((m.start() for m in _COMMA.finditer(low, pos, e)), e)
    return left, right


# --- the extractor -----------------------------------------------------------------------------------
def extract(text: str, vocab: Vocabulary, lang: str | None = None) -> Extraction:
    """The claims ``text`` states, and the sentences it could not turn into claims."""
    if not isinstance(text, str):
        raise BadInput(f"the text must be a string, got {type(text).__name__}", [Issue("expected text", field="text")])
    low = aligned_lower(text)
    out_lang = lang if lang in ("en", "zh") else ("zh" if re.search(r"[\u4e00-\u9fff]", text) else "en")
    t = _tables(vocab)
    mentions = _match_entities(low, vocab)
    claims: list[Candidate] = []
    not_understood: list[tuple[int, int]] = []
    carried: dict[str, _Match] = {}                       # the last entity of each kind, across sentences
    named: set[str] = set()                               # products already said to exist (first mention only)
    for s, e in sentences(low):
        ents = [m for m in mentions if m.start >= s and m.end <= e]
        # "A100（40GB…" or "80GB A100": the sized variant the memory beside a generic GPU names
        ents = [_Match(m.start, m.end, _resolve_variant(m, low, vocab), m.kind) if m.kind == "gpu" else m for m in ents]
        masked = list(low)
        for m in ents:             # hardware and model names only: method and precision words stay readable
            if m.kind in _PLACEHOLDER:
                masked[m.start:m.end] = _PLACEHOLDER[m.kind] * (m.end - m.start)
        masked_low = "".join(masked)
        question = bool(_QUESTION.search(low[s:e]))
        found = [] if question else _sentence_claims(low, masked_low, s, e, ents, carried, vocab, t)
        if not question:
            found += _names(low, ents, named, vocab)
        seen = set()
        for c in found:
            key = (c.subject, c.attribute, repr(c.value), repr(sorted(c.qualifiers.items(), key=str)))
            if key not in seen:
                seen.add(key)
                claims.append(c)
        if not found:
            not_understood.append((s, e))
        for m in ents:
            carried[m.kind] = m
    return Extraction(text, out_lang, claims, not_understood)


def _subject(kinds: tuple[str, ...], pos: int, ents: list[_Match], carried: dict[str, _Match],
             seg: tuple[int, int]) -> tuple[str | None, float]:
    """The entity a statement at ``pos`` is about: the nearest one of a fitting kind before it (in its
    clause first), else after it in its clause, else the last one of the previous sentences."""
    fit = [m for m in ents if m.kind in kinds]
    before = [m for m in fit if m.end <= pos]
    in_seg = [m for m in before if m.start >= seg[0]]
    if in_seg:
        return in_seg[-1].eid, 0.9
    after = [m for m in fit if m.start >= pos and m.end <= seg[1]]
    if after:
        return after[0].eid, 0.8
    if before:
        return before[-1].eid, 0.8
    if fit:
        return fit[0].eid, 0.65
    if any(m.kind in HARDWARE for m in ents):
        return None, 0.0          # the sentence speaks of other hardware: no subject from earlier sentences
    for k in kinds:
        if k in carried:
            return carried[k].eid, 0.55
    return None, 0.0


def _sentence_claims(low: str, masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
                     vocab: Vocabulary, t: dict[str, Any]) -> list[Candidate]:
    out: list[Candidate] = []
    qs = quantities(masked, s, e, vocab)
    workload = _workload(low, masked, s, e, ents, vocab, qs)
    verdict = _first(t["verdict"], masked[s:e])
    requires = [m.start() + s for rx in t["require"] for m in rx.finditer(masked[s:e])]
    # 1. quantities, each tied to an attribute of its dimension (or a requirement of the workload)
    for q in qs:
        if q.dimension == "params" and workload.get("params_raw") == q.lo:
            continue                                        # the workload's size, not a statement of it
        seg = _segment(masked, s, e, q.start)
        if q.dimension == "memory" and workload.get("method") and any(seg[0] <= r < q.start for r in requires):
            methods = [(rx.search(low, s, q.start), val) for val, rx in _question_cues(vocab).get("method", ())]
            nearest = max(((m.start(), val) for m, val in methods if m), default=None)
            w = {**workload, "method": nearest[1]} if nearest else workload
            out += _requirement(q, w, ents, seg[0], seg[1])
            continue
        attr, conf = _attribute_for(q, low, masked, seg, s, e, ents, carried, vocab, t)
        if attr == "gpu_count" and workload.get("size") and (workload.get("method") or workload.get("task")):
            out += _gpus_needed(q, masked, workload, ents, seg)   # "needs 4 A100s for a 13B fine-tune"
            continue
        if attr is None or (q.dimension == "count" and _any(t["advice"], low[seg[0]:seg[1]])):
            continue
        subj, sconf = _subject(vocab.attributes[attr].applies_to, q.start, ents, carried, seg)
        if subj is None or (attr == "params" and _generic_model(subj, vocab)):
            continue                            # "LLMs (e.g. 7B)" gives an example, not a model's size
        if "family" in vocab.attributes[attr].inherited_by:
            subj = _host_of(subj, ents, masked, s, q.start, t) or subj
        value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
        if q.bound and q.lo == q.hi:
            value = f"{q.bound} {q.lo:g}"
        out.append(Candidate(q.start, q.end, subj, attr, value, q.unit,
                             modality="spec", confidence=min(conf, sconf), approx=q.approx))
        _widen(out[-1], ents, seg)
    # 2. yes/no attributes stated or denied
    for attr, rxs in t["attribute"].items():
        if vocab.attributes[attr].type != "boolean":
            continue
        for rx in rxs:
            for m in rx.finditer(low, s, e):
                if masked[m.start()] in _NAMES:
                    continue                        # inside a GPU, instance or model name
                seg = _segment(masked, s, e, m.start())
                subj, sconf = _subject(vocab.attributes[attr].applies_to, m.start(), ents, carried, seg)
                subj = _host_of(subj, ents, masked, s, m.start(), t) or subj
                if subj is None or (verdict and workload.get("method")):
                    continue
                value = not _negated(masked, seg[0], m.start(), m.end(), seg[1], t)
                if value and not _any(t["possess"], low[max(seg[0], m.start() - 16):m.start()]):
                    continue            # named, but neither had nor denied ("uses BF16", "needs NVLink")
                c = Candidate(m.start(), m.end(), subj, attr, value, modality="spec", confidence=sconf * 0.95)
                _widen(c, ents, seg)
                out.append(c)
    # 3. memory technology named beside a GPU
    for val, rx in t["memory_types"]:
        for m in rx.finditer(masked, s, e):
            seg = _segment(masked, s, e, m.start())
            subj, sconf = _subject(vocab.attributes["memory_type"].applies_to, m.start(), ents, carried, seg)
            subj = _host_of(subj, ents, masked, s, m.start(), t) or subj
            if subj is not None:
                c = Candidate(m.start(), m.end(), subj, "memory_type", val, confidence=sconf * 0.9)
                _widen(c, ents, seg)
                out.append(c)
    # 4. the GPU an instance family or size carries
    out += _carries(masked, s, e, ents, t)
    # 5. techniques advised for the hardware
    out += _recommends(low, masked, s, e, ents, carried, workload, t)
    # 6. a workload verdict about hardware
    scale = _first(_scale_cues(vocab), low[s:e])
    named_hw = any(m.kind in HARDWARE for m in ents)
    if verdict and (workload.get("size") or (workload.get("task") and (scale or named_hw))):
        if scale and not workload.get("size"):
            workload = {**workload, "condition": low[s + scale[1]:s + scale[2]]}
        # one verdict per clause ("with QLoRA it fits, but full fine-tuning needs several GPUs"), each
        # with the method named nearest before it
        cut = s
        for seg_end in [m.start() for m in _CLAUSE.finditer(low, s, e)] + [e]:
            v = _first(t["verdict"], masked[cut:seg_end])
            if v is not None:
                # the most specific method named in this clause (cue order: qlora, lora, full ...), else the sentence's
                mine = [val for val, rx in _question_cues(vocab).get("method", ()) if rx.search(low, cut, seg_end)]
                w = {**workload, "method": mine[0]} if mine and workload.get("method") else workload
                out += _verdict((v[0], v[1] + cut - s, v[2] + cut - s), masked, s, e, ents, carried, w, t,
                                span=(cut, seg_end))
            cut = seg_end
    return out


PRODUCTS = ("family", "instance", "product", "platform")


def _names(low: str, ents: list[_Match], named: set[str], vocab: Vocabulary) -> list[Candidate]:
    """A product named in the text is said to exist (an invented name is what the audit catches), and a
    vendor written just before a product's name ("腾讯云 GN7", "Alibaba Cloud's gn7i") is its vendor;
    each at the product's first mention only."""
    out = []
    for i, m in enumerate(ents):
        if m.kind not in PRODUCTS or m.eid in named:
            continue
        named.add(m.eid)
        if m.kind == "family":       # a family name is what gets invented (sizes are checked by their figures)
            out.append(Candidate(m.start, m.end, m.eid, "exists", True, modality="product-name", confidence=0.6))
        prev = ents[i - 1] if i else None
        if prev is not None and prev.kind == "vendor" and re.fullmatch(r"\s*(?:'s|的)?\s*", low[prev.end:m.start]) \
                and m.kind in vocab.attributes["vendor"].applies_to:
            out.append(Candidate(prev.start, m.end, m.eid, "vendor", prev.eid, modality="spec", confidence=0.8))
    return out


def _recommends(low: str, masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
                w: dict[str, Any], t: dict[str, Any]) -> list[Candidate]:
    """"On a T4, use FP16 mixed precision and gradient checkpointing": techniques advised for hardware."""
    cue = None
    for rx in t["advice"] + t["use"]:
        m = rx.search(low, s, e)
        if m and (cue is None or m.start() < cue.start()):
            cue = m
    if cue is None or re.match(r"\s*(?:用于|用来|for(?![a-z]))", low[cue.end():cue.end() + 6]):
        return []                     # "recommended for pre-training" is a verdict on the hardware, not advice
    seg = _segment(masked, s, e, cue.start())
    techs = [m for m in ents if m.kind in TECHNIQUES and m.start >= cue.end() and m.end <= seg[1]]
    if not techs:
        return []
    subj, conf = _subject(HARDWARE, cue.start(), ents, carried, (s, e))
    if subj is None:
        return []
    quals = {k: v for k, v in _qualifiers(w).items() if k != "precision"}
    value = list(dict.fromkeys(m.eid for m in techs))
    return [Candidate(cue.start(), techs[-1].end, subj, "recommended_technique", value, qualifiers=quals,
                      modality="recommendation", confidence=conf * 0.8)]


def _host_of(subject: str | None, ents: list[_Match], masked: str, s: int, pos: int, t: dict[str, Any]) -> str | None:
    """In "GN7 carries the T4 and supports X", X is said of GN7: a GPU that is the object of a family's
    "carries" earlier in the sentence hands the statement back to the family, unless the statement sits
    in a parenthesis right after the GPU's name ("A10（24GB 显存）" is the A10's)."""
    gpu = next((m for m in reversed(ents) if m.eid == subject and m.end <= pos), None)
    if gpu is not None and re.match(r"\s*[（(][^）)]*$", masked[gpu.end:pos]):
        return None
    for h in _carries(masked, s, pos, [m for m in ents if m.end <= pos], t):
        if subject in h.value:
            return h.subject
    return None


def _widen(c: Candidate, ents: list[_Match], seg: tuple[int, int]) -> None:
    """Grow a claim's span to its subject when the subject is named in the same clause."""
    for m in ents:
        if m.eid == c.subject and seg[0] <= m.start <= seg[1]:
            c.start, c.end = min(c.start, m.start), max(c.end, m.end)


def _attribute_for(q: _Quantity, low: str, masked: str, seg: tuple[int, int], s: int, e: int, ents: list[_Match],
                   carried: dict[str, _Match], vocab: Vocabulary, t: dict[str, Any]) -> tuple[str | None, float]:
    """The attribute a quantity states: the one of its dimension whose word is nearest in the clause,
    else in the sentence; a lone attribute of that dimension when no word names one."""
    cands = [a for a in t["attribute"] if vocab.attributes[a].type == "quantity" and vocab.attributes[a].dimension == q.dimension]
    if q.dimension == "count" and "gpu_count" in cands and _GPU_AFTER.match(masked, q.end):
        return "gpu_count", 0.85                  # "4 张 T4", "8x A100": a count followed by a GPU name
    if not cands:
        return None, 0.0
    unit_text = low[q.unit_at:q.end] if q.unit_at else ""
    for a in cands:                               # "8 vCPUs", "4 张卡": the unit's own word names the attribute
        if unit_text and any(rx.search(unit_text) for rx in t["attribute"][a]):
            if a == "gpu_count" and not re.search(r"gpu|卡|card", unit_text):
                continue                          # "张" or "块" alone count anything
            return a, 0.85
    best: tuple[int, int, int, int] | None = None     # (outside the clause, distance, -length, order in the cues)
    for order, a in enumerate(cands):
        for rx in t["attribute"][a]:
            for m in rx.finditer(low, s, e):
                if q.start <= m.start() < q.end or masked[m.start()] in _NAMES:
                    continue                      # the unit itself ("16 张") or a hardware or model name
                dist = max(m.start() - q.end if m.start() >= q.end else q.start - m.end(), 0)
                key = (0 if seg[0] <= m.start() < seg[1] else 1, dist, -(m.end() - m.start()), order)
                if best is None or key < best:
                    best = key
    if best is not None:
        return cands[best[3]], 0.9 if best[0] == 0 else 0.7
    if q.dimension in ("count", "params"):
        return None, 0.0                          # a bare number of things (or of parameters) could be anything
    # no word names the attribute: the dimension's first attribute (in the cues' order) that applies
    # to the nearest entity ("the T4 has 16GB": its GPU memory)
    near = [m for m in ents if m.end <= q.start] or ents or list(carried.values())
    kind = near[-1].kind if near else None
    fitting = [a for a in cands if kind in vocab.attributes[a].applies_to]
    return (fitting[0], 0.55) if fitting else (None, 0.0)


def _workload(low: str, masked: str, s: int, e: int, ents: list[_Match], vocab: Vocabulary,
              qs: list[_Quantity]) -> dict[str, Any]:
    """The workload a sentence speaks of: method (or task), model or parameter count, precision."""
    text = low[s:e]
    w: dict[str, Any] = {}
    cues = _question_cues(vocab)
    named = [val for val, rx in cues.get("method", ()) if rx.search(text)]
    if named:          # the most specific method named wins (cue order: qlora, lora, full, pretrain, inference)
        w["method"] = named[0]
    else:
        tasks = [task for task, rx in _tables(vocab)["tasks"] if rx.pattern and rx.search(text)]
        if tasks:
            w["task"] = tasks[:3]
        elif _TRAIN_TASK.search(text):
            w["task"] = ["training"]
        elif _INFER_TASK.search(text):
            w["task"] = ["inference"]
    models = [m.eid for m in ents if m.kind == "model"]
    if models:
        w["model"] = models
        w["size"] = any(not _generic_model(mid, vocab) for mid in models)
    params = [q for q in qs if q.dimension == "params"]
    if params and not models:
        w["params"], w["size"] = params[0].lo * (vocab.unit_factor("params", params[0].unit) or 1), True
        w["params_raw"] = params[0].lo
    precs = [m.eid for m in ents if m.kind == "precision"]
    if precs:
        w["precision"] = precs
    return w


def _qualifiers(w: dict[str, Any]) -> dict[str, Any]:
    q: dict[str, Any] = {}
    if w.get("method"):
        q["method"] = f"method:{w['method']}"
    if w.get("task"):
        q["task"] = list(w["task"])
    if w.get("model"):
        q["model"] = list(w["model"])
    if w.get("params"):
        q["params"] = w["params"]
    if w.get("precision"):
        q["precision"] = list(w["precision"])
    if w.get("condition"):
        q["condition"] = w["condition"]
    return q


def _scale_cues(vocab: Vocabulary) -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    """The scale-of-training words (large-scale, small models) as (role, patterns) pairs."""
    return tuple((role, tuple(re.compile(p) for p in ps)) for role, ps in (vocab.cues.get("scale") or {}).items())


def _requirement(q: _Quantity, w: dict[str, Any], ents: list[_Match], s: int, e: int) -> list[Candidate]:
    """"Fully fine-tuning 7B needs 112 GB": a memory requirement of the workload."""
    models = [m for m in ents if m.kind == "model"]
    quals = _qualifiers(w)
    if models and len(models) == 1:
        subject = models[0].eid
        quals.pop("model", None)
    else:
        subject = METHOD_CONCEPT.get(str(w.get("method")))
        if subject is None:
            return []
    value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
    if q.bound and q.lo == q.hi:
        value = f"{q.bound} {q.lo:g}"
    c = Candidate(s, q.end, subject, "memory_required", value, q.unit, quals, "estimate", 0.75, q.approx)
    _widen(c, ents, (s, e))
    return [c]


def _gpus_needed(q: _Quantity, masked: str, w: dict[str, Any], ents: list[_Match], seg: tuple[int, int]) -> list[Candidate]:
    """A count of GPUs stated for a workload is a claim about how many such GPUs it needs."""
    gpu = next((m for m in ents if m.kind == "gpu" and m.start >= q.start and m.start - q.end <= 12), None)
    if gpu is None:
        return []
    value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
    if q.bound and q.lo == q.hi:
        value = f"{q.bound} {q.lo:g}"
    c = Candidate(q.start, gpu.end, gpu.eid, "min_gpus", value, None, _qualifiers(w), "estimate", 0.75, q.approx)
    _widen(c, ents, seg)
    return [c]


def _carries(masked: str, s: int, e: int, ents: list[_Match], t: dict[str, Any]) -> list[Candidate]:
    """"GN7 is based on the T4", "GN7 实例搭载 T4": the GPU of an instance family or size."""
    out = []
    hosts = [m for m in ents if m.kind in ("family", "instance")]
    for h in hosts:
        gpus = [m for m in ents if m.kind == "gpu" and m.start >= h.end and m.start - h.end <= 40]
        if not gpus:
            continue
        g = gpus[0]
        between = masked[h.end:g.start]
        if not _any(t["carries"], between) and not re.fullmatch(r"\s*[（(:：]\s*(?:nvidia\s*)?", between):
            continue                  # "GN7-T4" is a product name, "GN7 vs T4" a comparison
        value = [g.eid] + [m.eid for m in gpus[1:] if re.fullmatch(r"\s*(?:/|或|or|and|和|、)\s*", masked[gpus[0].end:m.start]) ]
        if _negated(masked, h.end, g.start, g.end, min(e, g.end + 8), t) and "\ue000" not in between:
            continue                              # "GN7 does not use an A100" is not a statement of its GPU
        out.append(Candidate(h.start, g.end, h.eid, "gpu", value, confidence=0.85))
    return out


def _verdict(verdict: tuple[str, int, int], masked: str, s: int, e: int, ents: list[_Match],
             carried: dict[str, _Match], w: dict[str, Any], t: dict[str, Any],
             span: tuple[int, int] | None = None) -> list[Candidate]:
    """"A T4 cannot fine-tune a 13B model": a verdict about hardware for a workload."""
    if not (w.get("method") or w.get("task")):
        return []
    pos = s + verdict[1]
    seg = (s, e)
    subj, conf = _subject(HARDWARE, pos, ents, carried, seg)
    if subj is None:
        return []
    subj = _host_of(subj, ents, masked, s, pos, t) or subj
    attr = "memory_verdict" if _MEMORY_WORDS.search(masked[s:e]) or verdict[0] in ("insufficient", "sufficient") else "suitability"
    a, b = span or (s, e)
    c = Candidate(a + len(masked[a:b]) - len(masked[a:b].lstrip(" ,，;；")), b, subj, attr, verdict[0],
                  qualifiers=_qualifiers(w), modality="verdict", confidence=conf * 0.85)
    _widen(c, ents, (a, b))
    return [c]
