"""When a checked claim's negative status is not safe to say: the checker abstains with a reason.

Calling a true sentence wrong, with a "correction", does more harm than saying nothing, so before
``check`` reports a claim of free text as incorrect (or misattributed, overstated ...) it asks the
guards below whether the reading itself is in doubt. A guard that answers turns the status into
``unclear``, with the guard's reason in both languages and the audit's own status kept beside it.
Guards read only what the text shows around the claim (its sentence or table row, the table's header)
and the reference tier; their cue words are the vocabulary's ``check_guard`` cues. The order of
:data:`GUARDS` is the order of the reasons reported (all that apply are kept).

Each guard is a general reading of the domain, not a patch for one sentence:

- ``several_products``: the claim's sentence, or its table row and header, names two or more products;
  gpukb reads which product a figure belongs to from proximity, which a comparison defeats.
- ``other_products_figure``: the figure is exactly the reference figure of another product that the
  text also names: the text or gpukb's reading may have moved a figure from one product to another.
- ``multiple_of_one_card``: a memory figure that is an exact multiple of one card's memory, said beside
  several GPUs, a server or an instance, reads as their total, not as a per-card figure.
- ``interconnect_bandwidth``: a bandwidth said next to interconnect words (NVLink, PCIe, network,
  互联) is not the memory bandwidth it was read as.
- ``conditional``: the sentence is a condition or hypothesis ("if", "如果"), which states nothing.
- ``workload_without_model``: a memory requirement with no model size says nothing checkable.
- ``subject_from_context``: the claim's sentence (row, header) does not name its product: gpukb took
  it from an earlier sentence or heading, which a list of several products or a pronoun defeats.
- ``several_figures``: the sentence gives figures of the claim's kind side by side with no word of
  their own (a table copied as text, "~1.3 TFLOPS ~9.7 TFLOPS"), and the text names several products.
- ``per_unit_rate``: the figure is a rate ("16 GB per billion parameters", "每卡"), not a total.
- ``card_size``: a memory requirement said as a card size ("one or two 80 GB GPUs"): the requirement
  may be several such cards.
- ``within_practice``: a training or serving memory figure that states no precision or optimizer and
  lies within what common setups need (pure BF16 to mixed-precision AdamW for full training): right
  under one setup, wrong under another, so debatable rather than wrong.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval, Vocabulary
from .extract_tables import table_claims
from .extract_text import layout, quantities, sentences, tables
from .lexicon import match_entities

PRODUCT_KINDS = ("gpu", "family", "instance")
#: a text is about one product when at least this share of its product mentions name it
TOPIC_SHARE = 0.4
#: two figures of one quantity are the same figure within this relative difference
SAME_FIGURE = 0.01


@dataclass(frozen=True)
class Context:
    """What the guards see of one claim: the text around it and the release's facts."""

    text: str
    low: str
    claim: Fact
    view: ReleaseView
    unit: tuple[int, int]             # the claim's sentence or table row
    header: tuple[int, int] | None    # the header row of the claim's table, when it is in one
    products: tuple[str, ...]         # generic product ids named in the unit (and header), in text order
    text_products: frozenset[str]     # product ids named anywhere in the text
    cell: bool = False                # the claim is a table cell, its product read from the table's structure

    @property
    def vocab(self) -> Vocabulary:
        return self.view.kb.vocab


@dataclass(frozen=True)
class Guard:
    """A named reason to abstain; ``test`` returns the detail that fills the reason, or None."""

    name: str
    en: str
    zh: str
    test: Callable[[Context], dict[str, str] | None]


def _cue(vocab: Vocabulary, name: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in (vocab.cues.get("check_guard") or {}).get(name, ()))


_DIGITS = re.compile(r"(?<![a-z\d.,])\d[\d,.]*")
#: what ends a clause: a condition's reach stops there ("1,555" is a number, not a break)
_CLAUSE_BREAK = re.compile(r"[，;；:：、]|,(?!\d{3})|(?<![a-z])(?:then|so)(?![a-z])|就|则|那么")


def _NEG(vocab: Vocabulary) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in (vocab.cues.get("negation") or {}).get("before", ()))


def _NOT(vocab: Vocabulary) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in (vocab.cues.get("negation") or {}).get("not", ()))


