"""Guards on what a clause says of its own figure: a difference ("exceeding the capacity by 6.7 GB"), another
model size than the one sized ("7B … 14GB, 而 671B … 405GB"), a figure labelled with another precision
("2字节(FP16)或4字节(FP32)"), a parameter count beside a model whose name states its size ("Llama 3-8B或70B").
Each is a general reading of how texts put figures, not a patch for one sentence; the words are the
vocabulary's ``check_guard`` cues."""
from __future__ import annotations

import re

from ..kb.interval import Interval
from ..kb.lexicon import cue_patterns
from .claim_figures import changes, claimed_figures, dimension, figures, unit_quantities
from .figure_guards import own_sparse_figure, per_unit_rate
from .guard_base import FIGURE_WRONG, SAME_FIGURE, Context, clause_of, cue_in_unit, family_ids, figure_of, last_figure, vocab_cues
from .tokens import BULLET, tables


def difference(ctx: Context) -> dict[str, str] | None:
    """"exceeding the A100's capacity by 6.7GB", "比 A100 多出 16GB", "14GB more than the H100 SXM": a figure said as
    the amount by which one thing exceeds or falls short of another is a difference, not the product's figure."""
    span = ctx.claim.span or (0, 0)
    for q in claimed_figures(ctx) or [q for q in figures(ctx) if span[0] <= q.start < span[1]]:
        head = ctx.low[max(ctx.unit[0], q.start - 60):q.start]
        m = next((m for rx in vocab_cues(ctx.vocab, "difference_before") for m in [rx.search(head)] if m), None)
        if m:
            return {"word": ctx.text[max(ctx.unit[0], q.start - 60) + m.start():q.start].strip()}
        tail = ctx.low[q.end:ctx.unit[1]]
        m = next((m for rx in vocab_cues(ctx.vocab, "difference_after") for m in [rx.match(tail)] if m), None)
        if m:
            return {"word": ctx.text[q.end + m.start():q.end + m.end()].strip()}
    return None


def other_size_in_clause(ctx: Context) -> dict[str, str] | None:
    """"Llama-7B(16位精度)需14GB显存，而DeepSeek-R1 671B(8bit量化)仍需405GB显存": the figure's clause names a model
    size other than the one the claim was sized for: the scenario checked is not the clause's."""
    c = ctx.claim
    params = c.qualifiers.get("params")
    lo = params.lo if isinstance(params, Interval) else params.get("lo") if isinstance(params, dict) else None
    fig = last_figure(ctx.low, c.span)
    if not lo or fig is None:
        return None
    a, b = clause_of(ctx, fig.start())
    for q in (q for q in unit_quantities(ctx) if a <= q.start and q.end <= b):
        x = q.lo * (ctx.vocab.unit_factor(q.dimension, q.unit) or 1)
        if q.dimension == "params" and q.lo == q.hi and abs(x - lo) > 0.05 * lo:
            return {"size": ctx.text[q.start:q.end].strip()}
    return None


def other_precision_label(ctx: Context) -> dict[str, str] | None:
    """"2字节(FP16)或4字节(FP32)": a figure followed by a precision's name in brackets is that precision's; a claim
    that gave it to another precision read the wrong label."""
    c, vocab = ctx.claim, ctx.vocab
    if vocab.kind_of(c.subject) != "precision":
        return None
    fig = last_figure(ctx.low, c.span)
    if fig is None:
        return None
    m = _UNIT_THEN_BRACKET.match(ctx.low, fig.end())
    if m is None:
        return None
    label = m.group(1).strip()
    named = vocab.aliases().get(label)
    if named is not None and vocab.kind_of(named) == "precision" and named != c.subject:
        return {"word": ctx.text[m.start(1):m.end(1)]}
    return None


#: after a figure: its unit (a few letters or characters) and a bracketed label ("4字节(FP32)", "4 bytes (FP32)")
_UNIT_THEN_BRACKET = re.compile(r"\s*[^\s\d(（)）,，;；。]{0,8}\s*[(（]\s*([^()（）\n]{1,16}?)\s*[)）]")


