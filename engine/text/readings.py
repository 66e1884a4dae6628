"""Another reading that makes the figure right: when a flagged figure is exactly a true figure of another
attribute, the reading is in doubt before the figure is.

A text is right far more often than a reader of free text reads it right, and a size or a bandwidth that
is exactly another true one is rarely a coincidence: "the total bandwidth … 600 GB/s" beside an A100 is its
NVLink bandwidth, read as its memory bandwidth; "32 GB" beside a GN7 size and its T4 is the instance's host
memory, read as the card's. So before a memory size or a bandwidth of free text is called wrong, the checker
asks whether the same figure is a reference figure of another attribute of the same kind (the same
dimension) of the claim's own product, or of another product the text names.

What this guard leaves alone, because there the figure is the mistake more often than the reading:

- throughputs: a with-sparsity figure given as dense, FP16's given as FP8's, are the errors texts make;
- the same attribute of a sibling variant (the 80 GB A100's bandwidth given to the 40 GB one) and of another
  named product (numbers are :func:`.figure_guards.other_products_figure`'s);
- a sentence that names the claim's attribute by its own word and not the other one ("900 GB/s of memory
  bandwidth" is a memory bandwidth, whatever the NVLink's is).

Only exact agreement counts (:data:`.guard_base.SAME_FIGURE`); a figure near no true one stays flagged.

>>> _same(Interval(600.0, 600.0), 600.0)
True
>>> _same(Interval(600.0, 600.0), 900.0)
False
"""
from __future__ import annotations

import re
from typing import Any

from ..audit.functions import rounding
from ..kb.interval import Interval
from ..kb.lexicon import match_entities
from ..kb.store import Fact, ReleaseView
from .guard_base import FIGURE_WRONG, SAME_FIGURE, Context, clause_of, cue_in_unit, family_ids, last_figure, own_ids, point_of, references, same_kind, vocab_cues
from .claim_figures import claimed_figures, figures, several_cards, unit_quantities
from .tokens import tables
from .workload import label_attribute


#: the kinds of quantity whose attributes a text's words confuse (memory sizes: card, host, usable; bandwidths:
#: memory, NVLink, PCIe, network)
READ_DIMENSIONS = ("memory", "bandwidth")


def _same(norm: Any, y: float | None) -> bool:
    x = norm.point() if isinstance(norm, Interval) and norm.kind == "number" else None
    return bool(x and y) and abs(x - y) <= SAME_FIGURE * max(abs(x), abs(y))


def _of_dimension(view: ReleaseView, dimension: str, product: str) -> list[Fact]:
    """The release's reference facts of one dimension about one generic product, indexed once per view."""
    idx = view.__dict__.get("_reading_refs")
    if idx is None:
        idx = {}
        vocab = view.kb.vocab
        for f in view.reference:
            spec = vocab.attributes.get(f.attribute)
            if spec is not None and spec.dimension in READ_DIMENSIONS:
                idx.setdefault((spec.dimension, vocab.generic(f.subject)), []).append(f)
        view.__dict__["_reading_refs"] = idx
    return idx.get((dimension, product), [])


def _names(vocab: Any, attribute: str, seg: str) -> bool:
    """Does ``seg`` name ``attribute`` by its own word (the first, specific pattern of its ``attribute`` cue:
    "memory bandwidth", not the bare "bandwidth" that several attributes share, or a check-guard cue
    ``stated_<attribute>``: "GDDR6 at 600 GB/s")?"""
    pats = tables(vocab)["attribute"].get(attribute) or ()
    return (bool(pats) and pats[0].search(seg) is not None) or any(rx.search(seg) for rx in vocab_cues(vocab, "stated_" + attribute))


