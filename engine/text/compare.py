"""Comparison frames for the claim extractor: one GPU's throughput stated against other GPUs', as a ratio
("A 的 FP16 算力仅为 B、C 的 1/3~1/2", "only 25% of the B's") or as a direction ("远不如 B", "falls far
behind the B": below 1; "强于 B", "more FP16 compute than the B": above 1). One claim per GPU compared
with. The subject is the hardware the sentence speaks of (a family stands for the GPU its name carries),
else the products a pronoun stands for; the GPU compared with is the one named in the frame, else the
one the passage was about. Every word is vocabulary data (``cues.comparison``); a comparison in a
condition or of anything but throughput (memory, price) states nothing here."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match
from .subject import HARDWARE, Candidate
from .lists import groups
from .tokens import any_match, segment

_NUMBER = r"(\d{1,4}(?:\.\d{1,3})?)"
_FRACTION = re.compile(rf"{_NUMBER}\s*/\s*{_NUMBER}(?![0-9])")
_PERCENT = re.compile(rf"{_NUMBER}\s*%")
_TIMES = re.compile(r"\d\s*(?:倍|×|x(?![a-z0-9]))")
_RANGE = re.compile(r"\s*(?:~|～|-|–|—|到|至|to)\s*")


def _gpu_of(m: _Match, low: str, t: dict[str, Any]) -> str | None:
    """The GPU a hardware mention stands for: itself, or the GPU a family's name ends with ("GN7-V100")."""
    if m.kind == "gpu":
        return m.eid
    suffix = t["gpu_names"][0].search(low, m.start, m.end) if m.kind == "family" else None
    return t["gpu_names"][1].get(suffix.group(1)) if suffix else None


def _ratio(low: str, a: int, b: int) -> tuple[int, int, Any] | None:
    """The first fraction or percentage in ``low[a:b]`` (a range of two of them), as (start, end, value)."""
    best = None
    for rx, scale in ((_FRACTION, None), (_PERCENT, 0.01)):
        m = rx.search(low, a, b)
        if m is None or (best is not None and best[0] <= m.start()):
            continue
        def val(x: re.Match[str]) -> float:
            return float(x.group(1)) / float(x.group(2)) if scale is None else float(x.group(1)) * scale
        lo = hi = val(m)
        start, end = m.start(), m.end()
        j = _RANGE.match(low, end)
        n = rx.match(low, j.end()) if j else None
        if n is not None and n.end() <= b:
            hi, end = val(n), n.end()
        elif scale is not None:               # "30-50%": a bare number before the percentage
            bare = re.search(rf"{_NUMBER}\s*(?:~|～|-|–|—|到|至)\s*$", low[max(a, start - 10):start])
            if bare:
                lo, start = float(bare.group(1)) * scale, start - len(bare.group(0))
        best = (start, end, round(lo, 4) if lo == hi else [round(min(lo, hi), 4), round(max(lo, hi), 4)])
    return best


