"""An abbreviation's full stop ("vs.", "e.g.", "ca.", "bzw.") ends no sentence, and a product named only as what another
is compared with is not the subject the next lines inherit. Sentences written for these tests."""
from __future__ import annotations

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.text.tokens import aligned_lower, sentences


@pytest.mark.parametrize("text, pieces", [
    ("The H200 has 141 GB vs. 80 GB on the H100.", 1),
    ("Cards such as the L4, e.g. for inference, have 24 GB.", 1),
    ("Die L40S hat ca. 48 GB bzw. 864 GB/s.", 1),
    ("Training runs on the A100. Next, the H100 has 80 GB.", 2),
])
def test_an_abbreviation_ends_no_sentence(text, pieces):
    low = aligned_lower(text)
    assert len(sentences(low)) == pieces


def test_a_list_item_after_a_comparison_keeps_the_list_product(gpukb):
    text = "NVIDIA H200\n\nSpezifikationen\n\n  • 141GB HBM3e-Speicher (vs. H100's 80GB)\n  • 4,8 TB/s Speicherbandbreite\n"
    claims = extract(text, gpukb.kb.vocab).claims
    assert [c.subject for c in claims if c.attribute == "memory_bandwidth"] == ["gpu:H200"]
