"""One sentence's claims for the extractor: the figures, verdicts and names it states, each given to the
product it is about (the sentence's names, its table row, its heading, or the products carried from before)."""
from __future__ import annotations

import re
from typing import Any
from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match, cue_patterns as _question_cues, generic_model as _generic_model
from .compare import per_compared
from .relations import upgrades
from .attributes import attribute_for
from .claims import bottlenecks, column_claims, depends, effects, keyed_gpu, recommends, roles, sized_variants, type_variants
from .subject import HARDWARE, Candidate, carries, figure_subject, host_of, locative_gpu, picked, possessive, subject_of, vendor_prefix, widen
from .workload import LINE_LABEL, contrasted, gpus_needed, item_method, owner_bound, requirement, size_after, scale_cues, task_verdict, verdict_attributes, verdict_claims, workload_of
from .specs import (announced_figures, cards_of_size, compared_before, counts_cards, named_specs, per_gpu_owner,
                    per_param, size_named_variants, form_named_variants)
from .tokens import CLAUSE, NAME_MARKS, Quantity, Row, any_match, first_match, negated, quantities, segment


_QUESTION = re.compile(r"[?？]\s*[\"'”」』)）]*\s*$|吗\s*[。.]?\s*$")     # a question states nothing (see asks_question)


def uncompared(low: str, s: int, ents: list[_Match], t: dict[str, Any]) -> list[_Match]:
    """The mentions of a sentence without the hardware it compares with ("低于 A100/V100 的 PCIe 4.0",
    "slower than the A10"): a comparison word before a name, or before a list of names, makes them
    the reference of a comparison, not what the sentence speaks of."""
    out: list[_Match] = []
    compared: _Match | None = None
    for m in ents:
        if m.kind in HARDWARE:
            gap = low[compared.end:m.start] if compared is not None else ""
            chained = compared is not None and any_match(t["coref"]["joiner"], re.sub(r"[（(][^（(）)]*[）)]|'s", "", gap))
            labels = re.match(r"\s*[:：]", low[m.end:m.end + 3]) is not None    # "性能比较 H100 SXM: 80 GB": a label
            if (chained or compared_before(low, m.start, s, t)) and not labels:
                compared = m
                continue
        out.append(m)
    return out


def explicit_vendors(low: str, mentions: list[_Match], t: dict[str, Any]) -> set[str]:
    """The products a text names with their vendor beside them somewhere ("腾讯云 TI-ONE 平台")."""
    out = set()
    for i, m in enumerate(mentions):
        prev = mentions[i - 1] if i else None
        if vendor_prefix(m, low, t) or (prev is not None and prev.kind == "vendor" and
                                        re.fullmatch(r"\s*(?:'s|的)?\s*", low[prev.end:m.start])):
            out.add(m.eid)
    return out


def asks_question(low: str, s: int, e: int, t: dict[str, Any]) -> bool:
    """A question states nothing, unless it takes its content as given ("为何 T4 不够用？", "why is the T4
    too small?", "什么场景下够用？": it is not enough; it is enough somewhere)."""
    return bool(_QUESTION.search(low[s:e])) and not any_match(t["presupposed"], low[s:e])


def is_heading_line(low: str, s: int, e: int) -> bool:
    """A sentence that is a whole short line without a sentence's ending: a heading."""
    line_start = low.rfind("\n", 0, s) + 1
    line_end = low.find("\n", s)
    line_end = len(low) if line_end < 0 else line_end
    return not low[line_start:s].strip(" \t-*•▪●#") and not low[e:line_end].strip() and e - s <= 40 and \
        not re.search(r"[。.!！:：;；,，]\s*$", low[s:e])


def verdict_of_heading(low: str, s: int, e: int, t: dict[str, Any]) -> str | None:
    """The verdict of a heading ("✅ 适合的场景", "Where it is not enough"): what the items of the list
    it heads say of the workloads they name."""
    if asks_question(low, s, e, t):
        return None
    v = first_match(t["verdict"], low[s:e])
    if v is None or any_match(t["open_question"], low[s:s + v[1]]):
        return None
    return v[0]


