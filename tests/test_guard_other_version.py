"""A GPU figure in a sentence (or earlier on its line) that calls the product a variant, a modified, custom or new
version ("a modified RTX 4090", "魔改版", "Varianten") may be that version's, which gpukb does not know: a wrong status
is withheld (guard other_version). The same figure said of the product itself is still judged. Sentences written
for these tests."""
from __future__ import annotations

import pytest


def _memory(gpukb, text):
    return [(str(getattr(c.status, "value", c.status)), [g.code for g in (c.get("unclear_because") or [])])
            for c in gpukb.check(text).claims if c.attribute == "memory_gb"]


@pytest.mark.parametrize("text", [
    "A modified RTX 4090 with 40 GB of memory has appeared in China.",
    "Die neuen A100-Varianten verfügen über 96 GB HBM2e.",
    "魔改版的 A100 拥有 96GB 显存。",
    "Diese verbesserten A100-Modelle verfügen über 96 GB HBM2e.",
    "An upgraded A100 with 96 GB of HBM2e has been spotted in China.",
    "这款增强版 A100 配备 96GB 显存。",
    "Une A100 améliorée avec 96 Go de HBM2e a été repérée.",
])
def test_a_figure_of_a_version_the_text_calls_modified_is_not_called_wrong(gpukb, text):
    got = _memory(gpukb, text)
    assert got and all(s != "incorrect" for s, _ in got), got
    assert any("other_version" in codes for _, codes in got), got


@pytest.mark.parametrize("text", [
    "The A100 has 96 GB of HBM2e.",
    "Die A100 verfügt über 96 GB HBM2e.",
])
def test_the_figure_said_of_the_product_is_judged(gpukb, text):
    assert ("incorrect", []) in _memory(gpukb, text)
