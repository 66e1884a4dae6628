"""Specifications the quantity reader does not read: a text attribute's value named beside the attribute's
own word ("Ampere architecture", "基于 Hopper 架构"), a figure without a unit right after its attribute's
word ("compute capability 8.9", "计算能力为 8.0"), a count written right before the noun of what it counts
("up to seven MIG instances", "最多 7 个 MIG 实例", "single-slot", "单槽"), and how an instance's GPUs are
counted and sized ("8 块 16 GB 显存的 V100", "eight A100 GPUs with 40 GB each": 8 GPUs of the instance,
16 GB each of them). The words are the vocabulary's ``text_value``, ``figure_after``, ``counted``,
``number_words`` and ``instance_words`` cues; a reading is made only where it is unambiguous, and the
audit judges it."""
from __future__ import annotations

import re
import weakref
from typing import Any

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match, per_vocabulary
from .subject import Candidate, subject_of, widen
from .workload import qualifiers_of
from .claims import sized_variants
from .guard_base import vocab_cues
from .tokens import GPU_AFTER, NAME_MARKS, Quantity, any_match, negated, segment

_FEATURED: "weakref.WeakKeyDictionary[Vocabulary, Any]" = weakref.WeakKeyDictionary()
#: a figure without a unit: digits with at most one decimal part, not the start of a longer number
_FIGURE = re.compile(r"(\d{1,2}(?:\.\d{1,2})?)(?![0-9]|\.\d)")
#: a count in digits (never inside a longer number or a name)
_DIGITS = re.compile(r"(?<![0-9.,\ue000-\ue003])(\d{1,2})(?![0-9.])")
#: between a text value and its attribute's word ("Ampere architecture", "Ada Lovelace 架构")
_GAP_AFTER = re.compile(r"[\s\-]*")
#: what may stand between a count and the GPU name it counts besides a memory figure ("8 块 16 GB 显存的 V100")
_CARD_GAP = re.compile(r"[^\ue000-\ue003，,。;；|｜]{0,16}")
#: a count's unit that counts something other than cards (cores, vCPUs, threads)
_NOT_CARDS = re.compile(r"核|线程|(?<![a-z])(?:v?cores?|v?cpus?|threads?)(?![a-z])")
#: how far before a name or a value a comparison word reaches ("almost double the memory of the H100")
COMPARED_REACH = 40

#: what may stand between a component and the ordinal after it ("Tensor Cores of the third generation",
#: "Tensor Cores (3rd Gen)")
_AFTER_NOUN = re.compile(r"\s*(?:[(（]\s*|(?:of|from)\s+(?:the\s+)?)")


def compared_before(low: str, start: int, floor: int, t: dict[str, Any]) -> bool:
    """Is what starts at ``start`` what another is compared with: a comparison word (``comparison.before``)
    ends right before it, within :data:`COMPARED_REACH` characters and not before ``floor``, or it stands in a
    bracket that a comparison word opens ("HBM3e uses 6 stacks (vs. 5 in H100)", "（相比 A100 的 40GB）")?"""
    if any(rx.search(low, max(floor, start - COMPARED_REACH), start) for rx in t["compared"]):
        return True
    opened = max(low.rfind("(", max(floor, start - COMPARED_REACH), start), low.rfind("（", max(floor, start - COMPARED_REACH), start))
    return opened >= 0 and not re.search(r"[)）]", low[opened:start]) and \
        any(rx.match(low, opened + 1) for rx in t["cmp"]["bracket"])


