"""The checker's guards on figures: when a checked figure may belong to another product, another attribute,
a multiple of one card, a rate per unit or a practice range, the checker abstains with the reason."""
from __future__ import annotations

import re
from typing import Any
from ..audit.functions import HEDGED_TOLERANCE
from ..kb.vocabulary import Interval
from .tokens import tables
from .claim_figures import card_counts, dimension, figures_apart, near_claimed_figure, several_cards
from .guard_base import CLAUSE_BREAK, Context, SAME_FIGURE, carried_gpus, carries, clause_of, distributed, cue_in_unit, last_figure, vocab_cues, memory_facts, own_ids, point_of, references


def same_value(ctx: Context) -> bool:
    """The clause of the claim's figure, or the one it continues ("…与 L40S 相同，都是 91.6 TFLOPS": cues
    ``check_guard.both_lead``), says the products named have the same figure (``check_guard.same_value``: "与 H100
    相比，其显存（96GB）保持不变", "the same 16 GB as the A2"): each has it, whoever the sentence is about."""
    a, b = clause_of(ctx)
    if any(rx.match(ctx.low, a, b) for rx in vocab_cues(ctx.vocab, "both_lead")) and a > ctx.unit[0]:
        a = clause_of(ctx, a - 1)[0]
    return any(rx.search(ctx.low, a, b) for rx in vocab_cues(ctx.vocab, "same_value"))


def own_sparse_figure(ctx: Context) -> bool:
    """The figure, read as a dense rate, is exactly the claim's product's own with-sparsity figure of the same
    attribute (datasheets print "1,979 TFLOPS*" with the asterisk for sparsity; texts copy the figure without
    it): whichever product or precision word it goes with, it is a with-sparsity figure given as a rate, so
    doubts about its owner or its attribute do not make the reading uncertain. Read once per claim (three
    guards ask)."""
    if "own_sparse" not in ctx.memo:
        ctx.memo["own_sparse"] = _own_sparse_figure(ctx)
    return ctx.memo["own_sparse"]


def _own_sparse_figure(ctx: Context) -> bool:
    c = ctx.claim
    x = point_of(c)
    if not x or c.qualifiers.get("sparsity") is not None:
        return False
    vocab = ctx.vocab
    own = own_ids(vocab, c.subject)
    return any(r.subject in own and r.attribute == c.attribute and r.qualifiers.get("sparsity") is True
               and (y := point_of(r)) and abs(x - y) <= SAME_FIGURE * max(x, y) for r in references(ctx.view, c.attribute))


def other_products_figure(ctx: Context) -> dict[str, str] | None:
    x = point_of(ctx.claim)
    if x is None or x == 0 or same_value(ctx) or own_sparse_figure(ctx) or (ctx.attached and ctx.claim.attribute == "memory_gb") \
            or distributed(ctx):
        return None             # "24GB A100": a size written onto a name is said of that name, whoever else has it
    vocab = ctx.vocab
    own = vocab.generic(ctx.claim.subject)
    for ref in references(ctx.view, ctx.claim.attribute):
        if vocab.generic(ref.subject) == own:
            continue
        if carries(ctx.view, ctx.claim.subject, ref.subject):
            continue                  # the instance's own GPU: its figure is what the claim is about
        if ref.subject not in ctx.text_products and vocab.generic(ref.subject) not in ctx.text_products:
            continue
        y = point_of(ref)
        if y and abs(x - y) <= SAME_FIGURE * max(abs(x), abs(y)):
            return {"other": vocab.label(ref.subject), "figure": ref.value_text(vocab), "citation": ref.citation or ""}
    return None


