"""Guards for figures that are another thing than the attribute they look like: a memory's per-pin data rate
written in bits per second, one memory stack's size, a figure that follows a product gpukb does not know."""
from __future__ import annotations

import re
from typing import NamedTuple

from ..kb.names import unknown_mentions
from .claim_figures import claimed_figures, figures
from .guard_base import CLAUSE_BREAK, DIGITS, FIGURE_WRONG, SAME_FIGURE, Context, clause_of, cue_in_unit, family_ids, last_figure, own_ids, point_of, references, same_kind, vocab_cues
from .subject import FORM_WORD, form_token
from .tokens import tables

__all__ = ["unknown_form_factor", "bit_rate", "figure_then_card", "from_to", "memory_part", "system_total", "other_device", "unknown_product", "versus", "system_named", "dot_thousands", "year_off_by_one", "alternative_sizes", "model_row", "own_value_after", "other_form_factor"]


#: a rate written with a lower-case b after its prefix counts bits ("18Gb/s", "16 Gbps"); read in the text as
#: written, since the extractor reads it lower-cased
_BITS = re.compile(r"\s*[KMGTkmgt]b(?:/s|ps|it/s)")


def unknown_product(ctx: Context) -> dict[str, str] | None:
    """"…而 RTX 2070 还要 175-185W", "the RTX PRO 5000 Blackwell (Blackwell architecture)": the figure or word value
    follows, in its sentence, a product gpukb does not know, nearer to it than any product gpukb knows (or, with no known one
    before it, such a product comes first after it: "1,307.4 TFLOPS for the MI300X versus … the H100"): it may be that product's."""
    figs, u0 = _own_figures(ctx), ctx.unit[0]
    value = ctx.claim.value if isinstance(ctx.claim.value, str) and not ctx.cell else None     # a table's row says whose
    word = ctx.low.find(value.lower(), *(ctx.claim.span or (0, 0))) if value else -1
    if not figs and word < 0:
        return None             # a word value ("Blackwell architecture") is placed where the text writes it
    at = figs[-1].start if figs else word
    found = unknown_mentions(ctx.text[u0:at], ctx.vocab, [(a - u0, b - u0) for a, b in ctx.mentions if b <= at])
    spec = ctx.vocab.attributes.get(ctx.claim.attribute)
    product = spec is not None and ctx.vocab.kind_of(ctx.claim.subject) in ("gpu", "instance", "family")
    able = [(a, b) for (a, b), e in zip(ctx.mentions, ctx.mention_ids) if not product or ctx.vocab.kind_of(e) in spec.applies_to]
    known = max((b for _, b in able if b <= at), default=-1)     # "g6.48xlarge 有 8 张 L4、768 GiB 内存": no L4's RAM
    if found and found[-1]["kind"] in ("gpu", "instance") and u0 + found[-1]["span"][1] > known:
        return {"name": found[-1]["text"]}
    if known >= 0:
        return None             # "1,307.4 TFLOPS for the MI300X versus … the H100": named after it, before any known one
    end = at + (figs[-1].end - figs[-1].start if figs else len(value or ""))
    after = unknown_mentions(ctx.text[end:ctx.unit[1]], ctx.vocab, [(a - end, b - end) for a, b in ctx.mentions if a >= end])
    first = min((a for a, _ in able if a >= end), default=ctx.unit[1])
    return {"name": after[0]["text"]} if after and after[0]["kind"] in ("gpu", "instance") and end + after[0]["span"][0] < first else None


def memory_part(ctx: Context) -> dict[str, str] | None:
    """"8 stacks of HBM3e (24GB each)": a memory size said of each stack, die or chip (cues ``memory_part``); "each
    of the dies … 1TB/sec of memory bandwidth on a 1024-bit interface": a bandwidth of one (``bandwidth_part``)."""
    cue = {"memory_gb": "memory_part", "memory_bandwidth": "bandwidth_part"}.get(ctx.claim.attribute)
    return cue_in_unit(ctx, cue) if cue else None


