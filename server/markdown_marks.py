"""Claim marks placed at exact code-point spans of a source, in its rendered Markdown or its raw text.

    from gpukb.server.markdown_marks import Mark, render_marked, layout_markdown, layout_raw
    html = render_marked(layout_markdown(text), [Mark("S001-C002", 7, 34, status="supported", ...)])

A layout (:mod:`server.markdown_layout`) is a list of HTML events whose text leaves cover the source
exactly. Rendering splits every leaf at every span boundary; each piece covered by claims becomes one
link ``<a class="claim" href>`` holding a ``<mark data-claim-id data-claims data-status>``. A span that
crosses inline formatting, a line break or table cells therefore becomes several pieces sharing the
claim id, and the text of a claim's pieces, in document order, is its quote. Pieces of hidden syntax
(a table's pipes) stay in the HTML, hidden, so that stays true of every span.

Every claim is the ``data-claim-id`` of at least one piece, a visible one whenever the claim has
visible text: claims with the fewest pieces choose first, and a claim left without a piece of its own
(its span equals another's) gets a mark nested inside. The piece where a claim's visible text ends
carries its status symbol (``data-symbol``), so status never depends on colour alone, and an anchor
with the claim id precedes its first visible piece.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Iterable, Sequence

from markupsafe import Markup, escape

from .markdown_layout import ENTITY, INDENT, MARKER, SYNTAX, VISIBLE, Layout, Leaf, layout_markdown, layout_raw

__all__ = ["Mark", "render_marked", "layout_markdown", "layout_raw", "window"]


@dataclass(frozen=True)
class Mark:
    """A claim to mark: its span and how to draw it (already in the page's language)."""

    id: str
    start: int
    end: int
    status: str = "unverifiable"
    symbol: str = ""
    title: str = ""          # e.g. "S001-C002: Supported"
    href: str = ""


@dataclass
class _Segment:
    start: int
    end: int
    covering: list[str] = field(default_factory=list)   # claim ids, shortest span first
    visible: bool = False
    primary: str | None = None
    extra: list[str] = field(default_factory=list)       # claims needing their own nested mark here


_WRAP = {SYNTAX: ('<span class="md-syntax" aria-hidden="true">', "</span>"),
         MARKER: ('<span class="md-marker">', "</span>"),
         INDENT: ('<span class="md-indent">', "</span>")}


def _text(s: str) -> Markup:
    return Markup(str(escape(s)).replace("\r", "&#13;"))


def _attrs(attrs: Iterable[tuple[str, str]]) -> Markup:
    return Markup("").join(Markup(' {0}="{1}"').format(k, v) for k, v in attrs)


class _Plan:
    """Segments, their claims and where each claim's first and last visible pieces are."""

    def __init__(self, layout: Layout, marks: Sequence[Mark], leaves: list[Leaf]):
        n = len(layout.text)
        self.marks: dict[str, Mark] = {}
        for m in marks:
            a, b = max(0, min(int(m.start), n)), max(0, min(int(m.end), n))
            if b > a and m.id not in self.marks:
                self.marks[m.id] = Mark(m.id, a, b, m.status, m.symbol, m.title, m.href)
        spans = {cid: (m.start, m.end) for cid, m in self.marks.items()}
        cuts = sorted({0, n, *(x for ab in spans.values() for x in ab)})
        self.order = sorted(spans, key=lambda cid: (spans[cid][1] - spans[cid][0], spans[cid][0], cid))
        rank = {cid: i for i, cid in enumerate(self.order)}
        self.segs = [_Segment(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
        self.starts = [s.start for s in self.segs]
        for cid in self.order:
            a, b = spans[cid]
            i = bisect.bisect_left(self.starts, a)
            while i < len(self.segs) and self.segs[i].end <= b:
                self.segs[i].covering.append(cid)
                i += 1
        # which segments show text: a prefix sum of visible code points
        vis = bytearray(n)
        for leaf in leaves:
            if leaf.kind in VISIBLE:
                vis[leaf.start:leaf.end] = b"\x01" * (leaf.end - leaf.start)
        pre = [0, *accumulate(vis)]
        for s in self.segs:
            s.visible = pre[s.end] > pre[s.start]
        by_claim: dict[str, list[_Segment]] = {cid: [] for cid in spans}
        for s in self.segs:
            for cid in s.covering:
                by_claim[cid].append(s)
        # every claim gets a piece of its own, a visible one if it can; the claims with fewest choose first
        for cid in sorted(spans, key=lambda c: (sum(s.visible for s in by_claim[c]) or len(by_claim[c]) + 10**6,
                                                rank[c])):
            segs = by_claim[cid]
            free = [s for s in segs if s.primary is None and s.visible] or [s for s in segs if s.primary is None]
            if free:
                min(free, key=lambda s: (len(s.covering), s.start)).primary = cid
            elif segs:
                host = next((s for s in segs if s.visible), segs[0])
                host.extra.append(cid)
        # first and last piece of each claim, preferring visible ones
        first: dict[bool, dict[str, int]] = {True: {}, False: {}}
        last: dict[bool, dict[str, int]] = {True: {}, False: {}}
        for leaf in leaves:
            shown = leaf.kind in VISIBLE
            for x, y, seg in self.pieces(leaf):
                for cid in seg.covering if seg else ():
                    for key in {shown, False}:
                        first[key].setdefault(cid, x)
                        last[key][cid] = y
        self.first = {**first[False], **first[True]}
        self.last = {**last[False], **last[True]}

    def pieces(self, leaf: Leaf) -> Iterable[tuple[int, int, _Segment | None]]:
        """The leaf cut at span boundaries: (start, end, segment or None when no claim covers it)."""
        x = leaf.start
        i = max(0, bisect.bisect_right(self.starts, x) - 1)
        while x < leaf.end:
            if i < len(self.segs) and self.segs[i].start <= x < self.segs[i].end:
                seg = self.segs[i]
                y = min(leaf.end, seg.end)
                yield x, y, (seg if seg.covering else None)
                i += 1
            else:
                y = leaf.end
                yield x, y, None
            x = y


def _mark_open(m: Mark, covering: list[str], symbols: str) -> Markup:
    end = Markup(' class="end" data-symbol="{0}"').format(symbols) if symbols else Markup("")
    return Markup('<mark data-claim-id="{cid}" data-claims="{claims}" data-status="{st}"{end} title="{title}">').format(
        cid=m.id, claims=" ".join(covering), st=m.status, end=end, title=m.title or m.id)


def _render_leaf(leaf: Leaf, text: str, plan: _Plan, anchors: bool, done: set[str]) -> Markup:
    out: list[Markup] = []
    for x, y, seg in plan.pieces(leaf):
        piece = _text(text[x:y])
        if seg is None:
            out.append(piece)
            continue
        if anchors:
            for cid in seg.covering:
                if plan.first.get(cid) == x and cid not in done:
                    done.add(cid)
                    out.append(Markup('<span class="anchor" id="{0}"></span>').format(cid))
        primary = seg.primary or seg.covering[0]
        covering = [primary] + [c for c in seg.covering if c != primary]
        ending = [c for c in plan.order if c in seg.covering and plan.last.get(c) == y]
        symbols = "".join(plan.marks[c].symbol for c in ending)
        inner = [primary] + seg.extra
        html = Markup('<a class="claim" href="{0}">').format(plan.marks[primary].href or "#" + primary)
        for k, cid in enumerate(inner):
            others = [cid] + [c for c in covering if c != cid]
            html += _mark_open(plan.marks[cid], others, symbols if k == len(inner) - 1 else "")
        html += piece + Markup("</mark>") * len(inner) + Markup("</a>")
        out.append(html)
    body = Markup("").join(out)
    if leaf.kind == ENTITY:
        return Markup('<span class="md-entity" data-text="{0}"><span class="md-syntax" aria-hidden="true">').format(
            leaf.show) + body + Markup("</span></span>")
    if leaf.kind in _WRAP:
        a, b = _WRAP[leaf.kind]
        return Markup(a) + body + Markup(b)
    return body


def window(layout: Layout, start: int, end: int) -> list[int]:
    """Indices of the layout's top-level blocks that overlap ``[start, end)``."""
    return [i for i, (_, _, a, b) in enumerate(layout.blocks) if a < max(end, start + 1) and b > start]


def render_marked(layout: Layout, marks: Sequence[Mark], anchors: bool = True,
                  blocks: Sequence[int] | None = None, table_label: str = "Table") -> Markup:
    """The layout as HTML with every mark placed at its span (see the module docstring).

    `blocks` limits the output to some top-level blocks (e.g. a claim's context, see :func:`window`);
    `anchors` adds an empty ``<span class="anchor" id=CLAIM>`` before each claim's first piece;
    `table_label` names the scrolling container of each table for assistive technology.
    """
    events = layout.events
    if blocks is not None:
        events = [e for i in blocks for e in layout.events[layout.blocks[i][0]:layout.blocks[i][1]]]
    leaves = [e for e in events if isinstance(e, Leaf)]
    plan = _Plan(layout, marks, leaves)
    done: set[str] = set()
    out: list[Markup] = []
    for e in events:
        if isinstance(e, Leaf):
            out.append(_render_leaf(e, layout.text, plan, anchors, done))
        elif e[0] == "open":
            attrs = list(e[2])
            if e[1] == "div" and ("class", "md-table") in attrs:
                attrs.append(("aria-label", table_label))
            out.append(Markup("<{0}{1}>").format(Markup(e[1]), _attrs(attrs)))
        elif e[0] == "close":
            out.append(Markup("</{0}>").format(Markup(e[1])))
        else:  # void
            tag = Markup(e[1])
            out.append(Markup("<{0}{1}></{0}>").format(tag, _attrs(e[2])) if e[1] == "a"
                       else Markup("<{0}{1}>").format(tag, _attrs(e[2])))
    return Markup("").join(out)