def other_attributes_figure(ctx: Context) -> dict[str, str] | None:
    """The figure is exactly the product's own reference figure for another attribute of the same kind
    (its FP64 Tensor rate given as its FP64 rate), in a sentence that gives several such figures: which
    figure goes with which word is in doubt, not the figure. Not in a cell of a table drawn with borders:
    its row's label names its attribute, one figure to a cell (a table copied without borders, its
    figures run together, is read less surely)."""
    if ctx.cell and ctx.header is not None:
        return None
    x = point_of(ctx.claim)
    dim = dimension(ctx)
    if x is None or x == 0 or dim is None or len({(q.lo, q.hi) for q in figures_apart(ctx)}) < 2 or own_sparse_figure(ctx):
        return None
    vocab = ctx.vocab
    c = ctx.claim
    own = own_ids(vocab, c.subject)
    hits: dict[str, Any] = {}
    kin = [a for a, x in vocab.attributes.items() if x.dimension == dim and a != c.attribute]
    for ref in (r for e in sorted(own) for a in kin for r in ctx.view.by_subject_attr.get((e, a), []) if r.tier == "reference"):
        spec = vocab.attributes[ref.attribute]
        y = point_of(ref)
        if y and abs(x - y) <= SAME_FIGURE * max(abs(x), abs(y)):
            hits.setdefault(ref.attribute, (spec, ref))
    if not hits:
        return None
    specs = [spec for spec, _ in hits.values()]
    return {"attribute": " or ".join(sp.en for sp in specs), "attribute_zh": "或".join(sp.zh for sp in specs),
            "figure": next(iter(hits.values()))[1].value_text(vocab)}


def said_of_each(ctx: Context) -> bool:
    """Whether the claim's memory figure is said of each card ("… 80 GB each", "per GPU", "每卡 80GB")."""
    (a, b), words, low = (ctx.claim.span or [0, 0])[:2], tables(ctx.vocab)["instance_words"], ctx.low
    return any(rx.search(low[b:min(ctx.unit[1], b + 40)]) for rx in words["per_gpu_after"]) or any(rx.search(low[ctx.unit[0]:a]) for rx in words["per_gpu_before"])