def bit_rate(ctx: Context) -> dict[str, str] | None:
    """"GDDR6 at 18Gb/s": a memory figure in bits per second is its per-pin data rate (or a link's speed),
    not the card's memory bandwidth, which vendors give in bytes per second."""
    if ctx.claim.attribute != "memory_bandwidth":
        return None
    for q in claimed_figures(ctx):
        if _BITS.match(ctx.text, q.unit_at or q.end):
            return {"figure": ctx.text[q.start:q.end]}
    return None


#: the claims of one GPU's own figure: a system's total or a workload's figure is none of them
PER_CARD = ("memory_gb", "memory_bandwidth", "fp16_tensor_tflops", "bf16_tensor_tflops", "fp8_tensor_tflops",
            "tf32_tensor_tflops", "fp32_tflops", "fp64_tflops", "int8_tops", "tdp_w", "nvlink_bandwidth",
            "fp4_tensor_tflops", "fp64_tensor_tflops")

#: a table row whose label says its figures are totals ("| Total NVLink Bandwidth | 130TB/s | 14.4TB/s |")
_TOTAL_ROW = re.compile(r"\s*\|?\s*(?:total|aggregate|combined|总|合计)")


def other_device(ctx: Context) -> dict[str, str] | None:
    """"20-100GB/sec for consumer CPUs", "消费类 CPU 的 20-100GB/秒", "for consumer GPUs": a figure said of
    hardware that is no GPU, or of a class of GPUs, not of the product read (an instance's host memory is its own)."""
    if ctx.vocab.kind_of(ctx.claim.subject) != "gpu":
        return None
    return _cue_after(ctx, "other_device_after", 48) or _cue_before(ctx, "other_device_before", 24, _own_figures(ctx))


def system_total(ctx: Context) -> dict[str, str] | None:
    """"Memory bandwidth 10.4 TB/s total 38.4 TB/s total": a figure followed by "total" is a system's."""
    if ctx.claim.attribute not in PER_CARD or ctx.vocab.kind_of(ctx.claim.subject) != "gpu":
        return None
    said = _cue_after(ctx, "system_total", 32)
    if said:
        return said
    span = ctx.claim.span or (0, 0)
    row_start = ctx.low.rfind("\n", 0, span[0]) + 1
    if ctx.low[row_start:span[0]].lstrip().startswith("|") and _TOTAL_ROW.match(ctx.low, row_start):
        return {"word": ctx.text[row_start:span[0]].strip(" |").split("|")[0].strip()[:40]}
    # "总带宽为每秒10TB", "Total: 580-620GB": said before it
    return _cue_before(ctx, "system_total_before", 30, _own_figures(ctx))


def system_named(ctx: Context) -> dict[str, str] | None:
    """"The DGX H100 delivers 32 PFLOPS", "HGX B200 … 1.4 TB", "H100 servers draw 10 kW": the clause names the
    card inside a system's name (cues ``system_name_before`` / ``system_name_after``): its figures are the
    system's, not one card's."""
    if ctx.claim.attribute not in PER_CARD or ctx.vocab.kind_of(ctx.claim.subject) != "gpu":
        return None
    a, b = clause_of(ctx)
    own = own_ids(ctx.vocab, ctx.claim.subject)
    for (s, e), eid in zip(ctx.mentions, ctx.mention_ids):
        if not (a <= s < b) or not (eid in own or ctx.vocab.generic(eid) in own):
            continue
        before = _first_cue(ctx, "system_name_before", ctx.low[max(0, s - 8):s])
        after = _first_cue(ctx, "system_name_after", ctx.low[e:e + 16], anchored=True)
        if before or after:
            return {"name": ctx.text[s - len(before.group(0)) if before else s:e + (len(after.group(0)) if after else 0)].strip()}
    return None


#: one dot before exactly three digits ("3.958", "2.000"): how German, Italian, Spanish, Portuguese, Dutch and Turkish
#: group thousands
_DOT_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}\.\d{3}(?![\d.,])")