def _row_verdict(row: Row | None, low: str, t: dict[str, Any]) -> str | None:
    """The verdict the line heading a table states ("什么场景下“够用”？", "Where the T4 is not enough"):
    it is what the table's rows say of the workloads they name."""
    if row is None or row.is_header or row.heading is None:
        return None
    a, b = row.heading
    v = first_match(t["verdict"], low[a:b])
    if v is None or any_match(t["open_question"], low[a:a + v[1]]):
        return None
    return v[0]


def sentence_claims(low: str, masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
                     vocab: Vocabulary, t: dict[str, Any], row: Row | None = None,
                     topic: str | None = None, listed: str | None = None,
                     named_all: list[_Match] | None = None, advising: bool = False,
                     scope_size: dict[str, Any] | None = None, scope_method: str | None = None) -> list[Candidate]:
    out: list[Candidate] = []
    qs = quantities(masked, s, e, vocab)
    gpus_spoken = ents if any(m.kind == "gpu" for m in ents) else [m for m in carried.values() if m.kind == "gpu"]
    named_sizes = size_named_variants(low, qs, gpus_spoken, vocab, t)      # "80GB 版本": a mention of that variant
    if named_sizes:
        qs = [q for i, q in enumerate(qs) if i not in named_sizes]
        ents = sorted(ents + list(named_sizes.values()), key=lambda m: m.start)
    # "an NVL variant", "The PCIe version has 350W" after a sentence about the H100: a mention of that variant
    named_forms = form_named_variants(low, s, e, gpus_spoken, vocab)
    if named_forms:
        ents = sorted(ents + named_forms, key=lambda m: m.start)
    workload = workload_of(low, masked, s, e, ents, vocab, qs)
    if scope_method and not (workload.get("method") or workload.get("task")):
        workload = {**workload, "method": scope_method}    # "• QLoRA: … A 7B model needs only ~13 GB": the line's method
    if scope_size and not (workload.get("model") or workload.get("params")) and (workload.get("method") or workload.get("task")):
        workload = {**workload, **scope_size, "size": True}   # under "# Fine-tuning Qwen-14B": that model's workload
    if not workload.get("method") and workload.get("size") and any_match(t["load"], low[s:e]):
        workload = {**workload, "method": "inference"}    # "a 13B model needs 26 GB just to load": its weights served
    # "a 7B model needs 14 GB just for weights": the requirements it states are the weights' (params x bytes)
    need = {"component": "weights"} if workload.get("size") and any_match(t["weights"], low[s:e]) else {}
    verdict = first_match(t["verdict"], masked[s:e])
    requires = [m.start() + s for rx in t["require"] for m in rx.finditer(masked[s:e])]
    if workload.get("size") and not (workload.get("method") or workload.get("task")) and verdict is None \
            and not any(m.kind in HARDWARE for m in ents):
        # "7B 模型: 最少 8 GB (Q4)", "- 13B: 8-10 GB": a line labelled with a model (size), no hardware named,
        # gives what that workload needs, as if it said "needs"
        label = LINE_LABEL.match(low, s, e)
        if label is not None and any(m.kind == "model" and m.end <= label.end() for m in ents) | \
                any(q.dimension == "params" and q.end <= label.end() for q in qs):
            requires.append(label.end() - 1)
    # 1. quantities, each tied to an attribute of its dimension (or a requirement of the workload)
    variants: dict[str, float] = {}
    for q in qs:
        if q.dimension == "params" and workload.get("params_raw") == q.lo:
            continue                                        # the workload's size, not a statement of it
        seg = segment(masked, s, e, q.start)
        nearest = method_before(low, seg[0], q.start, vocab) if workload.get("method") else None
        cards = cards_of_size(q, masked, seg, ents, {**workload, "method": nearest} if nearest else workload,
                              vocab, t["cards_of_size"], t["number_words"])
        if cards is not None:                   # "needs 2× 80 GB (A100 / H100)": two cards of 80 GB
            out += cards
            continue
        item = item_method(low, q, vocab) if q.dimension == "memory" else None
        if item is not None:                    # "• Full fine-tune / 126 GB": the item's method needs the figure
            out += requirement(q, {**workload, **need, "method": item}, ents, seg[0], seg[1], qs)
            continue
        part = next((k for k, rxs in t["parts"].items() if any(rx.match(low[q.end:e]) for rx in rxs)), None) \
            if q.dimension == "memory" else None
        if part == "other":
            continue                            # "78GB gradients": a part of the memory, not the whole need
        if part == "weights" and workload.get("size") and any(seg[0] <= r < q.start for r in requires):
            # "13B model = 26GB FP16 weights": what the weights take
            out += requirement(q, {**workload, "component": "weights"}, ents, seg[0], seg[1], qs)
            continue
        if q.dimension == "memory" and workload.get("method") and any(seg[0] <= r < q.start for r in requires):
            nearest = method_before(low, s, q.start, vocab)
            w = {**workload, "method": nearest} if nearest else workload
            w = size_after(q, qs, masked, w, vocab)          # "8 GB for 7B models and 15 GB for 13B models"
            out += requirement(q, {**w, **need}, ents, seg[0], seg[1], qs, owner_bound(low, q, t))
            continue
        if q.dimension == "memory" and workload.get("size") and not workload.get("task") \
                and any(seg[0] <= r < q.start for r in requires):
            # "a 13B model needs 26 GB in FP16": a model's need with no method stated (checked against the
            # least and the most demanding use of it)
            out += requirement(q, {**size_after(q, qs, masked, workload, vocab), **need}, ents, seg[0], seg[1], qs)
            continue
        if q.dimension == "memory" and ((workload.get("size") and any(seg[0] <= r < q.start for r in requires))
                                        or any(rx.search(low, seg[0], q.start) for rx in t["usage"])):
            continue                            # "加载 13B 模型需要超过 26GB", "显存占用 18GB": a workload's use, no card's memory
        attr, conf = ("gpu_count", 0.85) if counts_cards(q, qs, masked, seg) else \
            attribute_for(q, low, masked, seg, s, e, ents, carried, vocab, t)     # "1 块 16 GB 的 V100": one V100
        if attr == "gpu_count" and workload.get("size") and (workload.get("method") or workload.get("task")):
            if not (verdict and q.hi <= 1):      # "one T4 is enough for …" is the verdict's, not a GPU count's
                out += gpus_needed(q, masked, workload, ents, seg)   # "needs 4 A100s for a 13B fine-tune"
            continue
        if attr is None or (q.dimension == "count" and any_match(t["advice"], low[seg[0]:seg[1]])):
            continue
        if attr == "bytes_per_param":
            out += per_param(q, masked, s, e, ents)
            continue
        if any_match(t["hypothetical"], low[seg[0]:q.start]):
            continue                            # "如果长期低于 30%": a figure in a condition states nothing
        attr, subj, sconf = figure_subject(attr, vocab, q.start, ents, carried, seg, masked, plain=low)
        if subj is None or (attr == "params" and _generic_model(subj, vocab)):
            continue                            # "LLMs (e.g. 7B)" gives an example, not a model's size
        owner = next((m for m in reversed(named_all or ents) if m.end <= q.start and m.start >= s
                      and re.fullmatch(r"\s*[（(][^（(）)]*", masked[m.end:q.start])), None)
        owner = owner or _figure_owner(low, masked, q.start, q.end, named_all or ents, s, e) \
            or locative_gpu(low, [m for m in ents if s <= m.start and m.end <= q.start])
        if owner is not None and owner.kind in vocab.attributes[attr].applies_to:
            subj, sconf = owner.eid, 0.85           # "A10（31 TFLOPS）": the figure of the name it follows
        if sconf <= 0.55 and verdict and q.lo != q.hi:
            continue                            # "单张 40GB/80GB 的显存绰绰有余": sizes in a verdict, of no product named
        if "family" in vocab.attributes[attr].inherited_by:
            subj = host_of(subj, ents, masked, s, q.start, t) or subj
        if attr == "memory_gb" and any_match(t["instance_words"]["partition_before"], low[max(s, q.start - 80):q.start]):
            continue                            # "two GPU instances, each with 12 GB": a MIG partition's, not the card's
        if attr == "memory_gb" and any_match(t["instance_words"]["gpu_share"], low[seg[0]:seg[1]]):
            share, share_conf = subject_of(("instance", "family"), q.start, ents, carried, seg)
            if share is None:
                continue                        # a vGPU share is the instance size's ("half a T4, 8 GB of vGPU"), never the GPU's
            subj, sconf = share, min(sconf, share_conf)
        host = per_gpu_owner(q, qs, low, masked, s, e, named_all or ents, t) if attr == "memory_gb" else None
        if host is not None:                    # "8 块 16 GB 显存的 V100", "eight A100s with 40 GB each": the instance's
            subj, sconf = host.eid, 0.85        # GPUs have that memory each
        sized = sized_variants(q, ents, vocab) if attr == "memory_gb" and host is None else {}
        if sized:                               # "A100 或 A800 … 40GB 或 80GB": each variant of its size
            variants.update(sized)
            for v, size in sized.items():
                out.append(Candidate(q.start, q.end, v, attr, size, q.unit, modality="spec",
                                     confidence=min(conf, sconf) * 0.85, approx=q.approx))
            continue
        value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
        if q.bound and q.lo == q.hi:
            value = f"{q.bound} {q.lo:g}"
        c = Candidate(q.start, q.end, subj, attr, value, q.unit, modality="spec", confidence=min(conf, sconf), approx=q.approx)
        widen(c, ents, seg)
        out += per_compared(c, q.dimension, named_all or ents, ents, vocab)     # "慢 2–4 倍" than each GPU compared
    # 2. yes/no attributes stated or denied
    for attr, rxs in t["attribute"].items():
        if vocab.attributes[attr].type != "boolean":
            continue
        for rx in rxs:
            for m in rx.finditer(low, s, e):
                if masked[m.start()] in NAME_MARKS:
                    continue                        # inside a GPU, instance or model name
                seg = segment(masked, s, e, m.start())
                subj, sconf = subject_of(vocab.attributes[attr].applies_to, m.start(), ents, carried, seg)
                subj = host_of(subj, ents, masked, s, m.start(), t) or subj
                if subj is None or (verdict and workload.get("method")):
                    continue
                value = not negated(masked, seg[0], m.start(), m.end(), seg[1], t)
                if value and not any_match(t["possess"], low[max(seg[0], m.start() - 16):m.start()]):
                    continue            # named, but neither had nor denied ("uses BF16", "needs NVLink")
                c = Candidate(m.start(), m.end(), subj, attr, value, modality="spec", confidence=sconf * 0.95)
                widen(c, ents, seg)
                out.append(c)
    # 3. memory technology named beside a GPU
    for val, rx in t["memory_types"]:
        for m in rx.finditer(masked, s, e):
            seg = segment(masked, s, e, m.start())
            if negated(masked, seg[0], m.start(), m.end(), seg[1], t):
                continue                        # "instead of HBM2", "并非 HBM": what the memory is not
            subj, sconf = subject_of(vocab.attributes["memory_type"].applies_to, m.start(), ents, carried, seg, text=masked, plain=low)
            subj = host_of(subj, ents, masked, s, m.start(), t) or subj
            pick = picked([x for x in ents if x.end <= m.start() and x.kind in HARDWARE], low, m.start())
            for v in type_variants(m.start(), qs, low, ents, vocab, variants) if pick is None else ():   # figures' variants
                out.append(Candidate(m.start(), m.end(), v, "memory_type", val, confidence=sconf * 0.8))
            if subj is not None and (not variants or pick is not None):     # or the one "the PCIe card" picks
                c = Candidate(m.start(), m.end(), subj, "memory_type", val, confidence=sconf * 0.9)
                widen(c, ents, seg)
                out.append(c)
    # 3b. the host interface named: of the names just before it ("A100/V100 的 PCIe 4.0"), else of the clause's product
    for val, m in ((v, m) for v, rxs in t["host_links"] for rx in rxs for m in rx.finditer(low, s, e)):
        owners = _owners(low, m.start(), named_all or ents, s)
        if owners:
            out += [Candidate(o.start, m.end(), o.eid, "host_link", val, confidence=0.75) for o in owners]
            continue
        seg = segment(masked, s, e, m.start())
        subj, sconf = subject_of(vocab.attributes["host_link"].applies_to, m.start(), ents, carried, seg)
        if subj is not None:
            out.append(Candidate(m.start(), m.end(), subj, "host_link", val, confidence=sconf * 0.85))
    # 4. the GPU an instance family or size carries, and the one a "GPU:" line or table row names
    out += carries(masked, s, e, ents, t)
    out += keyed_gpu(low, s, e, ents, carried, row, t)
    out += announced_figures(low, masked, s, e, ents, vocab, t)          # "in bytes per parameter: LoRA ≈ 2.4"
    out += named_specs(low, masked, s, e, ents, carried, qs, vocab, t)   # "Ampere 架构", "compute capability 8.9", "单槽"
    # a table row or a list item says what its heading says of the workloads it names (and a technique
    # it names is part of the workload it describes, not advice)
    context = (_row_verdict(row, low, t) or listed) if verdict is None else None
    # 5. techniques advised for the hardware
    if context is None:
        out += recommends(low, masked, s, e, ents, carried, workload, t, topic, advising)
    # 5b. what the hardware is designed for (its role); its "适用于" is then not also a verdict
    role = roles(masked, s, e, ents, carried, t)
    out += role
    # 6. verdicts about hardware: one per clause ("with QLoRA it fits, but full fine-tuning needs several
    # GPUs"), each with the method named nearest before it, unless the clause asks ("whether it is enough")
    # 7. bottlenecks, effects of techniques, table columns headed by an attribute
    out += bottlenecks(low, masked, s, e, ents, carried, row, t)
    out += effects(low, masked, s, e, ents, t)
    out += depends(low, s, e, t)
    out += column_claims(low, s, e, ents, row, t, vocab)
    out += upgrades(low, masked, s, e, ents, carried, t)
    if verdict or context:
        scale = first_match(scale_cues(vocab), low[s:e])
        if scale and not workload.get("size"):
            workload = {**workload, "condition": low[s + scale[1]:s + scale[2]]}
        cut, taken = s, []
        for seg_end in [m.start() for m in CLAUSE.finditer(low, s, e)] + [e]:
            v = first_match(t["verdict"], masked[cut:seg_end])
            if v is None and context is not None:
                v = (context, 0, 0)
            if v is not None and not any_match(t["open_question"], masked[cut:cut + v[1]]) and \
                    not (role and v[0] in ("suitable", "recommended")):
                # the most specific method named in this clause (cue order: qlora, lora, full ...), else the sentence's
                w = _clause_workload(low, masked, cut, seg_end, ents, qs, workload, vocab)
                out += verdict_claims((v[0], v[1] + cut - s, v[2] + cut - s), masked, s, e, ents, carried, w, t,
                                      vocab, span=(cut, seg_end))
                taken.append(cut + v[1])
            cut = seg_end
        # "…是够用的，甚至是性价比极高的选择": a piece of the sentence judging a resource of its own
        judged = {c.attribute for c in out if c.modality == "verdict"}
        for a, b in _pieces(masked, s, e):
            v = first_match(t["verdict"], masked[a:b])
            if v is None or any_match(t["open_question"], masked[a:a + v[1]]):
                continue
            # the resource is named before (or in) the verdict word: "多卡互联" after "必须依赖" is a remedy
            named = [x for x in verdict_attributes(masked, a, b, v[0], t) if x not in judged and
                     any(rx.search(masked, a, a + v[2]) for rx in dict(t["verdict_attribute"]).get(x, ()))]
            if named:
                out += [c for c in verdict_claims((v[0], v[1] + a - s, v[2] + a - s), masked, s, e, ents, carried,
                                                  workload, t, vocab, span=(a, b))
                        if c.attribute in named and c.confidence > 0.5]     # of a product the sentence names
                judged.update(named)
            elif not any(a <= x < b for x in taken) and not (role and v[0] in ("suitable", "recommended")):
                # "…够用的，尤其适合微调": a verdict on tasks of its own
                out += task_verdict(low, masked, s, e, (a, b), v, ents, carried, t, vocab)
    # "two RTX 4090s can serve it", "70B serving possible on 2× H100": a verdict on counted GPUs is on that many
    counted = {c.subject: c.value for c in out if c.attribute == "min_gpus" and isinstance(c.value, float)}
    for c in out:
        if c.attribute in ("memory_verdict", "suitability") and c.subject in counted and "gpus" not in c.qualifiers:
            c.qualifiers["gpus"] = counted[c.subject]
    return out


