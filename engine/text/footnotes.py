"""Footnote marks on figures: datasheets print their with-sparsity rates as "1,979 TFLOPS*" and say what the mark
means once, elsewhere ("* With sparsity")."""
from __future__ import annotations

import re

#: a footnote mark right after a figure ("485 TFLOPS*", "1,979 TFLOPS¹")
_MARK = re.compile(r"[ \t]*(\*{1,3}|†|‡|¹|²|³)")


def footnoted(low: str, end: int, yes: list[re.Pattern[str]]) -> bool | None:
    r"""True when the figure ending at ``end`` carries a footnote mark ("485 TFLOPS*") and the text gives that
    footnote elsewhere as a sparsity word ("*With sparsity", "¹ 稀疏"), as datasheets print their sparse rates;
    else None.

    >>> yes = [re.compile(r"with\s+sparsity")]
    >>> footnoted("fp8 485 tflops*, 24 gb. *with sparsity.", 14, yes)
    True
    >>> footnoted("fp8 485 tflops*. *measured on one gpu.", 14, yes) is None
    True
    """
    m = _MARK.match(low, end)
    if m is None:
        return None
    mark = re.escape(m.group(1))
    for note in re.finditer(rf"(?<![*†‡¹²³]){mark}(?![*†‡¹²³])[ \t]*([^\n*†‡¹²³]{{0,40}})", low):
        if note.start() != m.start(1) and any(rx.match(note.group(1)) for rx in yes):
            return True
    return None