def named_specs(low: str, masked: str, s: int, e: int, ents: list[_Match], carried: dict[str, _Match],
                qs: list[Quantity], vocab: Vocabulary, t: dict[str, Any]) -> list[Candidate]:
    """The text values, unitless figures and counted nouns of sentence [s, e)."""
    out: list[Candidate] = []
    taken: set[tuple[str, int]] = set()

    # "这三款芯片均基于 Hopper 架构", "it is based on Ampere": a pronoun names the products spoken of before
    refers = any_match(t["coref"]["plural"], low[s:e]) or any_match(t["coref"]["singular"], low[s:e])

    def add(attr: str, value: Any, a: int, b: int, unit: str | None = None, named: bool = False) -> None:
        if (attr, a) in taken or (named and not refers and not any(m.kind in vocab.attributes[attr].applies_to for m in ents)):
            return                            # "Hopper 架构首次引入…": the architecture spoken of, no product
        seg = segment(masked, s, e, a)
        if negated(masked, seg[0], a, b, seg[1], t):
            return                            # "not a dual-slot card": nothing stated
        subj, conf = subject_of(vocab.attributes[attr].applies_to, a, ents, carried, seg)
        if subj is None:
            return
        taken.add((attr, a))
        c = Candidate(a, b, subj, attr, value, unit, modality="spec", confidence=conf * 0.85)
        widen(c, ents, seg)
        out.append(c)

    # a text attribute's value with the attribute's word right after it, or right before it after a colon
    for attr, value, rxs in t["text_values"]:
        words = t["attribute"].get(attr, ())
        for m in (m for rx in rxs for m in rx.finditer(masked, s, e)):
            listed = _listed_after(masked, m.end(), e, words, ents, vocab.attributes[attr].applies_to)
            if listed:
                for x in (x for x in listed if (attr, x.start) not in taken):
                    taken.add((attr, x.start))
                    out.append(Candidate(x.start, x.end, x.eid, attr, value, modality="spec", confidence=0.75))
                continue
            if compared_before(low, m.start(), s, t):
                continue                      # "faster than the Hopper generation": the other's value
            gap = _GAP_AFTER.match(masked, m.end(), e)
            after = gap is not None and any(w.match(masked, gap.end(), e) for w in words)
            # "architecture: Hopper", and languages that put the noun first ("архитектуре Pascal", "arquitectura Ada")
            before = any(re.search(rf"(?:{w.pattern})\w*\s*(?:[:：=]\s*|(?:de|di|da|do|del)\s+)?$", masked[max(s, m.start() - 40):m.start()]) for w in words)
            if after or before:
                add(attr, value, m.start(), m.end(), named=True)
    # a figure without a unit right after its attribute's word
    starts = {q.start for q in qs}
    for attr, rxs in t["figure_after"]:
        for m in (m for rx in rxs for m in rx.finditer(masked, s, e)):
            f = _FIGURE.match(masked, m.end(), e)
            if f is None or f.start() in starts or any(c in NAME_MARKS for c in masked[m.start():m.end()]):
                continue
            unit = unit_of(vocab, attr)
            add(attr, float(f.group(1)), m.start(), f.end(), unit)
    # a component's generation: an ordinal right before the component's name ("third-generation Tensor Cores")
    for x, rxs in t["ordinals"]:
        for m in (m for rx in rxs for m in rx.finditer(masked, s, e)):
            for attr, crx in t["components"]:
                noun = next((n for rx in crx for n in [rx.match(masked, m.end(), e)] if n), None)
                if noun is not None and attr in vocab.attributes:
                    add(attr, x, m.start(), noun.end(), unit_of(vocab, attr), named=True)
    # ... or an ordinal right after it ("Tensor Cores of the third generation", "Tensor Cores (3rd Gen)")
    for attr, crx in t["components"]:
        for n in (n for rx in crx for n in rx.finditer(masked, s, e)):
            p = _AFTER_NOUN.match(masked, n.end(), e)
            hit = next(((x, om) for x, rxs in t["ordinals"] for rx in rxs for om in [rx.match(masked, p.end(), e)] if om), None) if p else None
            if hit is not None and attr in vocab.attributes:
                add(attr, hit[0], n.start() + len(n.group(0)) - len(n.group(0).lstrip(" -的")), hit[1].end(),
                    unit_of(vocab, attr), named=True)
    # a feature had or denied ("supports MIG": at least one; "不支持 MIG": none)
    for attr, rxs in _featured(vocab):
        for m in (m for rx in rxs for m in rx.finditer(masked, s, e)):
            seg = segment(masked, s, e, m.start())
            denied = negated(masked, seg[0], m.start(), m.end(), seg[1], t)
            if (attr, m.start()) in taken or not (denied or any_match(t["possess"], low[max(seg[0], m.start() - 16):m.start()])):
                continue                      # named, neither had nor denied ("MIG instances of 10 GB")
            subj, conf = subject_of(vocab.attributes[attr].applies_to, m.start(), ents, carried, seg)
            if subj is not None:
                taken.add((attr, m.start()))
                c = Candidate(m.start(), m.end(), subj, attr, 0.0 if denied else ">= 1", modality="spec", confidence=conf * 0.85)
                widen(c, ents, seg)
                out.append(c)
    # a count right before the noun of what it counts
    counts = [(m.start(), m.end(), float(m.group(1))) for m in _DIGITS.finditer(masked, s, e)]
    counts += [(m.start(), m.end(), x) for x, rxs in t["number_words"] for rx in rxs for m in rx.finditer(low, s, e)
               if not any(c in NAME_MARKS for c in masked[m.start():m.end()])]
    for a, b, x in sorted(counts):
        for attr, rxs in t["counted"]:
            noun = next((n for rx in rxs for n in [rx.match(low, b, e)] if n and n.end() > b), None)
            if noun is None or not x.is_integer() or _bound(low, max(s, a - 24), a, t) not in (None, "<="):
                continue                      # "more than 4 MIG instances" states no figure of the maximum
            add(attr, x, a, noun.end(), unit_of(vocab, attr))
    return out


