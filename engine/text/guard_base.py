"""What every guard of the checker reads: the claim in its context (its sentence, the products and figures
around it), the guard's verdict, and the cue tables from the vocabulary."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval, Vocabulary


PRODUCT_KINDS = ("gpu", "family", "instance")


#: a text is about one product when at least this share of its product mentions name it
TOPIC_SHARE = 0.4


#: the audit's statuses of a figure that disagrees with the reference (its value, not a derivation)
FIGURE_WRONG = ("incorrect", "understated", "overstated")


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
    attached: bool = False            # the figure is written onto its product's name ("H100 的 3.35 TB/s")
    status: str | None = None         # the audit's status of the claim (a guard may doubt one direction only)
    mentions: tuple[tuple[int, int], ...] = ()     # the spans of the product names in the unit
    mention_ids: tuple[str, ...] = ()               # the product each of those names names
    memo: dict[str, Any] = field(default_factory=dict, compare=False)   # what several guards read, computed once
    verdict: dict[str, Any] | None = None          # the sizing verdict a derivation finding rests on, with its band
    #: every product's figures per attribute as the whole text's claims give them (:mod:`.document_guards`)
    text_figures: dict[tuple[str, str], list[float]] = field(default_factory=dict, compare=False)

    @property
    def vocab(self) -> Vocabulary:
        return self.view.kb.vocab

    @property
    def unit_text(self) -> str:
        """The claim's sentence or table row, and its table's header row when it has one."""
        return self.low[self.unit[0]:self.unit[1]] + ("\n" + self.low[self.header[0]:self.header[1]] if self.header else "")


@dataclass(frozen=True)
class Guard:
    """A named reason to abstain; ``test`` returns the detail that fills the reason, or None."""

    name: str
    en: str
    zh: str
    test: Callable[[Context], dict[str, str] | None]


def vocab_cues(vocab: Vocabulary, name: str) -> tuple[re.Pattern[str], ...]:
    """The compiled patterns of cue ``check_guard.name`` (compiled once per vocabulary)."""
    cache = vocab.__dict__.setdefault("_guard_cues", {})
    if name not in cache:
        cache[name] = tuple(re.compile(p) for p in (vocab.cues.get("check_guard") or {}).get(name, ()))
    return cache[name]


def cue_in_unit(ctx: Context, name: str) -> dict[str, str] | None:
    """The first word of the ``check_guard`` cue ``name`` in the claim's sentence or row, outside the names of
    products ("H100 PCIe" is no PCIe link), as a guard's detail ({"word": ...}), or None."""
    a0, b0 = ctx.unit
    for rx in vocab_cues(ctx.vocab, name):
        for m in rx.finditer(ctx.low, a0, b0):
            if not any(a <= m.start() and m.end() <= b for a, b in ctx.mentions):
                return {"word": ctx.text[m.start():m.end()]}
    return None


#: a figure's digits (a comma is a thousands separator only before three digits, "1,979"; else, a Chinese
#: comma normalised to ",", it ends a clause: "HBM2e，80GB", "HBM3,80GB")
DIGITS = re.compile(r"(?<![a-z\d.])(?:(?<!\d,)|(?!\d{3}(?!\d)))\d[\d,.]*")


def last_figure(low: str, span: Any) -> re.Match[str] | None:
    """The last figure's digits in ``span`` (a claim's span, widened to its subject: the figure's own place
    is its last number), or None."""
    a, b = (span or (0, 0))[:2]
    found = None
    for found in DIGITS.finditer(low, a, b):
        pass
    return found


#: what ends a clause: a condition's reach stops there ("1,555" is a number, not a break), as it stops at a
#: table's cell border ("| 不支持 | 4,000 TFLOPS |": the denial is the other cell's)
CLAUSE_BREAK = re.compile(r"[，;；:：、|｜]|,(?!\d{3})|(?<![a-z])(?:then|so)(?![a-z])|就|则|那么")


def clause_of(ctx: "Context", at: int | None = None) -> tuple[int, int]:
    """The clause of the claim's sentence or row that holds position ``at`` (by default its figure's start,
    else the claim's): the text between the clause breaks around it."""
    if at is None:
        fig = last_figure(ctx.low, ctx.claim.span)
        at = fig.start() if fig else (ctx.claim.span or [0])[0]
    a = max([m.end() for m in CLAUSE_BREAK.finditer(ctx.low, ctx.unit[0], at)] or [ctx.unit[0]])
    b = next((m.start() for m in CLAUSE_BREAK.finditer(ctx.low, at, ctx.unit[1])), ctx.unit[1])
    return a, b


def neg_cues(vocab: Vocabulary) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in (vocab.cues.get("negation") or {}).get("before", ()))


def not_neg_cues(vocab: Vocabulary) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in (vocab.cues.get("negation") or {}).get("not", ()))


def carried_gpus(view: ReleaseView, subject: str) -> list[str]:
    """The GPUs a family or instance carries (its own ``gpu`` fact); none for any other subject."""
    carried = view.ref(subject, "gpu") if subject.startswith(("family:", "instance:")) else None
    return [str(g) for g in carried.value] if carried is not None and isinstance(carried.value, list) else []


