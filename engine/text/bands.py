"""The error bands ``check`` reads to abstain on a sizing verdict within gpukb's measured error (guards
``within_error_band`` and ``requirement_within_band``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..kb.store import ReleaseView
from ..sizing.calibration import band_of

if TYPE_CHECKING:
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