def _readings(ctx: Context) -> list[Fact]:
    """The reference facts of another attribute of the same kind that the claim's figure is exactly."""
    c, vocab = ctx.claim, ctx.vocab
    spec = vocab.attributes.get(c.attribute)
    if spec is None or spec.dimension not in READ_DIMENSIONS or vocab.kind_of(c.subject) not in ("gpu", "family", "instance"):
        return []
    if not isinstance(c.norm, Interval) or c.norm.kind != "number" or not c.norm.point():
        return []
    own = own_ids(vocab, c.subject)
    generic = vocab.generic(c.subject)
    named = {vocab.generic(p) for p in ctx.text_products} - {generic}
    seg = ctx.low[ctx.unit[0]:ctx.unit[1]]
    out = []
    candidates = [f for p in sorted({generic} | {vocab.generic(e) for e in own} | named) for f in _of_dimension(ctx.view, spec.dimension, p)]
    for ref in candidates:
        if ref.attribute == c.attribute or ref.qualifiers.get("sparsity") is True:
            continue
        if _names(vocab, c.attribute, seg) and not _names(vocab, ref.attribute, seg):
            continue                 # "900 GB/s of memory bandwidth": the text names the attribute it states
        if _same(c.norm, point_of(ref)):
            out.append(ref)
    return out


def another_reading(ctx: Context) -> dict[str, str] | None:
    """The first reading under which the claim's figure is exactly a reference figure, as the guard's detail."""
    found = _readings(ctx)
    if not found:
        return None
    vocab, ref = ctx.vocab, found[0]
    rspec = vocab.attributes[ref.attribute]
    return {"product": vocab.label(ref.subject), "product_zh": vocab.label(ref.subject, "zh"),
            "attribute": rspec.en, "attribute_zh": rspec.zh, "figure": ref.value_text(vocab),
            "citation": ref.citation or ""}


#: a product's figure read from a text is beyond every figure of its kind the product has when it exceeds the
#: largest by more than this factor: one product's variants and versions lie within 2x of each other (V100
#: 16/32 GB, A100 40/80 GB), a with-sparsity rate is twice the dense one, and a wrong figure a text gives a
#: card is a neighbouring one (another variant's, the previous generation's, a doubling); a figure beyond
#: that is a server's or a rack's total, a model's need or another product's, read as the card's
BEYOND = 2.0

#: the kinds of figure a card has one of per variant and a server or rack sums (memory, bandwidth, throughput, power)
SUMMED_DIMENSIONS = ("memory", "bandwidth", "compute", "power")


#: a dimension with at most this many other attributes for a kind of product names its attribute by its unit
FEW_OTHERS = 1


def _stated(ctx: Context) -> bool:
    """Is the claim said in so many words: its clause names its product and its attribute (by the attribute's
    own word, or by a unit only that attribute is measured in: watts)?"""
    c, vocab = ctx.claim, ctx.vocab
    a, b = clause_of(ctx)
    own = own_ids(vocab, c.subject)
    if not any(a <= s and e <= b and (eid in own or vocab.generic(eid) in own) for (s, e), eid in zip(ctx.mentions, ctx.mention_ids)):
        return False
    spec = vocab.attributes.get(c.attribute)
    clause = ctx.low[a:b]
    if _names(vocab, c.attribute, clause):
        return True
    # a unit few attributes of the product's kind are measured in names the attribute when no other is named
    # ("a 250 W card": its TDP, unless the clause speaks of the power supply)
    kind = vocab.kind_of(c.subject)
    others = [k for k, x in vocab.attributes.items() if spec is not None and x.dimension == spec.dimension
              and kind in x.applies_to and k != c.attribute]
    return spec is not None and len(others) <= FEW_OTHERS and not any(_names(vocab, k, clause) for k in others)


