"""Workloads and verdicts for the claim extractor: the workload a sentence speaks of (method, task, model,
size, precision), the qualifiers it gives a claim, a workload's memory requirement or GPU count, and the
verdicts a clause states about hardware (one per resource it names and per task or model it lists)."""
from __future__ import annotations

import re
from typing import Any

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match, cue_patterns as _question_cues, generic_model as _generic_model
from .subject import HARDWARE, Candidate, host_of, subject_of, widen
from .tokens import BULLET, Quantity, any_match, segment, tables

#: the concept a requirement of a method is stated about when the text names no model
METHOD_CONCEPT = {"full": "concept:llm-full-finetune", "lora": "concept:llm-peft", "qlora": "concept:llm-peft",
                  "pretrain": "concept:llm-pretrain", "inference": "concept:inference-memory"}
_TRAIN_TASK = re.compile(r"(?<![a-z])train(?:s|ed|ing)?(?![a-z])|训练")
_INFER_TASK = re.compile(r"(?<![a-z])(?:inference|serv(?:e|es|ing)|deploy\w*)(?![a-z])|推理|部署")

def contrasted(text: str, m: re.Match[str], cues: dict[str, Any]) -> bool:
    """A method named only as what came before or what is not used ("Before QLoRA, …", "不用 LoRA"; cues
    ``method_contrast``)."""
    return any(rx.search(text[max(0, m.start() - 24):m.start()]) if side == "before" else rx.match(text[m.end():m.end() + 24])
               for side, rx in cues.get("method_contrast", ()))


def workload_of(low: str, masked: str, s: int, e: int, ents: list[_Match], vocab: Vocabulary,
              qs: list[Quantity]) -> dict[str, Any]:
    """The workload a sentence speaks of: method (or task), model or parameter count, precision."""
    text = low[s:e]
    w: dict[str, Any] = {}
    cues = _question_cues(vocab)
    named = [val for val, rx in cues.get("method", ()) if any(not contrasted(text, m, cues) for m in rx.finditer(text))]
    # the tasks named by the task enum's labels (a label inside a longer one, "训练" in "预训练", is not one)
    spans = [(m.start(), m.end(), task) for task, rx in tables(vocab)["tasks"] if rx.pattern for m in rx.finditer(text)]
    tasks = list(dict.fromkeys(t for a, b, t in spans if not any(x <= a and b <= y and (x, y) != (a, b) for x, y, _ in spans)))
    if named == ["inference"] and _TRAIN_TASK.search(text) and not _INFER_TASK.search(text):
        named = []         # "a running example ... trained with Adam": "run" is no serving where only training is named
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
    params = [q for q in qs if q.dimension == "params"]
    if params and all(_generic_model(mid, vocab) for mid in models):
        models = []         # "a 70-billion-parameter LLM": the size of a model of no name
    if models:
        w["model"] = models
        w["size"] = any(not _generic_model(mid, vocab) for mid in models)
    if params and not models:
        w["params"], w["size"] = params[0].lo * (vocab.unit_factor("params", params[0].unit) or 1), True
        w["params_raw"] = params[0].lo
    # the optimizer named ("8-bit optimizers", "AdamW 8bit"): a condition of the sizing; the "8-bit" inside
    # its name is the optimizer states' width, not the weights' precision
    opt_spans = [(s + m.start(), s + m.end(), val) for val, rx in cues.get("optimizer", ()) for m in rx.finditer(text)]
    opts = [val for _, _, val in sorted(opt_spans)] + [m.eid.split(":", 1)[1] for m in ents if m.kind == "optimizer"]
    if opts:
        w["optimizer"] = f"optimizer:{opts[0]}"
    precs = [m.eid for m in ents if m.kind == "precision"
             and not any(a <= m.start < b for a, b, _ in opt_spans)]
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
    if w.get("optimizer"):
        q["optimizer"] = w["optimizer"]
    if w.get("condition"):
        q["condition"] = w["condition"]
    if w.get("component"):
        q["component"] = [w["component"]]
    return q


def scale_cues(vocab: Vocabulary) -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    """The scale-of-training words (large-scale, small models) as (role, patterns) pairs."""
    return tuple((role, tuple(re.compile(p) for p in ps)) for role, ps in (vocab.cues.get("scale") or {}).items())