def carries(view: ReleaseView, a: str, b: str) -> bool:
    """One of the two subjects is a family whose only GPU is the other (or a variant of it)."""
    vocab = view.kb.vocab
    for fam, gpu in ((a, b), (b, a)):
        carried = view.ref(fam, "gpu") if fam.startswith("family:") else None
        if carried is not None and isinstance(carried.value, list) and len(carried.value) == 1 and \
                vocab.generic(carried.value[0]) == vocab.generic(gpu):
            return True
    return False



def _names(ctx: Context, ids: list[str] | tuple[str, ...]) -> str:
    return ", ".join(ctx.vocab.label(e) for e in ids)


def _several_products(ctx: Context) -> dict[str, str] | None:
    # the products the claim itself relates (a family and the GPU it carries) are not rival subjects
    value = ctx.claim.value if isinstance(ctx.claim.value, list) else [ctx.claim.value]
    named = {str(v) for v in value} | {ctx.vocab.generic(str(v)) for v in value}
    rivals = [p for p in ctx.products if p not in named]
    if len(rivals) < 2:
        return None
    return {"products": _names(ctx, rivals)}


def _point(f: Fact) -> float | None:
    return f.norm.point() if isinstance(f.norm, Interval) and f.norm.kind == "number" else None


def _other_products_figure(ctx: Context) -> dict[str, str] | None:
    x = _point(ctx.claim)
    if x is None or x == 0:
        return None
    vocab = ctx.vocab
    own = vocab.generic(ctx.claim.subject)
    for ref in ctx.view.reference:
        if ref.attribute != ctx.claim.attribute or vocab.generic(ref.subject) == own:
            continue
        if ref.subject not in ctx.text_products and vocab.generic(ref.subject) not in ctx.text_products:
            continue
        y = _point(ref)
        if y and abs(x - y) <= SAME_FIGURE * max(abs(x), abs(y)):
            return {"other": vocab.label(ref.subject), "figure": ref.value_text(vocab), "citation": ref.citation or ""}
    return None


def _other_attributes_figure(ctx: Context) -> dict[str, str] | None:
    """The figure is exactly the product's own reference figure for another attribute of the same kind
    (its FP64 Tensor rate given as its FP64 rate), in a sentence that gives several such figures: which
    figure goes with which word is in doubt, not the figure."""
    x = _point(ctx.claim)
    dim = _dimension(ctx)
    if x is None or x == 0 or dim is None or len({(q.lo, q.hi) for q in _figures(ctx)}) < 2:
        return None
    vocab = ctx.vocab
    c = ctx.claim
    own = {c.subject, vocab.generic(c.subject), *(vocab.entities.get(c.subject, {}).get("variants") or ())}
    hits: dict[str, Any] = {}
    for ref in ctx.view.reference:
        spec = vocab.attributes.get(ref.attribute)
        if ref.subject not in own or ref.attribute == c.attribute or spec is None or spec.dimension != dim:
            continue
        y = _point(ref)
        if y and abs(x - y) <= SAME_FIGURE * max(abs(x), abs(y)):
            hits.setdefault(ref.attribute, (spec, ref))
    if not hits:
        return None
    specs = [spec for spec, _ in hits.values()]
    return {"attribute": " or ".join(sp.en for sp in specs), "attribute_zh": "或".join(sp.zh for sp in specs),
            "figure": next(iter(hits.values()))[1].value_text(vocab)}