def beyond_figures(ctx: Context) -> dict[str, str] | None:
    """A GPU's figure whose low end is more than :data:`BEYOND` times the largest reference figure of its kind
    (its dimension) for any variant or version of its product (with sparsity too), in a clause that does not
    name the product and the attribute, or in a sentence that says it gives a sum (cue ``sum_said``: "a total
    of", "合计") or counts several cards: not one card's figure."""
    c, vocab = ctx.claim, ctx.vocab
    spec = vocab.attributes.get(c.attribute)
    if (ctx.attached or _stated(ctx)) and cue_in_unit(ctx, "sum_said") is None and (ctx.attached or several_cards(ctx) is None):
        return None             # "H100 的 8.0 TB/s", "the T4 has a TDP of 250 W": said of it in so many words, unless
        # the sentence sums ("the A100 ... a total of 320GB ... 12.4TB/s") or counts cards ("eight B200s with 64 TB/s")
    if spec is None or spec.dimension not in SUMMED_DIMENSIONS or vocab.kind_of(c.subject) != "gpu" \
            or not isinstance(c.norm, Interval) or c.norm.lo is None:
        return None
    generic = vocab.generic(c.subject)
    ids = family_ids(vocab, c.subject)
    # every figure of the kind, not only the attribute's: an FP64 rate that is the FP64 Tensor one is a
    # neighbouring confusion, judged; one beyond every figure of its kind is not the card's
    kin = same_kind(vocab, c.attribute)
    tops = [r for e in ids for k in kin for r in ctx.view.by_subject_attr.get((e, k), [])
            if r.tier == "reference" and isinstance(r.norm, Interval) and r.norm.hi]
    if not tops or not any(r.attribute == c.attribute for r in tops):
        return None
    top = max(tops, key=lambda r: (r.norm.hi, r.norm.lo == r.norm.hi, r.subject, r.id))   # a point before a span, the same every run
    if c.norm.lo <= BEYOND * top.norm.hi:
        return None
    tspec, sparse = vocab.attributes[top.attribute], top.qualifiers.get("sparsity") is True
    return {"figure": c.value_text(vocab), "largest": top.value_text(vocab),
            "attribute": tspec.en.removeprefix("dense ") + (" with sparsity" if sparse else ""), "attribute_zh": tspec.zh + ("（稀疏）" if sparse else ""),
            "product": vocab.label(generic), "product_zh": vocab.label(generic, "zh")}


#: a memory size written in or right after a product's name ("A100 80 GB", "A100-80GB", "A100（80GB）")
_NAME_SIZE = re.compile(r"[\s\-_]*[(（]?\s*(\d+(?:\.\d+)?)\s?(?:gb|g)(?![a-z])")
_SIZE_INSIDE = re.compile(r"(?<![a-z\d.])(\d+(?:\.\d+)?)\s?(?:gb|g)(?![a-z])")


def named_size(ctx: Context) -> dict[str, str] | None:
    """"A100 80 GB 实测可用 72 GB，26.9 GB 仅占 37 %": the text names the card by its memory size, so another
    memory figure in the sentence is not the card's size (the name gives it) but what a workload takes or
    leaves; the figure is the card's only when it is that size."""
    c, vocab = ctx.claim, ctx.vocab
    if c.attribute != "memory_gb" or vocab.kind_of(c.subject) != "gpu" or not isinstance(c.norm, Interval):
        return None
    own, fig = own_ids(vocab, c.subject), last_figure(ctx.low, c.span)
    for (a, b), eid in zip(ctx.mentions, ctx.mention_ids):
        if eid not in own and vocab.generic(eid) not in own:
            continue
        m = _SIZE_INSIDE.search(ctx.low, a, b) or _NAME_SIZE.match(ctx.low, b)
        if m is None or fig is None or m.start(1) == fig.start():
            continue                 # no size in the name, or the size in the name is the claim's own figure
        size = float(m.group(1))
        end = max(b, m.end())
        if not _same(c.norm, size):
            return {"name": ctx.text[a:end].strip(), "size": f"{size:g} GB"}
    return None


#: the attributes a card has one figure of, whose figure a text gives once per product
ONE_FIGURE = ("memory_gb", "memory_bandwidth")

#: a figure the text rounds from the reference's agrees with it within this share ("1 TB/s" of 1,008 GB/s
#: does not; "3.35 TB/s" of 3,352 GB/s does)
ROUNDED = 0.025


def own_figure_elsewhere(ctx: Context) -> dict[str, str] | None:
    """"(作为参考：RTX 4090 是 1008GB/s，5090 是 1.7TB/s)": the sentence gives the claim's product another figure of
    the same attribute that its reference agrees with, so the flagged figure is another product's (one gpukb does
    not know, or one the sentence names only by a number) or another thing's."""
    c, vocab = ctx.claim, ctx.vocab
    if c.attribute not in ONE_FIGURE or vocab.kind_of(c.subject) != "gpu" or not isinstance(c.norm, Interval):
        return None
    refs = [r for r in ctx.view.by_subject_attr.get((c.subject, c.attribute), [])
            if r.tier == "reference" and isinstance(r.norm, Interval) and r.norm.kind == "number" and r.norm.lo]
    fig = last_figure(ctx.low, c.span)
    if not refs or fig is None:
        return None
    dim = vocab.attributes[c.attribute].dimension
    own = own_ids(vocab, c.subject)
    for q in figures(ctx):
        if q.start <= fig.start() < q.end or q.lo is None or q.lo != q.hi or not ctx.mentions:
            continue
        # the figure is the product's when the product's name is the nearest name to it ("24GB A100" is not the 3090's)
        near = min(zip(ctx.mentions, ctx.mention_ids), key=lambda m: min(abs(q.start - m[0][1]), abs(m[0][0] - q.end)))[1]
        if near not in own and vocab.generic(near) not in own:
            continue
        x = q.lo * (vocab.unit_factor(dim, q.unit) or 1)
        for r in refs:
            if abs(x - r.norm.lo) <= ROUNDED * r.norm.lo and not _same(c.norm, x):
                return {"name": vocab.label(c.subject), "own": r.value_text(vocab)}
    return None