def multiple_of_one_card(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute == "memory_gb" and ctx.vocab.kind_of(c.subject) in ("instance", "family"):
        return None if said_of_each(ctx) else _instance_total(ctx)     # "8 H100 GPUs with 640 GB each": each card's
    if c.attribute != "memory_gb" or ctx.vocab.kind_of(c.subject) != "gpu":
        return None
    x = point_of(c)
    variants = tuple(ctx.vocab.entities[c.subject].get("variants") or ())
    cards = memory_facts(ctx.view, (c.subject, *variants))
    ks = [(x / point_of(r), r) for r in cards if r is not None and point_of(r) and x]
    counts = card_counts(ctx)     # of a card with several sizes, the one the stated count makes the total of
    # within 3%: a total is often of the usable memory ("282 GB" of two 144 GB GH200s, 141 GB usable each), or rounded
    # ("144 H200 GPUs and 20TB"): a multiple up to 16, or the count the sentence states; within the card's own tolerance
    # when its reference is approximate (two "~180 GB" B200s hold 384 GB as 2 x 192)
    def near(k: float, n: float, r: Any) -> bool:
        return abs(k - n) <= max(3 * SAME_FIGURE, HEDGED_TOLERANCE if r.approx else 0) * n
    fits = [(k, r) for k, r in ks if 2 <= round(k) <= 16 and near(k, round(k), r)]
    fits += [(float(n), r) for k, r in ks for n in sorted(counts) if n > 16 and near(k, n, r)]
    if not fits:
        return None
    k, ref = next(((k, r) for k, r in fits if round(k) in counts), fits[0])
    seg = ctx.unit_text
    several = any(rx.search(seg) for rx in vocab_cues(ctx.vocab, "multi_gpu"))
    hosts = any(ctx.vocab.kind_of(p) in ("family", "instance") for p in ctx.products)
    # "32 GB" alone on a T4 is just wrong; beside "2 ×", a server or an instance it is a total, unless said
    # of each card ("… 32 GB of memory each") or of a count of cards it is not the total of ("8 卡 … 320GB")
    if (several or hosts) and not said_of_each(ctx) and not (counts and round(k) not in counts):
        return {"n": str(round(k)), "card": ref.value_text(ctx.vocab)}
    return None


def cards_counted(ctx: Context) -> dict[str, str] | None:
    """"336 GB of HBM -- more than four A100s": a memory figure in a sentence that counts several of the cards (a
    number or a word: "8 GPUs", "four A100s", "两张") is set against those cards' total or shared by them; that it is
    not one card's size says nothing wrong about the card. (An exact multiple is :func:`multiple_of_one_card`'s.)"""
    c = ctx.claim
    if c.attribute != "memory_gb" or ctx.vocab.kind_of(c.subject) != "gpu" or ctx.attached:
        return None
    return several_cards(ctx)


def _instance_total(ctx: Context) -> dict[str, str] | None:
    """An instance size's "GPU memory" that is its GPUs' total ("g5.12xlarge | 4 | 96 GB", as written: AWS gives GiB;
    "p4de.24xlarge has 640 GB of GPU memory": eight 80 GB cards), or a family's that is a whole number of its
    cards' ("an ND H100 v5 VM with 640 GB"): the GPUs of one of its sizes together."""
    x, view = point_of(ctx.claim), ctx.view
    total, count = view.ref(ctx.claim.subject, "gpu_memory_total_gb"), view.ref(ctx.claim.subject, "gpu_count")
    per = view.ref(ctx.claim.subject, "memory_gb") or next(     # else the memory of the card it carries, which it inherits
        (r for g in carried_gpus(view, ctx.claim.subject) if (r := view.ref(g, "memory_gb"))), None)
    n, card = (point_of(count) if count is not None else None), (point_of(per) if per is not None else None)
    ys = {point_of(total), total.value if isinstance(total.value, (int, float)) else None} if total is not None else set()
    ys |= {n * card} if n and card else set()
    if x and n and n >= 2 and any(y and abs(x - y) <= SAME_FIGURE * x for y in ys):
        return {"n": f"{n:g}", "card": f"{x / n:g} GB"}
    k = x / card if x and card and n is None else 0
    if 2 <= round(k) <= 16 and abs(k - round(k)) <= 3 * SAME_FIGURE * k:
        return {"n": f"{round(k)}", "card": f"{card:g} GB"}
    return None


def pcie_link(ctx: Context) -> dict[str, str] | None:
    """NVLink bandwidth in a sentence (or row) naming PCIe, not NVLink: "互联带宽" may be the PCIe link's."""
    if ctx.claim.attribute != "nvlink_bandwidth":
        return None
    seg = ctx.low[ctx.unit[0]:ctx.unit[1]]
    m = re.search(r"pci[\s\-]?e", seg)
    if m is None or "nvlink" in seg:
        return None
    return {"word": ctx.text[ctx.unit[0] + m.start():ctx.unit[0] + m.end()]}


def interconnect_bandwidth(ctx: Context) -> dict[str, str] | None:
    return cue_in_unit(ctx, "interconnect") if ctx.claim.attribute == "memory_bandwidth" else None


#: two figures with at most this many non-space characters between them stand side by side (table cells
#: copied as text: "~1.3 TFLOPS ~9.7 TFLOPS"), with no word of their own between them
ADJACENT = 6


_LABELLED = re.compile(r"\s*[（(][^()（）\d]{0,3}\w{1,10}[)）]\s*[,，;；、]?\s*")


def several_figures(ctx: Context) -> dict[str, str] | None:
    if ctx.cell or ctx.attached:
        return None             # a table's cells, a figure written onto its product's name: whose it is is plain
    figs = sorted(figures_apart(ctx), key=lambda q: q.start)
    # "3.96 PFLOPS (FP8), 1.98 PFLOPS (FP16)": each figure labelled in brackets right after it is no pair
    side_by_side = any(len(ctx.low[a.end:b.start].split()) <= 1 and len(ctx.low[a.end:b.start].strip()) <= ADJACENT
                       and not _LABELLED.fullmatch(ctx.low, a.end, b.start)
                       and (a.lo, a.hi) != (b.lo, b.hi) for a, b in zip(figs, figs[1:]))
    if side_by_side and len({ctx.vocab.generic(p) for p in ctx.text_products}) >= 2:
        return {"n": str(len({(q.lo, q.hi) for q in figs}))}
    return None


def per_unit_rate(ctx: Context) -> dict[str, str] | None:
    if ctx.claim.attribute == "bytes_per_param":
        return None                     # a rate per parameter is what the attribute is
    card = ctx.vocab.kind_of(ctx.claim.subject) == "gpu"
    for tail in near_claimed_figure(ctx, 30):
        for rx in vocab_cues(ctx.vocab, "rate"):
            m = rx.match(tail)
            if m and not (card and _PER_CARD.search(m.group(0))):
                return {"word": m.group(0).strip()}
    return None


#: "~366 TFLOPS per GPU" of a GPU is that GPU's own figure, not a rate
_PER_CARD = re.compile(r"(?:per|/|每)\s*(?:gpu|card|device|卡|张)\s*$")


def card_size(ctx: Context) -> dict[str, str] | None:
    if ctx.claim.attribute not in ("memory_required",):
        return None
    for tail in near_claimed_figure(ctx, 30):
        for rx in vocab_cues(ctx.vocab, "card_size"):
            if rx.match(tail):
                return {}
    return None


#: a decimal unit and the binary one vendors often write the same way ("80 GB" on a card of 80 GiB)
BINARY_OF = {"GB": "GiB", "TB": "TiB", "MB": "MiB"}


def binary_prefix(ctx: Context) -> dict[str, str] | None:
    """The figure is the reference's own number in the unit's binary (or decimal) twin, as written: vendors
    write "GB" for GiB of memory, so "80 GB" against a reference of 80 GiB is the same figure loosely named."""
    c = ctx.claim
    twin = BINARY_OF.get(c.unit or "") or next((k for k, v in BINARY_OF.items() if v == c.unit), None)
    if twin is None or not isinstance(c.value, (int, float)) or isinstance(c.value, bool):
        return None
    vocab, x, f_twin = ctx.vocab, float(c.value), ctx.vocab.unit_factor("memory", twin)
    written = f"{x:g}"          # "1.1 TB" (2 or more significant digits) is any figure that rounds to it, in TiB
    half = 0.5 * 10 ** -len(written.partition(".")[2]) if len(written.replace(".", "").lstrip("0")) >= 2 else 0.0
    own = {c.subject} | {r.subject for r in references(ctx.view, "family") if r.value == c.subject}   # a family: its sizes
    for ref in references(ctx.view, c.attribute):
        f_ref = vocab.unit_factor("memory", ref.unit) if ref.unit != c.unit else None
        if ref.subject not in own or not isinstance(ref.value, (int, float)) or f_ref is None or f_twin is None:
            continue
        y = float(ref.value) * f_ref / f_twin          # the reference in the twin unit
        if abs(x - y) <= max(half, 1e-9 * max(x, y)):
            return {"figure": ref.value_text(vocab), "unit": c.unit or ""}
    return None


#: a figure written with a bare "G" (no "B"): "800G", "400G 网卡"
_BARE_G = re.compile(r"\d[\d,.]*\s*g(?![a-z])")


def network_speed(low: str, claim, vocab) -> tuple[int, int] | None:
    """The network word before a memory figure written with a bare "G" in its clause ("IB 架构配套 800G",
    "RoCE 200G"): the figure is a link speed in Gb/s, not a memory size; the word's span, or None."""
    if claim.attribute != "memory_gb" or not claim.span:
        return None
    fig = last_figure(low, claim.span)
    if fig is None or not _BARE_G.match(low, fig.start()):
        return None
    at = fig.start()
    start = max(0, at - 24)
    start += max([m.end() for m in CLAUSE_BREAK.finditer(low, start, at)] or [start]) - start
    for rx in vocab_cues(vocab, "interconnect"):
        m = rx.search(low, start, at)
        if m:
            return m.span()
    return None


#: the FP32 master copy of the weights that mixed-precision training keeps beside the optimizer's states
MASTER_COPY_BYTES = 4


def optimizer_scope(ctx: Context) -> dict[str, str] | None:
    """An optimizer's bytes per parameter are counted with or without the FP32 master copy of the weights
    (AdamW's two states take 8 bytes, 12 with the copy): a figure one such copy off the reference's may
    count the other way, so it is not wrong for that."""
    c = ctx.claim
    if c.attribute != "bytes_per_param" or ctx.vocab.kind_of(c.subject) != "optimizer":
        return None
    x, ref = point_of(c), ctx.view.ref(c.subject, c.attribute)
    y = point_of(ref) if ref is not None else None
    if x is None or y is None or abs(abs(x - y) - MASTER_COPY_BYTES) > SAME_FIGURE * y:
        return None
    return {"figure": ref.value_text(ctx.vocab)}


#: a memory size right before the words of a card (cues ``check_guard.card_size``): "24GB 显存的消费级显卡"
_SIZE = re.compile(r"\d[\d.]*\s*g(?:b|ib)?(?![a-z])")
#: the attributes that judge hardware: a sentence sizing an unnamed card judges that card
_JUDGING = ("memory_verdict", "suitability")


def unnamed_card(low: str, claim, unit: tuple[int, int], mentions: list, vocab) -> bool:
    """A sentence that sizes a card it does not name ("这类模型在单张 24GB 显存的消费级显卡上就能完成微调",
    "a 7B model fits on a 24 GB card") states nothing about a product named elsewhere: not its memory
    (the figure is the unnamed card's) nor a verdict on it (the verdict is on that card)."""
    if claim.attribute == "memory_gb":
        span = claim.span or [0, 0]
        figs = [m for m in _SIZE.finditer(low, span[0], span[1]) if m.end() <= span[1]]
        sized = bool(figs) and any(rx.match(low[figs[-1].end():figs[-1].end() + 30]) for rx in vocab_cues(vocab, "card_size"))
    elif claim.attribute in _JUDGING:
        cues = vocab_cues(vocab, "card_size")
        sized = any(any(rx.match(low[m.end():m.end() + 30]) for rx in cues) for m in _SIZE.finditer(low, *unit))
    else:
        return False
    return sized and all(vocab.generic(m.eid) != vocab.generic(claim.subject) for m in mentions)


#: the memory figures that are a card's capacity (or its instance's cards')
CAPACITY = ("memory_gb", "gpu_memory_total_gb")
#: how far before a figure its label is read ("A100 80GB: - Model weights: ~16 GB", a list flattened to a line)
LABEL_REACH = 40
#: where a figure's label starts at the latest: a clause break (a colon is none: "weights: 16 GB" is the label)
_LABEL_BREAK = re.compile(r"[，;；、|｜。]|,(?!\d{3})")


def workload_memory(ctx: Context) -> dict[str, str] | None:
    """A card-memory figure whose label, between the last product named before it and the figure, names
    what a workload takes ("A100 80GB: - Model weights: ~16 GB", "7B 模型只需约 14GB"): it may be that, not
    the card's memory; so may one followed by what is left of the card (cues ``workload_memory_after``)."""
    c = ctx.claim
    if c.attribute not in CAPACITY or not c.span:
        return None
    fig = last_figure(ctx.low, c.span)
    if fig is None:
        return None
    at = fig.start()
    start = max([ctx.unit[0], at - LABEL_REACH] + [e for _, e in ctx.mentions if e <= at]
                + [m.end() for m in _LABEL_BREAK.finditer(ctx.low, max(ctx.unit[0], at - LABEL_REACH), at)])
    words = [ctx.text[m.start():m.end()] for rx in vocab_cues(ctx.vocab, "workload_memory") if (m := rx.search(ctx.low, start, at))]
    after = ctx.text[c.span[1]:c.span[1] + 24]      # "a 24 GB A10 with about 10 GB left": what is left of it
    words += [after[m.start():m.end()] for rx in vocab_cues(ctx.vocab, "workload_memory_after") if (m := rx.search(after.lower()))]
    return {"word": words[0].strip()} if words else None


def card_capacity(ctx: Context) -> dict[str, str] | None:
    """A memory requirement above gpukb's estimate that is exactly a card's memory ("QLoRA reduces this to
    24GB"): texts often give the card a run fits on as its requirement, so "more than needed" is no error."""
    c = ctx.claim
    x = point_of(c)
    if c.attribute != "memory_required" or ctx.status != "overstated" or not x:
        return None
    cards = sorted({r.subject for r in references(ctx.view, "memory_gb")
                    if ctx.vocab.kind_of(r.subject) == "gpu"
                    and (y := point_of(r)) is not None and abs(y - x) <= SAME_FIGURE * x})
    if not cards:
        return None
    return {"figure": f"{x:g} GB", "cards": ", ".join(ctx.vocab.label(g) for g in cards[:3]),
            "cards_zh": "、".join(ctx.vocab.label(g, "zh") for g in cards[:3])}


#: how far below the weights' own size (parameters × bytes per weight) a serving figure may round
WEIGHTS_ROUNDING = 0.1


def weights_only(ctx: Context) -> dict[str, str] | None:
    """A serving requirement below gpukb's estimate but at least the weights' own size ("7B in FP16 needs
    14 GB"): texts often give the weights as what serving needs; the KV cache and the runtime come on top,
    so the figure is short of a run, not of the model, and the reading is in doubt."""
    c = ctx.claim
    x = point_of(c)
    if c.attribute != "memory_required" or ctx.status != "understated" or not x \
            or str(c.qualifiers.get("method") or "") != "method:inference":
        return None
    params = c.qualifiers.get("params")
    n = params.point() if isinstance(params, Interval) else None
    if n is None and ctx.vocab.kind_of(c.subject) == "model":
        ref = ctx.view.ref(c.subject, "params")
        n = point_of(ref) if ref is not None else None
    precision = c.qualifiers.get("precision") or ["precision:fp16"]       # serving's usual 16-bit weights
    widths = [point_of(r) for p in (precision if isinstance(precision, list) else [precision])
              if (r := ctx.view.ref(str(p), "bytes_per_param")) is not None]
    widths = [w for w in widths if w]
    if not n or not widths:
        return None
    weights = n * min(widths) / 1e9
    if x < (1 - WEIGHTS_ROUNDING) * weights:
        return None
    return {"weights": f"{weights:.3g} GB", "params": f"{n / 1e9:g}B", "bytes": f"{min(widths):g}"}


def non_tensor_rate(ctx: Context) -> dict[str, str] | None:
    """"| RTX 3090 | … | FP16 TFLOPS | 35.6 |": a Tensor Core rate read from a figure whose words (its sentence, or
    its table row and header) never say Tensor (cues ``check_guard.tensor_word``) and that is exactly the card's
    own FP32 rate: GeForce and workstation cards run FP16 on their shader cores at their FP32 rate, and texts list
    that figure as "FP16 TFLOPS". Which of the two rates the text means is unclear, so the figure is no error."""
    c = ctx.claim
    x = point_of(c)
    if not c.attribute.endswith("_tensor_tflops") or not x or c.qualifiers.get("sparsity") is not None:
        return None
    seg = ctx.unit_text
    if any(rx.search(seg) for rx in vocab_cues(ctx.vocab, "tensor_word")):
        return None
    own = own_ids(ctx.vocab, c.subject)
    for ref in references(ctx.view, "fp32_tflops"):
        y = point_of(ref)
        if ref.subject in own and y and abs(x - y) <= SAME_FIGURE * max(x, y):
            return {"figure": ref.value_text(ctx.vocab), "citation": ref.citation or ""}
    return None
