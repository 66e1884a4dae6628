"""Blocking for the audit: which facts a set of claims can meet, so the rules see no more than they need.

:func:`reachable_reference` gives the part of the reference tier a set of claims can reach, so a small
audit (a checked text, a new source) asserts tens of reference facts instead of the whole tier;
:func:`group_pairs` gives the pairs of value groups the claim-vs-claim rules compare, bounded per group.

A claim's rules join it with reference facts about the entities it names (its subject, the entities
in its value and qualifiers), about what those inherit from (a family's GPU and sizes, an instance's
family, a variant's generic GPU and the reverse), with the catalog's structure (which family carries
which GPU, vendors, catalog membership, roles: a misattribution names the *other* product) and with the
constants of the formulas (precisions, optimizers, techniques, concepts). Sizing checks add the
models they size, including the catalog's smallest and largest (the probes). A test compares the
findings of a block audited with this subset against the same block audited with the whole tier.

It is a little over 400 lines because its three blockings (the reference a claim reaches, the group
pairs, the work units and batches built on both) are one notion of what a claim can meet, tuned
together for the incremental audit (:mod:`.audit_keys`, :mod:`.audit_run`); units and batches are the
part to move out should it grow.
"""
from __future__ import annotations

import functools
from typing import Any, Iterable

from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval
from ..kb.qualifiers import scope as qparse
from .functions import SCOPE_KEYS

#: attributes of the catalog's structure, kept for every subject
STRUCTURE = frozenset({"gpu", "family", "in_catalog", "vendor", "exists", "role", "product_kind"})
#: kinds whose facts are constants of the formulas and the technique effects, always kept
#: what ties a family to its GPU and vendor, kept for the families carrying a GPU a claim names
FAMILY_LINKS = ("gpu", "in_catalog", "vendor", "role")
CONSTANT_KINDS = frozenset({"concept", "precision", "optimizer", "technique", "method", "software"})


def _entities(x: Any, known: dict[str, Any]) -> Iterable[str]:
    if isinstance(x, str) and x in known:
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from _entities(y, known)


def _sizes_of(view: ReleaseView) -> dict[str, list[str]]:
    """Family -> its sizes (instances), from the reference tier."""
    sizes: dict[str, list[str]] = {}
    for f in view.reference:
        if f.attribute == "family" and isinstance(f.value, str):
            sizes.setdefault(f.value, []).append(f.subject)
    return sizes


def reachable_subjects(view: ReleaseView, claims: list[Fact], sizes: dict[str, list[str]] | None = None) -> set[str]:
    """Every entity the claims name or their sources are about, closed under GPU, family, size and variant links (``sizes``: the
    family-to-sizes map, when the caller already has it)."""
    vocab = view.kb.vocab
    known = vocab.entities
    todo: list[str] = []
    for c in claims:
        todo.append(c.subject)
        src = view.kb.sources.get(c.source or "")
        todo += [e for e in (src.about if src else ()) if e in known]     # the context a claim is judged in
        todo += list(_entities(c.value, known))
        for v in c.qualifiers.values():
            todo += list(_entities(v, known))
    sizes = _sizes_of(view) if sizes is None else sizes
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
    models = catalog_models(view)
    return {models[0][1], models[-1][1]} if models else set()


def catalog_models(view: ReleaseView, families: list[str] | None = None,
                   sequence: Any = None) -> list[tuple[float, str]]:
    """The catalog's models with their parameter counts, smallest first; within the named model
    families ("ResNet" = resnet-50, resnet-101) when the catalog has members of them, and among
    sequence models (those with a hidden size: transformers) when ``sequence``, the sequence length a
    claim names (its ``seq_len`` qualifier as it is; only an :class:`Interval` narrows): among them, those trained for that length (``max_context``), not
    those whose input has a fixed size (``input_tokens``, a vision transformer's patches), when any are."""
    models = sorted((f.norm.point(), f.subject) for f in view.reference
                    if f.attribute == "params" and f.subject.startswith("model:") and isinstance(f.norm, Interval)
                    and f.norm.point())
    stems = [m.split(":", 1)[1] + "-" for m in families or []]
    members = [x for x in models if any(x[1].split(":", 1)[1].startswith(st) for st in stems)] or models
    if isinstance(sequence, Interval):
        members = [m for m in members if view.ref(m[1], "hidden_size") is not None] or members
        length = sequence.lo or sequence.hi
        if length:
            members = [m for m in members if view.ref(m[1], "input_tokens") is None and _trained_for(view, m[1], length)] \
                or members
    return members


