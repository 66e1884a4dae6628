"""A text in Traditional Chinese characters reads as its Simplified form (the vocabulary's cue words are
Simplified), one character for one, so quotes and spans stay the text's. Sentences written for these tests."""
from __future__ import annotations

import pytest

from gpukb.engine.core.casefold import nfkc_lower_aligned


def test_the_map_keeps_one_character_for_one():
    text = "推理需求：7B模型在FP16精度下需要約14GB顯存，單卡RTX 3090即可滿足。"
    low = nfkc_lower_aligned(text)
    assert len(low) == len(text) and "显存" in low and "单卡" in low and "rtx 3090" in low


@pytest.mark.parametrize("simplified, traditional", [
    ("推理需求：7B模型在FP16精度下需要约14GB显存。", "推理需求：7B模型在FP16精度下需要約14GB顯存。"),
    ("T4 显卡的显存为 16GB，带宽为 320GB/s。", "T4 顯卡的顯存為 16GB，帶寬為 320GB/s。"),
])
def test_traditional_text_gives_the_claims_of_its_simplified_form(gpukb, simplified, traditional):
    def read(text):
        return [(c["subject"], c["attribute"], c["value"], c["status"], c["quote"]) for c in gpukb.check(text).to_json()["claims"]]
    a, b = read(simplified), read(traditional)
    assert a and [x[:4] for x in a] == [x[:4] for x in b]
    assert all(q in traditional for *_, q in b)         # quotes are the text's own characters