#: the claims whose truth depends on how many GPUs the run has
COUNT_BOUND = ("memory_verdict", "memory_required", "suitability")


def count_unread(ctx: Context) -> dict[str, str] | None:
    """"因此 128 卡可以安全跑下 175 B 模型": the sentence states a count of GPUs that the claim's scenario does not
    carry, so what gpukb sized (one card, or the whole need) is not what the text states."""
    c = ctx.claim
    if c.attribute not in COUNT_BOUND or c.qualifiers.get("gpus") is not None:
        return None
    # "two A100 80GB cards can hold …", "两张 A100"; "… a total of 188 GB — ideal for 70B models": the pair's
    return several_cards(ctx) or cue_in_unit(ctx, "combined")


def usable_scope(ctx: Context) -> dict[str, str] | None:
    """"A100 80 GB 在 DeepSpeed 下实际可用约 72 GB": what a run can use is the card's memory as nvidia-smi shows it
    less the runtime's reserve (CUDA context, the framework's allocator, communication buffers), which the text
    may or may not subtract; only a figure said to be nvidia-smi's is checked against nvidia-smi's."""
    c = ctx.claim
    if c.attribute != "usable_memory" or cue_in_unit(ctx, "nvidia_smi") is not None:
        return None
    return {}


def enough_count(ctx: Context) -> dict[str, str] | None:
    """"8 A100 80GB GPUs can serve a 70B model": a count the text says is enough (cues ``enough``) is no
    statement that fewer would not do, so more than the fewest overstates nothing; "requires 8", "至少 8 张"
    (cues ``at_least``) is one."""
    if ctx.claim.attribute != "min_gpus" or ctx.status != "overstated" or cue_in_unit(ctx, "at_least") is not None:
        return None
    return cue_in_unit(ctx, "enough")


def precision_unstated(ctx: Context) -> dict[str, str] | None:
    """"V100 的双精度浮点运算性能：\\n- 7.8 TFLOPS": a throughput whose sentence (or table row) names no precision of
    its own was given the first precision of the reader's list, a guess: FP64, FP32, TF32 and FP16 rates of
    one card differ up to thirty-fold, so a figure wrong for the guessed one says nothing."""
    c, vocab = ctx.claim, ctx.vocab
    spec = vocab.attributes.get(c.attribute)
    if spec is None or spec.dimension != "compute" or ctx.cell:
        return None
    seg = ctx.unit_text
    if cue_in_unit(ctx, "precision_word") is not None or any(rx.search(seg) for rx in tables(vocab)["attribute"].get(c.attribute, ())) \
            or label_attribute(ctx.low, ctx.unit[0], [c.attribute], tables(vocab)) == c.attribute:
        return None             # the sentence (or its list's label) names a precision: the reader chose among them
    return {"attribute": spec.en, "attribute_zh": spec.zh}


def setup_count(ctx: Context) -> dict[str, str] | None:
    """"在 4 张 NVIDIA L20 显卡的服务器上部署 Qwen3-32B": a count of GPUs given without a word that it is needed
    (cues ``at_least``) is the setup the text describes, not the fewest that fit; more overstates nothing."""
    c = ctx.claim
    if c.attribute != "min_gpus" or ctx.status != "overstated" or cue_in_unit(ctx, "enough") is not None:
        return None             # "8 can serve it" is enough_count's
    a, b = clause_of(ctx)
    if any(rx.search(ctx.low, a, b) for rx in vocab_cues(ctx.vocab, "at_least")):
        return None             # "requires 8", "至少需要 4 张" state a minimum (in the count's own clause)
    span = c.span or (0, 0)
    return {"word": ctx.text[span[0]:span[1]].strip()}