def _trained_for(view: ReleaseView, model: str, length: float) -> bool:
    """Was ``model`` trained for sequences of ``length`` tokens (its ``max_context`` reaches it)?"""
    ref = view.ref(model, "max_context")
    n = ref.norm.point() if ref is not None and isinstance(ref.norm, Interval) else None
    return bool(n) and n >= length


def _tier_index(view: ReleaseView) -> dict[str, Any]:
    """What :func:`reachable_reference` reads of the reference tier, built once per release view."""
    idx = view.__dict__.get("_reach_index")
    if idx is None:
        vocab = view.kb.vocab
        pos, by_subject, constant, family_links = {}, {}, [], []
        for i, f in enumerate(view.reference):
            pos[f.key] = i
            by_subject.setdefault(f.subject, []).append(f)
            kind = vocab.kind_of(f.subject)
            if kind in CONSTANT_KINDS:
                constant.append(f)
            elif kind == "family" and f.attribute in FAMILY_LINKS:
                family_links.append(f)
        # families with a documented role and the GPU each carries: what a GPU-level bottleneck is
        # measured against (rules/audit/bottlenecks.yaml)
        peers = {f.subject for f in family_links if f.attribute == "role"}
        peers |= {g for f in family_links if f.attribute == "gpu" and f.subject in peers for g in _entities(f.value, vocab.entities)}
        idx = {"pos": pos, "by_subject": by_subject, "constant": constant, "family_links": family_links,
               "sizes": _sizes_of(view), "probes": probe_models(view), "peers": peers}
        view.__dict__["_reach_index"] = idx
    return idx


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
    spec_ids = {id(c) for c in spec}
    other = [c for c in claims if id(c) not in spec_ids]
    idx = _tier_index(view)
    sizes = idx["sizes"]
    keep = reachable_subjects(view, other, sizes) | idx["probes"]
    if any(vocab.measures(c.attribute, c.value)[0] for c in claims) \
            or any(vocab.kind_of(c.subject) == "gpu" and c.attribute in ("role", "suitability") for c in claims):
        keep |= idx["peers"]      # measured against the GPUs of the large-scale-training families
    for c in claims:              # a claim about a generic GPU reads its variants' figures
        keep |= {str(v) for v in vocab.entities.get(c.subject, {}).get("variants") or ()}
    for c in claims:        # a model family a claim names is probed through its smallest and largest member
        fams = [m for m in _entities(c.qualifiers.get("model") or [], vocab.entities) if view.ref(m, "params") is None]
        sequence = c.qualifiers.get("seq_len")
        if fams or isinstance(sequence, Interval):
            members = catalog_models(view, fams, sequence=sequence)
            keep |= {members[0][1], members[-1][1]} if members else set()
    partial: dict[str, set[str]] = {}
    for c in spec:
        for e in reachable_subjects(view, [c], sizes):
            partial.setdefault(e, set()).add(c.attribute)
    named = {c.subject for c in claims} | {e for c in claims for v in c.qualifiers.values() for e in _entities(v, vocab.entities)}
    named_gpus: set[str] = set()
    for c in claims:
        # the families carrying a GPU that a claim names as some family's, or whose role a claim states
        gpus = c.value if c.attribute == "gpu" else [c.subject] if c.attribute == "role" and vocab.kind_of(c.subject) == "gpu" else []
        for g in _entities(gpus, vocab.entities):
            named_gpus |= {g, vocab.generic(g), *(vocab.entities.get(g, {}).get("variants") or ())}
    by_subject = idx["by_subject"]
    candidates = {f.key: f for f in idx["constant"]}
    for subj in keep | set(partial):
        for f in by_subject.get(subj, ()):
            candidates.setdefault(f.key, f)
    if named_gpus:
        for f in idx["family_links"]:
            candidates.setdefault(f.key, f)
    out = []
    for f in sorted(candidates.values(), key=lambda f: idx["pos"][f.key]):
        kind = vocab.kind_of(f.subject)
        if kind == "instance" and f.attribute == "gpu" and f.subject not in named:
            continue          # a size's GPU matters to claims about that size; its figures feed the family's
        if f.subject in keep or kind in CONSTANT_KINDS or f.attribute in partial.get(f.subject, ()):
            out.append(f)
        elif f.subject in partial and f.attribute in STRUCTURE:
            out.append(f)
        elif f.attribute in FAMILY_LINKS and kind == "family":
            gpus = f.value if f.attribute == "gpu" else (view.ref(f.subject, "gpu").value if view.ref(f.subject, "gpu") else [])
            if named_gpus & {g for x in _entities(gpus, vocab.entities) for g in (x, vocab.generic(x))}:
                out.append(f)
    return out


