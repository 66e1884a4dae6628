"""The audit evaluation: gold loading, label and evidence accuracy (FEVER-style), harmful calls."""
from __future__ import annotations

import pytest

from gpukb.engine.evals.audit import evaluate, load_gold
from gpukb.engine.core.errors import BadInput


class FakeAudit:
    def __init__(self, statuses, findings):
        self.statuses = {c: {"status": s} for c, s in statuses.items()}
        self._findings = findings

    def findings_for(self, cid):
        return self._findings.get(cid, [])


def test_label_and_evidence_accuracy():
    gold = [{"claim": "S9-C1", "status": "incorrect", "evidence": ["R-a"], "premise": None},
            {"claim": "S9-C2", "status": "supported", "evidence": ["R-b"], "premise": None},
            {"claim": "S9-C3", "status": "supported", "evidence": [], "premise": None},
            {"claim": "S9-C4", "status": "unverifiable", "evidence": [], "premise": None}]
    audit = FakeAudit({"S9-C1": "incorrect", "S9-C2": "supported", "S9-C3": "incorrect", "S9-C4": "unverifiable"},
                      {"S9-C1": [{"kind": "incorrect", "evidence": ["R-a@2"], "claims": [{"id": "S9-C1"}]}],
                       "S9-C2": [{"kind": "supported", "evidence": ["R-zzz@1"], "claims": [{"id": "S9-C2"}]},
                                 {"kind": "incorrect", "evidence": ["R-b@1"], "claims": [{"id": "S9-C2"}]}]})
    rep = evaluate(audit, gold)
    assert rep["label_correct"] == 3            # C1, C2, C4
    assert rep["evidence_correct"] == 2         # C2's supported finding cites the wrong fact
    assert [h["claim"] for h in rep["harmful"]] == ["S9-C3"]
    assert rep["per_kind"]["supported"] == {"n": 2, "label": 1, "evidence": 0}
    assert rep["confusion"] == {"supported -> incorrect": 1}
    assert rep["unverifiable"]["unverifiable"] == 1


def test_a_fact_that_restates_the_gold_evidence_counts_as_citing_it():
    from types import SimpleNamespace
    gold = [{"claim": "S9-C1", "status": "supported", "evidence": ["R-paper-x"], "premise": None}]
    audit = FakeAudit({"S9-C1": "supported"},
                      {"S9-C1": [{"kind": "supported", "evidence": ["R-same-x@1"], "claims": [{"id": "S9-C1"}]}]})
    assert evaluate(audit, gold)["evidence_correct"] == 0
    audit.view = SimpleNamespace(reference=[SimpleNamespace(id="R-same-x", restates=("R-paper-x",)),
                                            SimpleNamespace(id="R-other", restates=())])
    assert evaluate(audit, gold)["evidence_correct"] == 1


@pytest.mark.parametrize("text, message", [
    ("claims: [{claim: S0-C1, status: wrongish}]", "unknown status"),
    ("claims: [{claim: S0-C1, status: supported}, {claim: S0-C1, status: incorrect}]", "labelled twice"),
    ("claims: {claim: S0-C1}", "'claims' list"),
    ("claims: [{status: supported}]", "'claim' id"),
])
def test_bad_gold_files_are_refused(tmp_path, text, message):
    p = tmp_path / "gold.yaml"
    p.write_text(text)
    with pytest.raises(BadInput, match=message):
        load_gold(p)


def test_bundled_gold_set_loads_and_names_real_claims(gpukb):
    kb = gpukb
    gold = load_gold(kb.kb_dir / "gold" / "audit.yaml")
    assert len(gold) >= 100
    ids = {c.id for c in kb.view().claims}
    assert {g["claim"] for g in gold} <= ids
