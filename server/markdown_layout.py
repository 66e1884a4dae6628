"""A source's Markdown laid out as HTML events whose text leaves cover the raw source exactly.

    layout = layout_markdown(text)      # parse once; pure and cacheable
    layout.events                       # ("open", tag, attrs) / ("close", tag) / ("void", tag, attrs) / Leaf
    layout.fallbacks                    # top-level blocks that could not be aligned (shown as raw text)

markdown-it-py parses the text; this module then walks its tokens and finds, for every token, the
code points of the source it came from. The result is a list of events in which the leaves, in
order, cover ``text[0:len(text)]`` with no gap and no overlap: content is a visible leaf, Markdown
syntax (list bullets, table pipes, the delimiter row, emphasis markers, line breaks) a hidden one.
So the rendered page's text content is the source text itself, unedited, and a claim's span
``[start, end)`` can be marked in the rendered view by splitting leaves at span boundaries
(:mod:`server.markdown_marks`).

The sources are articles copied from web pages, whose blank lines are often gone. Two rules differ
from GitHub's tables for that reason, and only for tables: a table may start right after a paragraph
line, even a lazy continuation line of a list item, and a line without a pipe ends a table (GFM would
make it a row). Soft line breaks are shown as line breaks. Raw HTML is never interpreted, links are
drawn as text with a separate link after them, and images are not loaded (their alt text is shown).

When a block cannot be aligned (a Markdown construct this module does not know), that block alone is
shown as raw text; ``fallbacks`` counts such blocks so tests can require none for the bundled sources.

It is one module of a little over 400 lines because the alignment is one algorithm: every block and
inline rule below shares the cursor over the source text and the leaf invariant above.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Union

from markdown_it.token import Token

from .markdown_parser import link_tail, parser as _parser, shadow as _shadow

__all__ = ["Leaf", "Layout", "layout_markdown", "layout_raw", "VISIBLE", "TEXT", "SYNTAX", "MARKER",
           "INDENT", "ENTITY"]

log = logging.getLogger("gpukb.markdown")

TEXT = "text"          # content, shown as is
SYNTAX = "syntax"      # Markdown syntax, hidden in the rendered view
MARKER = "marker"      # an ordered list's number as written ("5."), shown
INDENT = "indent"      # leading spaces of a continuation line beyond the paragraph's own indent, shown
ENTITY = "entity"      # an entity reference: hidden source, its character shown by CSS
VISIBLE = frozenset({TEXT, MARKER, INDENT})

WS = frozenset(" \t")
WS_QUOTE = frozenset(" \t>")
MAX_HEADING = 6


@dataclass(frozen=True)
class Leaf:
    """Source code points ``[start, end)`` drawn as `kind`; `show` is what an entity displays."""

    start: int
    end: int
    kind: str
    show: str = ""


Event = Union[tuple, Leaf]


@dataclass
class Layout:
    """Events of a rendered text; `blocks` are (first event, end event, source start, source end)."""

    text: str
    events: list[Event]
    blocks: list[tuple[int, int, int, int]] = field(default_factory=list)
    fallbacks: int = 0

    @property
    def leaves(self) -> list[Leaf]:
        return [e for e in self.events if isinstance(e, Leaf)]


class Misaligned(Exception):
    """A token whose source text could not be found where it must be."""


# -- alignment -------------------------------------------------------------------------------------------

_INLINE_TAGS = {"em": "em", "strong": "strong", "s": "s"}


class _Aligner:
    def __init__(self, text: str, src: str, heading_offset: int):
        self.text, self.src, self.n = text, src, len(text)
        self.pos = 0
        self.events: list[Event] = []
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", src)]
        self.heading_offset = heading_offset
        self.after_break = False
        self.base_col = 0
        self.marker: tuple[str, str, int] | None = None   # a list item's marker not yet placed
        self.links: list[str] = []                         # hrefs of the links open
        self.md = _parser()

    # positions
    def line_start(self, line: int | None) -> int:
        if line is None:
            return self.pos
        return self.line_starts[line] if line < len(self.line_starts) else self.n

    def col(self, at: int) -> int:
        return at - self.src.rfind("\n", 0, at) - 1

    # output
    def open(self, tag: str, **attrs: str) -> None:
        self.events.append(("open", tag, tuple(attrs.items())))

    def close(self, tag: str) -> None:
        self.events.append(("close", tag))

    def leaf(self, a: int, b: int, kind: str, show: str = "") -> None:
        if b > a:
            self.events.append(Leaf(a, b, kind, show))
        self.pos = max(self.pos, b)

    def gap_to(self, j: int) -> None:
        """Everything between the last leaf and `j` is syntax; after a line break, indentation beyond
        the paragraph's own is shown."""
        if j > self.pos and self.after_break:
            ws = j
            while ws > self.pos and self.src[ws - 1] in " \t":
                ws -= 1
            keep = max(ws, min(j, ws + self.base_col))
            self.leaf(self.pos, keep, SYNTAX)
            self.leaf(keep, j, INDENT)
        elif j > self.pos:
            self.leaf(self.pos, j, SYNTAX)
        self.after_break = False

    def seek(self, expected: str, lower: int = 0, gap: frozenset = WS) -> int:
        """Where `expected` starts: at or after max(pos, lower), past nothing but `gap` characters."""
        j = max(self.pos, lower)
        while j + len(expected) <= self.n:
            if self.src.startswith(expected, j):
                self.gap_to(j)
                return j
            if self.src[j] not in gap:
                break
            j += 1
        raise Misaligned(f"{expected[:20]!r} not found at {self.pos}")

    def take(self, expected: str, kind: str, lower: int = 0, gap: frozenset = WS) -> int:
        j = self.seek(expected, lower, gap)
        self.leaf(j, j + len(expected), kind)
        return j

    def place_marker(self) -> None:
        if self.marker is not None:
            marker, kind, lower = self.marker
            self.marker = None
            self.take(marker, kind, lower, WS_QUOTE)

    # blocks
    def block(self, t: Token) -> None:
        lower = self.line_start(t.map[0]) if t.map else 0
        kind = t.type
        if kind == "paragraph_open":
            if not t.hidden:
                self.open("p")
            self.place_marker()
        elif kind == "paragraph_close":
            if not t.hidden:
                self.close("p")
        elif kind == "heading_open":
            level = min(MAX_HEADING, int(t.tag[1]) + self.heading_offset)
            self.open(f"h{level}", **{"class": f"md-h{t.tag[1]}"})
            self.place_marker()
            if t.markup.startswith("#"):
                self.take(t.markup, SYNTAX, lower, WS_QUOTE)
        elif kind == "heading_close":
            level = min(MAX_HEADING, int(t.tag[1]) + self.heading_offset)
            self.close(f"h{level}")
        elif kind == "blockquote_open":
            self.place_marker()
            self.open("blockquote")
            self.take(">", SYNTAX, lower, WS_QUOTE)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            self.place_marker()
            self.open(t.tag, **({"class": "md-ol"} if t.tag == "ol" else {}))
        elif kind in ("blockquote_close", "bullet_list_close", "ordered_list_close", "tr_open", "tr_close",
                      "thead_open", "thead_close", "tbody_open", "tbody_close", "list_item_close"):
            if kind == "list_item_close":
                self.place_marker()
            if kind.endswith("_open"):
                self.open(t.tag)
            else:
                self.close(t.tag)
        elif kind == "list_item_open":
            self.open("li")
            ordered = bool(t.info)
            self.marker = (t.info + t.markup, MARKER if ordered else SYNTAX, lower)
        elif kind == "table_open":
            self.place_marker()
            self.open("div", **{"class": "md-table", "tabindex": "0", "role": "group"})
            self.open("table")
        elif kind == "table_close":
            self.close("table")
            self.close("div")
        elif kind in ("th_open", "td_open"):
            align = (t.meta or {}).get("align")
            self.open(t.tag, **({"class": f"md-al-{align}"} if align else {}))
        elif kind in ("th_close", "td_close"):
            self.close(t.tag)
        elif kind == "inline":
            start = (t.meta or {}).get("start")
            self.inline(t.children or [], lower if start is None else start)
        elif kind in ("fence", "code_block"):
            self.code(t)
        elif kind == "hr":
            self.place_marker()
            j = max(self.pos, lower)
            self.gap_to(j)
            self.events.append(("void", "hr", ()))
            self.leaf(j, self.line_end(t.map[0]), SYNTAX)
        else:
            raise Misaligned(f"unknown token {kind}")

    def line_end(self, line: int) -> int:
        nxt = self.line_start(line + 1)
        return nxt - 1 if nxt > 0 and nxt <= self.n and self.src[nxt - 1] == "\n" else nxt

    def code(self, t: Token) -> None:
        self.place_marker()
        a, b = t.map
        self.open("pre", **{"class": "md-code"})
        self.open("code")
        if t.type == "fence":
            first = self.seek(t.markup, self.line_start(a), WS_QUOTE)
            self.leaf(first, self.line_start(a + 1), SYNTAX)
            last = self.src[self.line_start(b - 1):self.line_end(b - 1)].strip(" \t>")
            closed = b - 1 > a and last and set(last) == {t.markup[0]} and len(last) >= len(t.markup)
            self.leaf(self.pos, self.line_start(b - 1) if closed else self.line_end(b - 1), TEXT)
        else:
            self.gap_to(max(self.pos, self.line_start(a)))
            self.leaf(self.pos, self.line_end(b - 1), TEXT)
        self.close("code")
        self.close("pre")

    # inline content
    def inline(self, children: list[Token], lower: int) -> None:
        self.place_marker()
        first = True
        skip_to_close = False
        for c in children:
            if skip_to_close:
                skip_to_close = c.type != "link_close"
                continue
            lb = lower if first else 0
            gap = WS_QUOTE if self.after_break else WS
            if first:
                j = self.inline_token(c, lb, gap)
                self.base_col = self.col(j) if j is not None else 0
                first = False
            else:
                j = self.inline_token(c, lb, gap)
            if c.type == "link_open" and c.markup in ("autolink", "linkify"):
                skip_to_close = True

    def inline_token(self, c: Token, lb: int, gap: frozenset) -> int | None:
        t = c.type
        if t == "text":
            return self.take(c.content, TEXT, lb, gap)
        if t == "text_special":
            j = self.seek(c.markup, lb, gap)
            end = j + len(c.markup)
            if c.content == c.markup:
                self.leaf(j, end, TEXT)
            elif c.info == "escape" and c.markup[1:] == c.content:
                self.leaf(j, j + 1, SYNTAX)
                self.leaf(j + 1, end, TEXT)
            else:
                self.leaf(j, end, ENTITY, c.content)
            return j
        if t in ("softbreak", "hardbreak"):
            j = self.take("\n", SYNTAX, lb, WS if t == "softbreak" else frozenset(" \t\\"))
            self.events.append(("void", "br", ()))
            self.after_break = True
            return j
        base = t.rsplit("_", 1)[0]
        if base in _INLINE_TAGS:
            if t.endswith("_open"):
                self.open(_INLINE_TAGS[base])
                return self.take(c.markup, SYNTAX, lb, gap)
            j = self.take(c.markup, SYNTAX, lb, gap)
            self.close(_INLINE_TAGS[base])
            return j
        if t == "code_inline":
            j = self.seek(c.markup, lb, gap)
            self.open("code")
            self.leaf(j, j + len(c.markup), SYNTAX)
            close = self.closing_run(c.markup, self.pos)
            self.leaf(self.pos, close, TEXT)
            self.leaf(close, close + len(c.markup), SYNTAX)
            self.close("code")
            return j
        if t == "link_open":
            href = str(c.attrs.get("href") or "")
            if c.markup in ("autolink", "linkify"):
                j = self.seek("<", lb, gap)
                close = self.src.find(">", j)
                if close < 0:
                    raise Misaligned("autolink without >")
                self.open("span", **{"class": "md-link"})
                self.leaf(j, j + 1, SYNTAX)
                self.leaf(j + 1, close, TEXT)
                self.leaf(close, close + 1, SYNTAX)
                self.close("span")
                self.external(href)
                return j
            self.open("span", **{"class": "md-link"})
            self.links.append(href)
            return self.take("[", SYNTAX, lb, gap)
        if t == "link_close":
            href = self.links.pop() if self.links else ""
            j = self.pos
            self.leaf(j, self.link_tail(j, href), SYNTAX)
            self.close("span")
            self.external(href)
            return j
        if t == "image":
            j = self.seek("![", lb, gap)
            self.open("span", **{"class": "md-image"})
            self.leaf(j, j + 2, SYNTAX)
            for k in c.children or []:
                self.inline_token(k, 0, WS)
            src = str(c.attrs.get("src") or "")
            self.leaf(self.pos, self.link_tail(self.pos, src), SYNTAX)
            self.close("span")
            self.external(src)
            return j
        raise Misaligned(f"unknown inline token {t}")

    def external(self, href: str) -> None:
        if href:
            self.events.append(("void", "a", (("class", "md-ext"), ("href", href), ("aria-label", href),
                                              ("rel", "nofollow noopener noreferrer"))))

    def closing_run(self, run: str, start: int) -> int:
        for m in re.compile(re.escape(run[0]) + "+").finditer(self.src, start):
            if len(m.group(0)) == len(run):
                return m.start()
        raise Misaligned("code span without its closing backticks")

    def link_tail(self, p: int, href: str) -> int:
        try:
            return link_tail(self.src, p, href)
        except ValueError as exc:
            raise Misaligned(str(exc)) from None


