"""The KB in memory: sources, facts (claims and reference facts, every version) and releases.

A :class:`KB` holds every version of every fact; :meth:`KB.release` gives the exact fact set of one
named release (see kb/versions.yaml), which is what every query, audit and explanation runs on.
Reading and validating a KB directory is :mod:`.loader`'s job (:func:`.loader.load_kb`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..core.errors import BadInput, Issue, NotFound, UnknownRelease, short
from .ids import FactRef, bare
from .vocabulary import Interval, Vocabulary

@dataclass
class Source:
    id: str
    file: str
    title: str
    publisher: str | None
    published: str | None
    language: str
    text: str
    title_en: str | None = None
    about: tuple[str, ...] = ()    # the entities the document is about (e.g. family:GN7): the context of its claims


    def as_dict(self, with_text: bool = False) -> dict[str, Any]:
        d = {"id": self.id, "file": self.file, "title": self.title, "title_en": self.title_en,
             "publisher": self.publisher, "published": self.published, "language": self.language,
             "chars": len(self.text)}
        if with_text:
            d["text"] = self.text
        return d


@dataclass
class Fact:
    """A claim (from a source, with quote and span) or a reference fact (with citation, confidence)."""

    id: str
    version: int
    tier: str                      # "claim" | "reference"
    subject: str
    attribute: str
    value: Any
    unit: str | None
    norm: Any                      # Interval for quantities, else the value itself
    qualifiers: dict[str, Any]
    file: str
    line: int
    source: str | None = None
    quote: str | None = None
    span: list[int] | None = None
    modality: str = "spec"
    gloss_en: str | None = None
    citation: str | None = None
    confidence: str | None = None
    approx: bool = False
    note: str | None = None
    since: str | None = None
    rests_on: str | None = None    # claims: the claim of the same source this one presupposes
    pending: bool = False          # claims: extracted by `gpukb ingest`, not yet reviewed by a curator
    restates: tuple[str, ...] = ()  # reference facts: ids of facts that state the same thing from the same
                                    # source under another subject (evidence citing one cites the other)

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"

    def value_text(self, vocab: Vocabulary | None = None) -> str:
        if isinstance(self.norm, Interval):
            unit = self.unit or ""
            if vocab is not None and self.attribute in vocab.attributes:
                dim = vocab.attributes[self.attribute].dimension
                if dim:         # the canonical unit, or the fact's own when it is the same scale (TOPS for TFLOPS)
                    units, canonical = vocab.units[dim], vocab.canonical_unit(dim)
                    unit = unit if units.get(unit) == units[canonical] else canonical
                if dim == "params":
                    return _params_text(self.norm)
            return ("~" if self.approx else "") + self.norm.text(unit)
        if isinstance(self.value, list):
            return ", ".join(str(v).split(":", 1)[-1] for v in self.value)
        if isinstance(self.value, str) and vocab is not None and self.value in vocab.entities:
            return self.value.split(":", 1)[-1]
        return str(self.value).lower() if isinstance(self.value, bool) else str(self.value)

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "version": self.version, "key": self.key, "tier": self.tier,
                             "subject": self.subject, "attribute": self.attribute, "value": self.value}
        if self.unit is not None:
            d["unit"] = self.unit
        if isinstance(self.norm, Interval):
            d["normalized"] = self.norm.as_dict()
        d["qualifiers"] = {k: (v.as_dict() if isinstance(v, Interval) else v) for k, v in self.qualifiers.items()}
        if self.tier == "claim":
            d.update(source=self.source, quote=self.quote, span=list(self.span or []), modality=self.modality,
                     gloss_en=self.gloss_en)
        else:
            d.update(citation=self.citation, confidence=self.confidence)
        if self.approx:
            d["approx"] = True
        if self.note:
            d["note"] = self.note
        if self.rests_on:
            d["rests_on"] = self.rests_on
        return d


def _params_text(iv: Interval) -> str:
    def p(x):
        if x is None:
            return "?"
        return f"{x / 1e9:g}B" if x >= 1e9 else f"{x / 1e6:g}M"
    if iv.kind == "number":
        return p(iv.lo)
    if iv.kind == "range":
        return f"{p(iv.lo)}–{p(iv.hi)}"
    return f"≥ {p(iv.lo)}" if iv.lo is not None else f"≤ {p(iv.hi)}"


@dataclass(frozen=True)
class Unknown:
    """A reference value that is recorded as absent, with why: ``not_published`` by the vendor, or
    ``not_applicable`` to the subject (FP8 on an Ampere card); distinct from a value nobody encoded."""
    subject: str
    attribute: str
    kind: str
    reason: str
    citation: str
    qualifiers: tuple[tuple[str, str], ...] = ()
    file: str = ""
    line: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "attribute": self.attribute, "kind": self.kind, "reason": self.reason,
                "citation": self.citation, "qualifiers": dict(self.qualifiers)}


@dataclass
class Release:
    name: str
    date: str
    note: str
    index: int
    adds_sources: list[str] = field(default_factory=list)
    revises: list[str] = field(default_factory=list)
    retires: list[str] = field(default_factory=list)
    line: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "date": self.date, "note": self.note,
                "adds": {"sources": self.adds_sources}, "revises": self.revises, "retires": self.retires}


class KB:
    """Every version of every fact in a KB directory, plus its sources, vocabulary and releases."""

    def __init__(self, root: Path, vocab: Vocabulary, sources: dict[str, Source], facts: list[Fact],
                 releases: list[Release], include_pending: bool = False, unknowns: list[Unknown] | None = None):
        self.root = root
        self.unknowns: list[Unknown] = list(unknowns or [])
        # claims awaiting review (and the sources no release adds yet) count only when asked for
        self.include_pending = include_pending
        self.vocab = vocab
        self.sources = sources
        self.all_facts = facts
        self.releases = releases
        self._release_cache: dict[str, "ReleaseView"] = {}

    # -- releases ----------------------------------------------------------------------------
    @property
    def latest(self) -> str:
        return self.releases[-1].name

    def release_names(self) -> list[str]:
        return [r.name for r in self.releases]

    def get_release(self, name: str | None) -> Release:
        if name is None or name == "" or name == "latest":
            return self.releases[-1]
        for r in self.releases:
            if r.name == str(name):
                return r
        raise UnknownRelease(f"unknown KB release {short(name)}",
                             [Issue(f"unknown KB release {short(name)}", field="kb_version", allowed=self.release_names())])

    def introduced_in(self, fact: Fact) -> int:
        """Index of the release in which this version of the fact first appears."""
        if fact.version > 1:
            for r in self.releases:
                if fact.key in r.revises:
                    return r.index
            return len(self.releases)  # validation reports this; never visible
        if fact.tier == "claim":
            for r in self.releases:
                if fact.source in r.adds_sources:
                    return r.index
            return len(self.releases) - 1 if self.include_pending else len(self.releases)
        if fact.since:
            for r in self.releases:
                if r.name == fact.since:
                    return r.index
            return len(self.releases)
        return 0

    def retired_in(self, fact_id: str) -> int | None:
        for r in self.releases:
            if fact_id in r.retires:
                return r.index
        return None

    def release(self, name: str | None = None) -> "ReleaseView":
        """The facts of one release: for each id, its newest version at that release, minus retirements."""
        rel = self.get_release(name)
        view = self._release_cache.get(rel.name)
        if view is None:
            chosen: dict[str, Fact] = {}
            for f in self.all_facts:
                if self.introduced_in(f) > rel.index or (f.pending and not self.include_pending):
                    continue
                r = self.retired_in(f.id)
                if r is not None and r <= rel.index and self.introduced_in(f) <= r:
                    continue                # retired; a version revised in a later release brings it back
                old = chosen.get(f.id)
                if old is None or f.version > old.version:
                    chosen[f.id] = f
            srcs = {s for r in self.releases[: rel.index + 1] for s in r.adds_sources}
            if self.include_pending and rel.index == len(self.releases) - 1:
                srcs |= {f.source for f in chosen.values() if f.tier == "claim" and f.source}
            view = ReleaseView(self, rel, chosen, srcs)
            self._release_cache[rel.name] = view
        return view

    def view_of(self, ref: str, release: str | None = None) -> tuple["ReleaseView", Fact]:
        """The release view and the fact that ``ref`` (``id`` or ``id@version``) names.

        A bare id is looked up in ``release`` (default: the latest). A version is honoured, never
        ignored: in ``release`` when one is given, else in the latest release that holds exactly that
        version; a version no release holds is a NotFound that lists the versions there are.
        """
        fid, ver = FactRef.parse(ref)
        if ver is None:
            view = self.release(release)
            f = view.facts.get(fid)
            if f is None:
                raise NotFound(f"no fact {short(fid)} in release {view.name}",
                               [Issue(f"no fact {short(fid)} in release {view.name}", field="id")])
            return view, f
        if not ver.isdigit() or int(ver) < 1:
            raise BadInput(f"the version in {short(ref)} must be a positive integer, e.g. {fid}@1",
                           [Issue("expected id@version with a positive integer version", field="id")])
        v = int(ver)
        versions = sorted({f.version for f in self.all_facts if f.id == fid})
        if v not in versions:
            msg = f"no version {v} of {short(fid)}" + (f"; its versions are {', '.join(map(str, versions))}" if versions else "")
            raise NotFound(msg, [Issue(msg, field="id", allowed=[f"{fid}@{x}" for x in versions] or None)])
        names = [self.get_release(release).name] if release else list(reversed(self.release_names()))
        for name in names:
            view = self.release(name)
            f = view.facts.get(fid)
            if f is not None and f.version == v:
                return view, f
        held = [r for r in self.release_names() if getattr(self.release(r).facts.get(fid), "version", None) == v]
        where = f"release {names[0]}" if release else "any release"
        msg = f"{fid}@{v} is not part of {where}" + (f"; it is in {', '.join(held)}" if held else " (it was retired)")
        raise NotFound(msg, [Issue(msg, field="id", allowed=held or None)])


class ReleaseView:
    """The fact set one release sees."""

    def __init__(self, kb: KB, release: Release, facts: dict[str, Fact], source_ids: set[str]):
        self.kb = kb
        self.release = release
        self.facts = facts
        self.source_ids = source_ids

    @property
    def name(self) -> str:
        return self.release.name

    @cached_property
    def claims(self) -> list[Fact]:
        return [f for f in self.facts.values() if f.tier == "claim"]

    @cached_property
    def reference(self) -> list[Fact]:
        return [f for f in self.facts.values() if f.tier == "reference"]

    @cached_property
    def reference_keys(self) -> frozenset[str]:
        """The keys (``id@version``) of :attr:`reference`."""
        return frozenset(f.key for f in self.reference)

    @cached_property
    def by_subject_attr(self) -> dict[tuple[str, str], list[Fact]]:
        idx: dict[tuple[str, str], list[Fact]] = {}
        for f in self.facts.values():
            idx.setdefault((f.subject, f.attribute), []).append(f)
        return idx

    @cached_property
    def reference_index(self) -> dict[tuple[str, str], list[Fact]]:
        """:attr:`by_subject_attr` of the reference facts alone, the start of every check's block."""
        idx: dict[tuple[str, str], list[Fact]] = {}
        for f in self.reference:
            idx.setdefault((f.subject, f.attribute), []).append(f)
        return idx

    def with_claims(self, claims: list[Fact], source_ids: set[str]) -> "ReleaseView":
        """This release's reference tier and ``claims`` alone (a checked text's block), its indexes built
        from this view's instead of anew: the same view as one made of those facts, made in a fraction."""
        facts = {f.id: f for f in self.reference}
        facts.update({c.id: c for c in claims})
        block = ReleaseView(self.kb, self.release, facts, source_ids)
        if len(facts) != len(self.reference) + len(claims):
            return block            # an id given twice, or a claim's id shadowing a reference fact: built anew
        idx = dict(self.reference_index)
        for c in claims:
            idx[(c.subject, c.attribute)] = idx.get((c.subject, c.attribute), []) + [c]
        block.__dict__["by_subject_attr"] = idx
        block.__dict__["reference"] = self.reference
        block.__dict__["reference_keys"] = self.reference_keys
        return block

    def ref(self, subject: str, attribute: str, qualifiers: dict[str, Any] | None = None) -> Fact | None:
        """The highest-confidence reference fact for subject/attribute (unqualified first); with
        ``qualifiers``, only a fact whose qualifiers are exactly those ({}: an unqualified one)."""
        cands = [f for f in self.by_subject_attr.get((subject, attribute), []) if f.tier == "reference"
                 and (qualifiers is None or f.qualifiers == qualifiers)]
        if not cands:
            return None
        rank = {"high": 0, "medium": 1, "low": 2}
        cands.sort(key=lambda f: (bool(f.qualifiers), rank.get(f.confidence or "low", 3), f.id))
        return cands[0]

    def get(self, fact_id: str) -> Fact:
        f = self.facts.get(bare(fact_id))
        if f is None:
            raise NotFound(f"no fact {fact_id!r} in release {self.name}",
                           [Issue(f"no fact {fact_id!r} in release {self.name}", field="id")])
        return f


_MOVED = ("load_kb", "MODALITIES", "CONFIDENCES", "CLAIM_ID", "SOURCE_ID", "REF_ID", "CLAIM_FIELDS", "REF_FIELDS")


def __getattr__(name: str) -> Any:
    """The loader's names, still importable from here (they moved to :mod:`.loader`)."""
    if name in _MOVED:
        from . import loader
        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