def carries(view: ReleaseView, a: str, b: str) -> bool:
    """One of the two subjects is a family or instance whose only GPU is the other (or a variant of it)."""
    vocab = view.kb.vocab
    for fam, gpu in ((a, b), (b, a)):
        carried = carried_gpus(view, fam)
        if len(carried) == 1 and vocab.generic(carried[0]) == vocab.generic(gpu):
            return True
    return False


def one_per_carrier(view: ReleaseView, names: set[str]) -> set[str]:
    """Products named together, a family or instance and the one GPU it carries counted once, as the
    carrier ("### 腾讯云 GN8（NVIDIA Tesla P40）" heads one product's section, not two)."""
    return {n for n in names if not (view.kb.vocab.kind_of(n) == "gpu" and any(o != n and carries(view, o, n) for o in names))}


def own_ids(vocab: Vocabulary, eid: str) -> set[str]:
    """A product's id with its generic product's and its variants' ids: the names its own figures and
    mentions go by ("A100-80GB": gpu:A100 too; "A100": its 40 GB and 80 GB variants)."""
    return {eid, vocab.generic(eid), *(vocab.entities.get(eid, {}).get("variants") or ())}


def family_ids(vocab: Vocabulary, eid: str) -> set[str]:
    """A product's id, its generic product's and every variant of that: all its versions' figures go by these
    ("A100-40GB": gpu:A100 and the 80 GB card too)."""
    generic = vocab.generic(eid)
    return {eid, generic, *(vocab.entities.get(generic, {}).get("variants") or ())}


def same_kind(vocab: Vocabulary, attribute: str) -> list[str]:
    """The attributes measured in the same dimension as ``attribute`` (its own among them): the figures a figure
    of it may be confused with (a card's FP64 Tensor rate with its FP64 rate, its sparse rate with its dense one)."""
    spec = vocab.attributes.get(attribute)
    return [k for k, x in vocab.attributes.items() if spec is not None and x.dimension == spec.dimension]


def names_of(ctx: Context, ids: list[str] | tuple[str, ...]) -> str:
    return ", ".join(ctx.vocab.label(e) for e in ids)


def references(view: ReleaseView, attribute: str) -> list[Fact]:
    """The release's reference facts of ``attribute``, indexed once per release view (the guards read a
    product's or every card's figure of one attribute for each claim they doubt)."""
    idx = view.__dict__.get("_guard_refs")
    if idx is None:
        idx = {}
        for f in view.reference:
            idx.setdefault(f.attribute, []).append(f)
        view.__dict__["_guard_refs"] = idx
    return idx.get(attribute, [])


def memory_facts(view: ReleaseView, eids: tuple[str, ...]) -> list[Fact]:
    """The reference memory sizes of these products, every version's ("144 GB HBM3e version" beside 96 GB)."""
    return [r for e in eids for r in view.by_subject_attr.get((e, "memory_gb"), []) if r.tier == "reference"]


def point_of(f: Fact) -> float | None:
    return f.norm.point() if isinstance(f.norm, Interval) and f.norm.kind == "number" else None


def figure_of(f: Fact) -> float | None:
    """A fact's single numeric figure: its point, or a range's or bound's upper end; None for no number."""
    if not isinstance(f.norm, Interval) or f.norm.kind != "number":
        return None
    x = f.norm.point()
    return x if x is not None else f.norm.hi


#: between a product's name and the size that names its variant: "A100 80GB", "A100-80GB", "A100（80GB）"
NAME_SIZE_GAP = re.compile(r"[\s\-_]*[(（]?\s*")


def size_in_name(low: str, name_end: int, figure_start: int) -> bool:
    """Does a memory figure at ``figure_start`` stand right after a product name ending at ``name_end``, as
    the size that names the product's variant ("A100 80GB", "A100（80GB）")? One test for the extractor's
    tables and the check's guards."""
    return name_end <= figure_start and NAME_SIZE_GAP.fullmatch(low, name_end, figure_start) is not None


def counts_cards(vocab: Vocabulary, low: str, q: Any) -> bool:
    """Is quantity ``q`` a count that may be of cards (not "96 vCPUs", "80 核": cues ``check_guard.not_cards``)?"""
    return q.dimension == "count" and not any(rx.search(low, q.start, q.end) for rx in vocab_cues(vocab, "not_cards"))


def distributed(ctx: "Context") -> bool:
    """Is the claim's figure said of every product its sentence lists ("T4 和 L4 都配备了 24GB 显存", "Both the T4
    and the L4 have 24 GB"): a ``distributive`` cue before the figure and no pairing of lists ("respectively")?
    Then each product gets the figure, so the several products and the other product's figure are no doubt."""
    fig = last_figure(ctx.low, ctx.claim.span)
    if fig is None or len(ctx.products) < 2:
        return False
    a = ctx.unit[0]
    if any(rx.search(ctx.low, a, ctx.unit[1]) for rx in vocab_cues(ctx.vocab, "paired")):
        return False
    return any(rx.search(ctx.low, a, fig.start()) for rx in vocab_cues(ctx.vocab, "distributive"))
