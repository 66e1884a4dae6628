"""The part of the reference tier a set of claims can reach, so a small audit (a checked text, a new
source) asserts tens of reference facts instead of the whole tier.

A claim's rules join it with reference facts about the entities it names (its subject, the entities
in its value and qualifiers), about what those inherit from (a family's GPU and sizes, an instance's
family, a variant's generic GPU and the reverse), with the catalog's structure (which family carries
which GPU, vendors, catalog membership, roles: a misattribution names the *other* product) and with the
constants of the formulas (precisions, optimizers, techniques, concepts). Sizing checks add the
models they size, including the catalog's smallest and largest (the probes). A test compares the
findings of a block audited with this subset against the same block audited with the whole tier.
"""
from __future__ import annotations

from typing import Any, Iterable

from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval

#: attributes of the catalog's structure, kept for every subject
STRUCTURE = frozenset({"gpu", "family", "in_catalog", "vendor", "exists", "role", "product_kind"})
#: kinds whose facts are constants of the formulas and the technique effects, always kept
CONSTANT_KINDS = frozenset({"concept", "precision", "optimizer", "technique", "method", "software"})


def _entities(x: Any, known: dict[str, Any]) -> Iterable[str]:
    if isinstance(x, str) and x in known:
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from _entities(y, known)


def reachable_subjects(view: ReleaseView, claims: list[Fact]) -> set[str]:
    """Every entity the claims name, closed under GPU, family, size and variant links."""
    vocab = view.kb.vocab
    known = vocab.entities
    todo: list[str] = []
    for c in claims:
        todo.append(c.subject)
        todo += list(_entities(c.value, known))
        for v in c.qualifiers.values():
            todo += list(_entities(v, known))
    sizes: dict[str, list[str]] = {}
    for f in view.reference:
        if f.attribute == "family" and isinstance(f.value, str):
            sizes.setdefault(f.value, []).append(f.subject)
    seen: set[str] = set()
    while todo:
        e = todo.pop()
        if e in seen:
            continue
        seen.add(e)
        todo.append(vocab.generic(e))
        todo += list(known.get(e, {}).get("variants") or ())
        todo += sizes.get(e, [])
        for attr in ("gpu", "family"):
            f = view.ref(e, attr)
            if f is not None:
                todo += list(_entities(f.value, known))
    return seen


def probe_models(view: ReleaseView) -> set[str]:
    """The catalog's smallest and largest models (what open-ended verdicts are probed with)."""
    models = sorted((f.norm.point(), f.subject) for f in view.reference
                    if f.attribute == "params" and f.subject.startswith("model:") and isinstance(f.norm, Interval)
                    and f.norm.point())
    return {models[0][1], models[-1][1]} if models else set()


def reachable_reference(view: ReleaseView, claims: list[Fact]) -> list[Fact]:
    """The reference facts the audit rules can join with ``claims`` (see the module docstring). Which
    GPU an unrelated family carries matters only to a claim that names that GPU as some family's (the
    family that really has it is what a misattribution names), so those links are kept for the GPUs
    that ``gpu`` claims name."""
    vocab = view.kb.vocab
    # a plain specification ("the T4 has 16 GB") reaches only that attribute of what it names; anything
    # else (verdicts, advice, roles, sizing) may read every fact of the entities it reaches
    spec = [c for c in claims if c.attribute in vocab.attributes and vocab.attributes[c.attribute].inherited_by
            and not c.qualifiers]
    other = [c for c in claims if c not in spec]
    keep = reachable_subjects(view, other) | probe_models(view)
    partial: dict[str, set[str]] = {}
    for c in spec:
        for e in reachable_subjects(view, [c]):
            partial.setdefault(e, set()).add(c.attribute)
    named = {c.subject for c in claims} | {e for c in claims for v in c.qualifiers.values() for e in _entities(v, vocab.entities)}
    named_gpus: set[str] = set()
    for c in claims:
        if c.attribute == "gpu":
            for g in _entities(c.value, vocab.entities):
                named_gpus |= {g, vocab.generic(g), *(vocab.entities.get(g, {}).get("variants") or ())}
    out = []
    for f in view.reference:
        kind = vocab.kind_of(f.subject)
        if kind == "instance" and f.attribute == "gpu" and f.subject not in named:
            continue          # a size's GPU matters to claims about that size; its figures feed the family's
        if f.subject in keep or kind in CONSTANT_KINDS or f.attribute in partial.get(f.subject, ()):
            out.append(f)
        elif f.subject in partial and f.attribute in STRUCTURE:
            out.append(f)
        elif f.attribute in ("gpu", "in_catalog", "vendor") and kind == "family":
            gpus = f.value if f.attribute == "gpu" else (view.ref(f.subject, "gpu").value if view.ref(f.subject, "gpu") else [])
            if named_gpus & {g for x in _entities(gpus, vocab.entities) for g in (x, vocab.generic(x))}:
                out.append(f)
    return out