def dot_thousands(ctx: Context) -> dict[str, str] | None:
    """"Die H100 bietet 3.958 TFLOPS FP8", "fino a 2.000 TFLOPS": a figure written with one dot before three digits,
    read as a thousand times more (thousands grouped with dots), is one of the product's own figures of its kind:
    the text may write numbers so, and only a wrong reading of it is doubted."""
    c, vocab = ctx.claim, ctx.vocab
    x = point_of(c)
    if ctx.status not in FIGURE_WRONG or not x or c.attribute not in vocab.attributes:
        return None
    written = [ctx.text[q.start:q.end] for q in claimed_figures(ctx)]
    if not any(_DOT_THOUSANDS.search(w) for w in written):
        return None
    own, y = family_ids(vocab, c.subject), x * 1000
    for k in same_kind(vocab, c.attribute):
        for r in references(ctx.view, k):
            z = point_of(r)
            if r.subject in own and z and abs(y - z) <= 3 * SAME_FIGURE * z:
                return {"figure": written[0].strip(), "read": f"{y:,.0f}", "reference": r.value_text(vocab),
                        "product": vocab.label(r.subject), "product_zh": vocab.label(r.subject, "zh")}
    return None


def _own_figures(ctx: Context) -> list:
    """The claim's figures: those equal to its value, else those inside its quote."""
    span = ctx.claim.span or (0, 0)
    return claimed_figures(ctx) or [q for q in figures(ctx) if span[0] <= q.start < span[1]]


def _first_cue(ctx: Context, cue: str, text: str, anchored: bool = False) -> re.Match[str] | None:
    """The first match of check-guard cue ``cue`` in ``text`` (at its very start when ``anchored``), or None."""
    return next((m for rx in vocab_cues(ctx.vocab, cue) for m in [(rx.match if anchored else rx.search)(text)] if m), None)


def _cue_after(ctx: Context, cue: str, reach: int, figs: list | None = None) -> dict[str, str] | None:
    """The words of check-guard cue ``cue`` right after one of ``figs`` (the claim's figures by default; within
    ``reach`` characters), as a guard's detail."""
    for q in claimed_figures(ctx) if figs is None else figs:
        m = _first_cue(ctx, cue, ctx.low[q.end:min(q.end + reach, ctx.unit[1])], anchored=True)
        if m:
            return {"word": m.group(0).strip()}
    return None


def _cue_before(ctx: Context, cue: str, reach: int, figs: list) -> dict[str, str] | None:
    """The words of check-guard cue ``cue`` found in the ``reach`` characters before one of ``figs``, as a
    guard's detail."""
    for q in figs:
        m = _first_cue(ctx, cue, ctx.low[max(ctx.unit[0], q.start - reach):q.start])
        if m:
            return {"word": m.group(0).strip()}
    return None


def figure_then_card(ctx: Context) -> dict[str, str] | None:
    """"| Llama 3.2 8B | 48GB (H200) |": a memory figure followed by a GPU's name in brackets is what a workload
    takes on that card; only a wrong reading of it is doubted (the card's own size written so stays)."""
    if ctx.claim.attribute != "memory_gb" or ctx.status not in FIGURE_WRONG:
        return None
    for q in claimed_figures(ctx):
        tail = ctx.low[q.end:ctx.unit[1]]
        for rx in vocab_cues(ctx.vocab, "figure_then_card"):
            m = rx.match(tail)
            if m and re.match(r"[a-z]{1,8}\s?-?\d{2,4}|[a-z]\d{1,3}", tail[m.end():m.end() + 12]):
                return {"word": ctx.text[q.start:min(ctx.unit[1], q.end + m.end() + 12)].strip()}
    return None


