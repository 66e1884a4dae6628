"""engine/audit/blocks.py: which value groups the claim-vs-claim rules compare, and which
reference facts a small audit needs."""
from __future__ import annotations

from collections import Counter

import pytest

from gpukb.engine.audit import blocks as audit_blocks
from gpukb.engine.audit.run import run_audit


def _group(gid, subject="family:GN7", attribute="memory_gb", lo=16.0, qsig="", polarity=None, vstr=None):
    g = {"t": "cgroup", "gid": gid, "subject": subject, "attribute": attribute, "lo": lo, "hi": lo, "qsig": qsig,
         "vstr": vstr if vstr is not None else str(lo), "modality": "spec"}
    if polarity is not None:
        g["polarity"] = polarity
    return g


def test_a_small_bucket_is_compared_pair_by_pair():
    gs = [_group("G1"), _group("G2", lo=24.0), _group("G3", lo=32.0), _group("G4", subject="gpu:T4")]
    pairs = set(audit_blocks.group_pairs(gs))
    assert pairs == {(a, b) for a in ("G1", "G2", "G3") for b in ("G1", "G2", "G3") if a != b}


def test_a_large_bucket_grows_linearly_and_meets_its_extremes():
    n = 600
    gs = [_group(f"G{i}", lo=float(i % 97 + 1), qsig=f"params={i % 5}") for i in range(n)]
    pairs = audit_blocks.group_pairs(gs, limit=16)
    assert len(pairs) < 120 * n                       # pairwise would be n * (n - 1) = 359,400
    partners = Counter(p[0] for p in pairs)
    assert set(partners) == {g["gid"] for g in gs}    # every group is compared with something
    by_id = {g["gid"]: g for g in gs}
    for g in gs[:50]:                                 # ... including the lowest and highest figure of its scope
        same = [h for h in gs if h["qsig"] == g["qsig"]]
        lowest = min(same, key=lambda h: (h["lo"], h["gid"]))["gid"]
        highest = max(same, key=lambda h: (h["hi"], h["gid"]))["gid"]
        mine = {p[1] for p in pairs if p[0] == g["gid"]}
        assert {lowest, highest} - {g["gid"]} <= mine, (g["gid"], by_id[lowest]["lo"])


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    from gpukb.engine.service.state import GpuKB
    from gpukb.engine.kb.synth import make_synthetic_kb
    out = tmp_path_factory.mktemp("synth") / "kb"
    make_synthetic_kb(out, 1500, seed=3)
    return GpuKB(out)


def test_representatives_decide_as_all_pairs_do(synthetic, monkeypatch):
    view = synthetic.view(None)
    monkeypatch.setattr(audit_blocks, "PAIRWISE_LIMIT", 10 ** 6)
    full = run_audit(synthetic, view)
    monkeypatch.setattr(audit_blocks, "PAIRWISE_LIMIT", 8)
    blocked = run_audit(synthetic, view)
    differ = [k for k in full.statuses if full.statuses[k]["status"] != blocked.statuses[k]["status"]]
    contradictions = {k for k, v in full.statuses.items() if v["status"] == "contradiction"}
    assert contradictions == {k for k, v in blocked.statuses.items() if v["status"] == "contradiction"}
    assert len(differ) <= 0.01 * len(full.statuses), differ[:10]
    assert len(blocked.findings) <= len(full.findings)


