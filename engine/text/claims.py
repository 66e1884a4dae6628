"""Claim builders for the extractor, one per kind of statement: a product's name and vendor, advice,
roles, bottlenecks, a technique's effects, what memory depends on, table columns headed
by an attribute, sized GPU variants and the GPU a keyed line names (who: :mod:`.subject`; workloads: :mod:`.workload`; a figure's attribute: :mod:`.attributes`)."""
from __future__ import annotations

import re
from typing import Any

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match
from .subject import HARDWARE, PRODUCTS, Candidate, subject_of, topic as _topic, topic_concept, vendor_prefix, widen
from .tokens import NAME_MARKS, Quantity, Row, any_match, negated, segment, spans_of, tables
from .mentions import advised
from .workload import qualifiers_of
TECHNIQUES = ("technique", "precision", "method", "software")


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
    ents = advised(ents, low, t)             # "use mixed precision": the technique, not a precision
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


#: an attribute word followed by its own figure ("TF32 989", "显存 80G"), or trailing one ("9.7 TFLOPS of FP64")
_OF, _AND = re.compile(r"的"), re.compile(r"和|与|及|以及|、|(?<![a-z])and(?![a-z])")
_BULLET = re.compile(r"[\s\-–•*·▪●#>|0-9.、)）]*")
_HEAD_COLON = re.compile(r"\s*(?:[（(][^）)\n]{0,40}[）)])?\s*[：:]")


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
        value = list(dict.fromkeys(x[2] for x in g))
        for m in _run_of(low, subj, ents, t):      # "ZeRO Stage 2/3 reduces memory": each stage does
            out.append(Candidate(min(a, m.start), b, m.eid, "effect", value, modality="spec", confidence=conf))
    return out


def _run_of(low: str, last: _Match, ents: list[_Match], t: dict[str, Any]) -> list[_Match]:
    """The names of ``last``'s kind joined to it by list words before it ("ZeRO-2/3", "LoRA 和 QLoRA"),
    with ``last`` itself."""
    run = [last]
    for m in reversed([m for m in ents if m.end <= last.start]):
        gap = low[m.end:run[0].start]
        # a comma alone joins a list only before its last "and" ("A, B and C"): "After A, B does X" is none
        if m.kind != last.kind or not any_match(t["coref"]["joiner"], gap) or (len(run) == 1 and gap.strip() in (",", "，")):
            break
        run.insert(0, m)
    return run


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
        taken: set[float] = set()         # one claim per size: "H100 80GB" is one figure, whatever its form factor
        for v in vocab.entities.get(m.eid, {}).get("variants") or (m.eid,):
            for x in sizes:
                if x not in taken and vocab.names_size(str(v), x):
                    out[str(v)] = x
                    taken.add(x)
    # "the H100 PCIe has 80 GB, whereas the H100 SXM …": a size two named versions share names neither
    shared = any(list(out.values()).count(x) > 1 and len({vocab.generic(v) for v, y in out.items() if y == x}) == 1 for x in sizes)
    return out if out and not shared and all(x in out.values() for x in sizes) else {}


def type_variants(at: int, qs: list[Quantity], low: str, ents: list[_Match], vocab: Vocabulary,
                  variants: dict[str, float]) -> list[str]:
    """The variants a memory technology named at ``at`` belongs to: the one whose size is written right before it
    ("40 GB HBM2（…）和 80 GB HBM2e"), else every variant the sentence's memory figures named."""
    size = next((q for q in reversed(qs) if q.dimension == "memory" and q.end <= at and not low[q.end:at].strip()), None)
    own = sized_variants(size, ents, vocab) if size is not None else {}
    return list(own) if len(own) == 1 and set(own) <= set(variants) else list(variants)


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