def from_to(ctx: Context) -> dict[str, str] | None:
    """"从 H100 的 80GB HBM3 升级到了 141GB HBM3e": what follows "to" in a change from one product's figure is
    another product's (the sentence's subject), not the one the change starts from."""
    span = ctx.claim.span or (0, 0)
    u0 = ctx.unit[0]
    if span[1] <= u0:
        return None
    masked = list(ctx.low[u0:span[1]])
    for a, b in ctx.mentions:
        if u0 <= a and b <= span[1]:
            masked[a - u0:b - u0] = "\ue000" * (b - a)
    text = "".join(masked)
    for rx in vocab_cues(ctx.vocab, "from_to"):
        m = rx.search(text)
        if m and _named_at(ctx, u0 + m.start(), u0 + m.end()):
            return {"word": ctx.text[u0 + m.start():u0 + m.end()].strip()}
    at = _figure_at(ctx) - u0
    for rx in vocab_cues(ctx.vocab, "change_to"):
        # "…相比于RTX 4090低了450W, 另外显存从GDDR6X换成GDDR6": a change in a clause that does not name the
        # claim's product; whose change it is, the clause leaves to what came before. Only the change whose
        # target the figure is: "带宽从4TB/s降至2.5TB/s，FP16算力从296 TFLOPS砍至…" has 296 as a start, after a break
        for m in rx.finditer(text):
            if m.end() > at or CLAUSE_BREAK.search(text, m.end(), at):
                continue
            clause = u0 + max(text.rfind(x, 0, m.start()) for x in ",，;；。")
            if not _named_at(ctx, clause, span[1]):
                return {"word": ctx.text[u0 + m.start():u0 + m.end()].strip()}
    return None


def _figure_at(ctx: Context) -> int:
    """Where the claim's value is written in its span: the first number equal to it ("296 TFLOPS砍至180 TFLOPS"
    is a claim of 296), else its word ("GDDR6"), else the span's start."""
    a, b = (ctx.claim.span or (0, 0))[:2]
    x = point_of(ctx.claim)
    for m in DIGITS.finditer(ctx.low, a, b):
        try:
            y = float(m.group().replace(",", "").rstrip("."))
        except ValueError:
            continue
        if x is not None and abs(y - x) <= 1e-9 * max(1.0, abs(x)) or x is not None and abs(y * 1000 - x) < 1e-6 * abs(x):
            return m.start()
    word = str(ctx.claim.value).lower()
    i = ctx.low.find(word, a, b) if word and not isinstance(ctx.claim.value, (int, float)) else -1
    return i if i >= 0 else a


def _named_at(ctx: Context, a: int, b: int) -> bool:
    """Whether the claim's own product is the one named in [a, b) (the product the change starts from)."""
    own = ctx.vocab.generic(ctx.claim.subject)
    return any(a <= x < b and own in {ctx.vocab.generic(p) for p in ctx.products} for x, _ in ctx.mentions)


def versus(ctx: Context) -> dict[str, str] | None:
    """"the SXM version uses 700W versus 350W for the PCIe version", "H200 uses HBM3e instead of HBM3": a figure or
    a value right after "versus" or "instead of" (or right before "ではなく", "대신") is what the claim's product is
    compared with or does not have, not the product's own, as is one a few words after its predecessor is named ("its
    predecessor on the Hopper architecture", "前代 Hopper 架构"); only a wrong reading of it is doubted."""
    if ctx.status not in FIGURE_WRONG:
        return None
    said = claimed_figures(ctx) or _word_value(ctx)
    return _cue_before(ctx, "versus", 24, said) or _cue_after(ctx, "versus_after", 24, said) or \
        _cue_before(ctx, "predecessor", 48, said) or _compared_after(ctx, said)


def _compared_after(ctx: Context, said: list) -> dict[str, str] | None:
    """"这颗芯片提供 int8 128Tops …，与 NVIDIA 的 Tesla T4 基本持平", "… 1835 TFLOPS, on par with the H100": figures
    whose sentence names the claim's product only after them, right after a word of comparison (cues
    ``compared_after``), are what the product is compared with, not its own."""
    if not said:
        return None
    own = own_ids(ctx.vocab, ctx.claim.subject)
    spots = [(a, b) for (a, b), e in zip(ctx.mentions, ctx.mention_ids) if e in own or ctx.vocab.generic(e) in own]
    if not spots or spots[0][0] < said[0].start:
        return None             # named before its figures: they are its own, as the sentence says
    gap = ctx.low[said[-1].end:spots[0][0]]
    m = _first_cue(ctx, "compared_after", gap)
    return {"word": ctx.text[said[-1].end + m.start():spots[0][1]].strip()} if m else None