#: a bucket of at most this many groups is compared pair by pair (every bucket of the bundled KB is);
#: a larger one against bounded representatives (see :func:`group_pairs`)
PAIRWISE_LIMIT = 128
#: representatives of other scopes each group of a large bucket is compared with (at most)
OTHER_SCOPE_REPS = 12


def group_pairs(groups: list[dict[str, Any]], limit: int | None = None,
                samples: set[str] | None = None) -> list[tuple[str, str]]:
    """The ordered pairs of value groups the claim-vs-claim rules compare, as (group id, group id)
    (:func:`pair_records` makes them the rules' ``cpair`` records; a large audit keeps millions of
    pairs in its plan, so they are kept as tuples, not records).

    Groups are compared within a *bucket*: the verdicts about one subject (a memory verdict may meet a
    suitability verdict), else one subject and attribute. A bucket of at most ``limit`` groups is
    compared pair by pair. In a larger bucket each group is compared with the representatives of its
    own scope (the groups with the lowest and the highest figure, and the first group of each value and
    verdict polarity) and with a fixed number of representatives of other scopes. A group that
    contradicts some group of its own scope contradicts one of its scope's representatives (the most
    distant figure, or the first group of the other value), so its status is the one pairwise
    comparison gives, with the finding named against a representative; differences of scope are looked
    for among the fixed sample only, in both directions (a claim's status reads the pairs its group is
    first in, so a sample member that contradicts a group must see it from both sides, as pairwise
    comparison does). The comparisons then grow with the number of groups instead of its
    square. ``samples``, when given, receives the ids of the sample's groups (:func:`.units.units`
    gives them units of their own, whose comparisons in reverse run in the other groups' units).
    """
    limit = PAIRWISE_LIMIT if limit is None else limit
    buckets: dict[tuple, list[dict[str, Any]]] = {}
    for g in groups:
        buckets.setdefault(bucket(g), []).append(g)
    out: list[tuple[str, str]] = []
    done: set[tuple[str, str]] = set()

    def pair(a: dict[str, Any], b: dict[str, Any]) -> None:
        if a is b:
            return
        s = a.get("sources")          # not one_source(a, b), inline (a large plan asks it millions of times)
        if s is None or a.get("n_sources") != 1 or s != b.get("sources"):
            ab = (a["gid"], b["gid"])
            if ab not in done:
                done.add(ab)
                out.append(ab)

    for members in buckets.values():
        if len(members) <= limit:      # every ordered pair but a group's own and those of one source
            ids = [g["gid"] for g in members]
            srcs = [g.get("sources") for g in members]
            for a, ga in zip(members, ids):
                solo = a.get("sources") if a.get("n_sources") == 1 else None
                if solo is None:
                    new = [(ga, gb) for b, gb in zip(members, ids) if b is not a]
                else:
                    new = [(ga, gb) for b, gb, sb in zip(members, ids, srcs) if b is not a and sb != solo]
                out.extend(new)    # distinct groups have distinct ids: no pair is made twice
            continue
        by_scope: dict[Any, list[dict[str, Any]]] = {}
        for g in members:
            by_scope.setdefault(scope_of(g), []).append(g)
        scope_reps: dict[Any, list[dict[str, Any]]] = {}
        for scope, gs in by_scope.items():
            reps: dict[str, dict[str, Any]] = {}
            with_lo = [g for g in gs if g.get("lo") is not None]
            with_hi = [g for g in gs if g.get("hi") is not None]
            if with_lo:
                low = min(with_lo, key=lambda g: (g["lo"], g["gid"]))
                reps[low["gid"]] = low
            if with_hi:
                high = max(with_hi, key=lambda g: (g["hi"], g["gid"]))
                reps[high["gid"]] = high
            seen: set[Any] = set()
            for g in gs:               # figures are met through the extremes; other values one group each
                k = (None if g.get("lo") is not None or g.get("hi") is not None else g.get("vstr"),
                     g.get("polarity"), g.get("modality"))
                if k not in seen:
                    seen.add(k)
                    reps[g["gid"]] = g
            scope_reps[scope] = list(reps.values())
        sample = _sample(members)
        if samples is not None:
            samples.update(r["gid"] for r in sample)
        for g in members:          # every group, representatives included, meets its scope's and the sample
            for r in scope_reps[scope_of(g)]:
                pair(g, r)
            for r in sample:       # both ways: a status is decided by the pairs a group is first in
                pair(g, r)
                pair(r, g)
    return out


