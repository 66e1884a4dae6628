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


#: the Arabic decimal and thousands separators, read as the English ones
_ARABIC_SEPARATORS = {"\u066b": ".", "\u066c": ","}


#: superscript digits: footnote marks ("compute¹"), not figures, kept as they are
_SUPERSCRIPTS = frozenset("¹²³⁴⁵⁶⁷⁸⁹⁰")


def _nfkc_lower(c: str) -> str:
    if c in _SUPERSCRIPTS:
        return c
    if c.isdecimal() and not c.isascii():      # Arabic-Indic, Persian, Devanagari ... digits: "۱۲۸" is 128
        return str(unicodedata.decimal(c))
    if c in _ARABIC_SEPARATORS:
        return _ARABIC_SEPARATORS[c]
    n = unicodedata.normalize("NFKC", c).lower()
    n = n if len(n) == 1 else _lower(c) if len(c.lower()) == 1 else " "
    return _simplified().get(n, n) if "\u3400" <= n <= "\U0002ffff" else n


_SIMPLIFIED: dict[str, str] = {}


def _simplified() -> dict[str, str]:
    """Traditional Chinese character -> its Simplified form, where that is one character: OpenCC's character
    dictionary (TSCharacters.txt, first candidate), so a text in Traditional characters ("訓練需求") reads as the
    Simplified cue words of the vocabulary ("训练需求")."""
    if not _SIMPLIFIED:
        from importlib.resources import files
        for line in files("opencc").joinpath("dictionary/TSCharacters.txt").read_text(encoding="utf-8").splitlines():
            trad, _, simp = line.partition("\t")
            first = simp.split(" ")[0]
            if len(trad) == 1 and len(first) == 1:
                _SIMPLIFIED[trad] = first
    return _SIMPLIFIED


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
    where that does, else a space, a digit of any script as its ASCII digit (a superscript one stays: a footnote
    mark), and a Traditional Chinese character in its Simplified form (the map of :func:`engine.text.tokens.aligned_lower`).

    >>> nfkc_lower_aligned("Ａ１００ ﬁ İ 顯存 ۱۲۸ ١٫٥ २४ TFLOPS¹")
    'a100 ﬁ   显存 128 1.5 24 tflops¹'
    """
    return text.translate(_NFKC_LOWER)
