"""How a text writes its numbers: with a decimal point and commas between thousands ("2,039.5 GB/s"), as English
and Chinese texts do, or with a decimal comma and dots between thousands ("3,35 TB/s", "1.979 TFLOPS"), as German,
French, Spanish, Italian, Portuguese, Dutch, Turkish and Russian texts do. The format is decided once for the whole
text from its unambiguous figures, and a text of the second kind is read with its separators swapped, so every
reader downstream sees English figures (and a decimal comma no longer ends a clause).

>>> units = [re.compile(r"\\s*(?:tb/s|tflops)")]
>>> english_format("die h100 sxm bietet 3,35 tb/s und 1.979 tflops (llama 3.1).", units)
'die h100 sxm bietet 3.35 tb/s und 1,979 tflops (llama 3.1).'
>>> english_format("the h100 sxm offers 3.35 tb/s and 1,979 tflops.", units)
'the h100 sxm offers 3.35 tb/s and 1,979 tflops.'
"""
from __future__ import annotations

import re
from typing import Iterable

# a number, with thousands separators ("2,039 GB/s"), never the tail of one (",039"), but after a name's digit and a
# comma ("GDDR6,320 GB/s"); glued to a word only with separators, as the cells of a table copied without borders
# are ("Bandwidth2,039 GB/s3,350 GB/s"), never to a memory type's or precision's digit ("GDDR6,320" is no 6,320)
NUM = re.compile(r"(?:(?<![0-9.a-z_])(?:(?<!\d,)|(?<=[a-z]\d,)|(?<=[a-z]\d\d,))"
                 r"|(?<=[a-z])(?<!gddr)(?<!hbm)(?<!ddr)(?<!fp)(?<!bf)(?<!int)(?<!tf)(?=\d{1,3}(?:,\d{3})+(?![0-9])))"
                 r"((?:\d{1,3}(?:,\d{3})+|\d{1,7})(?:\.\d{1,4})?)(?![0-9]|\.[0-9]|,\d{3}(?!\d))")
# the same in a text with decimal commas: "1.979", "3,35", "19,5"; never the tail of one (".979", ",35")
NUM_CONTINENTAL = re.compile(r"(?<![0-9,a-z_])(?<!\d\.)((?:\d{1,3}(?:\.\d{3})+|\d{1,7})(?:,\d{1,4})?)"
                             r"(?![0-9]|,[0-9]|\.\d{3}(?!\d))")

#: what joins two figures into a range ("16-32 GB", "16 GB to 32 GB", "40GB 或 80GB"), and a bare number before one
RANGE_JOIN = re.compile(r"\s*(?:-|–|—|~|～|〜|to|(?<!达)(?<!達)到|至|or|或|/)\s*$")
BARE_RANGE = re.compile(r"(\d{1,7}(?:\.\d{1,4})?)\s*(?:-|–|—|~|～|〜|(?<![a-z])to|到|至)\s*$")
BARE_LIST = re.compile(r"(\d{1,7}(?:\.\d{1,4})?)\s*[a-z]{0,3}\s*/\s*(?:\d{1,7}(?:\.\d{1,4})?\s*[a-z]{0,3}\s*/\s*)*$")
LIST_JOIN = re.compile(r"\s*(?:or|或|/)\s*")

#: a figure whose separator can only be a decimal one: one or two digits after it ("3,35", "19.5"), standing alone
#: (not "HBM3,80GB", where a comma ends a clause after a name, nor a version "4.0.1")
_DECIMAL_COMMA = re.compile(r"(?<![\w.,])\d{1,4},\d{1,2}(?![\d,.])")
_DECIMAL_POINT = re.compile(r"(?<![\w.,])\d{1,4}\.\d{1,2}(?![\d,.])")
#: Chinese, Japanese and Korean text writes decimal points; a comma there separates items ("16,32GB")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_CJK_NEAR = 24


def _with_unit(rx: re.Pattern[str], low: str, units: tuple[re.Pattern[str], ...]) -> list[re.Match[str]]:
    """The matches of ``rx`` in ``low`` that a unit follows."""
    return [m for m in rx.finditer(low) if any((u := rx_unit.match(low, m.end())) and u.end() > m.end() for rx_unit in units)]


def continental(low: str, units: Iterable[re.Pattern[str]]) -> bool:
    """Does ``low`` write decimal commas: at least one figure with a unit whose comma can only be a decimal one
    ("3,35 TB/s"), outside Chinese, Japanese or Korean text, and no figure with a unit written with a decimal point
    ("3.35 TB/s")? A text that writes both, or neither, is read the English way (one decision for the whole text)."""
    units = tuple(units)
    commas = [m for m in _with_unit(_DECIMAL_COMMA, low, units)
              if not _CJK.search(low, max(0, m.start() - _CJK_NEAR), m.end() + _CJK_NEAR)]
    return bool(commas) and not _with_unit(_DECIMAL_POINT, low, units)


def english_format(low: str, units: Iterable[re.Pattern[str]]) -> str:
    """``low`` with the separators of its figures swapped ("1.979" → "1,979", "3,35" → "3.35") when it writes
    decimal commas (:func:`continental`), else ``low`` itself; one character for one, so spans stay the text's."""
    if not continental(low, units):
        return low
    return NUM_CONTINENTAL.sub(lambda m: m.group(0).translate(_SWAP), low)


_SWAP = str.maketrans(".,", ",.")
