"""The error bands ``check`` reads to abstain on a sizing verdict within gpukb's measured error (guards
``within_error_band`` and ``requirement_within_band``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..kb.store import Fact, ReleaseView
from ..sizing.calibration import band_of

if TYPE_CHECKING:
    from ..audit.result import AuditResult
    from ..core.session import Session


@dataclass(frozen=True)
class Bands:
    """The error band of a method's estimates (called with the method) and the audit rules whose finding compares a
    stated need with gpukb's total for the run, the quantity the band was measured on (their ``compares: total``;
    a weights-only figure is arithmetic, not an estimate with a measured error)."""

    band: Callable[[str], dict[str, Any] | None]
    totals: frozenset[str]

    def __call__(self, method: str) -> dict[str, Any] | None:
        return self.band(method)


def error_bands(state: Session, view: ReleaseView) -> Bands:
    """The error bands of ``view``'s estimates (:func:`..sizing.calibration.band_of`), as :func:`judged` reads them."""
    return Bands(lambda method: band_of(state, view, method),
                 frozenset(r.id for r in state.rules.rules if r.compares == "total"))


def verdict_of(res: AuditResult, c: Fact, status: str, bands: Bands | None) -> dict[str, Any] | None:
    """The sizing verdict a derivation finding of ``status`` rests on (need and capacity per GPU), or the run's total
    a requirement finding compares with (no capacity), with the error band of the claim's method; or None."""
    method = str((c.qualifiers or {}).get("method") or "")
    if bands is None or not method:
        return None
    facts = None
    for f in res.findings_for(c.id):
        if f.get("kind") != status or f.get("basis") != "derivation":
            continue
        facts = facts if facts is not None else res.proof(c.id).facts
        if str(f.get("rule") or "").split("@")[0] in bands.totals:
            need = (facts.get(f.get("fact")) or {}).get("value")
            band = bands(method.split(":")[-1]) if isinstance(need, (int, float)) and need > 0 else None
            return {"need_gb": need, "method": method, "band": band} if band else None
        for e in f.get("evidence") or ():
            v = facts.get(e) or {}
            if v.get("t") == "verdict" and v.get("need_gb") and v.get("capacity_gb"):
                band = bands(method.split(":")[-1])    # read only for a verdict (the first read sizes the gold runs)
                return {"need_gb": v["need_gb"], "capacity_gb": v["capacity_gb"], "method": method, "band": band,
                        "floor_gb": _weights_floor(facts, v.get("qid"), method)} if band else None
    return None


def _weights_floor(facts: dict[str, Any], qid: Any, method: str) -> float:
    """What a served model holds per GPU whatever the run's other parts measure: its weights (the model states of an
    inference sizing), which no measured error of the estimate's other parts brings below; 0 for training."""
    if method.split(":")[-1] != "inference":
        return 0.0
    per = next((v for v in facts.values() if v.get("t") == "per_gpu" and v.get("qid") == qid), None) or {}
    return float(per.get("model_states_gb") or 0.0)
