"""engine/audit/pairs.py: the engine is given only the pairs of value groups some rule can fire on, and
the audit finds exactly what it finds when given every planned pair."""
from __future__ import annotations

import json

from gpukb.engine.audit import pairs as audit_pairs
from gpukb.engine.audit.blocks import group_pairs, pair_records
from gpukb.engine.kb import facts as factrec
from gpukb.engine.audit.inputs import claim_records
from gpukb.engine.audit.run import run_audit


class _KeepAll:
    def pairs(self, records, groups):
        return list(records)


def _answer(res) -> tuple[list[str], dict]:
    return ([json.dumps(f, sort_keys=True, default=str) for f in res.findings],
            {c: json.dumps(s, sort_keys=True, default=str) for c, s in res.statuses.items()})


def test_the_audit_finds_what_every_pair_finds(gpukb, monkeypatch):
    view = gpukb.view(None)
    filtered = _answer(run_audit(gpukb, view))
    monkeypatch.setattr("gpukb.engine.audit.batch.pair_filter", lambda service: _KeepAll())
    assert _answer(run_audit(gpukb, view)) == filtered


def test_the_pairs_kept_are_those_that_fire(gpukb):
    """Every pair a group finding rests on is kept, and most planned pairs are not."""
    view = gpukb.view(None)
    recs = claim_records(view, view.claims)
    groups = factrec.group_records(recs)
    planned = pair_records(group_pairs(groups))
    kept = audit_pairs.pair_filter(gpukb).pairs(planned, {g["gid"]: g for g in groups})
    res = gpukb.reasoner.run(planned + groups + recs)
    fired = {(f["g"], f["h"]) for f in res.derived("gfinding")}
    assert fired <= {(r["a"], r["b"]) for r in kept}
    assert len(kept) < len(planned) / 2


def test_a_rule_the_filter_cannot_match_alone_keeps_every_pair(gpukb):
    class P:
        def __init__(self, bind, type, absent=False):
            self.bind, self.type, self.absent, self.conditions = bind, type, absent, []

    class R:
        def __init__(self, patterns):
            self.patterns, self.guard = patterns, []

    class RS:
        types = gpukb.reasoner.ruleset.types
        rules = [R([P("c", "claim"), P("p", "cpair")])]
    f = audit_pairs.PairFilter(RS())
    recs = [{"t": "cpair", "fk": "pair:A:B", "a": "A", "b": "B"}]
    assert f.keep_all and f.pairs(recs, {"A": {"gid": "A"}, "B": {"gid": "B"}}) == recs