def owner_bound(low: str, q: Quantity, t: dict[str, Any]) -> str | None:
    """The bound a word states of a figure written as another's ("needs far more than a T4's 16 GB": more
    than 16 GB), the owner's name (one to three words and an article) standing between them; else None."""
    head = low[max(0, q.start - 64):q.start]
    if not re.search(r"['’]s\s*$", head):
        return None
    words = list(re.finditer(r"\S+", head))
    for k in range(1, min(3, len(words)) + 1):
        pre = re.sub(r"(?<![a-z])(?:the|an?|one|each)\s+$", "", head[:words[-k].start()])
        op = next((op for op, rxs in t["bound"] if any(not rx.pattern.startswith("^") and rx.search(pre) for rx in rxs)), None)
        if op:
            return op
    return None


def requirement(q: Quantity, w: dict[str, Any], ents: list[_Match], s: int, e: int,
                qs: list[Quantity] = (), bound: str | None = None) -> list[Candidate]:
    """"Fully fine-tuning 7B needs 112 GB": a memory requirement of the workload (``qs``: the sentence's
    figures; a model size written between the model's name, not right after it, and the figure is another
    model's; ``bound``: one stated through an owner, see :func:`owner_bound`)."""
    # the specific model named nearest before the figure in its clause, else the only one in the sentence
    every = [m for m in ents if m.kind == "model" and m.eid in (w.get("model") or ())]
    models = [m for m in every if m.end <= q.start] or (every if len(every) == 1 else [])
    if models and any(p.dimension == "params" and models[-1].end + 3 < p.start < q.start for p in qs):
        return []                   # "Llama-7B 需 14GB，而 DeepSeek-R1 671B 需 405GB": not the Llama's 405 GB
    quals = qualifiers_of(w)
    if models:
        subject = models[-1].eid
        quals.pop("model", None)
    elif not w.get("method") and not w.get("task") and w.get("params"):
        subject = "concept:model-memory"        # "a 13B model needs 26 GB": what it is used for left open
    else:
        subject = METHOD_CONCEPT.get(str(w.get("method")))
        if subject is None or (w.get("method") == "inference" and not w.get("params")):
            return []               # what serving needs depends on the model's size above all: none, no claim
    value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
    if (q.bound or bound) and q.lo == q.hi:
        value = f"{q.bound or bound} {q.lo:g}"
    c = Candidate(s, q.end, subject, "memory_required", value, q.unit, quals, "estimate", 0.75, q.approx)
    widen(c, ents, (s, e))
    return [c]


#: between a memory figure and the model size it is for ("15 GB for 13B models", "16 GB (7B)")
_FOR_SIZE = re.compile(r"\s*(?:(?:for|with|on)\s+(?:an?\s+|the\s+)?|[（(]\s*)")


def size_after(q: Quantity, qs: list[Quantity], masked: str, w: dict[str, Any], vocab: Vocabulary) -> dict[str, Any]:
    """A sentence giving several figures, each followed by the model size it is for ("as little as 8 GB for 7B
    models and 15 GB for 13B models"): figure ``q``'s workload is of the size written right after it."""
    size = next((p for p in qs if p.dimension == "params" and p.start >= q.end
                 and _FOR_SIZE.fullmatch(masked, q.end, p.start)), None)
    if size is None or w.get("model"):
        return w
    return {**w, "params": size.lo * (vocab.unit_factor("params", size.unit) or 1), "params_raw": size.lo, "size": True}


_ITEM_MARK = re.compile(r"[ \t]*(?:[-*•▪●·]|\d{1,2}[.)、])?[ \t]*")


def item_method(low: str, q: Quantity, vocab: Vocabulary) -> str | None:
    """"• Full fine-tune / 126 GB", "- QLoRA / ~6 GB": a list item (or a line) that is only a method's name,
    with the next line only a memory figure, gives the memory that method needs: the method (None unless
    both lines are so)."""
    a = low.rfind("\n", 0, q.start) + 1
    b = low.find("\n", q.end)
    b = len(low) if b < 0 else b
    if low[a:q.start].strip(" \t~≈约") or low[q.end:b].strip(" \t"):
        return None
    end = a - 1
    while end > 0:
        start = low.rfind("\n", 0, end) + 1
        if low[start:end].strip():
            break
        end = start - 1
    else:
        return None
    line = low[start:end]
    return _method_named(line[_ITEM_MARK.match(line).end():].strip(), vocab)


