"""POST /v1/check: the claims a text states, each judged by the audit's rules."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .audit import Premise, StatusReason
from .base import OMIT, Model, spec
from .base import str_enum
from .query import Body, Field
from .vocab import Bilingual, FindingKind, Lang, Span
from ..core import terms

CheckStatus = str_enum("CheckStatus", (*terms.FINDING_KINDS, "unclear"),
                       "A checked claim's status: one of the audit's nine kinds, or `unclear` when the audit "
                       "found it wrong but the reading of the text is in doubt (see unclear_because).")


@dataclass(kw_only=True)
class UnclearReason(Model):
    """Why the checker abstained from calling a claim wrong."""

    code: str = spec(description="The guard that applied (engine/text/guard.py).")
    en: str
    zh: str


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
    status: CheckStatus
    findings: list[CheckFinding]
    correction: Bilingual | None
    subject_label: str = OMIT
    attribute_label: Bilingual = OMIT
    value_text: str = OMIT
    unit: str = OMIT
    reason: StatusReason = OMIT
    audit_status: FindingKind = OMIT
    unclear_because: list[UnclearReason] = OMIT


@dataclass(kw_only=True)
class NotUnderstood(Model):
    """A sentence of the text that yields no claim."""

    span: Span
    quote: str
    reason: str


@dataclass(kw_only=True)
class WrongLine(Model):
    """One claim of the text found wrong, in one line per language, with its correction and citation."""

    claim: str
    span: Span
    quote: str
    status: FindingKind
    en: str
    zh: str


@dataclass(kw_only=True)
class CheckAnswer(Model):
    """The checkable claims of a text, audited, and the sentences that yield none; ``wrong`` first."""

    kb_version: str
    text_id: str
    lang: Lang
    wrong: list[WrongLine] = spec(description="What is wrong in this text: the claims found wrong, one line each.")
    claims: list[CheckedClaim]
    not_understood: list[NotUnderstood]
    summary: Bilingual


#: the longest text POST /v1/check reads (the check contract's limit)
MAX_CHECK_CHARS = 20_000

#: POST /v1/check's body
CHECK_BODY = Body("CheckBody", None, (
    Field("text", "string", "The text to check (at most 20,000 characters).",
          "the draft text to check (English or Chinese)", limits=(1, MAX_CHECK_CHARS)),
    Field("lang", "string", "The text's language (default: detected).", "the text's language", terms.LANGS,
          nullable=True),
    Field("kb_version", "string", "A release name (default: the latest).", "a release name", nullable=True)),
    required=("text",))
