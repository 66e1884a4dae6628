"""engine.core.casefold: the table-driven lower-casing gives, character for character, what the Python
loops it replaced gave (aligned_lower of the text reader, the same-length lower-casing of names and
questions), with Traditional Chinese characters in their Simplified form and the digits of every script (and
the Arabic separators) as ASCII ones for the text reader, superscript digits (footnote marks) left as they are."""
from __future__ import annotations

import unicodedata

from gpukb.engine.core.casefold import lower_aligned, nfkc_lower_aligned
from gpukb.engine.text.tokens import aligned_lower


def _traditional_to_simplified() -> dict[str, str]:
    """OpenCC's one-character Traditional -> Simplified pairs (the first candidate), read here on their own."""
    from importlib.resources import files
    pairs = {}
    for line in files("opencc").joinpath("dictionary/TSCharacters.txt").read_text(encoding="utf-8").splitlines():
        trad, simp = line.split("\t")
        if len(trad) == 1 and len(simp.split()[0]) == 1:
            pairs[trad] = simp.split()[0]
    return pairs


_T2S = _traditional_to_simplified()


def _loop_nfkc(text: str) -> str:
    out = []
    for c in text:
        if c in "¹²³⁴⁵⁶⁷⁸⁹⁰":                        # a superscript digit is a footnote mark: it stays
            out.append(c)
            continue
        if c.isdecimal() and not c.isascii():        # a digit of any script reads as its ASCII digit
            out.append(str(unicodedata.decimal(c)))
            continue
        if c in "\u066b\u066c":                       # the Arabic decimal and thousands separators
            out.append("." if c == "\u066b" else ",")
            continue
        n = unicodedata.normalize("NFKC", c).lower()
        n = n if len(n) == 1 else c.lower() if len(c.lower()) == 1 else " "
        out.append(_T2S.get(n, n))
    return "".join(out)


def _loop_lower(text: str) -> str:
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def test_every_character_of_the_basic_plane_maps_as_the_loops_did():
    text = "".join(chr(i) for i in range(0x10000))       # lone surrogates included
    assert nfkc_lower_aligned(text) == _loop_nfkc(text)
    assert lower_aligned(text) == _loop_lower(text)
    assert len(nfkc_lower_aligned(text)) == len(text) == len(lower_aligned(text))


def test_characters_beyond_the_basic_plane_too():
    text = "".join(chr(i) for i in range(0x10000, 0x30000, 7))
    assert nfkc_lower_aligned(text) == _loop_nfkc(text) and lower_aligned(text) == _loop_lower(text)


def test_aligned_lower_keeps_the_last_text_and_answers_each_text_its_own():
    a, b = "H100 ＳＸＭ has 80GB", "İ A100\ue000X"
    assert aligned_lower(a) == _loop_nfkc(a)
    assert aligned_lower(b) == _loop_nfkc(b).replace("\ue000", " ")
    assert aligned_lower(a) == _loop_nfkc(a) and aligned_lower(a) is aligned_lower(a)


def test_traditional_characters_read_as_simplified_and_simplified_ones_stay():
    assert nfkc_lower_aligned("顯存與訓練") == "显存与训练"
    assert nfkc_lower_aligned("显存与训练") == "显存与训练"
