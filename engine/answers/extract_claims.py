"""Claim assembly for the extractor: the subject a statement is about, and one builder per kind of
statement (a quantity's attribute, a requirement, a GPU count, the GPU a family carries, advice, a
workload verdict, a product's name and vendor)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..kb.vocabulary import Vocabulary
from .lexicon import Match as _Match, cue_patterns as _question_cues, generic_model as _generic_model
from .extract_text import (GPU_AFTER, NAME_MARKS, Quantity, Row, any_match, negated, segment, spans_of, tables)

#: the concept a requirement of a method is stated about when the text names no model
METHOD_CONCEPT = {"full": "concept:llm-full-finetune", "lora": "concept:llm-peft", "qlora": "concept:llm-peft",
                  "pretrain": "concept:llm-pretrain"}
HARDWARE = ("gpu", "family", "instance")
TECHNIQUES = ("technique", "precision", "method", "software")
VERDICT_ATTRS = ("memory_verdict", "suitability")

MEMORY_WORDS = re.compile(r"(?<![a-z])(?:memory|vram|fit|oom)(?![a-z])|显存|放不下|装不下|放得下|装得下|爆显存")
_TRAIN_TASK = re.compile(r"(?<![a-z])train(?:s|ed|ing)?(?![a-z])|训练")
_INFER_TASK = re.compile(r"(?<![a-z])(?:inference|serv(?:e|es|ing)|deploy\w*)(?![a-z])|推理|部署")

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



def subject_of(kinds: tuple[str, ...], pos: int, ents: list[_Match], carried: dict[str, _Match],
             seg: tuple[int, int], topic_first: bool = False) -> tuple[str | None, float]:
    """The entity a statement at ``pos`` is about: the nearest one of a fitting kind before it (in its
    clause first), else after it in its clause, else the last one of the previous sentences. With
    ``topic_first`` (verdicts, which judge the product a passage is about), the passage's product comes
    before hardware named later in the sentence ("…扩展性差；低于 A100" judges the passage's product)."""
    fit = [m for m in ents if m.kind in kinds]
    if topic_first and not [m for m in fit if m.end <= pos or m.start < seg[1]]:
        for k in kinds:
            if k in carried:
                return carried[k].eid, 0.55
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
    for k in kinds:                # a table row: the product the line heading its table names
        if HEADING + k in carried:
            return carried[HEADING + k].eid, 0.6
    if any(m.kind in HARDWARE for m in ents):
        return None, 0.0          # the sentence speaks of other hardware: no subject from earlier sentences
    for k in kinds:
        if k in carried:
            return carried[k].eid, 0.55
    return None, 0.0


PRODUCTS = ("family", "instance", "product", "platform")
#: the key prefix under which ``carried`` holds the products named by the line heading a table
HEADING = "heading:"


def product_names(low: str, ents: list[_Match], named: set[str], vocab: Vocabulary,
                  carried: dict[str, _Match] | None = None, explicit: set[str] | None = None) -> list[Candidate]:
    """A product named in the text is said to exist (an invented name is what the audit catches), and a
    vendor written just before a product's name ("腾讯云 GN7", "Alibaba Cloud's gn7i") is its vendor;
    existence at the product's first mention, the vendor at the first mention that names one. A storage
    product or platform named with no vendor in a text about one vendor's products is presented as that
    vendor's (less sure: the audit says whether it is)."""
    t = tables(vocab)
    out = []
    for i, m in enumerate(ents):
        if m.kind not in PRODUCTS:
            continue
        if m.eid not in named:
            named.add(m.eid)
            # a family name is what gets invented (sizes are checked by their figures, unless the vocabulary
            # knows the size only as a name some source used: its existence and family are then claims)
            uncatalogued = vocab.entities.get(m.eid, {}).get("catalog") is False
            if m.kind == "family" or (m.kind == "instance" and uncatalogued):
                out.append(Candidate(m.start, m.end, m.eid, "exists", True, modality="product-name", confidence=0.6))
            fam = vocab.entities.get(m.eid, {}).get("family")
            if m.kind == "instance" and uncatalogued and fam:
                out.append(Candidate(m.start, m.end, m.eid, "family", fam, modality="product-name", confidence=0.6))
        # "GN7-V100": a family named with a GPU's name carries that GPU
        suffix = t["gpu_names"][0].search(low, m.start, m.end) if m.kind == "family" else None
        own = t["gpu_names"][1].get(suffix.group(1)) if suffix else None
        if own is not None and "gpu " + m.eid not in named:
            named.add("gpu " + m.eid)
            out.append(Candidate(m.start, m.end, m.eid, "gpu", [own], modality="spec", confidence=0.6))
        if "vendor " + m.eid in named or m.kind not in vocab.attributes["vendor"].applies_to:
            continue
        prev = ents[i - 1] if i else None
        own = vendor_prefix(m, low, t)
        if own is not None:
            out.append(Candidate(m.start, m.end, m.eid, "vendor", own, modality="spec", confidence=0.8))
        elif prev is not None and prev.kind == "vendor" and re.fullmatch(r"\s*(?:'s|的)?\s*", low[prev.end:m.start]):
            out.append(Candidate(prev.start, m.end, m.eid, "vendor", prev.eid, modality="spec", confidence=0.8))
        elif m.kind in ("product", "platform") and carried is not None and "vendor" in carried and m.eid not in (explicit or ()):
            out.append(Candidate(m.start, m.end, m.eid, "vendor", carried["vendor"].eid, modality="spec", confidence=0.5))
        else:
            continue
        named.add("vendor " + m.eid)
    return out


def recommends(low: str, masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
               w: dict[str, Any], t: dict[str, Any], topic: str | None = None, listing: bool = False) -> list[Candidate]:
    """"On a T4, use FP16 mixed precision and gradient checkpointing": techniques advised, one claim per
    advice verb ("启用混合精度训练：务必使用 torch.cuda.amp" is two pieces of advice). Advice is about the
    hardware the sentence names, else the topic the passage is about (out-of-memory handling, long
    context: ``topic``), else the product the text speaks of. A technique used in a condition or an
    example ("when using LoRA", "即使开启混合精度", "使用 X 提速的 QAT 训练") is not advised."""
    cues = sorted({(m.start(), m.end()) for rx in t["advice"] + t["use"] for m in rx.finditer(low, s, e)})
    cues = [c for i, c in enumerate(cues) if not any(o[0] <= c[0] and c[1] <= o[1] and o != c for o in cues)]
    hardware = [m for m in ents if m.kind in HARDWARE]
    out = []
    if listing and not cues and not hardware:
        # the line after "建议搭配：" / "we suggest:" lists the advice: one claim per item (precisions together)
        subj, conf = subject_of(("family", "instance", "gpu"), s, ents, carried, (s, e))
        techs = [m for m in ents if m.kind in TECHNIQUES]
        if subj is not None:
            precs = [m for m in techs if m.kind == "precision"]
            if precs:
                out.append(Candidate(precs[0].start, precs[-1].end, subj, "recommended_precision",
                                     list(dict.fromkeys(m.eid for m in precs)), modality="recommendation", confidence=conf * 0.7))
            out += [Candidate(m.start, m.end, subj, "recommended_technique", [m.eid], modality="recommendation",
                              confidence=conf * 0.7) for m in techs if m.kind != "precision"]
        return out
    for i, (a, b) in enumerate(cues):
        if re.match(r"\s*(?:用于|用来|for(?![a-z]))", low[b:b + 6]):
            continue                  # "recommended for pre-training" is a verdict on the hardware, not advice
        seg = segment(masked, s, e, a)
        stop = min([seg[1]] + [c[0] for c in cues[i + 1:] if c[0] >= b])
        lead = seg[0]
        if seg[0] > s:                # "例如，使用 …": a short clause before this one leads it
            prev = segment(masked, s, e, seg[0] - 1)
            lead = prev[0] if prev[1] - prev[0] <= 4 else lead
        if any_match(t["advice_guard_before"], low[lead:a]) or any_match(t["advice_guard_after"], low[b:seg[1]]):
            continue
        attributive = _OF.search(low, b, stop)
        if attributive and not re.search(r"[\ue000-\ue003a-z0-9.)）]\s*$", masked[b:attributive.start()]) and \
                not any(m.end <= attributive.start() and re.fullmatch(r"\s*", low[m.end:attributive.start()]) for m in ents):
            continue                  # "使用 INT8 提速的 QAT 训练": a task described, not advice
        techs = [m for m in ents if m.kind in TECHNIQUES + ("product",) and m.start >= b and m.end <= stop]
        if not techs:
            continue
        # the topic named before the advice ("如果遇到 OOM，优先减小 Batch Size"), else the list's
        here = topic_concept(low[s:a], t, general=False) or topic_concept(low[b:seg[1]], t, general=False) or topic
        if any(h.start < stop for h in hardware) or here is None:
            subj, conf = subject_of(("family", "instance", "gpu"), a, ents, carried, (s, e))
        else:
            subj, conf = here, 0.6
        if subj is None:
            continue
        quals = {k: v for k, v in qualifiers_of(w).items() if k != "precision"}
        # precisions advised are a recommended precision; techniques, methods and software a recommended technique
        # storage products advised are a recommended storage
        for attr, group in (("recommended_technique", [m for m in techs if m.kind in TECHNIQUES and m.kind != "precision"]),
                            ("recommended_precision", [m for m in techs if m.kind == "precision"]),
                            ("recommended_storage", [m for m in techs if m.kind == "product"])):
            if group and t["kinds_of"](subj) in t["applies"][attr]:
                out.append(Candidate(a, group[-1].end, subj, attr, list(dict.fromkeys(m.eid for m in group)),
                                     qualifiers=quals, modality="recommendation", confidence=conf * 0.8))
    return out


def roles(masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
          t: dict[str, Any]) -> list[Candidate]:
    """"T4 是面向推理和轻量级训练设计的卡", "designed for inference": the roles of the hardware before the
    verb, read by the role enum's labels after it (a negated verb, "并非专为…设计", states none)."""
    for cue in sorted((m for rx in t["role_verb"] for m in rx.finditer(masked, s, e)), key=lambda m: m.start()):
        if negated(masked, s, cue.start(), cue.end(), cue.end(), t):
            continue
        seg_end = next((m.start() for m in re.finditer(r"[。；;，,]|(?<![a-z])but(?![a-z])|但", masked[cue.end():e])), e - cue.end())
        found: list[tuple[int, int, str]] = []
        for role, rrx in t["roles"]:
            for m in rrx.finditer(masked, cue.end(), cue.end() + seg_end):
                if all(m.end() <= f[0] or m.start() >= f[1] for f in found):
                    found.append((m.start(), m.end(), role))
        if not found:
            continue
        subj, conf = subject_of(("gpu", "family", "instance"), cue.start(), ents, carried, (s, cue.start()))
        if subj is None:
            continue
        found.sort()
        c = Candidate(cue.start(), found[-1][1], subj, "role", list(dict.fromkeys(f[2] for f in found)),
                      modality="spec", confidence=conf * 0.8)
        widen(c, ents, (s, e))
        return [c]
    return []


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


def attribute_for(q: Quantity, low: str, masked: str, seg: tuple[int, int], s: int, e: int, ents: list[_Match],
                   carried: dict[str, _Match], vocab: Vocabulary, t: dict[str, Any]) -> tuple[str | None, float]:
    """The attribute a quantity states: the one of its dimension whose word is nearest in the clause,
    else in the sentence; a lone attribute of that dimension when no word names one."""
    cands = [a for a in t["attribute"] if vocab.attributes[a].type == "quantity" and vocab.attributes[a].dimension == q.dimension]
    if q.dimension == "count" and "gpu_count" in cands and GPU_AFTER.match(masked, q.end):
        return "gpu_count", 0.85                  # "4 张 T4", "8x A100": a count followed by a GPU name
    if not cands:
        return None, 0.0
    if q.dimension == "memory" and "memory_gb" in cands and re.search(r"\ue000\s*[（(]\s*$", masked[max(s, q.start - 8):q.start]):
        return "memory_gb", 0.85                  # "A10（24GB）": the memory of the GPU just named
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
                if q.start <= m.start() < q.end or masked[m.start()] in NAME_MARKS:
                    continue                      # the unit itself ("16 张") or a hardware or model name
                dist = max(m.start() - q.end if m.start() >= q.end else q.start - m.end(), 0)
                key = (0 if seg[0] <= m.start() < seg[1] else 1, dist, -(m.end() - m.start()), order)
                if best is None or key < best:
                    best = key
    if best is not None:
        return cands[best[3]], 0.9 if best[0] == 0 else 0.7
    if q.dimension in ("count", "params", "ratio"):
        return None, 0.0                          # a bare number of things (or of parameters) could be anything
    # no word names the attribute: the dimension's first attribute (in the cues' order) that applies
    # to the nearest entity ("the T4 has 16GB": its GPU memory)
    near = [m for m in ents if m.end <= q.start] or ents or list(carried.values())
    kind = near[-1].kind if near else None
    fitting = [a for a in cands if kind in vocab.attributes[a].applies_to]
    return (fitting[0], 0.55) if fitting else (None, 0.0)


def workload_of(low: str, masked: str, s: int, e: int, ents: list[_Match], vocab: Vocabulary,
              qs: list[Quantity]) -> dict[str, Any]:
    """The workload a sentence speaks of: method (or task), model or parameter count, precision."""
    text = low[s:e]
    w: dict[str, Any] = {}
    cues = _question_cues(vocab)
    named = [val for val, rx in cues.get("method", ()) if rx.search(text)]
    # the tasks named by the task enum's labels (a label inside a longer one, "训练" in "预训练", is not one)
    spans = [(m.start(), m.end(), task) for task, rx in tables(vocab)["tasks"] if rx.pattern for m in rx.finditer(text)]
    tasks = list(dict.fromkeys(t for a, b, t in spans if not any(x <= a and b <= y and (x, y) != (a, b) for x, y, _ in spans)))
    if named:          # the most specific method named wins (cue order: qlora, lora, full, pretrain, inference)
        w["method"] = named[0]
        alts = [m.eid.split(":", 1)[1] for m in ents if m.kind == "method"]
        if len(set(alts)) > 1 and all(a in named for a in alts):
            w["methods"] = list(dict.fromkeys(alts))      # methods named as alternatives ("LoRA/QLoRA")
        if len(tasks) > 1:
            w["task"] = tasks          # a list of tasks ("inference or development"): one verdict for each
    else:
        if tasks:
            w["task"] = tasks
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


def qualifiers_of(w: dict[str, Any]) -> dict[str, Any]:
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


def scale_cues(vocab: Vocabulary) -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    """The scale-of-training words (large-scale, small models) as (role, patterns) pairs."""
    return tuple((role, tuple(re.compile(p) for p in ps)) for role, ps in (vocab.cues.get("scale") or {}).items())


def requirement(q: Quantity, w: dict[str, Any], ents: list[_Match], s: int, e: int) -> list[Candidate]:
    """"Fully fine-tuning 7B needs 112 GB": a memory requirement of the workload."""
    # the specific model named nearest before the figure in its clause, else the only one in the sentence
    every = [m for m in ents if m.kind == "model"]
    models = [m for m in every if m.end <= q.start] or (every if len(every) == 1 else [])
    quals = qualifiers_of(w)
    if models:
        subject = models[-1].eid
        quals.pop("model", None)
    else:
        subject = METHOD_CONCEPT.get(str(w.get("method")))
        if subject is None:
            return []
    value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
    if q.bound and q.lo == q.hi:
        value = f"{q.bound} {q.lo:g}"
    c = Candidate(s, q.end, subject, "memory_required", value, q.unit, quals, "estimate", 0.75, q.approx)
    widen(c, ents, (s, e))
    return [c]


def gpus_needed(q: Quantity, masked: str, w: dict[str, Any], ents: list[_Match], seg: tuple[int, int]) -> list[Candidate]:
    """A count of GPUs stated for a workload is a claim about how many such GPUs it needs."""
    gpu = next((m for m in ents if m.kind == "gpu" and m.start >= q.start and m.start - q.end <= 12), None)
    if gpu is None:
        return []
    value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
    if q.bound and q.lo == q.hi:
        value = f"{q.bound} {q.lo:g}"
    c = Candidate(q.start, gpu.end, gpu.eid, "min_gpus", value, None, qualifiers_of(w), "estimate", 0.75, q.approx)
    widen(c, ents, seg)
    return [c]


def carries(masked: str, s: int, e: int, ents: list[_Match], t: dict[str, Any]) -> list[Candidate]:
    """"GN7 is based on the T4", "GN7 实例搭载 T4": the GPU of an instance family or size."""
    out = []
    hosts = [m for m in ents if m.kind in ("family", "instance")]
    for h in hosts:
        # "GN7-T4": a GPU name joined to the family's is part of the family's name
        gpus = [m for m in ents if m.kind == "gpu" and m.start >= h.end and m.start - h.end <= 40
                and not re.fullmatch(r"-?", masked[h.end:m.start])]
        if not gpus:
            continue
        g = gpus[0]
        between = masked[h.end:g.start]
        if not any_match(t["carries"], between) and not re.fullmatch(r"\s*(?:实例|系列|instances?|series)?\s*[（(:：]\s*(?:nvidia\s*)?", between):
            continue                  # "GN7-T4" is a product name, "GN7 vs T4" a comparison
        value = [g.eid] + [m.eid for m in gpus[1:] if re.fullmatch(r"\s*(?:/|或|or|and|和|、)\s*", masked[gpus[0].end:m.start]) ]
        if negated(masked, h.end, g.start, g.end, min(e, g.end + 8), t) and "\ue000" not in between:
            continue                              # "GN7 does not use an A100" is not a statement of its GPU
        out.append(Candidate(h.start, g.end, h.eid, "gpu", value, confidence=0.85))
    return out


def verdict_attributes(masked: str, a: int, b: int, verdict: str, t: dict[str, Any]) -> list[str]:
    """The verdict attributes a clause speaks of, by the resources it names (the longer of two
    overlapping words wins; "内存和带宽够用" is two verdicts); with none named, a suitability verdict
    (or a memory verdict for "enough" and "not enough", which say how much of something there is)."""
    hits = sorted(((m.start(), m.end(), attr) for attr, rxs in t["verdict_attribute"] for rx in rxs
                   for m in rx.finditer(masked, a, b)), key=lambda h: (h[0] - h[1], h[0]))
    kept: list[tuple[int, int, str]] = []
    for h in hits:
        if all(h[1] <= k[0] or h[0] >= k[1] for k in kept):
            kept.append(h)
    attrs = list(dict.fromkeys(h[2] for h in sorted(kept)))
    if attrs:
        return attrs
    return ["memory_verdict" if verdict in ("insufficient", "sufficient") else "suitability"]


def verdict_claims(verdict: tuple[str, int, int], masked: str, s: int, e: int, ents: list[_Match],
                   carried: dict[str, _Match], w: dict[str, Any], t: dict[str, Any], vocab: Vocabulary,
                   span: tuple[int, int] | None = None) -> list[Candidate]:
    """"A T4 cannot fine-tune a 13B model", "GN7 的内存和带宽够用": verdicts about hardware, one per
    resource the clause names and per task (or model) it lists."""
    a, b = span or (s, e)
    # the resources named in the verdict's own comma-delimited piece ("单卡 GN7 不够，必须依赖多卡互联":
    # the interconnect is a remedy, not what is judged)
    ra, rb = segment(masked, s, e, s + verdict[1])
    attrs = verdict_attributes(masked, max(a, ra), min(b, rb), verdict[0], t)
    resource = attrs != ["suitability"] and attrs != ["memory_verdict"] or any_match(
        dict(t["verdict_attribute"]).get("memory_verdict", ()), masked[max(a, ra):min(b, rb)])
    if not (w.get("method") or w.get("task") or w.get("model") or resource):
        return []
    pos = s + verdict[1]
    quals = qualifiers_of(w)
    split: list[dict[str, Any]] = [quals]
    if len(quals.get("task") or ()) > 1:
        split = [{**quals, "task": [x]} for x in quals["task"]]
    elif len(quals.get("model") or ()) > 1:
        split = [{**quals, "model": [x]} for x in quals["model"]]
    if len(w.get("methods") or ()) > 1:          # "LoRA/QLoRA fits": one verdict for each method
        split = [{**q, "method": f"method:{x}"} for q in split for x in w["methods"]]
    out = []
    for attr in attrs:
        kinds = tuple(k for k in vocab.attributes[attr].applies_to if k in HARDWARE + ("product", "platform"))
        subj, conf = subject_of(kinds, pos, ents, carried, (ra, rb), topic_first=True)
        if subj is None:
            continue
        subj = host_of(subj, ents, masked, s, pos, t) or subj
        for q in split:
            c = Candidate(a + len(masked[a:b]) - len(masked[a:b].lstrip(" ,，;；|")), b, subj, attr, verdict[0],
                          qualifiers=dict(q), modality="verdict", confidence=conf * 0.85)
            widen(c, ents, (a, b))
            out.append(c)
    return out


_OF = re.compile(r"的")
_AND = re.compile(r"和|与|及|以及|、|(?<![a-z])and(?![a-z])")
_BULLET = re.compile(r"[\s\-–•*·▪●#>|0-9.、)）]*")
_HEAD_COLON = re.compile(r"\s*(?:[（(][^）)\n]{0,40}[）)])?\s*[：:]")


def _topic(kinds: tuple[str, ...], carried: dict[str, _Match]) -> tuple[str | None, float]:
    """The product a passage is about: the last one named of the first fitting kind."""
    for k in kinds:
        if k in carried:
            return carried[k].eid, 0.5
    return None, 0.0


def _outside_names(masked: str, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return [h for h in hits if not any(c in NAME_MARKS for c in masked[h[0]:h[1]])]


def bottlenecks(low: str, masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
                row: Row | None, t: dict[str, Any]) -> list[Candidate]:
    """"显存瓶颈", "the main bottleneck is CPU preprocessing and disk I/O": the bottlenecks named beside a
    bottleneck word, said of the hardware of their clause (else of the passage's product); in a table
    whose header names problems, the resource each row's first cell names. A bottleneck said of a
    condition ("if the network becomes the bottleneck") states none."""
    kinds = ("family", "instance", "gpu")
    pieces: list[tuple[int, int, int]] = []          # (clause start, clause end, cue position)
    if row is not None and not row.is_header and row.cells and s <= row.cells[0][0] < e and \
            any(any_match(t["problem_header"], low[a:b]) for a, b in row.header):
        pieces.append((row.cells[0][0], row.cells[0][1], row.cells[0][0]))
    for rx in t["bottleneck_cue"]:
        for m in rx.finditer(low, s, e):
            a, b = segment(masked, s, e, m.start())
            if not any_match(t["hypothetical"], low[s:m.start()]) and not negated(masked, a, m.start(), m.end(), b, t):
                pieces.append((a, b, m.start()))
    out: list[Candidate] = []
    for a, b, cue in pieces:
        vals = _outside_names(masked, spans_of(t["bottlenecks"], low, a, b))
        if not vals:
            continue
        fit = [m for m in ents if m.kind in kinds and a <= m.start < b]
        near = [m for m in fit if m.end <= cue] or fit
        earlier = [m for m in ents if m.kind in kinds and s <= m.start and m.end <= a]
        concept = topic_concept(low[a:cue], t)    # "AI 训练的核心瓶颈": a bottleneck of AI training in general
        subj, conf = (near[-1].eid, 0.7) if near else (concept, 0.6) if concept else \
            (earlier[-1].eid, 0.6) if earlier else _topic(kinds, carried)
        if subj is None:
            continue
        start, end = min(vals[0][0], cue), max(vals[-1][1], cue)
        c = Candidate(start, end, subj, "bottleneck", list(dict.fromkeys(v[2] for v in vals)), modality="spec", confidence=conf)
        widen(c, ents, (a, b))
        out.append(c)
    return out


def _head(low: str, s: int, ents: list[_Match], kinds: tuple[str, ...]) -> _Match | None:
    """"- ZeRO 优化（DeepSpeed）：…", "Flash Attention: …": the entity a line or bullet is headed by."""
    first = next((m for m in ents if m.start >= s), None)
    if first is not None and first.kind in kinds and _BULLET.fullmatch(low, s, first.start) and _HEAD_COLON.match(low, first.end):
        return first
    return None


def effects(low: str, masked: str, s: int, e: int, ents: list[_Match], t: dict[str, Any]) -> list[Candidate]:
    """"Flash Attention: greatly reduces activation memory and speeds up computation": what a technique
    does, said of the technique heading the line, else of the technique (software, method) named nearest
    before. Words that overlap are one statement ("减少内存占用和通信开销"); of two matches ending at the
    same word the longer wins ("降低激活值显存" over "降低…显存")."""
    if not t["effect_any"].search(low, s, e):
        return []
    hits = _outside_names(masked, [(m.start(), m.end(), val) for val, rxs in t["effects"] for rx in rxs
                                   for m in rx.finditer(low, s, e) if m.end() > m.start()])
    kept: list[tuple[int, int, str]] = []
    for h in sorted(hits, key=lambda h: h[0] - h[1]):
        inside = [k for k in kept if k[0] <= h[0] and h[1] <= k[1]]
        # a match inside a longer one is dropped unless the longer one goes on to a second object
        # ("减少内存占用和通信": memory and communication)
        if not any(k[2] == h[2] or not _AND.search(low, h[1], k[1]) for k in inside):
            kept.append(h)
    kept.sort()
    groups: list[list[tuple[int, int, str]]] = []
    for h in kept:
        if groups and h[0] < max(x[1] for x in groups[-1]):
            groups[-1].append(h)
        else:
            groups.append([h])
    head = _head(low, s, ents, TECHNIQUES)
    out: list[Candidate] = []
    for g in groups:
        a, b = g[0][0], max(x[1] for x in g)
        if head is not None:
            subj, conf = head, 0.75
        else:
            before = [m for m in ents if m.kind in ("technique", "software", "method") and m.end <= a]
            if not before or any(m.kind in HARDWARE for m in ents if before[-1].end <= m.start < a):
                continue
            subj, conf = before[-1], 0.6
        out.append(Candidate(a, b, subj.eid, "effect", list(dict.fromkeys(x[2] for x in g)), modality="spec", confidence=conf))
    return out


def depends(low: str, s: int, e: int, t: dict[str, Any]) -> list[Candidate]:
    """"Estimate GPU memory from the parameter count, input size and batch size": what GPU memory (or
    activation memory) is said to depend on, when the statement names the memory, a cue (取决于, depends
    on, estimated from) and at least one factor after the cue. A statement that names no memory gives none."""
    cue = next((m for rx in t["depends_cue"] for m in [rx.search(low, s, e)] if m), None)
    if cue is None:
        return []
    acts = any(rx.search(low, s, e) for rx in t["depends_activations"])
    if not acts and not any(rx.search(low, s, e) for rx in t["depends_memory"]):
        return []
    found = sorted((m.start(), val) for val, rxs in t["factors"] for rx in rxs for m in rx.finditer(low, cue.start(), e))
    if not found:
        return []
    subject = "concept:activation-memory" if acts else "concept:training-memory"
    values = list(dict.fromkeys(v for _, v in found))
    return [Candidate(s, e, subject, "depends_on", values, modality="spec", confidence=0.6)]


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


def column_claims(low: str, s: int, e: int, ents: list[_Match], row: Row | None, t: dict[str, Any],
                  vocab: Vocabulary) -> list[Candidate]:
    """A table column headed by an attribute's words ("推荐实例", "recommended instance") states that
    attribute of each row: the entities of its cell, about the hardware of the row's first cell, else
    about the concept the first cell's words name."""
    if row is None or row.is_header or len(row.cells) < 2:
        return []
    out = []
    for i, (a, b) in enumerate(row.cells[1:], 1):
        if i >= len(row.header) or not (s <= a < e):
            continue
        head = low[row.header[i][0]:row.header[i][1]]
        for attr, rxs in t["attribute"].items():
            spec = vocab.attributes[attr]
            if spec.type not in ("entities", "entity") or not any_match(rxs, head):
                continue
            kinds = spec.kinds
            vals = [m for m in ents if m.kind in kinds and a <= m.start < b]
            if not vals:
                continue
            fa, fb = row.cells[0]
            subj = next((m.eid for m in ents if fa <= m.start < fb and m.kind in spec.applies_to), None) or topic_concept(low[fa:fb], t)
            if subj is None or vocab.kind_of(subj) not in spec.applies_to:
                continue
            out.append(Candidate(a, vals[-1].end, subj, attr, list(dict.fromkeys(m.eid for m in vals)),
                                 modality="recommendation", confidence=0.6))
    return out


def sized_variants(q: Quantity, ents: list[_Match], vocab: Vocabulary) -> dict[str, float]:
    """"搭载 A100 或 A800 … 显存 40GB 或 80GB": a sentence naming GPUs that come in sizes, and the sizes,
    states the memory of each variant of a named size (every figure must name one): variant -> GB."""
    sizes = {q.lo, q.hi}
    if q.unit != "GB" or q.bound or any(not float(x).is_integer() for x in sizes):
        return {}
    out: dict[str, float] = {}
    for m in ents:
        if m.kind != "gpu":
            continue
        for v in vocab.entities.get(m.eid, {}).get("variants") or (m.eid,):
            for x in sizes:
                if re.search(rf"(?<![0-9]){int(x)}\s*g", str(vocab.entities.get(v, {}).get("name", "")).lower()):
                    out[str(v)] = x
    return out if out and all(x in out.values() for x in sizes) else {}


_KEY = re.compile(r"\s*[:：|｜]\s*(?:\d+\s*[x×*]\s*)?(?:nvidia\s*)?")


def keyed_gpu(low: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match], row: Row | None,
              t: dict[str, Any]) -> list[Candidate]:
    """"GPU：NVIDIA Tesla T4", "| GPU | 1× NVIDIA T4 |": a line or table row keyed by the GPU attribute's
    word names the GPU of the product the passage (or the table's heading) is about."""
    start = row.cells[0][0] if row is not None and row.cells and s <= row.cells[0][0] < e else s
    lead = _BULLET.match(low, start)
    key = next((m for rx in t["attribute"].get("gpu", ()) for m in [rx.match(low, lead.end() if lead else start)] if m), None)
    if key is None:
        return []
    gpu = next((m for m in ents if m.kind == "gpu" and m.start >= key.end()), None)
    if gpu is None or not _KEY.fullmatch(low, key.end(), gpu.start):
        return []
    subj, conf = subject_of(("family", "instance"), s, [m for m in ents if m.kind != "gpu"], carried, (s, e))
    if subj is None:
        return []
    return [Candidate(key.start(), gpu.end, subj, "gpu", [gpu.eid], modality="spec", confidence=conf * 0.9)]
