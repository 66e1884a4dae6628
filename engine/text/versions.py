"""A product spoken of as another version of itself: "魔改版 4090 有 48GB", "Die jetzt aufgetauchten Varianten …",
a section headed "H20“阉割版”真相": its figures may be that version's, which gpukb does not know."""
from __future__ import annotations

from .guard_base import FIGURE_WRONG, Context, vocab_cues


def other_version(ctx: Context) -> dict[str, str] | None:
    """"Die jetzt aufgetauchten Varianten … verfügen über 96 GB", "魔改版 4090 有 48GB": a GPU figure in a sentence, or
    right after one, that calls the product a variant, a modified or a new version (cues ``other_version``) may be
    that version's, which gpukb does not know; only a wrong reading of it is doubted. A heading that calls it so
    heads no section of the product (:meth:`.guard.Guards.section`)."""
    if ctx.status not in FIGURE_WRONG or ctx.vocab.kind_of(ctx.claim.subject) != "gpu":
        return None
    before = ctx.low[max(0, ctx.unit[0] - 240):ctx.unit[0]]
    for text in (ctx.low[ctx.unit[0]:ctx.unit[1]], before[before.rfind("\n") + 1:]):     # the same line before it
        m = next((m for rx in vocab_cues(ctx.vocab, "other_version") for m in [rx.search(text)] if m), None)
        if m:
            return {"word": m.group(0)}
    return None


def calls_other_version(vocab, line: str) -> bool:
    """Whether ``line`` calls a product another version of itself (cues ``other_version``)."""
    return any(rx.search(line) for rx in vocab_cues(vocab, "other_version"))