#: a parenthesised list of names only, as the mask leaves it: "(\ue000\ue000/\ue000、\ue000)"
_NAME_LIST = re.compile(r"\s*[(（]\s*[\ue000-\ue003]+(?:\s*(?:[/、,，&+]|and|和|与|及)\s*[\ue000-\ue003]+)*\s*[)）]")


def _listed_after(masked: str, at: int, e: int, words: tuple[re.Pattern[str], ...], ents: list[_Match],
                  kinds: tuple[str, ...]) -> list[_Match]:
    """The products a text value heads in parentheses, with or without the attribute's word between
    ("Ampere(A100/A800)", "Hopper 架构（H100、H200）", "Ampere architecture (A100, A10)"): the value is each
    one's. Only a list of names and nothing else, each of a kind the attribute applies to."""
    gap = _GAP_AFTER.match(masked, at, e)
    word = next((w for w in words for w in [w.match(masked, gap.end(), e)] if w), None) if gap else None
    lst = _NAME_LIST.match(masked, word.end() if word else at, e)
    if lst is None:
        return []
    inside = [m for m in ents if lst.start() <= m.start and m.end <= lst.end()]
    return inside if inside and all(m.kind in kinds for m in inside) else []


def _featured(vocab: Vocabulary) -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    return per_vocabulary(_FEATURED, vocab, lambda v: tuple((a, tuple(re.compile(p) for p in ps))
                                                            for a, ps in (v.cues.get("featured") or {}).items()))


def size_named_variants(low: str, qs: list[Quantity], ents: list[_Match], vocab: Vocabulary,
                        t: dict[str, Any]) -> dict[int, _Match]:
    """"A100 40GB 的带宽为 1555GB/s，80GB 版本为 2039GB/s": a memory size followed by a word for a version
    (cues ``check_guard.variant_word``, read as :meth:`.guard.Guards.names_size` reads them) names the one
    variant of that size of a GPU the sentence names; it is a mention of that variant, not a figure.
    Returns the index in ``qs`` of each such size -> the variant's mention."""
    out: dict[int, _Match] = {}
    gpus = [vocab.generic(m.eid) for m in ents if m.kind == "gpu"]
    for i, q in enumerate(qs):
        if q.dimension != "memory" or q.lo != q.hi or not float(q.lo).is_integer() or q.bound \
                or not any(rx.search(low[q.end:q.end + 12]) for rx in vocab_cues(vocab, "variant_word")):
            continue
        sized = {str(v) for g in dict.fromkeys(gpus) for v in vocab.entities.get(g, {}).get("variants") or ()
                 if vocab.names_size(str(v), q.lo)}
        if len(sized) == 1:
            out[i] = _Match(q.start, q.end, sized.pop(), "gpu")
    return out


