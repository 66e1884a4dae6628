"""The audit's answers: findings and each claim's status (GET /v1/audit), the ClaimReview export, and the
gaps that leave claims unverifiable (GET /v1/audit/gaps)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import OMIT, Model, spec
from .sizing import QuotedClaim
from .vocab import Bilingual, FindingKind, Label, UnverifiableReason


@dataclass(kw_only=True)
class Premise(Model):
    """A claim a finding or a status rests on, with how it is used and its own status."""

    id: str
    how: str = OMIT
    quote: str = OMIT
    status: FindingKind = OMIT


@dataclass(kw_only=True)
class Finding(Model):
    """One audit finding: its kind, the claims it is about (quoted), the evidence and the explanation."""

    id: str
    kind: FindingKind
    claims: list[QuotedClaim]
    evidence: list[str]
    explanation: Bilingual | str
    fact: str = OMIT
    rule: str | None = OMIT
    basis: str = OMIT
    grounds: list[str] = OMIT
    premises: list[Premise] = OMIT
    rank: int = OMIT
    scope_differences: list[str] = OMIT
    via: str = OMIT


@dataclass(kw_only=True)
class StatusReason(Model):
    """Why a claim is unverifiable, and the fact that would decide it."""

    code: UnverifiableReason = OMIT
    en: str = OMIT
    zh: str = OMIT
    decided_by: dict[str, Any] = OMIT


@dataclass(kw_only=True)
class ClaimStatus(Model):
    """A claim's audit status: the most severe of its findings, by the resolution policy."""

    claim: str
    status: FindingKind
    findings: list[str]
    rank: int = OMIT
    premises: list[Premise] = OMIT
    reason: StatusReason = OMIT


@dataclass(kw_only=True)
class SourceAudit(Model):
    """How many claims of one source have each status."""

    claims: int
    by_status: dict[str, int]


@dataclass(kw_only=True)
class FindingList(Model):
    """Every claim checked: the findings, each claim's status, counts by kind and by source."""

    findings: list[Finding]
    kb_version: str = OMIT
    statuses: list[ClaimStatus] = OMIT
    counts: dict[str, int] = OMIT
    summary: dict[str, SourceAudit] = OMIT
    without: dict[str, Any] = spec(OMIT, "with ?without=: the sources taken away, the findings withdrawn (each with "
                                   "the sources it depended on and why) and the statuses that change")


@dataclass(kw_only=True)
class ClaimReview(Model):
    """schema.org ClaimReview JSON-LD: one ClaimReview per claim in @graph."""

    OPEN = True
    SCHEMA = {"required": ["@context", "@graph"],
              "properties": {"@context": {}, "@graph": {"type": "array", "items": {"type": "object", "required": ["@type"]}}}}


@dataclass(kw_only=True)
class Gap(Model):
    """A reference fact that is missing: the subject and attribute, and the claims it would decide."""

    subject: str
    attribute: str
    claims: list[str]
    count: int
    subject_label: str = OMIT
    attribute_label: Label = OMIT


@dataclass(kw_only=True)
class AuditGaps(Model):
    """The reference facts that would decide the unverifiable claims, most claims first."""

    kb_version: str
    gaps: list[Gap]
    reasons: dict[str, int]
    unverifiable: int
    claims: int