def _block_end(tokens: list[Token], i: int) -> int:
    depth = 0
    for k in range(i, len(tokens)):
        depth += tokens[k].nesting
        if depth <= 0:
            return k + 1
    return len(tokens)


@lru_cache(maxsize=32)
def layout_markdown(text: str, heading_offset: int = 2) -> Layout:
    """The Markdown `text` as events whose leaves cover it exactly (see the module docstring).

    Markdown heading level L becomes ``h(L + heading_offset)``, at most h6.
    """
    src = _shadow(text)
    tokens = _parser().parse(src)
    a = _Aligner(text, src, heading_offset)
    blocks: list[tuple[int, int, int, int]] = []
    fallbacks = 0
    i = 0
    while i < len(tokens):
        j = _block_end(tokens, i)
        ev0, pos0 = len(a.events), a.pos
        end = a.line_start(tokens[i].map[1]) if tokens[i].map else a.n
        try:
            for t in tokens[i:j]:
                a.block(t)
            if a.pos > end:
                raise Misaligned(f"block of lines {tokens[i].map} ran past its end")
        except Misaligned as exc:
            log.debug("showing lines %s as raw text: %s", tokens[i].map, exc)
            del a.events[ev0:]
            a.pos, a.marker, a.after_break = pos0, None, False
            a.open("div", **{"class": "md-raw"})
            a.leaf(pos0, max(pos0, end), TEXT)
            a.close("div")
            fallbacks += 1
        blocks.append((ev0, len(a.events), pos0, a.pos))
        i = j
    if a.pos < a.n:
        ev0, pos0 = len(a.events), a.pos
        a.after_break = False
        a.gap_to(a.n)
        blocks.append((ev0, len(a.events), pos0, a.n))
    return Layout(text, a.events, blocks, fallbacks)


def layout_raw(text: str) -> Layout:
    """The text as one visible leaf: the "source" view."""
    events: list[Event] = [Leaf(0, len(text), TEXT)] if text else []
    return Layout(text, events, [(0, len(events), 0, len(text))])


def check_cover(layout: Layout) -> None:
    """Raise AssertionError unless the leaves cover the text in order with no gap or overlap."""
    pos = 0
    for leaf in layout.leaves:
        assert leaf.start == pos and leaf.end > leaf.start, (pos, leaf)
        pos = leaf.end
    assert pos == len(layout.text), (pos, len(layout.text))


def describe(layout: Layout) -> list[dict[str, Any]]:
    """Leaves as dictionaries (for debugging and tests)."""
    return [{"start": x.start, "end": x.end, "kind": x.kind, "text": layout.text[x.start:x.end]}
            for x in layout.leaves]