class _Span(NamedTuple):
    start: int
    end: int


def _word_value(ctx: Context) -> list[_Span]:
    """Where a claim's word value (a memory type, an architecture) stands in its span, the last time it is written
    there, as a figure's place is read."""
    c = ctx.claim
    if not c.span or not isinstance(c.value, str) or not c.value.strip():
        return []
    word = re.compile(r"(?<![a-z0-9])" + re.escape(c.value.lower()) + r"(?![a-z0-9])")
    found = list(word.finditer(ctx.low, c.span[0], c.span[1]))
    return [_Span(*found[-1].span())] if found else []


def year_off_by_one(ctx: Context) -> dict[str, str] | None:
    """"The H200, launched in 2023": a launch year one off the reference's may be the announcement's where the
    reference has the first shipments' (or the other way round); only a year further off is wrong."""
    c = ctx.claim
    if c.attribute != "launch_year" or ctx.status != "incorrect" or not isinstance(c.value, (int, float)):
        return None
    ref = ctx.view.ref(c.subject, "launch_year")
    if ref is None or not isinstance(ref.value, (int, float)) or abs(ref.value - c.value) != 1:
        return None
    return {"year": f"{ref.value:g}"}


_ALTERNATIVES = re.compile(r"\d\s*(?:gb|g)?\s*[/／或]\s*\d+(?:\.\d+)?\s*(?:gb|g)(?![a-z])")


def alternative_sizes(ctx: Context) -> dict[str, str] | None:
    """"RTX 4080 16GB/12GB": memory sizes written as alternatives are the sizes of a product sold in several,
    which a product with one size (and no variants) is not; only a wrong reading of them is doubted."""
    c = ctx.claim
    if c.attribute != "memory_gb" or ctx.status not in FIGURE_WRONG \
            or ctx.vocab.entities.get(c.subject, {}).get("variants"):
        return None
    span = c.span or (0, 0)
    m = _ALTERNATIVES.search(ctx.low, max(ctx.unit[0], span[0] - 8), min(ctx.unit[1], span[1] + 8))
    return {"word": ctx.text[m.start():m.end()]} if m else None


#: a table row's first cell that is a model's size ("| 34B (CodeLlama) |", "| 7B |", "| Llama 3 70B |")
_MODEL_CELL = re.compile(r"\s*\|?\s*[^|\n]{0,24}?(?<![\w.])\d+(?:\.\d+)?\s*(?:b|bn|billion|m|亿|十亿)(?![a-z0-9])[^|\n]*\|")


def model_row(ctx: Context) -> dict[str, str] | None:
    """"| 34B (CodeLlama) | 68 GB | 136 GB | … | 4x H100 |": in a table row about a model (its first cell a model
    size), memory figures are what the model needs, not the memory of a card the row names as enough."""
    c = ctx.claim
    if c.attribute != "memory_gb" or ctx.vocab.kind_of(c.subject) != "gpu":
        return None
    a = ctx.low.rfind("\n", 0, (c.span or [0])[0]) + 1
    b = ctx.low.find("\n", a)
    line = ctx.low[a:len(ctx.low) if b < 0 else b]
    if not line.lstrip().startswith("|") or any(a <= x < a + line.find("|", line.find("|") + 1) for x, _ in ctx.mentions):
        return None
    m = _MODEL_CELL.match(line)
    return {"word": m.group(0).strip(" |")} if m else None


_BRACKETS = re.compile(r"\s*[(（]([^()（）\n]{0,60})[)）]")


