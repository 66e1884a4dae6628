"""Guards on whom and what a claim is about, as the checker's guard list calls them (:mod:`.guard_list`): several
products in the sentence, a subject taken from the context, a condition, a part of the run named, the estimate's error
band, and a variant, method or precision the text leaves unstated."""
from __future__ import annotations

import re

from .clause_guards import REQUIREMENTS
from .pronouns import pronoun_for
from .guard_base import (Context, PRODUCT_KINDS, clause_of, distributed, cue_in_unit, last_figure, names_of, carries,
    memory_facts, own_ids, point_of, vocab_cues)
from .figure_guards import said_of_each, same_value, own_sparse_figure


def several_products(ctx: Context) -> dict[str, str] | None:
    if ctx.attached or same_value(ctx) or own_sparse_figure(ctx) or distributed(ctx):
        return None             # "低于 H100 的 8.0 TB/s": the figure is written onto its product's name
    # the products the claim itself relates (a family and the GPU it carries) are not rival subjects
    value = ctx.claim.value if isinstance(ctx.claim.value, list) else [ctx.claim.value]
    named = {str(v) for v in value} | {ctx.vocab.generic(str(v)) for v in value}
    # nor are products the attribute cannot be said of ("g5.12xlarge has eight A10G GPUs": a GPU has no GPU count)
    applies = ctx.vocab.attributes[ctx.claim.attribute].applies_to if ctx.claim.attribute in ctx.vocab.attributes else ()
    # nor the instances that carry the claim's GPU ("the A10G in AWS G5 instances has 24 GB": where it is), or the GPU
    # an instance claim's figure is of ("p5.48xlarge: 8 H100 GPUs with 80 GB each")
    placed = ctx.vocab.kind_of(ctx.claim.subject) == "gpu" or said_of_each(ctx)
    rivals = [p for p in ctx.products if p not in named and
              (p == ctx.vocab.generic(ctx.claim.subject) or ctx.vocab.kind_of(p) in applies)
              and not (placed and carries(ctx.view, p, ctx.claim.subject))]
    if len(rivals) < 2:
        return None
    return {"products": names_of(ctx, rivals), "products_zh": "、".join(ctx.vocab.label(e, "zh") for e in rivals)}


def conditional(ctx: Context) -> dict[str, str] | None:
    return cue_in_unit(ctx, "condition")


def subject_from_context(ctx: Context) -> dict[str, str] | None:
    c, vocab = ctx.claim, ctx.vocab
    if vocab.kind_of(c.subject) not in PRODUCT_KINDS:
        return None
    own = own_ids(vocab, c.subject)
    named = set(ctx.products) | {e for p in ctx.products for e in (vocab.entities.get(p, {}).get("variants") or ())}
    if own & named or any(carries(ctx.view, p, c.subject) for p in ctx.products) or pronoun_for(ctx, own):
        return None
    return {"subject": vocab.label(c.subject)}


#: what a training verdict or requirement depends on when the text names no method: full fine-tuning,
#: LoRA and QLoRA of one model differ several-fold in memory
METHOD_BOUND = ("memory_verdict", "suitability", "min_gpus", "memory_required")
#: tasks that leave the training method open (pre-training and large-scale training are full training)
OPEN_METHOD_TASKS = ("training", "fine_tuning", "nlp_training", "cv_training")


def component_named(ctx: Context) -> dict[str, str] | None:
    """"the KV cache for a 70B FP16 model consumes around 80 GB": a requirement whose clause, before its figure,
    names one part of a run's memory (cues ``check_guard.component``), or whose paragraph does before a clause
    drawing its consequence ("…, so …"), is that part's size, which gpukb's total of the run does not judge."""
    c = ctx.claim
    fig = last_figure(ctx.low, c.span)
    if c.attribute not in REQUIREMENTS or fig is None:
        return None
    a, _ = clause_of(ctx, fig.start())
    if _CONSEQUENCE.search(ctx.low, max(ctx.unit[0], a - 12), min(a + 16, fig.start())):
        a = ctx.low.rfind("\n", 0, ctx.unit[0]) + 1    # "the KV cache is 0.5 MiB per token, so 4,096 tokens use about 2 GiB"
    for rx in vocab_cues(ctx.vocab, "component"):
        m = rx.search(ctx.low, a, fig.start())
        if m:
            return {"word": ctx.text[m.start():m.end()]}
    tail = ctx.low[fig.end():min(ctx.unit[1], fig.end() + 60)]                  # "8GB+ just for the cache"
    m = next((m for rx in vocab_cues(ctx.vocab, "component_after") for m in [rx.match(tail)] if m), None)
    return {"word": ctx.text[fig.end():fig.end() + m.end()].strip()} if m else None