def _clause_workload(low: str, masked: str, a: int, b: int, ents: list[_Match], qs: list[Quantity],
                     workload: dict[str, Any], vocab: Vocabulary) -> dict[str, Any]:
    """The workload of clause [a, b) of a sentence whose workload is ``workload``: the method, model and size
    the clause names itself come first ("T4 适合 7B 的推理，但不适合 13B 的全量微调": 7B inference, then 13B
    full fine-tuning), the sentence's fill in the rest."""
    if not workload.get("method"):
        return workload
    mine = [val for val, rx in _question_cues(vocab).get("method", ()) if rx.search(low, a, b)]
    if not mine:
        return workload
    own = workload_of(low, masked, a, b, [m for m in ents if a <= m.start < b], vocab, [q for q in qs if a <= q.start < b])
    w = {k: v for k, v in workload.items() if k != "methods"}
    w.update({k: own[k] for k in ("method", "methods", "model", "size", "params", "params_raw") if k in own})
    w["method"] = mine[0]
    return w


#: a figure said right after its product ("the T4's 16 GB", "T4 的 16GB", "而 T4 为 16GB") or followed by it
#: ("600 GB/s for the A10", "320 GB/s on the T4"): the figure is that product's, even in a comparison
_OWNER_BEFORE = re.compile(r"\s*(?:'s|的|为|是|则为|达|:|：)\s*(?:约|~|≈)?\s*")


