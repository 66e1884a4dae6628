"""Sparsity said away from a figure: datasheets print their with-sparsity rates as "1,979 TFLOPS*" and say what the
mark means once, elsewhere ("* With sparsity"); spec tables say it once in a row or column header ("FP8 Tensor*",
"L4 peak (with sparsity)", "A100 稀疏") for every cell under it."""
from __future__ import annotations

import re

#: a footnote mark right after a figure ("485 TFLOPS*", "1,979 TFLOPS¹")
_MARK = re.compile(r"[ \t]*(\*{1,3}|†|‡|¹|²|³)")
#: a superscript or dagger mark a few words on, at the end of the figure's noun ("1,979 TFLOPS of BF16 compute¹")
_LATE_MARK = re.compile(r"(?:[^\d\n,;，；。.:：*†‡¹²³(（]|(?<=[a-z])\d+){1,40}?(†|‡|¹|²|³)")
#: a footnote mark at the end of a header cell ("FP8 Tensor*")
_END_MARK = re.compile(r"(\*{1,3}|†|‡|¹|²|³)\s*$")
#: the separator row of a Markdown table ("|---|:--:|")
_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
#: what parts a plain-text table's cells: a tab, or two spaces or more
_GAP = re.compile(r"\t|[ ]{2,}")


def footnoted(low: str, end: int, yes: list[re.Pattern[str]]) -> bool | None:
    r"""True when the figure ending at ``end`` carries a footnote mark ("485 TFLOPS*") and the text gives that
    footnote elsewhere as a sparsity word ("*With sparsity", "¹ 稀疏"), as datasheets print their sparse rates;
    else None.

    >>> yes = [re.compile(r"with\s+sparsity")]
    >>> footnoted("fp8 485 tflops*, 24 gb. *with sparsity.", 14, yes)
    True
    >>> footnoted("fp8 485 tflops*. *measured on one gpu.", 14, yes) is None
    True

    A marked figure twice the one its cell pairs it with ("82 TFLOPS | 165 TFLOPS*", the datasheets' dense |
    sparse columns) is the sparse one even when the copied text lost the footnote:

    >>> footnoted("tf32 tensor core\t82 tflops | 165 tflops*", 39, yes)
    True
    """
    m = _MARK.match(low, end) or _LATE_MARK.match(low, end)
    if m is None:
        return None
    return _note_says(low, m.group(1), m.start(1), yes) or _doubled_pair(low[low.rfind("\n", 0, end) + 1:end])


#: a cell's two rates side by side, the second marked ("82 TFLOPS | 165 TFLOPS*", "312/624 TFLOPS*")
_PAIR = re.compile(r"(\d[\d,.]*)\s*(?:t?flops|tops|pflops)?\s*[|/]\s*(\d[\d,.]*)\s*(?:t?flops|tops|pflops)?\s*$")


def _doubled_pair(line: str) -> bool | None:
    """True when ``line`` ends with two rates side by side the second of which is twice the first."""
    m = _PAIR.search(line)
    if m is None:
        return None
    try:
        a, b = (float(g.replace(",", "")) for g in m.groups())
    except ValueError:
        return None
    return True if a > 0 and abs(b / a - 2) <= 0.02 else None


def _note_says(low: str, mark: str, at: int, yes: list[re.Pattern[str]]) -> bool | None:
    """True when footnote ``mark`` (used at ``at``) is explained elsewhere in ``low`` as a sparsity word."""
    esc = re.escape(mark)
    for note in re.finditer(rf"(?<![*†‡¹²³]){esc}(?![*†‡¹²³])[ \t]*([^\n*†‡¹²³]{{0,40}})", low):
        if note.start() != at and any(rx.match(note.group(1)) for rx in yes):
            return True
    return None


def _cells(line: str) -> list[tuple[int, int]] | None:
    """The cells of one table line as (start, end) offsets in it: split at "|" when it has one, else at a tab or a
    run of two spaces or more; None when the line is not a table row."""
    if "|" in line:
        cuts = [m.start() for m in re.finditer(r"\|", line)]
        bounds = [-1] + cuts + [len(line)]
        return [(a + 1, b) for a, b in zip(bounds, bounds[1:]) if line[a + 1:b].strip()]
    if not _GAP.search(line.strip()):
        return None
    out, pos = [], 0
    for m in _GAP.finditer(line):
        if line[pos:m.start()].strip():
            out.append((pos, m.start()))
        pos = m.end()
    if line[pos:].strip():
        out.append((pos, len(line)))
    return out if len(out) > 1 else None


def _line_end(low: str, at: int) -> int:
    end = low.find("\n", at)
    return len(low) if end < 0 else end


def headers(low: str, at: int) -> tuple[str, str]:
    r"""The row header and the column header of the table cell holding offset ``at`` (empty strings when ``at``
    is not in a table, or is itself a header cell). A plain-text table is read like a Markdown one: its first
    line of the same shape is the column header.

    >>> t = "precision    h100 sxm    h100 pcie\nfp8 tensor*    3,958 tflops    3,026 tflops"
    >>> headers(t, t.index("3,026"))
    ('fp8 tensor*', 'h100 pcie')
    >>> t = "| gpu | fp8 (sparse) |\n|---|---|\n| l4 | 485 |"
    >>> headers(t, t.index("485"))
    ('l4', 'fp8 (sparse)')
    >>> headers("the l4 has 24 gb.", 11)
    ('', '')
    """
    a, b = low.rfind("\n", 0, at) + 1, _line_end(low, at)
    line, cells = low[a:b], _cells(low[a:b])
    k = next((j for j, (x, y) in enumerate(cells or []) if x <= at - a <= y), None)
    if not cells or k is None or k == 0:
        return "", ""
    top = a                             # the first line of the table: lines above of its shape, or its rule row
    while top > 0:
        above = low.rfind("\n", 0, top - 1) + 1
        prev = low[above:top - 1]
        if not (_RULE.match(prev) or len(_cells(prev) or []) == len(cells)):
            break
        top = above
    first = low[top:_line_end(low, top)]
    head = _cells(first) if top < a else None
    col = first[head[k][0]:head[k][1]].strip() if head and len(head) == len(cells) else ""
    return line[cells[0][0]:cells[0][1]].strip(), col


def header_sparsity(low: str, at: int, yes: list[re.Pattern[str]], no: list[re.Pattern[str]]) -> bool | None:
    r"""Whether the row or column header of the table cell at ``at`` says its figures are with sparsity (True) or
    dense (False): a sparsity word in the header ("fp8 (sparse)", "稀疏"), or a header's footnote mark that the
    text explains as one ("fp8 tensor*" with "* with sparsity"); None when neither says.

    >>> yes, no = [re.compile(r"sparse|with\s+sparsity")], [re.compile(r"dense")]
    >>> t = "precision    h100 sxm\nfp8 tensor*    3,958 tflops\n* with sparsity"
    >>> header_sparsity(t, t.index("3,958"), yes, no)
    True
    >>> t = "gpu    bf16 dense\nh100    989 tflops"
    >>> header_sparsity(t, t.index("989"), yes, no)
    False
    """
    for cell in headers(low, at):
        if any(rx.search(cell) for rx in no):
            return False
        if any(rx.search(cell) for rx in yes):
            return True
        m = _END_MARK.search(cell)
        if m and _note_says(low, m.group(1), -1, yes):
            return True
    return None
