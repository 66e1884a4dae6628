"""What durable_rules' matches came to, rule by rule: a counter the reasoner keeps (for measuring how much
of the deciding durable_rules does and how much gpukb's own checks do; see benchmarks/HISTORY.md).

Every match durable_rules hands back is one of: a ``repeat`` (the same rule on the same premises, seen
before), ``rejected`` (a condition durable_rules could not evaluate, or the rule's ``if`` guard, is
false), ``blocked`` (a fact matches one of the rule's absent patterns) or ``fired``.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

KINDS = ("matches", "repeat", "rejected", "blocked", "fired")


class MatchStats:
    """Counts by rule key (``id@version``) and kind; cheap enough to be kept always."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {k: Counter() for k in KINDS}

    def reset(self) -> None:
        for c in self.counts.values():
            c.clear()

    def merge(self, other: "MatchStats | dict[str, Any]") -> None:
        """Add another counter's counts (e.g. a worker process's :meth:`as_dict`)."""
        src = other.as_dict()["rules"] if isinstance(other, MatchStats) else other.get("rules", {})
        for rule, row in src.items():
            for k in KINDS:
                if row.get(k):
                    self.counts[k][rule] += row[k]

    def as_dict(self) -> dict[str, Any]:
        """Per rule and in total: the counts, and ``rejected_share``: of the distinct matches (not
        repeats), the share gpukb turned down (rejected or blocked)."""
        rules = sorted(set().union(*self.counts.values()))
        rows = {r: {k: self.counts[k][r] for k in KINDS} for r in rules}
        for row in rows.values():
            row["rejected_share"] = _share(row)
        total = {k: sum(self.counts[k].values()) for k in KINDS}
        total["rejected_share"] = _share(total)
        return {"total": total, "rules": rows}

    def table(self, top: int = 25) -> str:
        """A plain-text table of the rules with the most turned-down matches."""
        d = self.as_dict()
        rows = sorted(d["rules"].items(), key=lambda kv: -(kv[1]["rejected"] + kv[1]["blocked"]))[:top]
        lines = [f"{'rule':58} {'matches':>9} {'repeat':>8} {'rejected':>9} {'blocked':>8} {'fired':>8} {'share':>6}"]
        for name, r in [("TOTAL", d["total"])] + rows:
            lines.append(f"{name[:58]:58} {r['matches']:9d} {r['repeat']:8d} {r['rejected']:9d} {r['blocked']:8d} "
                         f"{r['fired']:8d} {r['rejected_share']:6.1%}")
        return "\n".join(lines)


def _share(row: dict[str, int]) -> float:
    distinct = row["matches"] - row["repeat"]
    return (row["rejected"] + row["blocked"]) / distinct if distinct else 0.0