def model_named_size(ctx: Context) -> dict[str, str] | None:
    """"Llama 3-8B或70B量化版": a parameter count other than the one a model's name states is another model's (a
    sibling size the text lists beside it), not a statement about the named one."""
    c, vocab = ctx.claim, ctx.vocab
    if c.attribute != "params" or vocab.kind_of(c.subject) != "model":
        return None
    name = str(vocab.entities.get(c.subject, {}).get("name", ""))
    sizes = [float(x) for x in re.findall(r"(?<![\d.])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])", name)]
    value = c.norm.point() if isinstance(c.norm, Interval) else None
    if not sizes or value is None:
        return None
    value_b = value / 1e9 if value > 1e6 else value
    if all(abs(value_b - s) > 0.15 * s for s in sizes):
        return {"name": vocab.label(c.subject)}
    return None


def embedding_convention(ctx: Context) -> dict[str, str] | None:
    """"Mistral 7B (7.3B params)" beside a config that sums to 7.24B: makers count parameters with or without the
    token-embedding and output matrices (vocabulary x hidden size, twice when the head is not tied), and round
    what they announce; a count that differs from the reference by no more than those matrices is a convention."""
    c, view = ctx.claim, ctx.view
    if c.attribute != "params" or ctx.status not in FIGURE_WRONG or not isinstance(c.norm, Interval):
        return None
    def one(attr: str) -> float | None:
        return next((x for r in view.by_subject_attr.get((c.subject, attr), []) if (x := figure_of(r)) is not None), None)
    vocab_n, hidden, ref = one("vocab_size"), one("hidden_size"), one("params")
    value = c.norm.point()
    if None in (vocab_n, hidden, ref, value):
        return None
    tied = next((r.value for r in view.by_subject_attr.get((c.subject, "tie_embeddings"), [])), False) is True
    emb = vocab_n * hidden * (1 if tied else 2)
    scale = 1e9 if ref < 1e6 else 1.0                   # the reference in billions, or in parameters
    if abs(value - ref) * scale <= emb:
        return {"emb": f"{emb / 1e9:.2f}B", "reference": f"{ref:g}"}
    return None


#: the dimensions whose unit leaves the attribute open for one product (GB: its memory, a workload's, a total's,
#: host RAM or disk; TFLOPS: which precision; GB/s: memory, NVLink or PCIe); a power in W is a card's power
UNIT_AMBIGUOUS = ("memory", "compute", "bandwidth")


def _attribute_words(ctx: Context) -> tuple[re.Pattern[str], ...]:
    """The words naming the claim's attribute: its ``attribute`` cues and the ``check_guard`` cues
    ``named_<attribute>`` and ``stated_<attribute>`` (compiled once per vocabulary)."""
    cache = ctx.vocab.__dict__.setdefault("_attribute_words", {})
    name = ctx.claim.attribute
    if name not in cache:
        pats = list((ctx.vocab.cues.get("attribute") or {}).get(name, ()))
        cache[name] = tuple(re.compile(p) for p in pats) + vocab_cues(ctx.vocab, "named_" + name) + vocab_cues(ctx.vocab, "stated_" + name)
    return cache[name]


def _list_intro(low: str, start: int) -> tuple[int, int] | None:
    """The line introducing the list whose item starts at ``start`` ("V100 的双精度性能：" above "- 7.8 TFLOPS")."""
    if not BULLET.match(low, start):
        return None
    at = start
    while at > 0:
        a = low.rfind("\n", 0, at - 1) + 1
        if not BULLET.match(low, a) and low[a:at - 1].strip():
            return (a, at - 1)
        at = a
    return None


def attribute_unstated(ctx: Context) -> dict[str, str] | None:
    """"… give you 160GB", "26.9 GB 仅占 37 %": a figure in running text whose sentence never names the attribute
    gpukb read it as (no "memory"/"显存"/"card" for a memory size, no precision for a throughput, no "bandwidth"
    for GB/s) says nothing of which quantity it is; gpukb guessed that from its unit. The word may come earlier
    in the sentence ("最外的是功耗，整卡仅 75W"), in its table's header or in the line introducing its list. A
    table's cell and a figure written onto its product's name are read from their structure, not guessed."""
    c = ctx.claim
    spec = ctx.vocab.attributes.get(c.attribute)
    fig = last_figure(ctx.low, c.span)
    if ctx.cell or ctx.attached or fig is None or spec is None or spec.type != "quantity" or spec.dimension not in UNIT_AMBIGUOUS:
        return None
    words = _attribute_words(ctx)
    if not words:
        return None
    _, b = clause_of(ctx, fig.start())      # the sentence up to the end of the figure's clause
    spans = [(ctx.unit[0], b), ctx.header, _list_intro(ctx.low, ctx.unit[0])]
    if any(rx.search(ctx.low, s[0], s[1]) for rx in words for s in spans if s):
        return None
    return {"attribute": ctx.vocab.attribute_label(c.attribute, "en"), "attribute_zh": ctx.vocab.attribute_label(c.attribute, "zh")}


