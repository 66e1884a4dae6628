"""The text reader reads Traditional Chinese characters (and the Japanese kanji that share them, 費, 電, 種) in
their Simplified form (:func:`gpukb.engine.core.casefold.nfkc_lower_aligned`), so a cue word written with such a
character matches no checked text unless its Simplified spelling is written beside it ("消費電力|消费电力")."""
from __future__ import annotations

import re

from gpukb.engine.core.casefold import nfkc_lower_aligned

from ._engine import bundled


def _patterns(cues):
    for group in cues.values():
        for patterns in group.values():
            yield from patterns


def test_every_cue_word_has_its_simplified_spelling():
    vocab = bundled().kb.vocab
    missing = []
    for pattern in _patterns(vocab.cues):
        for word in re.findall(r"[\u3040-\u30ff\u3400-\u9fff]+", pattern):
            simple = nfkc_lower_aligned(word)
            if simple != word and simple not in pattern:
                missing.append((word, simple))
    assert not missing, missing


def test_a_japanese_power_word_is_read_after_another_products_line(gpukb):
    from ._engine import checked
    text = "NVIDIA V100 SXM2\nメモリ:32/16 GB HBM2\nインターコネクト:NVLink 300 GB/s\n最大消費電力:300 W"
    assert [(c["attribute"], c["value"]) for c in checked(gpukb, text, "tdp_w")] == [("tdp_w", 300.0)]
