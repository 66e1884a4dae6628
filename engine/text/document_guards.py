"""Guards that read the whole text, not the claim's sentence: what the text says elsewhere of the same thing.

A product has one figure per attribute in each of its versions. A text that gives one product's attribute
several figures that no version of the product has is speaking of several things under one name: a server
and its cards, a MIG slice and the whole card, a system's and a GPU's throughput, a range of link speeds.
gpukb reads each figure as the card's, so when two or more of them are unexplained the reading, not the
text, is the likelier mistake, and a negative status on any of them is withheld. One unexplained figure
beside the product's own ("T4: 16 GB … the T4 has 32 GB") stays judged: the text contradicts itself or errs.

>>> distinct([16.0, 16.1, 32.0, 32.0])
[16.0, 32.0]
"""
from __future__ import annotations

from typing import Any, Iterable

from ..kb.store import Fact
from ..kb.vocabulary import Vocabulary
from .explained import _figures, same
from .guard_base import Context, PRODUCT_KINDS, family_ids, figure_of

#: how many figures of one product's attribute, none of them its versions', make the text's reading doubtful
UNEXPLAINED_AT_LEAST = 2


def distinct(xs: Iterable[float]) -> list[float]:
    """``xs`` without figures the same as an earlier one (within :data:`.explained.SAME`), in order."""
    out: list[float] = []
    for x in xs:
        if not same(x, out):
            out.append(x)
    return out


def figures_by_product(claims: Iterable[Fact], vocab: Vocabulary) -> dict[tuple[str, str], list[float]]:
    """Every product's figures per attribute as the text's claims give them: (generic product, attribute) →
    figures in text order."""
    out: dict[tuple[str, str], list[float]] = {}
    for c in claims:
        x = figure_of(c)
        if x is None or vocab.kind_of(c.subject) not in PRODUCT_KINDS:
            continue
        out.setdefault((vocab.generic(c.subject), c.attribute), []).append(x)
    return out


def several_values(ctx: Context) -> dict[str, Any] | None:
    """The text gives the claim's product and attribute two or more figures that no version of the product
    has (the claim's among them): it speaks of several things under the product's name."""
    c, vocab = ctx.claim, ctx.vocab
    x = figure_of(c)
    if x is None or vocab.kind_of(c.subject) not in PRODUCT_KINDS:
        return None
    given = ctx.text_figures.get((vocab.generic(c.subject), c.attribute), ())
    own = _figures(ctx, family_ids(vocab, c.subject), (c.attribute,))
    if not own or same(x, own):
        return None
    unexplained = [f for f in distinct(given) if not same(f, own)]
    if len(unexplained) < UNEXPLAINED_AT_LEAST:
        return None
    spec = vocab.attributes[c.attribute]
    unit = vocab.canonical_unit(spec.dimension) if spec.dimension else ""
    figures = ", ".join(f"{f:g} {unit}".strip() for f in unexplained[:6])
    generic = vocab.generic(c.subject)
    return {"figures": figures, "n": str(len(unexplained)), "product": vocab.label(generic),
            "product_zh": vocab.label(generic, "zh"), "attribute": spec.en, "attribute_zh": spec.zh}