def several_precisions(ctx: Context) -> dict[str, str] | None:
    """"A 7B model needs ~14GB in FP16 or ~3.5GB in INT4": a requirement or verdict whose clause names several
    precisions was read with all of them; which figure goes with which precision is the text's, not gpukb's, to say,
    so a derivation that disagrees is no finding. Precisions of one width ("fp16/bf16") leave no doubt."""
    c, vocab = ctx.claim, ctx.vocab
    precisions = c.qualifiers.get("precision")
    stated = [p for p in precisions if isinstance(p, str)] if isinstance(precisions, list) else []
    if len(stated) < 2 or ctx.status not in ("understated", "overstated", "inconsistent_with_derivation"):
        return None
    width = lambda p: getattr(ctx.view.ref(p, "bytes_per_param"), "value", p)     # a precision without one: its own
    if len({str(width(p)) for p in stated}) < 2:
        return None          # "fp16/bf16": the same bytes per parameter, so the reading does not change the need
    return {"precisions": ", ".join(vocab.label(p) for p in stated),
            "precisions_zh": "、".join(vocab.label(p, "zh") for p in stated)}



#: the claims that state what a run needs: a requirement's figure, not a product's
REQUIREMENTS = ("memory_required", "training_memory")


def change_between(ctx: Context) -> dict[str, str] | None:
    """"QLoRA cuts the memory needed to fine-tune a 65B model from more than 780 GB to under 48 GB", "显存从 14GB 降到
    4GB": a requirement that is one end of a change between two memory figures describes a setup before or after the
    change, which the text tells apart by the words around them; gpukb's one run is not both, so neither is judged."""
    if ctx.claim.attribute not in REQUIREMENTS:
        return None
    own = {id(q) for q in claimed_figures(ctx)}
    for q1, q2 in changes(ctx, "memory"):
        if own & {id(q1), id(q2)}:
            return {"word": ctx.text[q1.start:q2.end]}
    return None


def change_start(ctx: Context) -> dict[str, str] | None:
    """"A100 PCIe: Показатель TDP снижен с 0,4кВт до 0,25кВт": a product's figure that starts a change between two
    figures of its kind, and is a figure of another version of the product (the SXM module's 400 W), is that version's:
    the text tells how this one differs. A start that no version has ("FP16算力从296 TFLOPS降至200 TFLOPS") is what the
    text says the product had, and is judged."""
    dim, c = dimension(ctx), ctx.claim
    x = figure_of(c)
    if ctx.status not in FIGURE_WRONG or c.attribute in REQUIREMENTS or not dim or x is None:
        return None
    own = {id(q) for q in claimed_figures(ctx)}
    starts = [(q1, q2) for q1, q2 in changes(ctx, dim) if id(q1) in own]
    versions = [r.norm for e in family_ids(ctx.vocab, c.subject) for r in ctx.view.by_subject_attr.get((e, c.attribute), [])
                if r.tier == "reference" and isinstance(r.norm, Interval) and r.norm.kind == "number"
                and r.norm.lo is not None and r.norm.hi is not None]
    if not starts or not any(v.lo * (1 - SAME_FIGURE) <= x <= v.hi * (1 + SAME_FIGURE) for v in versions):
        return None
    return {"word": ctx.text[starts[0][0].start:starts[0][1].end]}


