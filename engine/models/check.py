"""POST /v1/check: the claims a text states, each judged by the audit's rules."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .audit import Premise, StatusReason
from .base import OMIT, Model, spec
from .vocab import Bilingual, FindingKind, Lang, Span


@dataclass(kw_only=True)
class CheckFinding(Model):
    """A finding about a checked claim, with a link to its proof."""

    id: str
    kind: FindingKind
    explanation: Bilingual
    explain: str = spec(description="The path of the finding's proof (/v1/conclusions/<id>/explain).")
    basis: str = OMIT
    evidence: list[str] = OMIT
    rule: str | None = OMIT
    grounds: list[str] = OMIT
    premises: list[Premise] = OMIT
    via: str = OMIT


@dataclass(kw_only=True)
class CheckedClaim(Model):
    """A claim found in the text: where it stands, what it says, its status, findings and correction."""

    id: str
    span: Span
    quote: str
    subject: str
    attribute: str
    value: Any
    qualifiers: dict[str, Any]
    modality: str
    confidence: float = spec(minimum=0, maximum=1)
    status: FindingKind
    findings: list[CheckFinding]
    correction: Bilingual | None
    subject_label: str = OMIT
    attribute_label: Bilingual = OMIT
    value_text: str = OMIT
    unit: str = OMIT
    reason: StatusReason = OMIT


@dataclass(kw_only=True)
class NotUnderstood(Model):
    """A sentence of the text that yields no claim."""

    span: Span
    quote: str
    reason: str


@dataclass(kw_only=True)
class CheckAnswer(Model):
    """The checkable claims of a text, audited, and the sentences that yield none."""

    kb_version: str
    text_id: str
    lang: Lang
    claims: list[CheckedClaim]
    not_understood: list[NotUnderstood]
    summary: Bilingual
