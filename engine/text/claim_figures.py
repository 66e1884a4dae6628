"""The figures of a claim's sentence or row that the guards read: every figure, those of the claim's
dimension, those equal to the claim's value and the words right after them, and the counts of cards."""
from __future__ import annotations

import re
from typing import Any

from .guard_base import Context, SAME_FIGURE, clause_of, counts_cards, cue_in_unit, point_of, vocab_cues
from .tokens import quantities


def dimension(ctx: Context) -> str | None:
    spec = ctx.vocab.attributes.get(ctx.claim.attribute)
    return spec.dimension if spec is not None else None


#: a bare whole number right before a product's name: "144 Nvidia H200 GPUs", "8 A100"
_COUNT_BEFORE = re.compile(r"(?<![\d.,])(\d{1,5})\s*(?:nvidia\s+|英伟达\s*)?$")


def card_counts(ctx: Context) -> set[Any]:
    """The counts of cards the claim's sentence writes as figures: "8 卡", "8 GPUs", "8x H100", "144 H200 GPUs"
    (not "96 vCPUs")."""
    bare = {float(m.group(1)) for a, _ in ctx.mentions if a > ctx.unit[0]
            for m in [_COUNT_BEFORE.search(ctx.low, max(ctx.unit[0], a - 16), a)] if m}
    return bare | {q.lo for q in unit_quantities(ctx) if q.lo == q.hi and (counts_cards(ctx.vocab, ctx.low, q) or (
        q.dimension == "ratio" and q.unit == "x" and any(0 <= a - q.end <= 2 for a, _ in ctx.mentions)))}


def several_cards(ctx: Context) -> dict[str, str] | None:
    """The count of two or more cards the claim's sentence states, as a guard's detail ({"word": ...}): the largest
    written as a figure (:func:`card_counts`), else a count in words ("four A100s", "两张": cue ``spelled_count``)."""
    counts = {n for n in card_counts(ctx) if n and n >= 2}
    if counts:
        return {"word": f"{max(counts):g}"}
    return cue_in_unit(ctx, "spelled_count")


def unit_quantities(ctx: Context) -> list:
    """Every figure of the claim's sentence or row (read once per claim: many guards ask)."""
    if "quantities" not in ctx.memo:
        ctx.memo["quantities"] = quantities(ctx.low, ctx.unit[0], ctx.unit[1], ctx.vocab)
    return ctx.memo["quantities"]


def figures(ctx: Context) -> list:
    """The figures of the claim's dimension in its sentence or row."""
    if "figures" not in ctx.memo:
        dim = dimension(ctx)
        ctx.memo["figures"] = [] if dim is None else [q for q in unit_quantities(ctx) if q.dimension == dim]
    return ctx.memo["figures"]


def claimed_figures(ctx: Context) -> list:
    """The figures of the unit that equal the claim's value."""
    x, n = point_of(ctx.claim), ctx.claim.norm    # a range's figure: the one whose ends are its ("20-100GB/sec")
    targets = [x] if x is not None else [v for v in (getattr(n, "lo", None), getattr(n, "hi", None)) if v is not None]
    if not targets:
        return []
    dim = dimension(ctx)
    factor = ctx.vocab.unit_factor(dim, None) if dim else None
    return [q for q in figures(ctx) for f in [ctx.vocab.unit_factor(q.dimension, q.unit) or factor or 1]
            if any(abs(v * f - y) <= SAME_FIGURE * max(abs(y), 1e-9) for y in targets for v in (q.lo, q.hi))]


def near_claimed_figure(ctx: Context, after: int = 40):
    """The text right after each figure of the unit that equals the claim's value."""
    return [ctx.low[q.end:min(q.end + after, ctx.unit[1])] for q in claimed_figures(ctx)]


def changes(ctx: Context, dimension: str) -> list[tuple]:
    """The pairs of figures of ``dimension`` in the claim's clause that a change joins: "from 780 GB to under 48 GB",
    "从296 TFLOPS降至200 TFLOPS", "von 28 GB auf 8 GB" (cues ``change_from`` before the first or
    ``change_from_after`` right after it, ``change_into`` between the two, and a word of change in the clause)."""
    a, b = clause_of(ctx)
    found = [q for q in unit_quantities(ctx) if q.dimension == dimension and a <= q.start and q.end <= b]
    if len(found) < 2 or not any(rx.search(ctx.low, a, b) for rx in vocab_cues(ctx.vocab, "change_verb")):
        return []
    out = []
    for q1, q2 in zip(found, found[1:]):
        gap, head = ctx.low[q1.end:q2.start], ctx.low[a:q1.start]
        if any(rx.search(gap) for rx in vocab_cues(ctx.vocab, "change_into")) and (
                any(rx.search(head) for rx in vocab_cues(ctx.vocab, "change_from")) or
                any(rx.search(gap) for rx in vocab_cues(ctx.vocab, "change_from_after"))):
            out.append((q1, q2))
    return out


def figures_apart(ctx: Context) -> list:
    """The figures of the claim's dimension in its sentence or row, less the end of a change the claim's figure starts
    ("FP16算力从296 TFLOPS降至200 TFLOPS": 296 is the product's before the change, 200 what it became): which word goes
    with which figure is not in doubt there. A change's end stays beside its start: it is another version's figure."""
    dim, own = dimension(ctx), {id(q) for q in claimed_figures(ctx)}
    ends = {id(q2) for q1, q2 in changes(ctx, dim) if id(q1) in own} if dim else set()
    return [q for q in figures(ctx) if id(q) not in ends]
