"""Guards for figures that are another thing than the attribute they look like: a memory's per-pin data rate
written in bits per second, one memory stack's size, a figure that follows a product gpukb does not know."""
from __future__ import annotations

import re

from ..kb.names import unknown_mentions
from .figure_guards import claimed_figures, figures
from .guard_base import Context, cue_in_unit

__all__ = ["bit_rate", "memory_part", "unknown_product"]


#: a rate written with a lower-case b after its prefix counts bits ("18Gb/s", "16 Gbps"); read in the text as
#: written, since the extractor reads it lower-cased
_BITS = re.compile(r"\s*[KMGTkmgt]b(?:/s|ps|it/s)")


def unknown_product(ctx: Context) -> dict[str, str] | None:
    """"…而 RTX 2070 还要 175-185W": the figure follows, in its sentence, a product gpukb does not know, nearer
    to it than any product gpukb knows: the figure may be that product's."""
    span = ctx.claim.span or (0, 0)
    figs = claimed_figures(ctx) or [q for q in figures(ctx) if span[0] <= q.start < span[1]]   # a range: its span
    if not figs:
        return None
    u0, at = ctx.unit[0], figs[-1].start
    found = unknown_mentions(ctx.text[u0:at], ctx.vocab, [(a - u0, b - u0) for a, b in ctx.mentions if b <= at])
    if not found or found[-1]["kind"] != "gpu":
        return None
    known = max((b for _, b in ctx.mentions if b <= at), default=-1)
    return {"name": found[-1]["text"]} if u0 + found[-1]["span"][1] > known else None


def memory_part(ctx: Context) -> dict[str, str] | None:
    """"8 stacks of HBM3e (24GB each)": a memory size said of each stack, die or chip (cues ``memory_part``)."""
    return cue_in_unit(ctx, "memory_part") if ctx.claim.attribute == "memory_gb" else None


def bit_rate(ctx: Context) -> dict[str, str] | None:
    """"GDDR6 at 18Gb/s": a memory figure in bits per second is its per-pin data rate (or a link's speed),
    not the card's memory bandwidth, which vendors give in bytes per second."""
    if ctx.claim.attribute != "memory_bandwidth":
        return None
    for q in claimed_figures(ctx):
        if _BITS.match(ctx.text, q.unit_at or q.end):
            return {"figure": ctx.text[q.start:q.end]}
    return None
