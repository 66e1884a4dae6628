"""A generic product's span of its variants' figures: which reference facts are such spans, the variants'
own figures they span, and the load-time check that each span is exactly that.

A generic product lists its variants in kb/vocabulary.yaml (gpu:A100 -> gpu:A100-40GB, gpu:A100-80GB). A
reference fact of it whose value is a range (R-A100-memory_gb: [40, 80]) is the span of its variants'
figures, not a continuum: an A100 has 40 GB or 80 GB, never 52. It is recognised from the vocabulary and
the value's shape, so no fact needs a marker; :func:`check_variant_spans` refuses a range of a product with
variants that does not span its variants' own figures. The audit's rules compare a single figure said of
the generic product with those figures (rules/audit/reference.yaml, audit.ref.variant_span.*).
"""
from __future__ import annotations

import math
from typing import Iterable

from ..core.errors import Issue
from .store import Fact
from .vocabulary import Interval, Vocabulary


def variants_of(vocab: Vocabulary, subject: str) -> list[str]:
    """The variants the vocabulary lists for a generic product ([] for any other entity)."""
    return [str(v) for v in vocab.entities.get(subject, {}).get("variants") or ()]


def is_variant_span(f: Fact, vocab: Vocabulary) -> bool:
    """Is ``f`` a reference range of a product with variants (the span of its variants' figures)?"""
    return f.tier == "reference" and isinstance(f.norm, Interval) and f.norm.kind == "range" \
        and bool(variants_of(vocab, f.subject))


def _order(f: Fact) -> tuple:
    iv = f.norm
    return (iv.lo, math.inf if iv.hi is None else iv.hi, f.key)


def variant_figures(facts: Iterable[Fact], vocab: Vocabulary, subject: str, attribute: str) -> list[Fact]:
    """The reference figures of ``subject``'s variants for ``attribute`` among ``facts`` (whatever their
    qualifiers: a form factor's figure is a variant's figure too), lowest first."""
    wanted = set(variants_of(vocab, subject))
    out = [f for f in facts if f.subject in wanted and f.attribute == attribute and f.tier == "reference"
           and isinstance(f.norm, Interval) and f.norm.lo is not None]
    return sorted(out, key=_order)


def check_variant_spans(facts: list[Fact], vocab: Vocabulary, issues: list[Issue]) -> None:
    """Each range of a product with variants (its latest version) must span its variants' figures of that
    attribute (their latest versions): both ends are variants' figures and every figure lies within it."""
    latest: dict[str, Fact] = {}
    for f in facts:
        if f.tier == "reference" and (f.id not in latest or f.version > latest[f.id].version):
            latest[f.id] = f
    refs = list(latest.values())
    for f in sorted(refs, key=lambda f: f.key):
        if not is_variant_span(f, vocab):
            continue
        figs = variant_figures(refs, vocab, f.subject, f.attribute)
        ends = [x for g in figs for x in (g.norm.lo, g.norm.hi) if x is not None]
        lo, hi = f.norm.lo, f.norm.hi
        if not figs:
            why = f"none of its variants ({', '.join(variants_of(vocab, f.subject))}) has a figure of it"
        elif not (math.isclose(min(ends), lo) and math.isclose(max(ends), hi)):
            shown = ", ".join(f"{g.subject.split(':')[-1]} {g.norm.text()}" for g in figs)
            why = f"its ends are not the lowest and highest of its variants' figures ({shown})"
        else:
            continue
        issues.append(Issue(f"{f.key}: a range of {f.subject}, which has variants, is read as the span of their "
                            f"{f.attribute} figures, but {why}", f.file, f.line, "value"))