def _multiple_of_one_card(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute != "memory_gb" or ctx.vocab.kind_of(c.subject) != "gpu":
        return None
    x = _point(c)
    variants = tuple(ctx.vocab.entities[c.subject].get("variants") or ())
    cards = [ctx.view.ref(e, "memory_gb") for e in (c.subject, *variants)]
    fits = [(x / _point(r), r) for r in cards if r is not None and _point(r) and x]
    fits = [(k, r) for k, r in fits if 2 <= round(k) <= 16 and abs(k - round(k)) <= SAME_FIGURE * k]
    if not fits:
        return None
    k, ref = fits[0]
    seg = ctx.low[ctx.unit[0]:ctx.unit[1]] + ("\n" + ctx.low[ctx.header[0]:ctx.header[1]] if ctx.header else "")
    several = any(rx.search(seg) for rx in _cue(ctx.vocab, "multi_gpu"))
    hosts = any(ctx.vocab.kind_of(p) in ("family", "instance") for p in ctx.products)
    if several or hosts:        # "32 GB" alone on a T4 is just wrong; beside "2 ×", a server or an instance it is a total
        return {"n": str(round(k)), "card": ref.value_text(ctx.vocab)}
    return None


def _interconnect_bandwidth(ctx: Context) -> dict[str, str] | None:
    if ctx.claim.attribute != "memory_bandwidth":
        return None
    seg = ctx.low[ctx.unit[0]:ctx.unit[1]]
    for rx in _cue(ctx.vocab, "interconnect"):
        m = rx.search(seg)
        if m:
            return {"word": ctx.text[ctx.unit[0] + m.start():ctx.unit[0] + m.end()]}
    return None


def _conditional(ctx: Context) -> dict[str, str] | None:
    seg = ctx.low[ctx.unit[0]:ctx.unit[1]]
    for rx in _cue(ctx.vocab, "condition"):
        m = rx.search(seg)
        if m:
            return {"word": ctx.text[ctx.unit[0] + m.start():ctx.unit[0] + m.end()]}
    return None


def _workload_without_model(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute != "memory_required" or ctx.vocab.kind_of(c.subject) == "model":
        return None
    if c.qualifiers.get("params") is not None or c.qualifiers.get("model"):
        return None
    return {}


def _subject_from_context(ctx: Context) -> dict[str, str] | None:
    c, vocab = ctx.claim, ctx.vocab
    if vocab.kind_of(c.subject) not in PRODUCT_KINDS:
        return None
    own = {c.subject, vocab.generic(c.subject), *(vocab.entities[c.subject].get("variants") or ())}
    named = set(ctx.products) | {e for p in ctx.products for e in (vocab.entities.get(p, {}).get("variants") or ())}
    if own & named or any(carries(ctx.view, p, c.subject) for p in ctx.products):
        return None
    return {"subject": vocab.label(c.subject)}


def _dimension(ctx: Context) -> str | None:
    spec = ctx.vocab.attributes.get(ctx.claim.attribute)
    return spec.dimension if spec is not None else None


def _figures(ctx: Context) -> list:
    dim = _dimension(ctx)
    if dim is None:
        return []
    return [q for q in quantities(ctx.low, ctx.unit[0], ctx.unit[1], ctx.vocab) if q.dimension == dim]


#: two figures with at most this many non-space characters between them stand side by side (table cells
#: copied as text: "~1.3 TFLOPS ~9.7 TFLOPS"), with no word of their own between them
ADJACENT = 6


def _several_figures(ctx: Context) -> dict[str, str] | None:
    if ctx.cell:
        return None             # a table's cells: which figure is whose is the table's structure
    figs = sorted(_figures(ctx), key=lambda q: q.start)
    side_by_side = any(len(ctx.low[a.end:b.start].split()) <= 1 and len(ctx.low[a.end:b.start].strip()) <= ADJACENT
                       and (a.lo, a.hi) != (b.lo, b.hi) for a, b in zip(figs, figs[1:]))
    if side_by_side and len({ctx.vocab.generic(p) for p in ctx.text_products}) >= 2:
        return {"n": str(len({(q.lo, q.hi) for q in figs}))}
    return None


def _near_claimed_figure(ctx: Context, after: int = 40):
    """The text right after each figure of the unit that equals the claim's value."""
    x = _point(ctx.claim)
    if x is None:
        return []
    dim = _dimension(ctx)
    factor = ctx.vocab.unit_factor(dim, None) if dim else None
    out = []
    for q in _figures(ctx):
        f = ctx.vocab.unit_factor(q.dimension, q.unit) or factor or 1
        if abs(q.lo * f - x) <= SAME_FIGURE * max(abs(x), 1e-9) or abs(q.hi * f - x) <= SAME_FIGURE * max(abs(x), 1e-9):
            out.append(ctx.low[q.end:min(q.end + after, ctx.unit[1])])
    return out


def _per_unit_rate(ctx: Context) -> dict[str, str] | None:
    for tail in _near_claimed_figure(ctx, 30):
        for rx in _cue(ctx.vocab, "rate"):
            m = rx.match(tail)
            if m:
                return {"word": m.group(0).strip()}
    return None


def _card_size(ctx: Context) -> dict[str, str] | None:
    if ctx.claim.attribute not in ("memory_required",):
        return None
    for tail in _near_claimed_figure(ctx, 30):
        for rx in _cue(ctx.vocab, "card_size"):
            if rx.match(tail):
                return {}
    return None


#: bytes per parameter that common setups hold, lowest and highest (see kb/reference/formulas.yaml):
#: full training from pure BF16 with AdamW in BF16 (8; torchtune's default) to mixed precision AdamW
#: (16; Rajbhandari et al. 2020, ZeRO §3); LoRA from 4-bit base weights (QLoRA, Dettmers et al. 2023)
#: to 16-bit ones; inference from 4-bit to 16-bit weights
PRACTICE_BYTES = {"method:full": (8, 16), "method:pretrain": (8, 16), "method:lora": (2, 2),
                  "method:qlora": (0.5, 0.7), "method:inference": (0.5, 2)}
#: what activations, cache and runtime add on top of the weights and states, at most (a band, not a fit)
PRACTICE_SLACK = (0.8, 1.6)


def _within_practice(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute != "memory_required" or c.qualifiers.get("precision") or c.qualifiers.get("optimizer"):
        return None
    params = c.qualifiers.get("params")
    n = params.point() if isinstance(params, Interval) else None
    band = PRACTICE_BYTES.get(str(c.qualifiers.get("method") or ""))
    x = _point(c) if _point(c) is not None else (c.norm.point() if isinstance(c.norm, Interval) else None)
    if not n or not band or x is None:
        return None
    lo, hi = n * band[0] / 1e9 * PRACTICE_SLACK[0], n * band[1] / 1e9 * PRACTICE_SLACK[1]
    if lo <= x <= hi:
        return {"lo": f"{lo:.0f}", "hi": f"{hi:.0f}"}
    return None


GUARDS: tuple[Guard, ...] = (
    Guard("several_products",
          "the sentence names several products ({products}); gpukb cannot tell for sure which one the figure belongs to",
          "该句提到多款产品（{products}），gpukb 无法确定该数字属于哪一款", _several_products),
    Guard("other_products_figure",
          "the figure is the {other}'s ({figure}, {citation}), a product the text also names: the figure may belong to it",
          "该数字正是文中也提到的 {other} 的参数（{figure}，{citation}），可能属于后者", _other_products_figure),
    Guard("other_attributes_figure",
          "the figure is this product's {attribute} ({figure}); the sentence gives several figures, and which one goes with which word is unclear",
          "该数字正是该产品的{attribute_zh}（{figure}）；句中有多个数字，对应关系不明", _other_attributes_figure),
    Guard("multiple_of_one_card",
          "the figure is {n} × one card's memory ({card}): it may be the total of a {n}-GPU instance or server",
          "该数字是单卡显存（{card}）的 {n} 倍，可能是 {n} 卡实例或服务器的合计", _multiple_of_one_card),
    Guard("interconnect_bandwidth",
          "the figure stands next to “{word}”: it may be an interconnect bandwidth, not the memory bandwidth",
          "该数字紧邻“{word}”，可能是互联带宽而非显存带宽", _interconnect_bandwidth),
    Guard("conditional",
          "the sentence is a condition or hypothesis (“{word}”), which states nothing",
          "该句是条件或假设（“{word}”），并未断言", _conditional),
    Guard("workload_without_model",
          "the text does not say which model size the memory figure is for",
          "文中未说明该显存数字对应的模型规模", _workload_without_model),
    Guard("subject_from_context",
          "the sentence does not name {subject}: gpukb took the product from the text around it",
          "该句未提到 {subject}，产品是 gpukb 从上下文推断的", _subject_from_context),
    Guard("several_figures",
          "the sentence gives {n} figures of this kind for products the text compares; which belongs to which is unclear",
          "该句给出 {n} 个同类数字，而文中比较了多款产品，对应关系不明", _several_figures),
    Guard("per_unit_rate",
          "the figure is a rate (“{word}”), not a total", "该数字是比率（“{word}”），不是总量", _per_unit_rate),
    Guard("card_size",
          "the figure names a card size; the requirement may be several such cards",
          "该数字是显卡规格，需求可能是多张此类显卡", _card_size),
    Guard("within_practice",
          "the text states no precision or optimizer, and the figure is within what common setups need ({lo}–{hi} GB)",
          "文中未说明精度或优化器，该数字在常见配置所需范围内（{lo}–{hi} GB）", _within_practice),
)


def _table_header(text: str, pos: int) -> tuple[int, int] | None:
    """The first row of the Markdown table whose row holds ``pos``, when ``pos`` is in a table row."""
    line_start = text.rfind("\n", 0, pos) + 1
    if not text[line_start:].lstrip().startswith("|"):
        return None
    start = line_start
    while start > 0:
        prev = text.rfind("\n", 0, start - 1) + 1
        if not text[prev:start].lstrip().startswith("|"):
            break
        start = prev
    end = text.find("\n", start)
    return (start, len(text) if end < 0 else end)


class Guards:
    """The guards of one checked text: the text's sentences and product mentions, read once."""

    def __init__(self, text: str, low: str, view: ReleaseView):
        self.text, self.low, self.view = text, low, view
        vocab = view.kb.vocab
        self.mentions = [m for m in match_entities(low, vocab) if m.kind in PRODUCT_KINDS]
        self.text_products = frozenset({m.eid for m in self.mentions} | {vocab.generic(m.eid) for m in self.mentions})
        self.sentences = sentences(low)
        # the cells of the text's tables, each read with the product of its own column or row
        self.cells = {(c.start, c.end, c.subject, c.attribute)
                      for c in table_claims(low, layout(low), match_entities(low, vocab), vocab, tables(vocab))}
        self._all = [m for m in match_entities(low, vocab) if m.kind in PRODUCT_KINDS]

    def _unit(self, pos: int) -> tuple[int, int]:
        for s, e in self.sentences:
            if s <= pos < e:
                return (s, e)
        line_start = self.text.rfind("\n", 0, pos) + 1
        end = self.text.find("\n", pos)
        return (line_start, len(self.text) if end < 0 else end)

    def _products(self, *spans: tuple[int, int] | None) -> tuple[str, ...]:
        vocab = self.view.kb.vocab
        out: list[str] = []
        for span in spans:
            if span is None:
                continue
            for m in self.mentions:
                g = vocab.generic(m.eid)
                if span[0] <= m.start < span[1] and g not in out:
                    out.append(g)
        return tuple(out)

    def _heading(self, pos: int) -> tuple[int, int] | None:
        """The nearest Markdown heading line (``#`` ...) before ``pos``."""
        at = pos
        while at > 0:
            start = self.text.rfind("\n", 0, at - 1) + 1
            line = self.text[start:at].strip()
            if line.startswith("#"):
                return (start, at)
            at = start
        return None

    def _section(self, pos: int) -> tuple[int, int] | None:
        """The line heading the claim's section: the list's introducing line (``…:``) when the claim is a
        list item, else the nearest heading line (Markdown ``#``, or a short line with no sentence mark),
        when that line names exactly one product and no line between names another."""
        vocab = self.view.kb.vocab
        at = self.text.rfind("\n", 0, pos) + 1
        in_list = bool(re.match(r"\s*(?:[-*•▪●]|\d{1,2}[.、)）])\s*", self.low[at:pos + 1]))
        while at > 0:
            start = self.low.rfind("\n", 0, at - 1) + 1
            line = self.low[start:at - 1].strip()
            names = {vocab.generic(m.eid) for m in self._all if start <= m.start < at - 1}
            bullet = bool(re.match(r"(?:[-*•▪●]|\d{1,2}[.、)）])\s*", line))
            intro = in_list and not bullet and re.search(r"[:：]$", line)
            heading = not bullet and (line.startswith("#") or (0 < len(line) <= 40 and not re.search(r"[。.!！:：;；,，|]", line)))
            if intro or heading:
                return (start, at - 1) if len(names) == 1 else None
            if names or (in_list and not bullet and line):
                return None
            at = start
        return None

    def unstated(self, claim: Fact) -> dict[str, str] | None:
        """Why the text does not assert the claim at all, in both languages, or None: its sentence asks
        (vocabulary cues ``check_guard.question``), its figure sits in the clause of a condition or
        hypothesis ("如果 … 24 GB，…", "if …, …", "whether …"; cues ``check_guard.condition``), or its
        figure is denied in its clause ("不是 24 GB", "does not have 48 GB"; cues ``negation``), which says
        what the value is not, never what it is. A yes/no attribute reads its own negation when extracted."""
        vocab = self.view.kb.vocab
        span = claim.span or [0, 0]
        s, e = self._unit(span[0])
        sent = self.low[s:e].rstrip()
        for rx in _cue(vocab, "question"):
            if rx.search(sent):
                return {"code": "question", "en": "the sentence asks a question; it states nothing",
                        "zh": "该句是疑问句，并未断言"}
        figures = list(_DIGITS.finditer(self.low, span[0], span[1]))
        at = figures[-1].start() if figures else span[0]     # the figure's own place, not its widened subject's
        before = self.low[s:at]
        for rx in _cue(vocab, "condition"):
            for m in rx.finditer(before):
                if not _CLAUSE_BREAK.search(before, m.end()):
                    word = self.text[s + m.start():s + m.end()]
                    return {"code": "hypothetical",
                            "en": f"the figure is part of a condition or hypothesis (“{word}”), which states nothing",
                            "zh": f"该数字属于条件或假设（“{word}”），并未断言"}
        spec = vocab.attributes.get(claim.attribute)
        if spec is not None and spec.type == "quantity" and not str(claim.value).startswith((">", "<")):
            clause = before[max([m.end() for m in _CLAUSE_BREAK.finditer(before)] or [0]):]
            for rx in _NOT(vocab):
                clause = rx.sub(lambda m: " " * len(m.group(0)), clause)
            for rx in _NEG(vocab):
                m = rx.search(clause)
                if m:
                    return {"code": "negated", "en": "the figure is denied (“not …”): the text says what the value is not",
                            "zh": "该数字被否定（“不是…”），文中只说明取值不是多少"}
        return None

    def named_in_scope(self, claim: Fact) -> bool:
        """Is the claim's product named in its sentence, its table row or header, or its section's heading?"""
        vocab = self.view.kb.vocab
        if vocab.kind_of(claim.subject) not in PRODUCT_KINDS:
            return True
        pos = (claim.span or [0])[0]
        named = list(self._products(self._unit(pos), _table_header(self.text, pos), self._heading(pos)))
        if self.topic is not None:
            named.append(self.topic)
        own = {claim.subject, vocab.generic(claim.subject), *(vocab.entities[claim.subject].get("variants") or ())}
        return bool(own & set(named)) or any(carries(self.view, p, claim.subject) for p in named)

    @property
    def topic(self) -> str | None:
        """The product a text is about: the one that most of its product mentions name (at least
        TOPIC_SHARE of them, and more than any other), as an article about one family is."""
        if not hasattr(self, "_topic"):
            vocab = self.view.kb.vocab
            counts: dict[str, int] = {}
            for m in self.mentions:          # a family counts for the one GPU it carries (GN7 and the T4 are one topic)
                g = vocab.generic(m.eid)
                carried = self.view.ref(m.eid, "gpu") if m.kind == "family" else None
                if carried is not None and isinstance(carried.value, list) and len(carried.value) == 1:
                    g = vocab.generic(carried.value[0])
                counts[g] = counts.get(g, 0) + 1
            ranked = sorted(counts.items(), key=lambda kv: -kv[1])
            total = sum(counts.values())
            top = ranked[0] if ranked else None
            self._topic = top[0] if top and top[1] >= TOPIC_SHARE * total and \
                (len(ranked) == 1 or top[1] > ranked[1][1]) else None
        return self._topic

    def reasons(self, claim: Fact) -> list[dict[str, Any]]:
        """The guards that apply to ``claim``, each as {"code", "en", "zh"}."""
        pos = (claim.span or [0])[0]
        unit = self._unit(pos)
        header = _table_header(self.text, pos)
        vocab = self.view.kb.vocab
        cell = (pos, (claim.span or [0, 0])[1], claim.subject, claim.attribute) in self.cells
        products = self._products(unit, header)
        if cell:
            products = (vocab.generic(claim.subject),)
        elif not products:
            products = self._products(self._section(pos))
        ctx = Context(self.text, self.low, claim, self.view, unit, header, products, self.text_products, cell)
        out = []
        for g in GUARDS:
            detail = g.test(ctx)
            if detail is not None:
                out.append({"code": g.name, "en": g.en.format(**detail), "zh": g.zh.format(**detail)})
        return out