def own_value_after(ctx: Context) -> dict[str, str] | None:
    """"配备141GB HBM3e…，幾乎是H100(80GB HBM3, 3.35TB/s)的兩倍": a product whose own memory technology follows
    its name in brackets has that one; another named outside the brackets is another product's."""
    c, vocab = ctx.claim, ctx.vocab
    if c.attribute != "memory_type" or ctx.status != "incorrect":
        return None
    own, aliases, span = own_ids(vocab, c.subject), vocab.aliases(), c.span or (0, 0)
    for a, b in ctx.mentions:
        m = _BRACKETS.match(ctx.low, b)
        if m is None or aliases.get(ctx.low[a:b].strip()) not in own or m.start() <= span[0] < m.end():
            continue
        said = [val for val, rx in tables(vocab)["memory_types"] if rx.search(m.group(1))]
        if said and str(c.value) not in said:
            return {"name": ctx.text[a:b], "own": said[0]}
    return None


#: the board widths the ``check_guard`` cues ``slots_<n>`` name
SLOT_WIDTHS = (1, 2)
#: how far after a figure its form factor's word is read ("150W Single-Slot")
FORM_FACTOR_REACH = 24


def unknown_form_factor(ctx: Context) -> dict[str, str] | None:
    """"Tesla V100 – 150W Single-Slot & 300W Dual-Slot": a figure given for a board width (single- or dual-slot)
    that none of the product's catalogued versions has is a figure of a version gpukb has no figures of, not
    an error about the ones it knows. The width is the one named right after the figure, else the last one
    named before it in its clause."""
    c = ctx.claim
    fig = last_figure(ctx.low, c.span)
    if fig is None or ctx.vocab.kind_of(c.subject) != "gpu":
        return None
    a, b = clause_of(ctx, fig.start())
    found: list[tuple[int, int, int, int, int]] = []       # (after?, distance, width, start, end)
    for n in SLOT_WIDTHS:
        for rx in vocab_cues(ctx.vocab, f"slots_{n}"):
            for m in rx.finditer(ctx.low, a, min(b, fig.end() + FORM_FACTOR_REACH)):
                after = m.start() >= fig.end()
                found.append((0 if after else 1, m.start() - fig.end() if after else fig.start() - m.start(), n,
                              m.start(), m.end()))
    if not found:
        return None
    _, _, width, start, end = min(found)
    ids = family_ids(ctx.vocab, c.subject)
    widths = {point_of(f) for f in references(ctx.view, "board_slots") if f.subject in ids}
    if not widths or float(width) in widths:
        return None
    return {"word": ctx.text[start:end], "product": ctx.vocab.label(c.subject),
            "widths": ", ".join(f"{w:g}" for w in sorted(w for w in widths if w is not None))}


def other_form_factor(ctx: Context) -> dict[str, str] | None:
    """"H100 SXM と H100 PCIe の比較 / 最大消費電力：SXM 700 W、PCIe 300〜350 W": a figure right after a form factor's
    name that is another version's (one the text names) than the claim's product is that version's figure."""
    c, vocab = ctx.claim, ctx.vocab
    if ctx.status not in FIGURE_WRONG or vocab.kind_of(c.subject) != "gpu" or not c.span:
        return None
    fig = last_figure(ctx.low, c.span)
    at = fig.start() if fig else c.span[0]
    forms = list(FORM_WORD.finditer(ctx.low, max(ctx.unit[0], at - 16), at))
    if not forms:
        return None
    m = forms[-1]
    token = form_token(m.group(1))
    def names(eid: str) -> str:
        return " ".join([str(vocab.entities.get(eid, {}).get("name", ""))] + list((vocab.entities.get(eid, {}).get("aliases") or {}).get("en", []))).lower()
    if token in names(c.subject):
        return None
    other = next((p for p in sorted(ctx.text_products) if vocab.kind_of(p) == "gpu" and token in names(p)), None)
    return {"form": m.group(1), "product": vocab.label(other)} if other else None