def one_source(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two groups rest on one and the same single source. Every claim-vs-claim rule compares
    two sources (``h.n_sources != 1 or h.sources != g.sources`` in ``rules/audit/claims.yaml``), so such
    a pair is never planned: a checked text, one source, then has no pairs at all instead of a square
    number of them that every rule rejects."""
    return a.get("n_sources") == 1 and a.get("sources") is not None and a.get("sources") == b.get("sources")


def pair_records(pairs: Iterable[tuple[str, str]]) -> list[dict[str, Any]]:
    """The ``cpair`` records of pairs of groups (:func:`group_pairs`), as the rules read them."""
    return [{"t": "cpair", "fk": f"pair:{a}:{b}", "a": a, "b": b} for a, b in pairs]


def scope_of(g: dict[str, Any]) -> tuple:
    """What the claim-vs-claim rules compare of a group's scope: its attribute and the qualifiers
    ``scope_diff`` reads (groups equal on these are always in compatible scopes)."""
    return _scope(g.get("attribute"), g.get("qsig") or "")


@functools.lru_cache(maxsize=65536)
def _scope(attribute: Any, qsig: str) -> tuple:
    """:func:`scope_of`, parsed once per attribute and qualifier signature (a large bucket asks it of
    every group several times)."""
    q = qparse(qsig)
    return (attribute,) + tuple(sorted((k, v) for k, v in q.items() if k in SCOPE_KEYS or k == "condition"))


def _sample(members: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Representatives of a large bucket across scopes: for each attribute, the two lowest and the two
    highest figures from distinct scopes; for each verdict polarity, task and GPU, and for each value,
    the first groups of two distinct scopes (what a difference of scope is found against)."""
    picked: dict[str, dict[str, Any]] = {}

    def take(gs: list[dict[str, Any]], n: int = 2) -> None:
        scopes: set[tuple] = set()
        for g in gs:
            if len(scopes) >= n:
                break
            if scope_of(g) not in scopes:
                scopes.add(scope_of(g))
                picked.setdefault(g["gid"], g)
    by_attr: dict[Any, list[dict[str, Any]]] = {}
    by_kind: dict[Any, list[dict[str, Any]]] = {}
    for g in members:
        by_attr.setdefault(g.get("attribute"), []).append(g)
        k = (g.get("attribute"), g.get("polarity"), g.get("q_task"), g.get("q_gpu")) if g.get("polarity") is not None \
            else (g.get("attribute"), g.get("vstr"))
        by_kind.setdefault(k, []).append(g)
    for gs in by_attr.values():
        take(sorted((g for g in gs if g.get("lo") is not None), key=lambda g: (g["lo"], g["gid"])))
        take(sorted((g for g in gs if g.get("hi") is not None), key=lambda g: (-g["hi"], g["gid"])))
    for gs in by_kind.values():
        take(gs)
    return list(picked.values())[:OTHER_SCOPE_REPS]


def bucket(g: dict[str, Any]) -> tuple:
    """The groups a group may be compared with share its bucket (see :func:`group_pairs`)."""
    verdictlike = g.get("polarity") is not None or g.get("as_verdicts")     # a bottleneck is a negative verdict
    return (g["subject"], "verdict") if verdictlike else (g["subject"], g["attribute"])