_OWNER_AFTER = re.compile(r"\s*(?:for|on|of|in)\s+(?:the\s+|an?\s+)?(?:nvidia\s+)?")


def _figure_owner(low: str, masked: str, start: int, end: int, named: list[_Match], s: int, e: int) -> _Match | None:
    """The product a figure is written against (see :data:`_OWNER_BEFORE`), or None."""
    before = next((m for m in reversed(named) if m.kind in HARDWARE and s <= m.start and m.end <= start), None)
    if before is not None and (_OWNER_BEFORE.fullmatch(masked, before.end, start) or
                               (possessive(before, low) and not masked[before.end:start].strip())):
        return before
    after = next((m for m in named if m.kind in HARDWARE and end <= m.start and m.end <= e), None)
    if after is not None and _OWNER_AFTER.fullmatch(masked, end, after.start):
        return after
    return None


def _owners(low: str, pos: int, ents: list[_Match], s: int) -> list[_Match]:
    """"A100/V100 的 PCIe 4.0", "the A100's": the hardware names joined just before a possessive."""
    out: list[_Match] = []
    end = pos
    for m in reversed([m for m in ents if m.kind in HARDWARE and s <= m.start and m.end <= pos]):
        gap = low[m.end:end]
        if not (re.fullmatch(r"\s*(?:的|'s)\s*", gap) if not out else re.fullmatch(r"\s*(?:/|、|和|与|or|and|,)\s*", gap)):
            break
        out.insert(0, m)
        end = m.start
    return out


