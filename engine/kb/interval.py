"""A normalised quantity as the KB holds it: a number, a range or a one-sided bound, in canonical units.

>>> Interval(24e9, None).text("B"), Interval(1, 4).kind, Interval(None, 8, hi_strict=True).text()
('≥ 2.4e+10 B', 'range', '< 8')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Interval"]


@dataclass(frozen=True)
class Interval:
    """A normalised quantity: a number is lo == hi; a bound leaves one side open-ended (None)."""

    lo: float | None
    hi: float | None
    lo_strict: bool = False
    hi_strict: bool = False

    @property
    def kind(self) -> str:
        if self.lo is not None and self.hi is not None:
            return "number" if self.lo == self.hi else "range"
        return "bound"

    def point(self) -> float | None:
        """A representative number: the value, the range's midpoint, or the bound's limit."""
        if self.lo is not None and self.hi is not None:
            return (self.lo + self.hi) / 2
        return self.lo if self.lo is not None else self.hi

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "lo": self.lo, "hi": self.hi}
        if self.lo_strict or self.hi_strict:
            d["lo_strict"], d["hi_strict"] = self.lo_strict, self.hi_strict
        return d

    def text(self, unit: str = "") -> str:
        u = f" {unit}" if unit and unit != "1" else ""
        if self.kind == "number":
            return f"{_fmt(self.lo)}{u}"
        if self.kind == "range":
            return f"{_fmt(self.lo)}–{_fmt(self.hi)}{u}"
        if self.lo is not None:
            return f"{'>' if self.lo_strict else '≥'} {_fmt(self.lo)}{u}"
        return f"{'<' if self.hi_strict else '≤'} {_fmt(self.hi)}{u}"


def _fmt(x: float | None) -> str:
    if x is None:
        return "?"
    if abs(x) >= 1e6:
        return f"{x:.3g}"
    return f"{x:.4g}" if x != int(x) else str(int(x))
