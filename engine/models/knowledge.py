"""What the KB holds: claims (GET /v1/claims[/<id>]), sources (GET /v1/sources[/<id>]), releases
(GET /v1/versions) and what changed between two of them (GET /v1/diff)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .audit import Finding, Premise, StatusReason
from .base import OMIT, Model, spec
from .vocab import FindingKind, Modality, Span


@dataclass(kw_only=True)
class Normalized(Model):
    """A quantity as an interval in the attribute's canonical unit."""

    kind: Literal["number", "range", "bound"] = OMIT
    lo: float | None = OMIT
    hi: float | None = OMIT
    lo_strict: bool = OMIT
    hi_strict: bool = OMIT


@dataclass(kw_only=True)
class ClaimAudit(Model):
    """The claim's audit status and the findings behind it."""

    status: FindingKind
    findings: list[str] = OMIT
    rank: int = OMIT
    premises: list[Premise] = OMIT
    reason: StatusReason = OMIT
    resolution: str | None = spec(OMIT, "the finding kind the resolution policy chose")


@dataclass(kw_only=True)
class Claim(Model):
    """One statement a source makes, quoted verbatim at its span, as subject, attribute and value."""

    id: str
    version: int = spec(minimum=1)
    source: str
    quote: str
    span: Span
    subject: str
    attribute: str
    value: Any
    key: str = OMIT
    tier: Literal["claim"] = OMIT
    unit: str | None = OMIT
    qualifiers: dict[str, Any] = OMIT
    modality: Modality = OMIT
    gloss_en: str | None = OMIT
    normalized: Normalized = OMIT
    approx: bool = OMIT
    note: str = OMIT
    rests_on: str = spec(OMIT, "The claim of the same source this one presupposes.")
    audit: ClaimAudit | str | None = spec(OMIT, "The claim's audit status.")


@dataclass(kw_only=True)
class ClaimList(Model):
    """The claims of a release (of one source, when asked)."""

    claims: list[Claim]
    kb_version: str = OMIT


@dataclass(kw_only=True)
class ClaimDetail(Claim):
    """One claim with its findings and every version of it."""

    kb_version: str
    findings: list[Finding] = OMIT
    versions: list[Claim] = OMIT


@dataclass(kw_only=True)
class Source(Model):
    """A source document: its file, title, publisher, date and language."""

    id: str
    file: str
    title: str
    language: str
    title_en: str | None = OMIT
    publisher: str | None = OMIT
    published: str | None = OMIT
    chars: int = spec(OMIT, minimum=0)


@dataclass(kw_only=True)
class SourceList(Model):
    """Every source."""

    sources: list[Source]


@dataclass(kw_only=True)
class SourceDetail(Source):
    """A source with its text."""

    text: str


@dataclass(kw_only=True)
class Release(Model):
    """A KB release: its name, date and note, what it adds, revises and retires, and its size."""

    name: str
    date: str | None
    note: str | None
    adds: dict[str, Any] = OMIT
    revises: list[str] = OMIT
    retires: list[str] = OMIT
    counts: dict[str, int] = OMIT


@dataclass(kw_only=True)
class Versions(Model):
    """The KB releases, oldest first."""

    versions: list[Release] = spec(minItems=1)
    latest: str = OMIT


@dataclass(kw_only=True)
class Diff(Model):
    """What changed between two releases: facts added, revised (old and new), retired, rules changed, and
    the conclusions whose verdict, value or audit status changed, each with its cause."""

    from_: str = spec(description=None)
    to: str
    added: list[dict[str, Any]] | dict[str, Any]
    revised: list[dict[str, Any]] | dict[str, Any]
    retired: list[dict[str, Any]] | dict[str, Any]
    rules: list[dict[str, Any]] | dict[str, Any]
    conclusions: list[dict[str, Any]] | dict[str, Any]
    counts: dict[str, int] = OMIT
