"""Answers to questions about more than one scenario: comparisons of hardware ("T4 or A10 for 7B
LoRA?"), the smallest instance size that fits ("which GN7 size can QLoRA a 7B model?"), and inverse
questions ("the longest context for Llama-2-7B inference on a T4"). Each runs the same sizing answer
as ``/v1/query`` for every candidate, so every verdict links to its own proof."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import BadInput
from ..kb.store import ReleaseView
from ..core.terms import gb
from ..kb.names import resolve
from ..models.ask import Candidate, ComparisonAnswer, GpuChoiceAnswer, InstanceChoiceAnswer, InverseAnswer
from ..sizing.answer import query

if TYPE_CHECKING:
    from ..core.session import Session

HARDWARE_KEYS = ("gpu", "instance", "family", "vram_gb")
#: search ranges of the inverse questions: (lowest, highest) value tried
INVERSE_RANGES = {"params": (1e8, 2e12), "batch": (1, 4096), "seq_len": (128, 1_048_576)}
INVERSE_WORDS = {"params": ("model size", "模型规模"), "batch": ("batch size", "batch 大小"), "seq_len": ("context length", "上下文长度")}


def _option(state: Session, body: dict[str, Any], view: ReleaseView, notes: dict[str, list] | None = None,
            **head: Any) -> Candidate:
    """One candidate's sizing answer, reduced to what a comparison shows; ``head``: the fields that name
    the candidate, written first; ``notes``: where to keep the sizing's assumptions, under the candidate's name."""
    try:
        a = query(state, {**body, "kb_version": view.name})
    except BadInput as exc:
        return Candidate.of(**head, verdict=None, error=exc.message)
    if notes is not None:
        notes[next(iter(head.values()))] = a.get("notes") or []
    return Candidate.of(**head, verdict=a.verdict, need_gb=a.memory.total, usable_gb_per_gpu=a.capacity.per_gpu,
                        gpus=a.capacity.gpus, min_gpus=a.min_gpus, conclusion_id=a.conclusion_id, summary=a.summary)


def _short(vocab, kind: str, name: str) -> str:
    return vocab.label(f"{kind}:{name}") if f"{kind}:{name}" in vocab.entities else name


def compare(state: Session, scenario: dict[str, Any], compared: dict[str, list[str]], view: ReleaseView,
            lang: str, head: dict[str, Any]) -> ComparisonAnswer:
    """Each compared GPU, instance or family sized side by side, and the difference that decides
    (``head``: the answer's first fields, e.g. the question asked)."""
    key = next(iter(compared))
    kind = {"gpus_compared": "gpu", "instances_compared": "instance", "families_compared": "family"}[key]
    base = {k: v for k, v in scenario.items() if k not in HARDWARE_KEYS}
    options = [_option(state, {**base, kind: name}, view, **{kind: name}) for name in compared[key]]
    fits = [o for o in options if o.verdict == "fits"]
    fails = [o for o in options if o.verdict == "does_not_fit"]
    vocab = state.kb.vocab
    def desc(o: Candidate, zh: bool) -> str:
        label = _short(vocab, kind, o.get(kind))
        if o.verdict is None:
            return f"{label}：无法计算（{o.error}）" if zh else f"{label}: cannot be sized ({o.error})"
        need, have = gb(o.need_gb), gb(o.usable_gb_per_gpu)
        if zh:
            return f"{label}{'放得下' if o.verdict == 'fits' else '放不下'}（每卡需约 {need}，可用 {have}）"
        return f"{label} {'fits' if o.verdict == 'fits' else 'does not fit'} (needs about {need} per GPU, {have} usable)"
    best = max(fits, key=lambda o: (o.usable_gb_per_gpu or 0) - (o.need_gb or 0)) if fits else None
    if fits and fails:
        deciding = {"en": f"Memory decides: {', '.join(desc(o, False) for o in fails)}; {', '.join(desc(o, False) for o in fits)}.",
                    "zh": f"决定因素是显存：{'；'.join(desc(o, True) for o in fails)}；{'；'.join(desc(o, True) for o in fits)}。"}
    elif fits:
        deciding = {"en": f"All fit; {_short(vocab, kind, best.get(kind))} leaves the most memory to spare. " + "; ".join(desc(o, False) for o in fits) + ".",
                    "zh": f"都放得下；{_short(vocab, kind, best.get(kind))} 余量最大。" + "；".join(desc(o, True) for o in fits) + "。"}
    else:
        deciding = {"en": "None fits as asked. " + "; ".join(desc(o, False) for o in options) + ".",
                    "zh": "按所问条件都放不下。" + "；".join(desc(o, True) for o in options) + "。"}
    return ComparisonAnswer.of(**head, kind="comparison", compared=kind, options=options,
                               best=best.get(kind) if best else None, deciding=deciding, answer=deciding[lang])


def _size_key(view: ReleaseView, inst: str) -> tuple:
    def num(attr: str) -> float:
        f = view.ref(inst, attr)
        return float(f.norm.point()) if f is not None and f.norm is not None and hasattr(f.norm, "point") else float("inf")
    return (num("gpu_count"), num("vcpu"), num("host_memory_gb"), inst)


def instance_choice(state: Session, scenario: dict[str, Any], view: ReleaseView, lang: str,
                    head: dict[str, Any]) -> InstanceChoiceAnswer:
    """The smallest size of a family (or of the catalog) that fits, smallest first by GPU count, then
    vCPUs and host memory, with why each smaller size does not (``head``: the answer's first fields)."""
    family = scenario.get("family")
    fam_id = f"family:{family}" if family else None
    sizes = sorted({f.subject for f in view.reference if f.attribute == "family" and f.subject.startswith("instance:")
                    and (fam_id is None or f.value == fam_id)}, key=lambda i: _size_key(view, i))
    if not sizes:
        raise BadInput(f"no instance sizes of {family or 'any family'} in release {view.name}")
    base = {k: v for k, v in scenario.items() if k not in HARDWARE_KEYS + ("gpus",)}
    tried: list[Candidate] = []
    choice = None
    for inst in sizes:
        tried.append(_option(state, {**base, "instance": inst.split(":", 1)[1]}, view, instance=inst.split(":", 1)[1]))
        if tried[-1].verdict == "fits":
            choice = tried[-1]
            break
    vocab = state.kb.vocab
    smaller = [t for t in tried if t is not choice]
    why_en = "; ".join(f"{t.instance} does not fit (needs about {gb(t.need_gb)} per GPU, {gb(t.usable_gb_per_gpu)} usable)"
                       for t in smaller if t.verdict == "does_not_fit")
    why_zh = "；".join(f"{t.instance} 放不下（每卡需约 {gb(t.need_gb)}，可用 {gb(t.usable_gb_per_gpu)}）"
                       for t in smaller if t.verdict == "does_not_fit")
    where = vocab.label(fam_id) if fam_id else "the catalog"
    if choice:
        en = f"The smallest {family or ''} size that fits is {choice.instance}.".replace("  ", " ") + (f" Smaller sizes: {why_en}." if why_en else "")
        zh = f"能放下的最小规格是 {choice.instance}。" + (f"更小的规格：{why_zh}。" if why_zh else "")
    else:
        en = f"No size of {where} fits. {why_en}."
        zh = f"{family or '目录中'}没有能放下的规格。{why_zh}。"
    return InstanceChoiceAnswer.of(**head, kind="instance_choice", family=family, choice=choice.instance if choice else None,
                                   tried=tried, answer=zh if lang == "zh" else en, text={"en": en, "zh": zh})


#: a card with less memory than this share of the run's need on the largest card cannot hold it (a card's own
#: kernels change the need by less); an engine that takes a share of each card's memory is sized on every card
SKIP_BELOW = 0.8
#: how many of the largest GPUs' fewest counts an answer lists
FEWEST_SHOWN = 6
#: the memory size from which a card counts as one of the largest, whose fewest counts an answer lists
MANY_CARDS_GB = 80


def single_cards(view: ReleaseView) -> list[tuple[float, str]]:
    """The NVIDIA GPUs the release gives exactly one memory size, as (GB, name), smallest first: a product with
    versions is sized through its versions, each its own card."""
    got = view.__dict__.get("_single_cards")
    if got is None:
        vocab = view.kb.vocab
        sizes: dict[str, set[float]] = {}
        for f in view.reference:
            if f.attribute != "memory_gb" or vocab.kind_of(f.subject) != "gpu" or f.norm is None \
                    or vocab.entities.get(f.subject, {}).get("variants") or "nvidia" not in vocab.label(f.subject).lower():
                continue
            x = f.norm.point() if hasattr(f.norm, "point") else None
            if x:
                sizes.setdefault(f.subject, set()).add(float(x))
        got = sorted((next(iter(v)), e.split(":", 1)[1]) for e, v in sizes.items() if len(v) == 1)
        view.__dict__["_single_cards"] = got
    return got


def gpu_choice(state: Session, scenario: dict[str, Any], view: ReleaseView, lang: str,
               head: dict[str, Any], counts: bool = False) -> GpuChoiceAnswer:
    """A run asked about with no GPU: its need, sized on the largest card; then the cards of the smallest memory size
    that hold it (each sized on its own, so its kernels count); the fewest cards of the largest GPUs (from
    :data:`MANY_CARDS_GB` up) when none holds it, when only such a card does, or when the question asks how many
    (``counts``)."""
    cards = single_cards(view)
    if not cards:
        raise BadInput(f"release {view.name} knows no GPU's memory size")
    base = {k: v for k, v in scenario.items() if k not in HARDWARE_KEYS}
    memory = {name: mem for mem, name in cards}
    groups: dict[float, list[str]] = {}
    for mem, name in cards:
        groups.setdefault(mem, []).append(name)
    sized: dict[str, Candidate] = {}          # each card sized once
    tried: dict[str, Candidate] = {}          # the cards the answer weighed, in that order
    assumed: dict[str, list] = {}             # what each card's sizing assumed (precision, seq_len, batch, ...)

    def size(name: str) -> Candidate:
        if name not in sized:
            sized[name] = _option(state, {**base, "gpu": name}, view, assumed, gpu=name)
        tried.setdefault(name, sized[name])
        return sized[name]

    top_gb, top = cards[-1]
    largest = sized[top] = _option(state, {**base, "gpu": top}, view, assumed, gpu=top)     # the need where memory is plenty
    if largest.verdict is None:
        raise BadInput(largest.error or "the run cannot be sized")
    label = lambda n: _short(state.kb.vocab, "gpu", n)
    choice: Candidate | None = None
    fitting: list[str] = []
    if largest.verdict == "fits":
        floor = 0 if base.get("engine") else SKIP_BELOW * (largest.need_gb or 0)
        for mem in sorted(m for m in groups if m >= floor):
            fit = [o for o in map(size, groups[mem]) if o.verdict == "fits"]
            if fit:
                choice, fitting = fit[0], [o.gpu for o in fit]
                break
    chosen_gb = memory[choice.gpu] if choice is not None else None
    # the cards of the memory size just below the chosen one: why a smaller card will not do
    under = max((memory[n] for n in tried if chosen_gb is not None and memory[n] < chosen_gb), default=None)
    below = [o for o in tried.values() if o.verdict == "does_not_fit" and memory[o.gpu] == under]
    fewest: list[Candidate] = []
    if choice is None or counts or chosen_gb >= MANY_CARDS_GB:
        best: dict[float, Candidate] = {}        # of each memory size, the card that needs the fewest
        large = [size(n) for mem in sorted(groups) if mem >= MANY_CARDS_GB for n in groups[mem]]
        for o in sorted((o for o in large if o.min_gpus), key=lambda o: (o.min_gpus, o.gpu)):
            best.setdefault(memory[o.gpu], o)
        fewest = sorted(best.values(), key=lambda o: (o.min_gpus, memory[o.gpu]))[:FEWEST_SHOWN]
    need = (choice or largest).need_gb
    # what the sizing of the card the need is reported on assumed (precision, seq_len, batch, ...), as /v1/query says it
    notes = assumed.get((choice or largest).gpu) or []
    few_en = ", ".join(f"{o.min_gpus}× {label(o.gpu)}" for o in fewest)
    few_zh = "、".join(f"{o.min_gpus} 张 {label(o.gpu)}" for o in fewest)
    if choice is not None:
        names = ", ".join(label(n) for n in fitting)
        en = (f"It needs about {gb(need)} of GPU memory on one card. The smallest GPUs that hold it ({chosen_gb:g} GB): {names}."
              + (f" Smaller ones do not: {'; '.join(f'{label(o.gpu)} ({gb(o.usable_gb_per_gpu)} usable)' for o in below)}." if below else "")
              + (f" The fewest cards of the largest GPUs: {few_en}." if fewest else ""))
        zh = (f"单卡约需 {gb(need)} 显存。能放下的显存最小的 GPU（{chosen_gb:g} GB）：{names}。"
              + (f"更小的放不下：{'；'.join(f'{label(o.gpu)}（可用 {gb(o.usable_gb_per_gpu)}）' for o in below)}。" if below else "")
              + (f"大显存 GPU 最少需要：{few_zh}。" if fewest else ""))
    else:
        en = (f"It needs about {gb(need)} of GPU memory on one card, more than any single GPU holds (the largest: "
              f"{label(top)}, {top_gb:g} GB)." + (f" The fewest cards: {few_en}." if fewest else ""))
        zh = (f"单卡约需 {gb(need)} 显存，超过任何一张 GPU（最大的 {label(top)} 为 {top_gb:g} GB）。"
              + (f"最少需要：{few_zh}。" if fewest else ""))
    return GpuChoiceAnswer.of(**head, kind="gpu_choice", need_gb=need, choice=choice.gpu if choice else None,
                              fitting=fitting, fewest=fewest, tried=list(tried.values()), notes=notes,
                              answer=zh if lang == "zh" else en, text={"en": en, "zh": zh})


def inverse(state: Session, scenario: dict[str, Any], target: str, view: ReleaseView, lang: str,
            head: dict[str, Any]) -> InverseAnswer:
    """The largest model size, batch or context length that fits the rest of the scenario (bisection over
    the sizing answers; each bound checked links to its proof); ``head``: the answer's first fields."""
    lo, hi = INVERSE_RANGES[target]
    base = {k: v for k, v in scenario.items() if k != target and not (target == "params" and k == "model")}

    def fits(x: float) -> Candidate:
        value = int(x) if target != "params" else float(f"{x:.3g}")
        return _option(state, {**base, target: value}, view, value=value)

    low = fits(lo)
    words = INVERSE_WORDS[target]
    if low.verdict != "fits":
        en = f"Even the smallest {words[0]} tried ({low.value:g}) does not fit."
        zh = f"即使最小的{words[1]}（{low.value:g}）也放不下。"
        return InverseAnswer.of(**head, kind="inverse", target=target, largest=None, checked=[low],
                                answer=zh if lang == "zh" else en, text={"en": en, "zh": zh})
    high = fits(hi)
    if high.verdict == "fits":
        best, above = high, None
    else:
        best, above = low, high
        for _ in range(40):
            if target == "params":
                mid = (best.value * above.value) ** 0.5
                if above.value / best.value < 1.02:
                    break
            else:
                mid = (best.value + above.value) // 2
                if above.value - best.value <= 1:
                    break
            m = fits(mid)
            if m.verdict == "fits":
                best = m
            else:
                above = m
    shown = f"{best.value / 1e9:.3g}B parameters" if target == "params" else f"{best.value:,}"
    shown_zh = f"{best.value / 1e9:.3g}B 参数" if target == "params" else f"{best.value:,}"
    en = f"The largest {words[0]} that fits is about {shown} (needs {gb(best.need_gb)} per GPU of {gb(best.usable_gb_per_gpu)} usable)."
    zh = f"能放下的最大{words[1]}约为 {shown_zh}（每卡需 {gb(best.need_gb)}，可用 {gb(best.usable_gb_per_gpu)}）。"
    if above is None:
        en += " (the upper end of the range searched)"
        zh += "（已到搜索范围上限）"
    # the model was sized above, so its name resolves
    model = resolve(state.kb.vocab, "model", scenario["model"]) if target == "seq_len" and scenario.get("model") else None
    limit = view.ref(model, "max_context") if model else None
    if limit is not None and best.value > limit.value:
        name = state.kb.vocab.label(model)
        en += (f" That is beyond the {int(limit.value):,} tokens {name} was trained for (max_position_embeddings, {limit.id}): "
               f"memory allows it, but the model needs a long-context variant or RoPE scaling to work past {int(limit.value):,}.")
        zh += (f"这超出了 {name} 的训练上下文长度 {int(limit.value):,}（max_position_embeddings，{limit.id}）："
               f"显存放得下，但模型需要长上下文版本或 RoPE 缩放才能在超过 {int(limit.value):,} 时正常工作。")
    return InverseAnswer.of(**head, kind="inverse", target=target, largest=best.value, fits=best, first_not_fitting=above,
                            answer=zh if lang == "zh" else en, text={"en": en, "zh": zh})
