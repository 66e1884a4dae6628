"""When a checked claim's negative status is not safe to say: the checker abstains with a reason.

Calling a true sentence wrong, with a "correction", does more harm than saying nothing, so before
``check`` reports a claim of free text as incorrect (or misattributed, overstated ...) it asks the
guards below whether the reading itself is in doubt. A guard that answers turns the status into
``unclear``, with the guard's reason in both languages and the audit's own status kept beside it.
Guards read only what the text shows around the claim (its sentence or table row, the table's header)
and the reference tier; their cue words are the vocabulary's ``check_guard`` cues. The order of
:data:`GUARDS` is the order of the reasons reported (all that apply are kept).

Each guard is a general reading of the domain, not a patch for one sentence; :mod:`.guard_list` lists them
in order and says what each one reads.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any

from ..kb.store import Fact, ReleaseView
from .tables import table_claims
from .tokens import BULLET, any_match, layout, sentences, tables
from ..kb.lexicon import match_entities
from .glued import with_glued
from .guard_base import Context, Guard, PRODUCT_KINDS, TOPIC_SHARE, CLAUSE_BREAK, last_figure, neg_cues, not_neg_cues, vocab_cues, carries, one_per_carrier, own_ids, size_in_name
from .figure_guards import unnamed_card
from .specs import compared_before
from .versions import calls_other_version
from .guard_list import DOCUMENT_GUARDS, GUARDS


#: a claim that opens with its memory size, written onto the name that follows ("24GB A100")
_SIZE_FIRST = re.compile(r"\d+(?:\.\d+)?\s?(?:gb|g|tb)\s?")


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


def _sheet_line_above(low: str, start: int) -> bool:
    """Whether the line above the one starting at ``start`` is a short line with no sentence mark at its end,
    right above it (no blank line): two such lines in a row are lines of a spec sheet, not headings."""
    if start <= 0:
        return False
    above = low[low.rfind("\n", 0, start - 1) + 1:start - 1].strip()
    return 0 < len(above) <= 60 and not BULLET.match(above) and not re.search(r"[。.!！:：;；,，]$|[。|]", above)


class Guards:
    """The guards of one checked text: the text's sentences and product mentions, read once."""

    def __init__(self, text: str, low: str, view: ReleaseView):
        self.text, self.low, self.view = text, low, view
        vocab = view.kb.vocab
        found = match_entities(low, vocab)
        found = with_glued(low, found, vocab)   # names run together, as the reader reads them
        self.mentions = [m for m in found if m.kind in PRODUCT_KINDS]
        self.text_products = frozenset({m.eid for m in self.mentions} | {vocab.generic(m.eid) for m in self.mentions})
        self.sentences = sentences(low)
        # the cells of the text's tables, each read with the product of its own column or row
        self.cells = {(c.start, c.end, vocab.generic(c.subject), c.attribute)
                      for c in table_claims(low, layout(low), found, vocab, tables(vocab), text).claims}
        self._starts = [m.start for m in self.mentions]          # mentions and sentences in text order: bisected
        self._sentence_starts = [s for s, _ in self.sentences]

    def _starting_at(self, pos: int) -> list[Any]:
        """The product mentions that start at ``pos``, in text order."""
        return self.mentions[bisect_left(self._starts, pos):bisect_right(self._starts, pos)]

    def _between(self, start: int, end: int) -> list[Any]:
        """The product mentions that start in [start, end)."""
        return self.mentions[bisect_left(self._starts, start):bisect_left(self._starts, end)]

    def unit(self, pos: int) -> tuple[int, int]:
        i = bisect_right(self._sentence_starts, pos) - 1
        if i >= 0 and self.sentences[i][0] <= pos < self.sentences[i][1]:
            return self.sentences[i]
        line_start = self.text.rfind("\n", 0, pos) + 1
        end = self.text.find("\n", pos)
        return (line_start, len(self.text) if end < 0 else end)

    def _products(self, *spans: tuple[int, int] | None) -> tuple[str, ...]:
        vocab = self.view.kb.vocab
        out: list[str] = []
        for span in spans:
            if span is None:
                continue
            for m in self._between(span[0], span[1]):
                g = vocab.generic(m.eid)
                if g not in out:
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

    def section(self, pos: int) -> tuple[int, int] | None:
        """The line heading the claim's section: the list's introducing line (``…:``) when the claim is a
        list item, else the nearest heading line (Markdown ``#``, or a short line with no sentence mark at its
        end, "A100-40GB: The Reliable Workhorse"), when that line names exactly one product and no line
        between names another. A heading or intro naming no product but a verdict ("Good for") is a
        sub-heading of the section: the search goes on above it."""
        vocab = self.view.kb.vocab
        at = self.text.rfind("\n", 0, pos) + 1
        in_list = bool(BULLET.match(self.low, at, pos + 1))
        seen: set[str] = set()
        sheet = False
        while at > 0:
            start = self.low.rfind("\n", 0, at - 1) + 1
            line = self.low[start:at - 1].strip()
            names = one_per_carrier(self.view, {vocab.generic(m.eid) for m in self._between(start, at - 1)      # not one compared
                                                if not compared_before(self.low, m.start, start, tables(vocab))})
            bullet = bool(BULLET.match(line))
            intro = in_list and not bullet and re.search(r"[:：]$", line)
            heading = not bullet and (line.startswith("#") or (0 < len(line) <= 40 and not re.search(r"[。.!！:：;；,，]$|[。|]", line)))
            if (intro or heading) and not names and any_match(tables(vocab)["verdict_any"], line):
                at, in_list = start, False      # "Good for:" under "## A100-40GB": a verdict's sub-heading
                continue
            if heading and not intro and not names and not line.startswith("#") and _sheet_line_above(self.low, start):
                at, sheet = start, True     # "TDP功耗 250W" under "代工厂 TSMC": a spec sheet's line, not a heading
                continue
            if sheet and not (line.startswith("#") or start == 0 or self.low[max(0, start - 2):start] == "\n\n"):
                return None             # a sheet under a line of names ("NVIDIA A100\nNVIDIA A40"): a flattened table
            if intro or heading:
                return (start, at - 1) if len(names) == 1 and seen <= names and not calls_other_version(vocab, line) else None
            if in_list and not bullet and line:
                return None
            seen |= names
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
        s, e = self.unit(span[0])
        sent = self.low[s:e].rstrip()
        for rx in vocab_cues(vocab, "question"):
            if rx.search(sent):
                return {"code": "question", "en": "the sentence asks a question; it states nothing",
                        "zh": "该句是疑问句，并未断言"}
        fig = last_figure(self.low, span)
        at = fig.start() if fig else span[0]     # the figure's own place, not its widened subject's
        before = self.low[s:at]
        for rx in vocab_cues(vocab, "condition"):
            for m in rx.finditer(before):
                if not CLAUSE_BREAK.search(before, m.end()):
                    word = self.text[s + m.start():s + m.end()]
                    return {"code": "hypothetical",
                            "en": f"the figure is part of a condition or hypothesis (“{word}”), which states nothing",
                            "zh": f"该数字属于条件或假设（“{word}”），并未断言"}
        spec = vocab.attributes.get(claim.attribute)
        if spec is not None and spec.type == "quantity" and not str(claim.value).startswith((">", "<")):
            clause = before[max([m.end() for m in CLAUSE_BREAK.finditer(before)] or [0]):]
            for rx in not_neg_cues(vocab):
                clause = rx.sub(lambda m: " " * len(m.group(0)), clause)
            for rx in neg_cues(vocab):
                m = rx.search(clause)
                if m:
                    return {"code": "negated", "en": "the figure is denied (“not …”): the text says what the value is not",
                            "zh": "该数字被否定（“不是…”），文中只说明取值不是多少"}
        return None

    def named_in_scope(self, claim: Fact) -> bool:
        """Is the claim's product named in its sentence, its table row or header, its Markdown heading, or the
        line heading its section or list (:meth:`_section`)?"""
        vocab = self.view.kb.vocab
        if vocab.kind_of(claim.subject) not in PRODUCT_KINDS:
            return True
        pos = (claim.span or [0])[0]
        named = list(self._products(self.unit(pos), _table_header(self.text, pos), self._heading(pos), self.section(pos)))
        if self.topic is not None:
            named.append(self.topic)
        own = own_ids(vocab, claim.subject)
        return bool(own & set(named)) or any(carries(self.view, p, claim.subject) for p in named)

    def names_size(self, claim: Fact) -> bool:
        """Is the claim's memory figure the size in its product's name ("A100 80GB", "A100（80GB）",
        "A100 (40GB and 80GB variants)"), or a size followed by a variant's word ("the 80GB version", "80GB
        版本"; cues ``check_guard.variant_word``) of a product sold in that size: the variant's name, not a
        figure the text states about it?"""
        fig = last_figure(self.low, claim.span)
        if claim.attribute != "memory_gb" or fig is None or not isinstance(claim.value, (int, float)):
            return False
        vocab, at = self.view.kb.vocab, fig.start()
        sized = [v for v in (claim.subject, *(vocab.entities.get(claim.subject, {}).get("variants") or ()))
                 if vocab.names_size(v, float(claim.value))]
        if not sized:
            return False
        end = (claim.span or [0, 0])[1]
        if any(rx.search(self.low[end:end + 12]) for rx in vocab_cues(vocab, "variant_word")):
            return True
        return any(vocab.generic(m.eid) == vocab.generic(claim.subject) and size_in_name(self.low, m.end, at)
                   for m in self.mentions)

    def unnamed_card(self, claim: Fact) -> bool:
        """See :func:`figure_guards.unnamed_card`."""
        unit = self.unit((claim.span or [0])[0])
        return unnamed_card(self.low, claim, unit, self._between(*unit), self.view.kb.vocab)

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

    def attached(self, claim: Fact, unit: tuple[int, int]) -> bool:
        """Is the claim's figure written onto its own product's name: the nearest product named before the
        figure in its clause is the claim's, and only a possessive, the attribute's own word and a linking
        word stand between them ("H100 的 8.0 TB/s", "the H100's memory bandwidth of 3.35 TB/s",
        "H100 (80 GB)")? Not when the sentence pairs lists of products and figures ("respectively", "vs")."""
        vocab = self.view.kb.vocab
        span = claim.span or [0, 0]
        own = own_ids(vocab, claim.subject)
        if any(m.end == span[1] and (m.eid in own or vocab.generic(m.eid) in own)
               for m in self._starting_at(span[0])):
            return True                 # read at its name, one of a list a value heads ("Ampere (A100/A800)")
        fig = last_figure(self.low, span)
        if fig is None:
            return False
        at = fig.start()
        seg = self.low[unit[0]:unit[1]]
        if any(rx.search(seg) for rx in vocab_cues(vocab, "paired")):
            return False
        lead = _SIZE_FIRST.match(self.low, span[0], span[1])
        after = next(iter(self._starting_at(lead.end())), None) if lead is not None else None
        if after is not None and (after.eid in own or vocab.generic(after.eid) in own):
            return True                 # "24GB A100", "12GB 3090": the size written before its product's name
        before = [m for m in self.mentions[bisect_left(self._starts, unit[0]):bisect_right(self._starts, at)]
                  if m.end <= at]       # a mention ends after it starts: those starting in [unit start, at]
        if not before:
            return False
        near = before[-1]
        if near.eid not in own and vocab.generic(near.eid) not in own:
            return False
        gap = self.low[near.end:at]
        for rx in vocab_cues(vocab, "attach_possessive"):
            gap = rx.sub("", gap, count=1)
        for p in (vocab.cues.get("attribute") or {}).get(claim.attribute, ()):
            gap = re.sub(r"^\s*(?:" + p + ")", "", gap, count=1)
        return any(rx.fullmatch(gap) for rx in vocab_cues(vocab, "attach_link"))

    def _compared_after(self, claim: Fact, unit: tuple[int, int]) -> set[str]:
        """The products named after the claim's figure only as what it is compared with ("H100 的 FP8 算力达
        4,000 TFLOPS，较 A100 提升 6 倍", "… 3.35 TB/s, compared with the A100"), or as the GPUs whose memory
        each the figure gives, of the instance that carries them ("p3dn.24xlarge 配备 8 块 16 GB 显存的 V100",
        "… eight V100 GPUs with 32 GB each"): not rival owners of it."""
        vocab, t = self.view.kb.vocab, tables(self.view.kb.vocab)
        fig = last_figure(self.low, claim.span)
        at = fig.end() if fig else (claim.span or [0, 0])[1]
        end = max(at, (claim.span or [0, 0])[1])           # after the figure's unit
        each = any_match(t["instance_words"]["per_gpu_after"], self.low[end:end + 40])
        out: dict[str, bool] = {}
        for m in self._between(unit[0], unit[1]):
            g = vocab.generic(m.eid)
            compared = m.start >= at and compared_before(self.low, m.start, unit[0], t)
            own_gpus = carries(self.view, claim.subject, m.eid) and (each or 0 <= m.start - at <= 16)
            out[g] = out.get(g, True) and (compared or own_gpus)
        return {g for g, yes in out.items() if yes}

    def reasons(self, claim: Fact, status: str | None = None, verdict: dict[str, Any] | None = None,
                which: tuple[Guard, ...] = GUARDS,
                text_figures: dict[tuple[str, str], list[float]] | None = None) -> list[dict[str, Any]]:
        """The guards among ``which`` that apply to ``claim`` (whose audit status is ``status``, resting on the
        sizing ``verdict`` when it is a derivation's), each as {"code", "en", "zh"}; ``text_figures``: what the
        rest of the text gives each product (:func:`.document_guards.figures_by_product`), for the document guards."""
        pos = (claim.span or [0])[0]
        unit = self.unit(pos)
        header = _table_header(self.text, pos)
        vocab = self.view.kb.vocab
        cell = (pos, (claim.span or [0, 0])[1], vocab.generic(claim.subject), claim.attribute) in self.cells
        products = tuple(p for p in self._products(unit, header) if p not in self._compared_after(claim, unit))
        if cell:
            products = (vocab.generic(claim.subject),)
        elif not products:
            products = self._products(self.section(pos))
        ctx = Context(self.text, self.low, claim, self.view, unit, header, products, self.text_products, cell,
                      self.attached(claim, unit), status, tuple((m.start, m.end) for m in self._between(*unit)),
                      tuple(m.eid for m in self._between(*unit)), verdict=verdict, text_figures=text_figures or {})
        out = []
        for g in which:
            detail = g.test(ctx)
            if detail is not None:
                out.append({"code": g.name, "en": g.en.format(**detail), "zh": g.zh.format(**detail)})
        return out
