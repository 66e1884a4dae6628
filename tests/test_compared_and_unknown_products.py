"""Whose figure a sentence gives, when another product stands near it: a word value written after a product gpukb
does not know ("the RTX PRO 4000 Blackwell uses the Blackwell architecture") may be that product's; "the latter" and
"the former" speak of one product of the sentence before; a German comparative of any adjective ("sparsamer als die
RTX 4090", "effizienter laufen als die …") names what is compared with, and a heading that names a product only so
("Schneller als die RTX 4090") makes it no section's subject. Sentences written for these tests; figures from the
NVIDIA RTX A6000, L40S and GeForce RTX 4090 specifications (A6000: Ampere, 48 GB, 768 GB/s; L40S: 48 GB, 864 GB/s,
350 W; RTX 4090: 24 GB, 450 W, 82.6 TFLOPS FP32)."""
from __future__ import annotations

from ._engine import checked

WRONG = ("incorrect", "overstated", "understated", "misattributed", "contradicted", "inconsistent_with_derivation")


def _wrong(gpukb, text):
    return [(c["subject"], c["attribute"], c["value"]) for c in checked(gpukb, text) if c["status"] in WRONG]


def test_a_word_value_after_an_unknown_product_is_not_the_known_ones(gpukb):
    text = "The RTX A6000 is built on Ampere, while the RTX PRO 4000 Blackwell uses the Blackwell architecture."
    assert not _wrong(gpukb, text)
    # said of the known card alone, the wrong architecture is still found
    assert _wrong(gpukb, "The RTX A6000 is built on the Blackwell architecture.") == [("gpu:RTX-A6000", "architecture", "Blackwell")]


def test_the_latter_is_not_the_product_named_after_its_figure(gpukb):
    text = "The RTX A6000 and the L40S both carry 48 GB.\nThe latter reaches 864 GB/s, 12% more than the A6000."
    assert not _wrong(gpukb, text)


def test_a_german_comparative_names_what_is_compared_with(gpukb):
    assert not _wrong(gpukb, "Mit 300 Watt arbeitet die Workstation-Karte deutlich effizienter als die GeForce RTX 4090.")
    assert not _wrong(gpukb, "Mit 300 Watt soll die Karte effizienter laufen als die GeForce RTX 4090.")


def test_a_heading_that_only_compares_makes_no_section_subject(gpukb):
    text = "## Schneller als die GeForce RTX 4090\n\nDie Karte erreicht 91,1 TFLOPS FP32-Rechenleistung."
    assert not _wrong(gpukb, text)
    # a heading naming the card itself still makes it the section's subject
    got = _wrong(gpukb, "## GeForce RTX 4090\n\nDie Karte erreicht 91,1 TFLOPS FP32-Rechenleistung.")
    assert got == [("gpu:RTX-4090", "fp32_tflops", 91.1)], got