#: a clause that draws a consequence of the one before it, of which it goes on speaking
_CONSEQUENCE = re.compile(r"(?<![a-z])(?:so|thus|hence|therefore|which\s+means|meaning)(?![a-z])|所以|因此|因而|这意味着|也就是说")

def within_error_band(ctx: Context) -> dict[str, str] | None:
    """"You can LoRA a 7B model on a 16 GB T4": gpukb's need (18.6 GB) and the card's capacity (15.6 GB) differ
    by less than its estimates' error band against published measurements of the method's runs (measured
    0.74-1.22 times the estimate): the run may fit or not, so a verdict either way is not called wrong."""
    v = ctx.verdict
    if not v or "capacity_gb" not in v:
        return None
    need, cap, band = v["need_gb"], v["capacity_gb"], v["band"]
    if not max(need * band["low"], v.get("floor_gb") or 0) <= cap <= need * band["high"]:
        return None             # "a 13B model in FP16 on a 24 GB card": its 26 GB of weights alone do not fit
    return {"need": f"{need:.1f}", "capacity": f"{cap:.1f}", "low": f"{need * band['low']:.1f}",
            "high": f"{need * band['high']:.1f}", "points": str(band.get("points", "")), "method": v["method"].split(":")[-1],
            "ratios": f"{band['low']:g}–{band['high']:g}"}


def requirement_within_band(ctx: Context) -> dict[str, str] | None:
    """"Full fine-tuning of a 7B model needs about 200 GB": gpukb's total for the run (130 GB) times the ratios
    measured over published runs of the method (up to 1.88 for full fine-tuning) reaches the stated need, so the
    text may describe a setup that takes that much; over or under that band, the claim is still called wrong."""
    v = ctx.verdict
    if not v or "capacity_gb" in v or ctx.status not in ("overstated", "understated"):
        return None
    need, band = v["need_gb"], v["band"]
    lo, hi = getattr(ctx.claim.norm, "lo", None), getattr(ctx.claim.norm, "hi", None)
    low, high = need * band["low"], need * band["high"]
    inside = (lo is not None and lo <= high) if ctx.status == "overstated" else \
        ((hi if hi is not None else lo) is not None and (hi if hi is not None else lo) >= low)
    if not inside:
        return None
    return {"need": f"{need:.1f}", "low": f"{low:.1f}", "high": f"{high:.1f}", "points": str(band.get("points", "")),
            "method": v["method"].split(":")[-1], "ratios": f"{band['low']:g}–{band['high']:g}"}


def variant_unstated(ctx: Context) -> dict[str, str] | None:
    """"推荐配置为两块A100": a verdict or GPU count for a product named without its memory size, whose versions
    differ in memory (A100 40 / 80 GB). gpukb sizes the smallest; a claim that the run fits (or needs no more
    cards) may be about a larger version, so it is not wrong unless gpukb's need per GPU exceeds even the
    largest one's memory. A claim that it does not fit is judged as before: it fails on the smallest too."""
    c, vocab = ctx.claim, ctx.vocab
    optimistic = (c.attribute in ("suitability", "memory_verdict") and vocab.polarity(str(c.value)) > 0
                  and ctx.status == "inconsistent_with_derivation") or (c.attribute == "min_gpus" and ctx.status == "understated")
    variants = vocab.entities.get(c.subject, {}).get("variants") or ()
    if not optimistic or len(variants) < 2:
        return None
    sizes = sorted({x for r in memory_facts(ctx.view, tuple(variants)) if (x := point_of(r))})
    need = (ctx.verdict or {}).get("need_gb")
    if len(sizes) < 2 or (need is not None and need > sizes[-1]):
        return None
    return {"product": vocab.label(c.subject), "sizes": " / ".join(f"{x:g}" for x in sizes)}


def method_unstated(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute in METHOD_BOUND and c.qualifiers.get("method") == "method:full" and "methods" not in c.qualifiers \
            and ctx.vocab.kind_of(c.subject) in PRODUCT_KINDS and cue_in_unit(ctx, "full_said") is None:
        return {}               # "you can fine-tune a 7B model on a 24 GB GPU": LoRA and QLoRA are fine-tuning too
    if c.attribute not in METHOD_BOUND or c.qualifiers.get("method"):
        return None
    tasks = c.qualifiers.get("task") or []
    tasks = [tasks] if isinstance(tasks, str) else tasks
    if not tasks or not all(str(t) in OPEN_METHOD_TASKS for t in tasks):
        return None
    return {}


def unread_precision(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute not in METHOD_BOUND + ("max_params", "bytes_per_param") or c.qualifiers.get("precision"):
        return None
    return cue_in_unit(ctx, "unread_precision")