#: a generic word for fine-tuning ("fine-tuning", "微调") this close after a method's name is that method's
#: head noun ("LoRA fine-tuning", "用 QLoRA 微调"), not a second method
METHOD_PHRASE = 12


def method_before(low: str, s: int, at: int, vocab: Vocabulary) -> str | None:
    """The method named nearest before ``at`` in [s, at): the one whose name ends last (of two that end
    together, the more specific: "4-bit LoRA" is QLoRA), a generic fine-tuning word right after a
    method's name counting as that method's ("LoRA fine-tuning of a 7B model needs 16 GB": LoRA)."""
    cues = _question_cues(vocab)        # a method named as what came before is none ("Before QLoRA, fine-tuning …")
    found = sorted(((m.start(), m.end(), i, val) for i, (val, rx) in enumerate(cues.get("method", ()))
                    for m in rx.finditer(low, s, at) if not contrasted(low, m, cues)), key=lambda x: (x[1], -x[2]))
    if not found:
        return None
    start, _, _, val = found[-1]
    specific = [f for f in found if f[3] != val and f[1] <= start and start - f[1] <= METHOD_PHRASE
                and not CLAUSE.search(low, f[1], start)]
    if val == "full" and not re.search(r"full|全", low[start:found[-1][1]]) and specific:
        return specific[-1][3]
    return val


def _pieces(masked: str, s: int, e: int) -> list[tuple[int, int]]:
    """The comma-delimited pieces of a sentence."""
    out, a = [], s
    while a < e:
        b = segment(masked, s, e, a)[1]
        out.append((a, b))
        a = b + 1
    return out
