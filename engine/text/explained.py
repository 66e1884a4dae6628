"""Explain a wrong figure before calling it wrong: a text's mistake about a card is almost always a figure
that exists somewhere.

A page that gives a card a wrong figure gives it a neighbouring one: the same attribute a little off (a
rounded or older figure), another variant's or generation's figure, the with-sparsity rate as the dense
one, another precision's rate, or the figure of another product the page compares it with. A figure near
none of those, in a clause that does not state it of the card in so many words, is far more often a figure
of something else read as the card's (a server's total, a model's need, a difference, a price) than a
mistake of the text, so the checker doubts its reading before the text.

What stays flagged, because there the text says what the figure is: a table cell read from the table's
own headers, a list item under a label that names the attribute ("V100 的双精度浮点运算性能："), a figure
written onto its product's name ("H100 的 8.0 TB/s"), and a clause that names the product and the attribute
("the T4 has a TDP of 250 W").

>>> near(14.0, [16.0])
True
>>> near(10000.0, [96.0])
False
>>> same(3958.0, [4000.0])
True
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from ..kb.interval import Interval
from .claim_figures import card_counts, near_claimed_figure
from .guard_base import Context, family_ids, figure_of, point_of, same_kind, vocab_cues
from .readings import SUMMED_DIMENSIONS, _names, _stated
from .tokens import tables
from .workload import label_attribute


#: a figure within this relative distance of the product's own figure of the attribute is a near miss: the
#: text's own error (a rounded, older or neighbouring figure), judged as it stands
NEAR = 0.35

#: a figure within this relative distance of another known figure is that figure ("4,000 TFLOPS" for 3,958)
SAME = 0.03


def near(x: float, figures: Iterable[float]) -> bool:
    """Is ``x`` within :data:`NEAR` of one of ``figures``?"""
    return any(f and abs(x - f) <= NEAR * abs(f) for f in figures)


def same(x: float, figures: Iterable[float]) -> bool:
    """Is ``x`` within :data:`SAME` of one of ``figures``?"""
    return any(f and abs(x - f) <= SAME * max(abs(x), abs(f)) for f in figures)


def _figures(ctx: Context, ids: set[str], attributes: Iterable[str]) -> list[float]:
    by = ctx.view.by_subject_attr
    out = []
    for e in ids:
        for a in attributes:
            for r in by.get((e, a), ()):
                if r.tier != "reference":
                    continue
                x = figure_of(r)
                if x is not None:
                    out.append(x)
    return out


def unexplained_figure(ctx: Context) -> dict[str, Any] | None:
    """A card's figure that is near no figure gpukb knows for it, nor exactly any figure of its kind of the
    card or of a product the text names, in a clause that does not state it: its reading is in doubt."""
    c, vocab = ctx.claim, ctx.vocab
    spec = vocab.attributes.get(c.attribute)
    if ctx.cell or ctx.attached or spec is None or spec.dimension not in SUMMED_DIMENSIONS \
            or vocab.kind_of(c.subject) != "gpu" or not isinstance(c.norm, Interval) or c.norm.kind != "number":
        return None
    lo, hi = c.norm.lo, c.norm.hi
    xs = [x for x in {lo, hi} if x]
    if not xs:
        return None
    own = family_ids(vocab, c.subject)
    mine = _figures(ctx, own, (c.attribute,))
    if not mine:
        return None                  # nothing to measure the figure against: other guards judge it
    if any(near(x, mine) for x in xs) or (lo is not None and hi is not None and any(lo <= f <= hi for f in mine)):
        return None
    kin = same_kind(vocab, c.attribute)
    named: set[str] = set()
    for p in ctx.text_products:
        if vocab.kind_of(p) == "gpu":
            named |= family_ids(vocab, p)
    if any(same(x, _figures(ctx, own, kin)) or same(x, _figures(ctx, named, (c.attribute,))) for x in xs):
        return None
    if _stated(ctx) or label_attribute(ctx.low, ctx.unit[0], [c.attribute], tables(vocab)) == c.attribute:
        return None                  # said of it in so many words, or by the label of its list
    if c.attribute == "memory_gb" and any(rx.match(tail) for tail in near_claimed_figure(ctx, 30)
                                          for rx in vocab_cues(vocab, "card_size")):
        return None                  # "a 24 GB card": the size the card is sold in
    if ctx.products == (vocab.generic(c.subject),) and _names(vocab, c.attribute, ctx.low[ctx.unit[0]:ctx.unit[1]]):
        return None                  # "## NVIDIA T4 … It has 32 GB of memory", "T4 规格：\n- 显存：32GB": the one card, the attribute's word
    best = min(mine, key=lambda f: abs(f - xs[0]))
    # the fact that figure is (a point before a span's end; by subject id, so the reason reads the same every run)
    ref = min((r for e in own for r in ctx.view.by_subject_attr.get((e, c.attribute), ()) if r.tier == "reference"
               and (point_of(r) == best or (isinstance(r.norm, Interval) and r.norm.hi == best))),
              key=lambda r: (point_of(r) is None, r.subject, r.id))
    generic = vocab.generic(c.subject)
    return {"figure": c.value_text(vocab), "own": ref.value_text(vocab), "attribute": spec.en, "attribute_zh": spec.zh,
            "product": vocab.label(generic), "product_zh": vocab.label(generic, "zh")}


def _card_counts(ctx: Context) -> set[float]:
    """The counts of cards the claim's sentence names (:func:`.claim_figures.card_counts`), and a multiplier
    written onto a product's name ("4×L20")."""
    out = card_counts(ctx)
    for a, _ in ctx.mentions:           # "4×L20", glued to the name: no figure of its own to the reader
        m = _MULTIPLIER.search(ctx.low, max(ctx.unit[0], a - 8), a)
        if m:
            out.add(float(m.group(1)))
    return out


#: a count written onto a product's name: "4×", "8x ", "2 * "
_MULTIPLIER = re.compile(r"(?<![\d.])(\d{1,3})\s*[x×*]\s*$")


def total_of_cards(ctx: Context) -> dict[str, Any] | None:
    """"4×L20 TDP = 1100W": a figure that is exactly n times the card's own figure of a summed attribute (power,
    bandwidth, throughput), in a sentence that names n cards, is the n cards' total, not one card's. (Memory
    sizes have their own, wider guard: :func:`.figure_guards.multiple_of_one_card`.)"""
    c, vocab = ctx.claim, ctx.vocab
    spec = vocab.attributes.get(c.attribute)
    if c.attribute == "memory_gb" or spec is None or spec.dimension not in SUMMED_DIMENSIONS \
            or vocab.kind_of(c.subject) != "gpu" or not isinstance(c.norm, Interval) or c.norm.kind != "number":
        return None
    x = c.norm.point()
    counts = _card_counts(ctx) if x else set()
    for f in _figures(ctx, family_ids(vocab, c.subject), (c.attribute,)) if counts else ():
        k = x / f if f else 0
        if round(k) >= 2 and round(k) in counts and abs(k - round(k)) <= SAME * k:
            return {"n": str(round(k)), "figure": c.value_text(vocab), "attribute": spec.en, "attribute_zh": spec.zh,
                    "card": f"{f:g} {c.unit or ''}".strip()}
    return None