def form_named_variants(low: str, s: int, e: int, ents: list[_Match], vocab: Vocabulary) -> list[_Match]:
    """"The H200 also comes in an NVL variant (PCIe card, 600 W)", "H100 的 PCIe 版本": a word followed by a word
    for a version, which with the name of a GPU the sentence names is the name of another GPU ("H200 NVL",
    "H100 PCIe"), is a mention of that one; the figures after it are its own."""
    words = vocab_cues(vocab, "variant_word")
    found = [x for x in re.finditer(r"(?<![a-z0-9])([a-z]+\d?)(?![a-z0-9])", low[s:e])
             if any(rx.search(low[s + x.end():min(e, s + x.end() + 16)]) for rx in words)]
    gpus = {low[m.start:m.end].strip(): m.eid for m in ents if m.kind == "gpu"}
    if not found or not gpus:
        return []
    aliases = vocab.aliases()
    generics = {vocab.generic(eid) for eid in gpus.values()} | set(gpus.values())
    names = {**{a: v for a, v in aliases.items() if v in generics}, **gpus}     # "H100 SXM" is an "H100"
    out: list[_Match] = []
    for x in found:
        for name, eid in names.items():
            other = aliases.get(f"{name} {x.group(1)}") or aliases.get(f"{name}-{x.group(1)}")
            if other is not None and other != eid and vocab.kind_of(other) == "gpu":
                out.append(_Match(s + x.start(), s + x.end(), other, "gpu"))
                break
    return out


def unit_of(vocab: Vocabulary, attr: str) -> str | None:
    """The first unit of an attribute's dimension (None for a dimensionless one)."""
    units = list(vocab.units.get(vocab.attributes[attr].dimension or "", ()) or ())
    return units[0] if units else None


def _bound(low: str, a: int, b: int, t: dict[str, Any]) -> str | None:
    """The bound a count is written with ("up to seven", "最多 7 个"), read from the words before it."""
    before = low[a:b]
    for op, rxs in t["bound"]:
        if any(rx.search(before) for rx in rxs if not rx.pattern.startswith("^")):
            return op
    return None


def counts_cards(q: Quantity, qs: list[Quantity], masked: str, seg: tuple[int, int]) -> bool:
    """A count whose unit is a bare measure word ("1 块", "8 张") followed, in its clause, by a memory figure
    and then a GPU's name ("1 块 16 GB 的 V100"): the number of those GPUs."""
    if q.dimension != "count" or (q.unit_at is not None and _NOT_CARDS.search(masked, q.unit_at, q.end)):
        return False                    # "32核 128GB T4 × 1": a count of cores is no count of cards
    gpu = masked.find("\ue000", q.end, seg[1])
    if gpu < 0 or not _CARD_GAP.fullmatch(masked, q.end, gpu):
        return False
    return any(p.dimension == "memory" and q.end <= p.start and p.end <= gpu for p in qs)


def per_gpu_owner(q: Quantity, qs: list[Quantity], low: str, masked: str, s: int, e: int, ents: list[_Match],
                  t: dict[str, Any]) -> _Match | None:
    """The instance (or family) whose GPUs each have the memory figure ``q``: the sentence names the
    instance, then a count of GPUs, and the figure is either written between the count and the GPU's name
    ("配备 8 块 16 GB 显存的 V100") or said of each GPU ("eight A100 GPUs with 40 GB each", "每卡 40GB")."""
    seg = segment(masked, s, e, q.start)
    count = next((p for p in reversed(qs) if p.dimension == "count" and p.end <= q.start and p.start >= s), None)
    if count is None:
        return None
    gpu_after_count = GPU_AFTER.match(masked, count.end) is not None
    if not (gpu_after_count or counts_cards(count, qs, masked, segment(masked, s, e, count.start))):
        return None
    host = next((m for m in reversed(ents) if m.kind in ("instance", "family") and s <= m.start and m.end <= count.start), None)
    if host is None:
        return None
    between = not gpu_after_count and masked.find("\ue000", q.end, seg[1]) >= 0
    each = any_match(t["instance_words"]["per_gpu_after"], low[q.end:min(e, q.end + 30)]) or \
        any_match(t["instance_words"]["per_gpu_before"], low[seg[0]:q.start])
    return host if between or each else None