def method_elsewhere(ctx: Context) -> dict[str, str] | None:
    """"以FP16精度加载模型参数，其显存占用接近8GB，…但在进行微调时仍面临显存瓶颈", "Loading the model takes 8 GB, but
    fine-tuning it needs far more": a requirement whose method is named only after its figure's clause, in another
    clause of the sentence, is not that method's: the clause of the figure says what it is the memory of."""
    c = ctx.claim
    fig = last_figure(ctx.low, c.span)
    method = str(c.qualifiers.get("method") or "").removeprefix("method:")
    if c.attribute not in REQUIREMENTS or not method or fig is None:
        return None
    _, b = clause_of(ctx, fig.start())
    spots = [m for val, rx in cue_patterns(ctx.vocab).get("method", ()) if val == method
             for m in rx.finditer(ctx.low, ctx.unit[0], ctx.unit[1])]
    if not spots or any(m.start() < b for m in spots):
        return None             # named in the figure's clause or before it (or read from elsewhere: not this guard's)
    return {"word": ctx.text[spots[0].start():spots[0].end()]}


#: a short group of digits and one space (or a no-break one) right before a figure: "1 360 Go", "2 400 W"
_GROUP_BEFORE = re.compile(r"(?<![\w.,])\d{1,3}[ \u00a0\u202f]$")
_THREE_DIGITS = re.compile(r"\d{3}(?![\d]|[.,]\d)")


def space_thousands(ctx: Context) -> dict[str, str] | None:
    """"| a2-megagpu-16g | 16 x A100 40 Go | 96 | 1 360 Go |": French, Russian, Polish and other texts group
    thousands with a space, so three digits right after a short number and one space may be the tail of one number
    (1,360), not a figure of their own: the reading is in doubt, not the text."""
    if ctx.status not in FIGURE_WRONG:
        return None
    for q in claimed_figures(ctx):
        head = _GROUP_BEFORE.search(ctx.low, max(0, q.start - 4), q.start)
        if head and _THREE_DIGITS.match(ctx.low, q.start):
            return {"figure": ctx.text[head.start():q.end].strip()}
    return None


#: a footnote mark right after a figure and its unit ("3,958 TFLOPS*", "1,979 TFLOPS¹")
_MARK_AFTER = re.compile(r"[ \t]?[*†‡¹²³⁴⁵⁶⁷⁸⁹]")


def marked_sparse(ctx: Context) -> dict[str, str] | None:
    """"| FP8 Tensor Core | 3,958 TFLOPS* |" with no footnote in the text: NVIDIA's datasheets mark their with-sparsity
    rates with an asterisk, so a marked figure that is the product's own with-sparsity rate is read as that rate's copy,
    whose footnote the excerpt has lost (a footnote the text gives is read by :mod:`.footnotes`)."""
    if ctx.status not in FIGURE_WRONG or not own_sparse_figure(ctx):
        return None
    for q in claimed_figures(ctx):
        m = _MARK_AFTER.match(ctx.text, q.end)
        if m:
            return {"figure": ctx.text[q.start:m.end()].strip()}
    return None


def with_gradients(ctx: Context) -> dict[str, str] | None:
    """An optimizer's bytes per parameter said beside the model's gradients ("AdamW stores weights, gradients and two
    moments: 16 bytes per parameter") count the weights and gradients too, not the optimizer's states alone."""
    if ctx.claim.attribute != "bytes_per_param" or ctx.vocab.kind_of(ctx.claim.subject) != "optimizer":
        return None
    return cue_in_unit(ctx, "gradients")


def sharded_count_unstated(ctx: Context) -> dict[str, str] | None:
    """"| Model | Full FT (bf16+DeepSpeed) VRAM |": a requirement of a run sharded over GPUs (cue ``sharded``: DeepSpeed
    ZeRO, FSDP) whose sentence or table gives no GPU count is per GPU of a count gpukb does not know, or a total."""
    if ctx.claim.attribute not in REQUIREMENTS or ctx.claim.qualifiers.get("gpus"):
        return None
    m = next((m for rx in vocab_cues(ctx.vocab, "sharded") for m in [rx.search(_own_column(ctx))] if m), None)
    return {"word": m.group(0)} if m else None


def _own_column(ctx: Context) -> str:
    """The claim's sentence, or in a Markdown table its row and its own column's header cell."""
    row = ctx.low[ctx.unit[0]:ctx.unit[1]]
    if ctx.header is None or not ctx.claim.span or "|" not in row:
        return row
    col = ctx.low.count("|", ctx.unit[0], ctx.claim.span[0])
    cells = ctx.low[ctx.header[0]:ctx.header[1]].split("|")
    return row + "\n" + (cells[col] if col < len(cells) else "")