def comparisons(low: str, s: int, e: int, named: list[_Match], subjects: list[_Match], referents: list[_Match],
                carried: dict[str, _Match], t: dict[str, Any]) -> list[Candidate]:
    """The throughput comparisons sentence ``[s, e)`` states (see the module's description).
    ``named``: every hardware mention of the sentence; ``subjects``: the ones it speaks of (not compared
    with); ``referents``: the products a pronoun of the sentence stands for."""
    cues = t["cmp"]
    text = low[s:e]
    if not any_match(cues["metric"], text):
        return []
    runs = groups(low, subjects, t)
    own = runs[0] if runs else []             # the first product (or list of products) named: the subject
    subj = [g for g in (_gpu_of(m, low, t) for m in (own or referents)) if g]
    if not subj:
        return []
    first = min((m.start for m in own), default=s)
    others = [m for m in named if m.kind == "gpu" and m.eid not in subj]
    value: Any = None
    span_end = e
    ratio_cue = next((m for rx in cues["ratio"] for m in [rx.search(low, first, e)] if m), None)
    frac = _ratio(low, ratio_cue.end(), e) if ratio_cue is not None and others else None
    multiple = _multiple(low, s, e, first, others, cues) if frac is None else None
    if frac is not None and not any_match(cues["condition"], low[segment(low, s, e, first)[0]:frac[1]]):
        value, span_end = frac[2], frac[1]
    elif multiple is not None:
        value, span_end, others = multiple
    else:
        # a direction word in the clause that names the throughput, or after a clause naming it ("在 FP16 算力
        # 上，B 不及 C"); "更高内存/带宽，比 T4 性能提升 3×": the higher is memory's, and a figure of times is
        # a speed-up, read with its number elsewhere
        hits = sorted((m.start(), m.end(), d) for d, key in (("< 1", "behind"), ("> 1", "ahead"))
                      for rx in cues[key] for m in rx.finditer(low, first, e)
                      if _compares_throughput(low, s, e, m.start(), m.end(), cues))
        # a comparison inside a condition ("如果 B 的算力不如 C，…") states nothing
        hits = [h for h in hits if not any_match(cues["condition"], low[segment(low, s, e, min(first, h[0]))[0]:h[1]])]
        if not hits or _TIMES.search(low, s, e):
            return []
        value = hits[0][2]
        # the products compared with are marked so ("相比 L4，…"), or named in the direction word's clause or
        # after it ("A/B 分别对应 C/D，A 比 E 更强": E, not C or D)
        others = [m for m in others if m not in subjects or m.start >= segment(low, s, e, hits[0][0])[0]]
        span_end = max([hits[0][1]] + [m.end for m in others if m.start >= hits[0][0]])
        if not others and "gpu" in carried and carried["gpu"].eid not in subj:
            others = [carried["gpu"]]           # "they offer more FP16 compute": than the passage's GPU
    if not others:
        return []
    start = min([first] + [m.start for m in own])
    metric = _metric(low, start, segment(low, s, e, max(start, span_end - 1))[1], t)
    out = []
    for g in subj:
        for o in dict.fromkeys(m.eid for m in others):
            out.append(Candidate(start, max(span_end, start + 1), g, "compute_ratio", value, "x",
                                 qualifiers={"compared_to": [o], **({"metric": metric} if metric else {})},
                                 modality="spec", confidence=0.6))
    return out


#: the throughput figures a ratio may be stated of, and the metric each one names (the reference rule
#: compares FP32 ratios with FP32 figures, FP16 ones with FP16 tensor figures); any other format named
#: (FP8, BF16, TF32, FP64, INT8) leaves the ratio's metric unknown
_METRICS = {"fp32_tflops": "FP32", "fp16_tensor_tflops": "FP16"}
_OTHER_FORMATS = ("fp8_tensor_tflops", "bf16_tensor_tflops", "tf32_tensor_tflops", "fp64_tensor_tflops", "fp64_tflops", "int8_tops")


def _metric(low: str, a: int, b: int, t: dict[str, Any]) -> str | None:
    """The one number format the comparison ``low[a:b]`` names ("A10 的 FP32 性能是 T4 的 4 倍": FP32), else None."""
    named = {m for attr, m in _METRICS.items() if any_match(t["attribute"].get(attr, ()), low[a:b])}
    if len(named) != 1 or any(any_match(t["attribute"].get(x, ()), low[a:b]) for x in _OTHER_FORMATS):
        return None
    return named.pop()


def _multiple(low: str, s: int, e: int, first: int, others: list[_Match], cues: dict[str, Any]) -> tuple[float, int, list[_Match]] | None:
    """One GPU's throughput written as a multiple of another's ("是 T4 的近 4 倍", "4 times the FP32 throughput
    of the T4"): (the multiple, where it ends, the GPU compared with), from the vocabulary's ``multiple`` cues,
    in which ``@`` stands for the GPU compared with. A multiple of memory, price or power, or one in a
    condition, is none."""
    for o in (m for m in others if m.start >= first):
        masked = low[:o.start] + "@" * (o.end - o.start) + low[o.end:]
        a, b = segment(low, s, e, o.start)
        for rx in cues["multiple"]:
            m = rx.search(masked, max(a, first), b)
            if m is None or not (m.start() <= o.start < m.end()):
                continue
            if not _compares_throughput(low, s, e, m.start("n"), m.end(), cues) \
                    or any_match(cues["condition"], low[a:m.end()]):
                return None
            return float(m.group("n")), max(m.end(), o.end), [o]
    return None


