"""Why (or why not) a conclusion holds: GET /v1/conclusions/<id>/explain as JSON or W3C PROV-JSON."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .audit import Finding
from .knowledge import ClaimAudit
from .base import OMIT, Model, spec
from .sizing import Contradiction, ProofNode, Scenario, SourceRef, Summary, WhyNot
from .vocab import Label, Verdict


@dataclass(kw_only=True)
class Conclusion(Model):
    """A sizing conclusion: its verdict and its label."""

    verdict: Verdict
    label: Label = OMIT


@dataclass(kw_only=True)
class Explanation(Model):
    """A why / why-not proof tree down to quoted sources, for a sizing conclusion (Q-...), an audit
    finding (A-...) or a fact."""

    conclusion_id: str
    kind: Literal["sizing", "finding", "fact"]
    kb_version: str
    tree: ProofNode
    holds: bool = OMIT
    why_not: WhyNot | None = OMIT
    summary: Summary | str | None = spec(OMIT, "a sizing conclusion's cited summary, a finding's explanation")
    conclusion: Conclusion = OMIT
    scenario: Scenario = OMIT
    finding: Finding = OMIT
    sources: list[SourceRef] = OMIT
    contradictions: list[Contradiction] = OMIT
    status: ClaimAudit | None = spec(OMIT, "a claim's audit status (kind fact)")
    findings: list[Finding] = spec(OMIT, "a claim's findings (kind fact)")


@dataclass(kw_only=True)
class ProvDocument(Model):
    """W3C PROV-JSON."""

    OPEN = True
    prefix: dict[str, Any]
    entity: dict[str, Any]
    activity: dict[str, Any] = OMIT
    agent: dict[str, Any] = OMIT
    wasDerivedFrom: dict[str, Any] = OMIT
    wasGeneratedBy: dict[str, Any] = OMIT
    used: dict[str, Any] = OMIT
