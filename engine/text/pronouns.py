"""Pronouns that stand for a product ("It carries 16 GB", "该卡支持 NVLink", "このGPU"): the one product the sentence
before names is what they speak of (cues ``coreference.singular``), which a product named later in the sentence is not."""
from __future__ import annotations

import re

from ..kb.lexicon import match_entities
from .guard_base import PRODUCT_KINDS, Context, carries
from .tokens import tables


#: a sentence mark or line break; a point between digits ("3.35 TB/s") is a decimal one
_SENTENCE_END = re.compile(r"(?<!\d)\.|\.(?!\d)|[。!！?？\n]")


def pronoun_for(ctx: Context, own: set[str]) -> bool:
    """"The NVIDIA T4 is a Turing card. It carries 16 GB of GDDR6": a sentence that opens with a pronoun for one
    product (cues ``coreference.singular``) speaks of the one product the sentence before it names."""
    if not opens_with_pronoun(ctx):
        return False
    end = ctx.unit[0]
    while end > 0 and ctx.low[end - 1] in " \t\n":
        end -= 1
    start = max((m.end() for m in _SENTENCE_END.finditer(ctx.low, 0, max(0, end - 1))), default=0)   # the sentence before
    before = {ctx.vocab.generic(x.eid) for x in match_entities(ctx.low, ctx.vocab)
              if start <= x.start and x.end <= end and x.kind in PRODUCT_KINDS}
    return len(before) == 1 and bool(before & {ctx.vocab.generic(o) for o in own} or any(carries(ctx.view, b, ctx.claim.subject) for b in before))


def opens_with_pronoun(ctx: Context) -> bool:
    """Whether the claim's sentence opens with a pronoun for one product (after a list mark or a heading's #)."""
    lead = ctx.low[ctx.unit[0]:ctx.unit[1]].lstrip(" \t-*•#>")[:16]
    return any(rx.match(lead) for rx in tables(ctx.vocab)["coref"]["singular"])


def pronoun_opens(ctx: Context) -> dict[str, str] | None:
    """"该卡支持 NVLink 桥接（40 系的 4090 已经取消了 NVLink）": a sentence that opens with a pronoun speaks of the
    product named before it; a claim read of a product the sentence names only after the claim's own words may
    be the pronoun's, not that product's."""
    c = ctx.claim
    if not c.span or not opens_with_pronoun(ctx):
        return None
    own = ctx.vocab.generic(c.subject)
    named = [s for (s, _), eid in zip(ctx.mentions, ctx.mention_ids) if ctx.vocab.generic(eid) == own]
    if not named or min(named) < c.span[1]:
        return None
    return {"product": ctx.vocab.label(c.subject), "product_zh": ctx.vocab.label(c.subject, "zh")}
