"""markdown-it-py set up for the sources (see server/markdown_layout.py): GFM tables by a rule of its own
that records each cell's offset in the source, and the small helpers that find where Markdown syntax
ends in the source."""
from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import unescapeAll
from markdown_it.rules_block import StateBlock

__all__ = ["parser", "shadow", "link_tail"]


_DELIM_CELL = re.compile(r"^:?-+:?$")


def _cells(line: str) -> tuple[bool, list[tuple[int, int]]]:
    """(has an unescaped pipe, [(start, end)] of each trimmed cell) of one table row."""
    pipes = [i for i, ch in enumerate(line) if ch == "|" and (i == 0 or line[i - 1] != "\\")]
    if not pipes:
        return False, []
    bounds = [-1] + pipes + [len(line)]
    cells = []
    for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
        a += 1
        while a < b and line[a] in " \t":
            a += 1
        e = b
        while e > a and line[e - 1] in " \t":
            e -= 1
        edge = k == 0 or k == len(bounds) - 2
        if edge and a == e:          # nothing before the first pipe or after the last one
            continue
        cells.append((a, e))
    return True, cells


def _row(state: StateBlock, line: int) -> tuple[int, str]:
    start = state.bMarks[line] + state.tShift[line]
    return start, state.src[start:state.eMarks[line]]


def _table_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """GFM tables, but a row needs a pipe and the header may follow a paragraph line without a blank."""
    if start + 2 > end or state.is_code_block(start) or state.is_code_block(start + 1):
        return False
    h0, head = _row(state, start)
    d0, delim = _row(state, start + 1)
    has_pipe, hcells = _cells(head)
    if not has_pipe or not hcells or not delim or set(delim) - set("|-: \t"):
        return False
    _, dcells = _cells(delim)
    if "|" not in delim and len(hcells) != 1:
        return False
    dtexts = [delim[a:b] for a, b in dcells] if "|" in delim else [delim.strip()]
    if len(dtexts) != len(hcells) or not all(_DELIM_CELL.match(t) for t in dtexts):
        return False
    if silent:
        return True
    aligns = []
    for t in dtexts:
        aligns.append("center" if t.startswith(":") and t.endswith(":") else
                      "right" if t.endswith(":") else "left" if t.startswith(":") else "")
    terminators = state.md.block.ruler.getRules("blockquote")
    table = state.push("table_open", "table", 1)
    table.map = [start, start + 2]
    state.push("thead_open", "thead", 1).map = [start, start + 1]

    def row(line: int, base: int, cells: list[tuple[int, int]], text: str, cell_tag: str) -> None:
        state.push("tr_open", "tr", 1).map = [line, line + 1]
        for i, align in enumerate(aligns):
            state.push(cell_tag + "_open", cell_tag, 1).meta = {"align": align}
            a, b = cells[i] if i < len(cells) else (len(text), len(text))
            tok = state.push("inline", "", 0)
            tok.map = [line, line + 1]
            tok.content = text[a:b]
            tok.children = []
            tok.meta = {"start": base + a}
            state.push(cell_tag + "_close", cell_tag, -1)
        state.push("tr_close", "tr", -1)

    row(start, h0, hcells, head, "th")
    state.push("thead_close", "thead", -1)
    line = start + 2
    body = None
    while line < end:
        if state.sCount[line] < state.blkIndent or state.isEmpty(line) or state.is_code_block(line):
            break
        if any(rule(state, line, end, True) for rule in terminators):
            break
        base, text = _row(state, line)
        has_pipe, cells = _cells(text)
        if not has_pipe:
            break
        if body is None:
            body = state.push("tbody_open", "tbody", 1)
            body.map = [line, line]
        row(line, base, cells, text, "td")
        line += 1
    if body is not None:
        state.push("tbody_close", "tbody", -1)
        body.map[1] = line
    state.push("table_close", "table", -1)
    table.map[1] = line
    state.line = line
    return True


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """markdown-it-py as gpukb uses it: CommonMark, tables (the rule above), strikethrough; no raw HTML."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.block.ruler.at("table", _table_rule, {"alt": ["paragraph", "reference"]})
    md.enable(["table", "strikethrough"])
    md.disable("text_join")            # keep escapes and entities apart: their markup is their source
    return md


def shadow(text: str) -> str:
    """The text markdown-it parses: same length, line ends and NUL normalised the way it would."""
    return text.replace("\r\n", " \n").replace("\r", "\n").replace("\0", "\ufffd")


def link_tail(src: str, p: int, href: str) -> int:
    """End of a link's "](destination "title")", "][label]" or "]" starting at `p`."""
    n = len(src)
    if p >= n or src[p] != "]":
        raise ValueError("link text without ]")
    q = p + 1
    try:
        if q < n and src[q] == "(":
            q += 1
            while src[q] in " \t\n":
                q += 1
            d0 = q
            if src[q] == "<":
                q = src.index(">", q) + 1
                dest = src[d0 + 1:q - 1]
            else:
                depth = 0
                while q < n and src[q] not in " \t\n":
                    if src[q] == "\\":
                        q += 1
                    elif src[q] == "(":
                        depth += 1
                    elif src[q] == ")":
                        if depth == 0:
                            break
                        depth -= 1
                    q += 1
                dest = src[d0:q]
            while src[q] in " \t\n":
                q += 1
            if src[q] in "\"'(":
                closer = ")" if src[q] == "(" else src[q]
                q += 1
                while src[q] != closer:
                    q += 2 if src[q] == "\\" else 1
                q += 1
                while src[q] in " \t\n":
                    q += 1
            if src[q] == ")" and (not href or parser().normalizeLink(unescapeAll(dest)) == href):
                return q + 1
            return p + 1
        if q < n and src[q] == "[":
            r = q + 1
            while src[r] != "]":
                r += 2 if src[r] == "\\" else 1
            return r + 1
    except IndexError:
        return p + 1
    return p + 1