def advice_bound(ctx: Context) -> dict[str, str] | None:
    """"选型需重点关注显存带宽(建议≥400GB/s)、FP32算力(≥25TOPS为佳)": a bound said as what a buyer should look for
    (cue ``advice_bound`` in its clause) is a threshold for choosing a card, not a figure of the product named."""
    if ctx.status not in FIGURE_WRONG or not any(q.bound for q in claimed_figures(ctx)):
        return None
    a, b = clause_of(ctx)
    lo = max(ctx.unit[0], a - 24)           # "(建议≥400GB/s)": the word may open the bracket before the clause
    m = next((m for rx in vocab_cues(ctx.vocab, "advice_bound") for m in [rx.search(ctx.low, lo, min(ctx.unit[1], b + 8))] if m), None)
    return {"word": ctx.text[m.start():m.end()]} if m else None


def host_ram(ctx: Context) -> dict[str, str] | None:
    """"CPU training memory = weights × ~4 (FP32+AdamW) + activations. … 1B needs 64GB": a requirement in a line that
    speaks of host memory (cues ``host_ram``) and names no GPU memory (``gpu_memory_word``) is the RAM of a run on
    the CPU or of its host, which gpukb's GPU sizing does not give."""
    if ctx.claim.attribute not in REQUIREMENTS:
        return None
    line = ctx.low.rfind("\n", 0, ctx.unit[0]) + 1
    seg = ctx.low[line:ctx.unit[1]]
    if any(rx.search(seg) for rx in vocab_cues(ctx.vocab, "gpu_memory_word")):
        return None
    m = next((m for rx in vocab_cues(ctx.vocab, "host_ram") for m in [rx.search(seg)] if m), None)
    return {"word": ctx.text[line + m.start():line + m.end()]} if m else None


def workload_without_model(ctx: Context) -> dict[str, str] | None:
    """A memory requirement with no model size or model named says nothing gpukb can size."""
    c = ctx.claim
    if c.attribute != "memory_required" or ctx.vocab.kind_of(c.subject) == "model":
        return None
    return None if c.qualifiers.get("params") is not None or c.qualifiers.get("model") else {}


def unit_rate(ctx: Context) -> dict[str, str] | None:
    """A rate, by a unit after its figure (:func:`.figure_guards.per_unit_rate`: "16 GB per billion parameters") or
    before it in its clause ("each billion parameters needs roughly 2 GB"; cue ``rate_before``): not a total."""
    found = per_unit_rate(ctx)
    fig = last_figure(ctx.low, ctx.claim.span)
    if found or fig is None or ctx.claim.attribute == "bytes_per_param":
        return found
    a, _ = clause_of(ctx, fig.start())
    m = next((m for rx in vocab_cues(ctx.vocab, "rate_before") for m in [rx.search(ctx.low, a, fig.start())] if m), None)
    return {"word": ctx.text[m.start():m.end()]} if m else None


#: a memory unit that starts a longer one ("G" of "GB", "GB" of "GB/s", "T" of "TB/s")
_CUT_UNIT = re.compile(r"\s*(?:[gt]i?b?|[gt])\s*$")


def cut_off(ctx: Context) -> dict[str, str] | None:
    """"The RTX 4090's 1008 GB" at the very end of a pasted excerpt: the text stops right after a unit that starts a
    longer one ("GB" of "GB/s"), so what the figure measures may have been cut off with the rest of the page."""
    if ctx.status not in FIGURE_WRONG:
        return None
    a, b = clause_of(ctx)
    pats = tables(ctx.vocab)["attribute"].get(ctx.claim.attribute) or ()
    if pats and pats[0].search(ctx.low, a, b):
        return None             # "A100 显存为 52GB": the clause names what the figure measures
    for q in claimed_figures(ctx):
        unit = ctx.low[q.unit_at or q.end:q.end]
        if not ctx.text[q.end:].strip() and _CUT_UNIT.fullmatch(unit):
            return {"figure": ctx.text[q.start:q.end].strip()}
    return None