def carried_vendor(ctx: Context) -> dict[str, str] | None:
    """A product whose vendor gpukb took from the text around it, where the vendor sells nothing of the
    product's kind (NVIDIA, named for its GPUs in a page about an AWS instance, sells no file system): the
    text names the vendor for something else, it does not place the product with it."""
    c, vocab = ctx.claim, ctx.vocab
    kind = vocab.kind_of(c.subject)
    if c.attribute != "vendor" or kind not in ("product", "platform"):
        return None
    vendor = str(c.value)
    if any(str(f.value) == vendor and vocab.kind_of(f.subject) == kind for f in references(ctx.view, "vendor")):
        return None
    if any(m.eid == vendor for m in match_entities(ctx.low[ctx.unit[0]:ctx.unit[1]], vocab)):
        return None             # "NVIDIA's EFA": the sentence itself places it with the vendor
    return {"vendor": vocab.label(vendor), "vendor_zh": vocab.label(vendor, "zh"), "product": vocab.label(c.subject)}


#: the widest a round figure ("3 TB/s", "300 W") is read: its own rounding, up to this share of the reference
ROUND_FIGURE = 0.15
#: a figure of one significant digit as written: "3", "300", "3,000" (not "3.0", "3,5", "35")
_ONE_DIGIT = re.compile(r"[1-9](?:0*|0{0,2}(?:,000)+)")


def round_figure(ctx: Context) -> dict[str, str] | None:
    """"H100 … 3TB/s di larghezza di banda", "~3,000 GB/s": a figure written with one significant digit is the
    product's own figure rounded to that digit (3.35 TB/s is 3 TB/s to the unit), not a wrong one, when it is
    within :data:`ROUND_FIGURE` of it; a wider miss ("2 TB/s" for the A100 40GB's 1,555 GB/s) is still judged."""
    c, vocab = ctx.claim, ctx.vocab
    x = point_of(c)
    if ctx.status not in FIGURE_WRONG or not x:
        return None
    own, said = own_ids(vocab, c.subject), c.qualifiers.get("form_factor")     # "A100 80GB SXM … 300 W": the SXM's
    for q in claimed_figures(ctx):
        written = re.search(r"\d[\d,.]*", ctx.low[q.start:q.end])
        if written is None or not _ONE_DIGIT.fullmatch(written.group(0)) or q.lo != q.hi:
            continue
        half = (rounding(q.lo) or 0) * (vocab.unit_factor(q.dimension, q.unit) or 1)   # "3" TB/s: ±0.5 TB/s; "300" W: ±50 W
        for r in references(ctx.view, c.attribute):
            y = point_of(r)
            if r.subject in own and y and not r.qualifiers.get("sparsity") and r.qualifiers.get("form_factor", said) == said \
                    and x - half <= y < x + half * (1 - 1e-9) \
                    and abs(x - y) <= ROUND_FIGURE * y:      # half up: 450 W rounds to 500 W, not to 400 W
                return {"figure": written.group(0), "reference": r.value_text(vocab), "product": vocab.label(r.subject),
                        "product_zh": vocab.label(r.subject, "zh")}
    return None


def no_tensor_cores(ctx: Context) -> dict[str, str] | None:
    """"P100 SXM2 版本 FP16 算力 21.2 TFLOPS": a Tensor Core rate read from a precision word alone (its clause has no
    word for the Tensor Cores: cues ``check_guard.tensor_word``), of a product the reference records the rate as not
    applicable to (it has no Tensor Cores): the figure is the card's plain rate in that precision, not the one judged."""
    c = ctx.claim
    a, b = clause_of(ctx)
    if not c.attribute.endswith("_tensor_tflops") or any(rx.search(ctx.low, a, b) for rx in vocab_cues(ctx.vocab, "tensor_word")):
        return None
    own = own_ids(ctx.vocab, c.subject)
    # no Tensor Cores at all: its FP16 Tensor rate is not applicable (FP8 on an Ampere card is a missing precision)
    if not any(u.subject in own and u.attribute == "fp16_tensor_tflops" and u.kind == "not_applicable" for u in ctx.view.kb.unknowns):
        return None
    return {"product": ctx.vocab.label(c.subject), "product_zh": ctx.vocab.label(c.subject, "zh")}
