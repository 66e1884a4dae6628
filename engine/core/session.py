"""The narrow interface the capability packages get from the loaded state: a release view, the caches,
sizing runs, the audit of a release and the checks kept for explaining. Only the faces hold the full
:class:`gpukb.engine.service.GpuKB`; a capability is written against this protocol, so it never
imports the service (the import-linter contract in ``.importlinter`` states that).
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:                      # types only: core imports no other layer at run time
    from ..audit.result import AuditResult
    from ..audit.without import SourceLabels
    from ..kb.store import KB
    from ..kb.store import ReleaseView
    from ..reasoning.rules import RuleSet
    from ..sizing.run import SizingRun


class Session(Protocol):
    """What an answer producer may ask of the loaded KB."""

    kb: KB
    rules: RuleSet
    kb_dir: Path
    rules_dir: Path
    include_pending: bool
    progress: Callable[[str, int, int | None], None] | None

    def view(self, release: str | None = None) -> ReleaseView:
        """The release a question names (the latest when ``None``)."""

    def cached(self, key: tuple, fn: Callable[[], Any]) -> Any:
        """An answer from the bounded answer cache, computed by ``fn`` when absent."""

    def memo(self, key: tuple, fn: Callable[[], Any]) -> Any:
        """A value computed once per loaded KB (compiled tables, rankings)."""

    def probe_totals(self, key: tuple, value: Any = ...) -> Any:
        """A sizing search point's totals, remembered (or stored when ``value`` is given)."""

    def staged(self, view: ReleaseView) -> AbstractContextManager[Any]:
        """One engine session for the sizing runs of one answer."""

    def run_scenario(self, s: dict[str, Any], notes: list[str], view: ReleaseView) -> SizingRun:
        """The sizing rules run on one normalised scenario."""

    def run_scenarios(self, scenarios: list[tuple[dict[str, Any], list[str]]], view: ReleaseView,
                      purpose: str = "answer") -> list[SizingRun]:
        """The sizing rules run on several scenarios in one engine session."""

    def audit_result(self, release: str) -> AuditResult:
        """The audit of a release (computed once, then kept)."""

    def source_labels(self, release: str) -> SourceLabels:
        """Which sources each conclusion of a release rests on."""

    def retracted(self, release: str, without: Any) -> tuple[Any, dict[str, Any] | None]:
        """The audit of a release with some sources' claims taken away."""

    def remember_check(self, sid: str, result: Any, keep: int = 64) -> None:
        """Keep a check's result so that its findings can be explained."""

    def recalled_check(self, sid: str) -> Any:
        """A kept check's result, or ``None``."""

    def recheck(self, sid: str) -> Any:
        """A check's result recomputed from its stored text, or ``None``."""