def test_sample_groups_meet_in_reverse_only_what_found_something(synthetic, monkeypatch):
    """A large bucket's sample groups have a unit of their own; their pairs in reverse are compared in
    the other groups' units, and the sample unit is audited with those that found something only: the
    findings and statuses are those of one run over every group and pair."""
    import json
    from gpukb.engine.audit.result import audit_block
    from gpukb.engine.audit.run import plan
    monkeypatch.setattr(audit_blocks, "PAIRWISE_LIMIT", 8)
    view = synthetic.view(None)
    parts, _ = plan(view)
    sampled = [u for u in parts if u.sampled]
    assert sampled and all(not u.reverse for u in sampled)
    own = {g["gid"] for u in sampled for g in u.groups}
    reverse = [p for u in parts for p in u.reverse]
    assert reverse and all(p[0] in own for p in reverse)
    assert not set(reverse) & {p for u in parts for p in u.pairs}
    blocked = run_audit(synthetic, view)
    whole = audit_block(synthetic, view)
    assert {k: v["status"] for k, v in blocked.statuses.items()} == {k: v["status"] for k, v in whole.statuses.items()}
    assert [json.dumps(f, sort_keys=True, default=str) for f in blocked.findings] == \
        [json.dumps(f, sort_keys=True, default=str) for f in whole.findings]


def test_a_unit_of_more_pairs_than_a_batch_is_audited_in_parts(synthetic, monkeypatch):
    """A unit holding more pairs than a batch (a large bucket's sample unit with every pair that found
    something) is audited in parts of whole groups, each within the batch's pairs where its groups
    allow: the findings and statuses are still those of one run over everything."""
    import json
    from gpukb.engine.audit import run as audit_run
    from gpukb.engine.audit import units as audit_units
    from gpukb.engine.audit.result import audit_block
    monkeypatch.setattr(audit_blocks, "PAIRWISE_LIMIT", 8)
    monkeypatch.setattr(audit_units, "BATCH_PAIRS", 40)
    cut: list[tuple[int, list]] = []
    pieces = audit_run._pieces

    def spy(u, facts, recs):
        out = pieces(u, facts, recs)
        cut.append((len(u.claims), out))
        return out
    monkeypatch.setattr(audit_run, "_pieces", spy)
    view = synthetic.view(None)
    blocked = run_audit(synthetic, view)
    split = [(n, out) for n, out in cut if len(out) > 1]
    assert split, "no unit was cut"
    for n, out in split:
        assert sum(len(p.claims) for p in out) == n
        assert all(len(p.pairs) + len(p.reverse) <= 40 or len(p.groups) == 1 for p in out)
    whole = audit_block(synthetic, view)
    assert {k: v["status"] for k, v in blocked.statuses.items()} == {k: v["status"] for k, v in whole.statuses.items()}
    assert [json.dumps(f, sort_keys=True, default=str) for f in blocked.findings] == \
        [json.dumps(f, sort_keys=True, default=str) for f in whole.findings]


def _sourced(gid, sources, lo=16.0, qsig=""):
    g = _group(gid, lo=lo, qsig=qsig)
    g.update(sources="|".join(sources), n_sources=len(sources))
    return g


def test_groups_of_one_single_source_are_not_paired():
    one = [_sourced("G1", ["text"]), _sourced("G2", ["text"], lo=24.0), _sourced("G3", ["text"], lo=32.0)]
    assert audit_blocks.group_pairs(one) == []
    other = one + [_sourced("G4", ["blog"], lo=8.0), _sourced("G5", ["text", "blog"], lo=48.0)]
    pairs = set(audit_blocks.group_pairs(other))
    assert ("G1", "G2") not in pairs and ("G2", "G3") not in pairs
    assert {("G1", "G4"), ("G4", "G1"), ("G1", "G5"), ("G5", "G1"), ("G4", "G5")} <= pairs


def test_every_claim_vs_claim_rule_compares_two_sources():
    """The pair plan leaves out groups resting on one single source (blocks.one_source) because each
    rule that reads a pair rejects them; a rule without that condition would silently miss matches."""
    import yaml
    from pathlib import Path
    rules = yaml.safe_load((Path(__file__).resolve().parents[1] / "rules/audit/claims.yaml").read_text("utf-8"))["rules"]
    paired = [r for r in rules if any(p.get("type") == "cpair" for p in r["when"])]
    assert paired
    for r in paired:
        guard = r["if"] if isinstance(r["if"], list) else [r["if"]]
        assert any("sources != g.sources" in c and "n_sources" in c for c in guard), r["id"]
