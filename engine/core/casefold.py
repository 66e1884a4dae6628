"""Same-length lower-casing of a text, one character for one, so spans found in the copy are spans of the
original: ``str.translate`` over a table that learns each character the first time it is met, instead of a
Python loop over the characters (the check lower-cases its text several times; a 32k text was 30 ms a pass).
"""
from __future__ import annotations

import unicodedata
from typing import Callable

#: characters a table keeps (a text of rare characters is still translated right, just not remembered)
TABLE_SIZE = 65536


class _Table(dict):
    """Character code -> the character ``fn`` makes of it, filled as characters are met (``str.translate``
    looks a missing code up through ``__missing__``)."""

    def __init__(self, fn: Callable[[str], str]):
        super().__init__()
        self.fn = fn

    def __missing__(self, code: int) -> str:
        out = self.fn(chr(code))
        if len(self) < TABLE_SIZE:
            self[code] = out
        return out


def _lower(c: str) -> str:
    low = c.lower()
    return low if len(low) == 1 else c


def _nfkc_lower(c: str) -> str:
    n = unicodedata.normalize("NFKC", c).lower()
    return n if len(n) == 1 else _lower(c) if len(c.lower()) == 1 else " "


_LOWER = _Table(_lower)
_NFKC_LOWER = _Table(_nfkc_lower)


def lower_aligned(text: str) -> str:
    """Each character lower-cased where that keeps it one character, else left as it is.

    >>> lower_aligned("GPU İ A100")
    'gpu İ a100'
    """
    return text.translate(_LOWER)


def nfkc_lower_aligned(text: str) -> str:
    """Each character NFKC-normalised and lower-cased where that gives one character, else lower-cased
    where that does, else a space (the character map of :func:`engine.text.tokens.aligned_lower`).

    >>> nfkc_lower_aligned("Ａ１００ ﬁ İ")
    'a100 ﬁ  '
    """
    return text.translate(_NFKC_LOWER)