#: the kinds whose bytes per parameter a text states, and what may join two of them ("FP16 or BF16")
PER_PARAM_KINDS = ("precision", "optimizer", "method")
_PER_PARAM_JOIN = re.compile(r"\s*(?:/|、|,|，|or|and|或|和|与|及)\s*")
#: no number format, optimizer or method takes more bytes per parameter than this: a larger figure is a total
MAX_BYTES_PER_PARAM = 64
#: no number format is wider than FP32's 4 bytes: more per parameter, said beside a format, is what training
#: with it takes in all ("FP16 training needs 16 bytes per parameter": weights, gradients, optimizer states)
MAX_FORMAT_BYTES = 4


def per_param(q: Quantity, masked: str, s: int, e: int, ents: list[_Match]) -> list[Candidate]:
    """"FP16 weights take 2 bytes per parameter", "| INT4 | 0.5 字节 |", "full fine-tuning needs 16 GB per
    billion parameters", "2 bytes per parameter in FP16 or BF16": the bytes a parameter takes are those
    of the number format, optimizer or method the sentence names, the nearest before the figure, else
    the first after it (with the names listed beside it). A sentence that names none ("Gradients: 2 bytes
    per parameter") states it of nothing gpukb can check: no claim (never the product of an earlier
    sentence); nor is a figure too large for one parameter. A format wider than 4 bytes is no format: such a
    figure beside one is what training in it takes, the method's or optimizer's the sentence names."""
    if q.hi > MAX_BYTES_PER_PARAM:
        return []
    named = [m for m in ents if m.kind in PER_PARAM_KINDS and s <= m.start and m.end <= e]
    before = [m for m in named if m.end <= q.start]
    after = [m for m in named if m.start >= q.end]
    if before:
        group = [before[-1]]
        for m in reversed(before[:-1]):         # "FP16 / BF16 | 2 字节": the names joined before it
            if m.kind != group[0].kind or not _PER_PARAM_JOIN.fullmatch(masked, m.end, group[0].start):
                break
            group.insert(0, m)
    elif after:
        group = [after[0]]
        for m in after[1:]:
            if m.kind != group[-1].kind or not _PER_PARAM_JOIN.fullmatch(masked, group[-1].end, m.start):
                break
            group.append(m)
    else:
        return []
    if group[0].kind == "precision" and q.hi > MAX_FORMAT_BYTES:
        others = [m for m in before if m.kind != "precision"][-1:] or [m for m in after if m.kind != "precision"][:1]
        if not others:
            return []
        group = others                          # "full fine-tuning in FP16 needs 16 bytes per parameter": the method's
    value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
    out = []
    for m in dict((m.eid, m) for m in group).values():
        c = Candidate(min(q.start, m.start), max(q.end, m.end), m.eid, "bytes_per_param", value, q.unit,
                      modality="spec", confidence=0.8, approx=q.approx)
        out.append(c)
    return out


#: between a card size and the GPUs it is the size of: a noun of cards, an opening bracket, a list of names
_SIZE_GAP = re.compile(r"\s*(?:gpus?|cards?|显卡|卡)?\s*[（(]?\s*(?:nvidia\s*)?")