def _compares_throughput(low: str, s: int, e: int, a: int, b: int, cues: dict[str, Any]) -> bool:
    """Whether the direction word at ``[a, b)`` compares throughput: the quantity word nearest to it in its
    clause (else the last one before it in the sentence) is a throughput word, not another quantity's
    ("带宽(H20 比 H800 更高)", "higher memory bandwidth than": bandwidth, not compute)."""
    words = sorted([(m.start(), m.end(), True) for rx in cues["metric"] for m in rx.finditer(low, s, e)]
                   + [(m.start(), m.end(), False) for rx in cues["other_metric"] for m in rx.finditer(low, s, e)])
    if not words:
        return False
    c0, c1 = segment(low, s, e, a)
    inside = [w for w in words if c0 <= w[0] < c1]
    if inside:
        return min(inside, key=lambda w: 0 if w[0] < b and a < w[1] else min(abs(w[0] - b), abs(a - w[1])))[2]
    before = [w for w in words if w[1] <= a]
    return bool(before) and before[-1][2]


def per_compared(c: Candidate, dimension: str, named: list[_Match], subjects: list[_Match], vocab: Vocabulary) -> list[Candidate]:
    """"T4 仅为 A10、A100 的一半，训练速度慢 2–4 倍", "the L4 is 2x slower than the A100 and the H100": a
    ratio (how many times slower or faster) stated of hardware in a sentence that compares it with other
    hardware is one claim per product compared with; with none compared, the claim as it is."""
    if dimension != "ratio" or vocab.kind_of(c.subject) not in HARDWARE:
        return [c]
    compared = list(dict.fromkeys(m.eid for m in named if m.kind in HARDWARE and m not in subjects and m.eid != c.subject))
    if not compared:
        return [c]
    return [replace(c, qualifiers={**c.qualifiers, "compared_to": [x]}) for x in compared]


def advantages(low: str, masked: str, s: int, e: int, named: list[_Match], subjects: list[_Match], referents: list[_Match],
               carried: dict[str, _Match], t: dict[str, Any], earlier: list[Candidate]) -> list[Candidate]:
    """"它们拥有更多显存，能显著提升训练速度", "the A10 has more memory than the T4": hardware said to have
    more GPU memory than a GPU the text gave a size for has more than that size (a bound; no size stated,
    no claim); hardware said, with no figure, to speed up work compared with another product (the one
    named, else the one of its kind the passage is about) has a performance gain above 1 over it. The
    subject is the first product (or list) the sentence speaks of, else the products a pronoun stands for.
    ``masked``: the text with hardware and model names masked (their digits are no figures)."""
    cues = t["cmp"]
    runs = groups(low, subjects, t)
    own = runs[0] if runs else referents
    if not own:
        return []
    ids = {m.eid for m in own}
    out: list[Candidate] = []
    for cue in (m for rx in cues["more_memory"] for m in rx.finditer(low, s, e)):
        a, b = segment(low, s, e, cue.start())
        if any_match(cues["condition"], low[a:cue.start()]):
            continue
        gpus = list(dict.fromkeys(g for g in (_gpu_of(m, low, t) for m in own) if g))
        than = [m.eid for m in named if m.kind == "gpu" and m not in subjects and m.eid not in gpus and a <= m.start < b]
        if not than and "gpu" in carried and carried["gpu"].eid not in gpus:
            than = [carried["gpu"].eid]
        sizes = {c.subject: c.value for c in earlier if c.attribute == "memory_gb" and isinstance(c.value, float)}
        for o in (x for x in than if x in sizes):
            out += [Candidate(cue.start(), cue.end(), g, "memory_gb", f"> {sizes[o]:g}", "GB", modality="spec", confidence=0.5)
                    for g in gpus]
        break
    for cue in (m for rx in cues["speedup"] for m in rx.finditer(low, s, e)):
        a, b = segment(low, s, e, cue.start())
        if any_match(cues["condition"], low[a:cue.start()]) or re.search(r"\d", masked[a:b]):
            continue                          # a figure of times is read with its number
        than = [m for m in named if m not in subjects and m.eid not in ids and m.kind == own[0].kind]
        base = than[0] if than else carried.get(own[0].kind)
        if base is None or base.eid in ids:
            continue
        out += [Candidate(cue.start(), cue.end(), x, "performance_gain", "> 1", "x", qualifiers={"compared_to": [base.eid]},
                          modality="spec", confidence=0.5) for x in dict.fromkeys(m.eid for m in own)]
        break
    return out