def _method_named(name: str, vocab: Vocabulary) -> str | None:
    """The method ``name`` is the whole of (a method cue matching it from its first to its last character)."""
    for val, rx in _question_cues(vocab).get("method", ()):
        m = rx.search(name)
        if m is not None and m.start() == 0 and m.end() == len(name):
            return val
    return None


#: a line's label before its colon ("7B模型:", "- Llama 3 8B:", "2. Full fine-tuning (FFT):"): the label is group 1
LINE_LABEL = re.compile(r"[ \t]*(?:[-*•▪●][ \t]*|\d{1,2}[.)、][ \t]*)?([^:：\n]{1,40}?)[ \t]*(?:[(（][^)）\n]{0,30}[)）])?[ \t]*[:：]")


#: the longest label introducing a list ("双精度浮点运算性能：", "Memory bandwidth per card:")
LABEL_CHARS = 40


def label_attribute(low: str, s: int, cands: list[str], t: dict[str, Any]) -> str | None:
    """"V100 的双精度浮点运算性能：\n- 7.8 TFLOPS\n- …": the attribute of a list item's figure that names none, when
    the line introducing the list (ending in a colon, above the list's items) names exactly one of ``cands``."""
    a = low.rfind("\n", 0, s) + 1
    if not BULLET.match(low, a) or not BULLET.match(low, a).group(0).strip():
        return None
    while a > 0:
        b = a - 1
        a = low.rfind("\n", 0, b) + 1
        line = low[a:b].strip()
        if line and not (BULLET.match(line) and BULLET.match(line).group(0).strip()):
            if not re.search(r"[:：]$", line):
                return None
            line = re.split(r"[。！？!?；;]|\.(?!\d)", line)[-1]       # the label: the line's last sentence
            if len(line) > LABEL_CHARS:
                return None
            named = [x for x in cands if any(rx.search(line) for rx in t["attribute"][x])]
            return named[0] if len(named) == 1 else None
    return None


def label_method(low: str, s: int, vocab: Vocabulary) -> str | None:
    """"• Full fine-tuning: requires 8-10x the weights… A 7B model needs ~72 GB": the method a line's label
    names ("<method>:" at the start of the line holding ``s``), which the line's sentences are about."""
    a = low.rfind("\n", 0, s) + 1
    m = LINE_LABEL.match(low, a)
    if m is None:
        return None
    return _method_named(m.group(1).strip(), vocab)


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
    if not (w.get("method") or w.get("task") or w.get("model") or resource or (w.get("params") and w.get("precision"))):
        return []                       # "a 13B model in FP16 fits on …": a size at a precision is a workload too
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
        # its product is named in its clause or before it, never in a later one (", which the 4090 cannot")
        subj, conf = subject_of(kinds, pos, [m for m in ents if m.start < b], carried, (ra, rb), topic_first=True)
        if subj is None:
            continue
        subj = host_of(subj, ents, masked, s, pos, t) or subj
        for q in split:
            c = Candidate(a + len(masked[a:b]) - len(masked[a:b].lstrip(" ,，;；|")), b, subj, attr, verdict[0],
                          qualifiers=dict(q), modality="verdict", confidence=conf * 0.85)
            widen(c, ents, (a, b))
            out.append(c)
    return out


def task_verdict(low: str, masked: str, s: int, e: int, piece: tuple[int, int], verdict: tuple[str, int, int],
                 ents: list[_Match], carried: dict[str, _Match], t: dict[str, Any], vocab: Vocabulary) -> list[Candidate]:
    """"…内存是够用的，尤其适合微调和小模型训练", "…, and it is well suited to fine-tuning": a comma piece
    with a verdict word of its own that names no resource but tasks (or a method) of its own judges the
    hardware's suitability for them, one verdict per task. A piece that names neither states nothing."""
    a, b = piece
    if verdict_attributes(masked, a, b, verdict[0], t) not in (["suitability"], ["memory_verdict"]) or \
            any_match(t["open_question"], masked[a:a + verdict[1]]):
        return []
    w = workload_of(low, masked, a, b, [m for m in ents if a <= m.start < b], vocab, [])
    if not (w.get("method") or w.get("task")):
        return []
    return [c for c in verdict_claims((verdict[0], verdict[1] + a - s, verdict[2] + a - s), masked, s, e, ents, carried,
                                      w, t, vocab, span=piece) if c.attribute in ("suitability", "memory_verdict")]