def cards_of_size(q: Quantity, masked: str, seg: tuple[int, int], ents: list[_Match], workload: dict[str, Any],
                  vocab: Vocabulary, cues: tuple[re.Pattern[str], ...], words: tuple = ()) -> list[Candidate] | None:
    """"needs 2× 80 GB (A100 / H100)", "需要 2 × 80GB（A100/H100）": a count of cards written right before a
    memory size (cues ``check_guard.cards_of_size``, the count in group ``n``) is a number of cards of that
    size, never a memory figure of that value. Of the GPUs named right after it (each in its variant of that
    size) and of a workload the sentence names, it states how many the workload needs; ``None`` when the
    figure has no count before it, else the claims (none when no such GPU or workload is named)."""
    if q.dimension != "memory" or q.lo != q.hi or q.bound:
        return None
    count = next((m for rx in cues for m in [rx.search(masked, seg[0], q.start)] if m and m.end() == q.start), None)
    n = float(count.group("n")) if count is not None else None
    if count is None:                   # "two 16 GB T4s", "两张 16GB 的 T4": a count in words (cues.number_words)
        count, n = next(((m, float(x)) for x, rxs in words for rx in rxs for m in rx.finditer(masked, seg[0], q.start)
                         if not masked[m.end():q.start].strip()), (None, None))
        if n is not None and (n < 2 or not (workload.get("method") or workload.get("task"))):
            return None                 # "一张 16GB 显存的显卡": a card of that memory, no count of cards needed
    if count is None:
        return None
    gpus: list[_Match] = []
    at = q.end
    for m in sorted((m for m in ents if m.kind == "gpu" and q.end <= m.start < seg[1]), key=lambda m: m.start):
        gap = masked[at:m.start]
        if not (_SIZE_GAP.fullmatch(gap) if at == q.end else re.fullmatch(r"\s*(?:/|、|,|，|or|and|或|和)\s*", gap)):
            break
        gpus.append(m)
        at = m.end
    if not gpus or not (workload.get("method") or workload.get("task")):
        return []
    sized = sized_variants(q, gpus, vocab) or [m.eid for m in gpus if not vocab.entities.get(m.eid, {}).get("variants")]
    out = [Candidate(count.start(), at, v, "min_gpus", n, None, qualifiers_of(workload), "estimate", 0.7)
           for v in sized]
    for c in out:
        widen(c, ents, seg)
    return out


#: after a name in a list of figures announced with their unit: a sign or word of value, the figure
_NAMED_FIGURE = re.compile(r"\s*(?P<op>≈|~|～|=|:|：|约|about)\s*(?P<n>\d{1,4}(?:\.\d{1,3})?)(?![\d%a-z]|\.\d)")
#: between two items of such a list
_ITEM_SEP = re.compile(r"\s*(?:[,，;；、]\s*(?:and\s+|和|及)?|and|和|及)?\s*$")


def announced_figures(low: str, masked: str, s: int, e: int, ents: list[_Match], vocab: Vocabulary,
                      t: dict[str, Any]) -> list[Candidate]:
    """"Estimates in bytes per parameter: LoRA ≈ 2.4 (…), QLoRA ≈ 0.85 (…)", "单位为字节/参数：FP16 = 2，INT8 = 1":
    a unit announced before a colon (cues ``check_guard.unit_announced`` right before the unit's words), then
    items of a name and a bare figure: each figure is in that unit, the quantity of the one attribute of
    the unit's dimension that applies to the named entity's kind (no figure when two could)."""
    colon = next((i for i in range(s, e) if masked[i] in ":："), None)
    if colon is None:
        return []
    unit = next(((dim, u, m) for dim, u, rx in t["unit"] if dim not in ("count", "params", "ratio")
                 for m in rx.finditer(low, s, colon)
                 if any(a.search(low[s:m.start()]) for a in t["unit_announced"])), None)
    if unit is None:
        return []
    dim, u, _ = unit
    out: list[Candidate] = []
    last = colon + 1
    for m in sorted((m for m in ents if colon < m.start < e), key=lambda m: m.start):
        f = _NAMED_FIGURE.match(masked, m.end, e)
        if f is None or not _ITEM_SEP.fullmatch(re.sub(r"[（(][^（()）]*[）)]", "", masked[last:m.start])):
            continue
        attrs = [a for a, spec in vocab.attributes.items() if spec.type == "quantity" and spec.dimension == dim
                 and m.kind in spec.applies_to]
        if len(attrs) == 1:
            x = float(f.group("n"))
            out.append(Candidate(m.start, f.end(), m.eid, attrs[0], x, u, modality="spec", confidence=0.7,
                                 approx=f.group("op") in ("≈", "~", "～", "约", "about")))
        last = f.end()
    return out

