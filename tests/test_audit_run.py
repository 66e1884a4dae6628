"""engine/audit/run.py: the audit by blocks gives the findings of one run over everything, on
local worker processes as in this one, and an audit given its previous result reuses the blocks a new
source does not touch."""
from __future__ import annotations

import dataclasses
import json
import shutil

import pytest
import yaml

from gpukb.engine.audit import blocks as audit_blocks
from gpukb.engine.audit import units as audit_units
from gpukb.engine.audit.result import audit_block
from gpukb.engine.audit.keys import claim_keys
from gpukb.engine.audit.run import plan, run_audit
from gpukb.engine.kb.store import ReleaseView
from gpukb.engine.service.state import GpuKB
from gpukb.engine.kb.synth import add_synthetic_sources, make_synthetic_kb

CLAIM_TIER = {"claim", "cgroup", "cpair"}


def _findings(res) -> list[str]:
    return [json.dumps(f, sort_keys=True, default=str) for f in res.findings]


def _statuses(res) -> dict[str, str]:
    return {k: v["status"] for k, v in res.statuses.items()}


def test_every_rule_that_joins_claims_is_known_to_the_units(gpukb):
    """A rule relating two claims needs both in one unit: a new one has to be listed (and
    :func:`units` taught its join) before the audit by units can be trusted with it."""
    joining = set()
    for r in gpukb.rules.rules:
        kinds = [p.type for p in r.patterns]
        if sum(k in CLAIM_TIER for k in kinds) >= 2 and r.id.split(".")[0] in ("audit", "policy"):
            joining.add(r.id)
    assert joining <= set(audit_units.CLAIM_JOINS), sorted(joining - set(audit_units.CLAIM_JOINS))


@pytest.mark.slow  # a whole audit per unit size (~60 s in all)
@pytest.mark.parametrize("batch,limit", [(1, audit_blocks.PAIRWISE_LIMIT), (audit_units.BATCH_CLAIMS, audit_blocks.PAIRWISE_LIMIT),
                                         (1, 2)])
def test_units_audited_apart_give_the_findings_of_one_run(gpukb, monkeypatch, batch, limit):
    """Every release of the bundled KB: each unit in its own engine run (batch 1) and the default
    batches give the same findings, in the same order, and the same statuses as one run over the
    whole reference tier; also when buckets of more than two groups are split by scope (limit 2)."""
    monkeypatch.setattr(audit_units, "BATCH_CLAIMS", batch)
    monkeypatch.setattr(audit_blocks, "PAIRWISE_LIMIT", limit)
    for name in gpukb.kb.release_names():
        view = gpukb.view(name)
        whole = audit_block(gpukb, view)
        blocked = run_audit(gpukb, view)
        assert _statuses(blocked) == _statuses(whole), name
        assert _findings(blocked) == _findings(whole), name
        assert blocked.corroboration == whole.corroboration
        if batch == 1:    # a run per unit, a unit of more pairs than a batch holds in parts (run._pieces)
            assert blocked.run.batches >= len(plan(view)[0]) > 1


def test_a_finding_of_a_blocked_run_is_explained_from_its_block(gpukb, monkeypatch):
    monkeypatch.setattr(audit_units, "BATCH_CLAIMS", 1)
    view = gpukb.view(None)
    res = run_audit(gpukb, view, keep_proofs=False)
    assert res.derivation is None and not res.parts
    f = next(x for x in res.findings if x["kind"] == "incorrect")
    d = res.proof(f["claims"][0]["id"])          # recomputed for its block
    assert f["fact"] in d.facts and d.supports.get(f["fact"])


def test_a_unit_holds_what_its_claims_rest_on(gpukb):
    """A claim's unit has, as context when another unit owns them, the groups its group is compared
    with and its source's claim of the GPU of what it names (the premise of a family-level claim)."""
    view = gpukb.view(None)
    parts, recs = plan(view)
    unit_of = {c.id: i for i, u in enumerate(parts) for c in u.claims}
    assert sorted(unit_of) == sorted(c.id for c in view.claims)           # each claim in one unit
    gid_unit = {g["gid"]: i for i, u in enumerate(parts) for g in u.groups}
    for i, u in enumerate(parts):
        reach = {g["gid"] for g in u.groups} | {g["gid"] for g in u.context_groups}
        assert all(p[0] in reach and p[1] in reach and gid_unit[p[0]] == i for p in u.pairs)
        ctx = {c.id for c in u.context_claims}
        for c in u.claims:
            for p in view.claims:
                if p.attribute == "gpu" and p.source == c.source and p.subject in (c.subject, c.qualifiers.get("family")) \
                        and unit_of[p.id] != i:
                    assert p.id in ctx, (c.id, p.id)
    assert any(u.context_claims for u in parts)


def test_a_curated_premise_is_context_of_the_claim_resting_on_it(gpukb):
    view = gpukb.view(None)
    claims = list(view.claims)
    parts, _ = plan(view)
    unit_of = {c.id: i for i, u in enumerate(parts) for c in u.claims}
    a = next(c for c in claims if c.attribute != "gpu")
    b = next(c for c in claims if unit_of[c.id] != unit_of[a.id] and c.attribute != "gpu")
    facts = dict(view.facts)
    facts[a.id] = dataclasses.replace(a, rests_on=b.id)
    sub = ReleaseView(view.kb, view.release, facts, set(view.source_ids))
    parts, _ = plan(sub)
    unit = next(u for u in parts if any(c.id == a.id for c in u.claims))
    assert b.id in {c.id for c in unit.context_claims}


@pytest.fixture(scope="module")
def synthetic_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth-run") / "kb"
    make_synthetic_kb(out, 1200, seed=11)
    return out


@pytest.mark.slow  # worker processes / a Dask cluster
def test_two_worker_processes_give_the_findings_of_one(synthetic_dir, monkeypatch):
    monkeypatch.setattr(audit_units, "BATCH_CLAIMS", 300)
    state = GpuKB(synthetic_dir)
    view = state.view(None)
    one = run_audit(state, view)
    two = run_audit(state, view, workers=2)
    assert two.run.workers == 2 and two.run.batches > 1
    assert _statuses(two) == _statuses(one)
    assert _findings(two) == _findings(one)


def _drop_source(src_dir, dst_dir, sid: str) -> None:
    """``dst_dir``: the KB of ``src_dir`` before source ``sid`` was added."""
    shutil.copytree(src_dir, dst_dir)
    (dst_dir / "claims" / f"{sid}.yaml").unlink()
    srcs = yaml.safe_load((dst_dir / "sources" / "sources.yaml").read_text(encoding="utf-8"))
    srcs["sources"] = [s for s in srcs["sources"] if s["id"] != sid]
    (dst_dir / "sources" / "sources.yaml").write_text(yaml.safe_dump(srcs, sort_keys=False), encoding="utf-8")
    vers = yaml.safe_load((dst_dir / "versions.yaml").read_text(encoding="utf-8"))
    vers["releases"][0]["adds"]["sources"].remove(sid)
    (dst_dir / "versions.yaml").write_text(yaml.safe_dump(vers, allow_unicode=True, sort_keys=False), encoding="utf-8")


@pytest.mark.slow  # full audits of a synthetic KB compared (~6-10 s each)
def test_adding_a_source_reaudits_only_the_blocks_it_touches(synthetic_dir, tmp_path):
    after_dir, before_dir = tmp_path / "after", tmp_path / "before"
    shutil.copytree(synthetic_dir, after_dir)      # the new source S005 states five claims
    doc = yaml.safe_load((after_dir / "claims" / "S005.yaml").read_text(encoding="utf-8"))
    doc["claims"] = doc["claims"][:5]
    (after_dir / "claims" / "S005.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    _drop_source(after_dir, before_dir, "S005")
    inc, full = _reaudit_and_full(before_dir, after_dir)
    assert 5 <= inc.run.claims_audited < full.run.claims_audited // 4
    assert inc.run.claims_reused == full.run.claims_audited - inc.run.claims_audited
    assert inc.run.reused > 0 and inc.run.audited + inc.run.reused == full.run.units


def _reaudit_and_full(before_dir, after_dir):
    """The KB of ``after_dir`` re-audited from the audit of ``before_dir``, and audited whole; the two
    answers are checked to be the same (:func:`_same_answer`)."""
    before = GpuKB(before_dir)
    prev = run_audit(before, before.view(None))
    after = GpuKB(after_dir)
    view = after.view(None)
    inc = run_audit(after, view, previous=prev)
    full = run_audit(after, view)
    _same_answer(inc, full)
    return inc, full


def _same_answer(inc, full) -> None:
    """A re-audit's answer is the full audit's: findings (in order), statuses, corroboration, and each
    claim's list of findings."""
    assert _statuses(inc) == _statuses(full)
    assert inc.statuses == full.statuses
    assert _findings(inc) == _findings(full)
    assert inc.corroboration == full.corroboration
    assert {k: [f["id"] for f in v] for k, v in inc.by_claim.items()} == \
        {k: [f["id"] for f in v] for k, v in full.by_claim.items()}


@pytest.mark.slow  # full audits of a synthetic KB compared (~6-10 s each)
@pytest.mark.parametrize("topical", [True, False])
def test_a_reaudit_gives_the_answer_of_a_full_audit(synthetic_dir, tmp_path, topical):
    """Sources added (about one family each, or spread over every entity), then a revision of an
    earlier source (a claim retired, another reworded): each re-audit, from the audit before it, is
    re-planned and re-merged only where the change reaches and answers as a full audit does."""
    after_dir, revised_dir = tmp_path / "after", tmp_path / "revised"
    add_synthetic_sources(synthetic_dir, after_dir, 40, seed=5, topical=topical)
    inc, full = _reaudit_and_full(synthetic_dir, after_dir)
    assert 0 < inc.run.planned < full.run.planned == full.run.units
    assert 0 < inc.run.claims_audited < full.run.claims_audited // 4

    shutil.copytree(after_dir, revised_dir)
    path = revised_dir / "claims" / "S003.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["claims"] = doc["claims"][1:]
    doc["claims"][0]["gloss_en"] += " (reworded)"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    revised = GpuKB(revised_dir)
    rview = revised.view(None)
    again = run_audit(revised, rview, previous=inc, keep_proofs=False)
    whole = run_audit(revised, rview)
    _same_answer(again, whole)
    assert 0 < again.run.planned < whole.run.units
    assert any(f["claims"][0]["gloss_en"].endswith("(reworded)") for f in again.findings)


@pytest.mark.slow  # full audits of a synthetic KB compared (~6-10 s each)
def test_a_reaudit_under_other_rules_or_reference_plans_everything(synthetic_dir, tmp_path):
    """What every unit reads alike (rules, vocabulary, reference tier) changed: nothing of the earlier
    plan is kept, and the answer is still the full audit's."""
    ref_dir = tmp_path / "ref"
    shutil.copytree(synthetic_dir, ref_dir)
    path = ref_dir / "reference" / "gpus.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["facts"][0]["citation"] += " (checked again)"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    before = GpuKB(synthetic_dir)
    prev = run_audit(before, before.view(None))
    changed = GpuKB(ref_dir)
    view = changed.view(None)
    inc = run_audit(changed, view, previous=prev)
    assert inc.run.planned == inc.run.units
    _same_answer(inc, run_audit(changed, view))


def test_a_claim_key_changes_with_what_the_claim_reads(gpukb, monkeypatch):
    monkeypatch.setattr(audit_blocks, "PAIRWISE_LIMIT", 2)      # buckets split by scope: units with context groups
    view = gpukb.view(None)
    parts, recs = plan(view)
    i, unit = next((i, u) for i, u in enumerate(parts) if len(u.claims) > 1 and u.context_groups and u.rests)
    refs = [audit_blocks.reachable_reference(view, u.claims + u.context_claims) for u in parts]

    def keys(ps=parts, rs=refs, base="rules-1"):
        return claim_keys(view, ps, rs, base, recs)
    k = keys()
    cid = next(iter(unit.rests))
    assert k == keys([dataclasses.replace(u, claims=list(reversed(u.claims))) for u in parts])
    assert k != keys(base="rules-2") and k[cid] != keys(base="rules-2")[cid]
    assert k[cid] != keys(rs=refs[:i] + [refs[i][1:]] + refs[i + 1:])[cid]
    # the claims it rests on: changing one changes the key of the claim resting on it, not of its unit's others
    other = next(c for c in unit.claims if c.id != cid)
    rest = view.facts[unit.rests[cid][0]]
    facts = dict(view.facts)
    facts[rest.id] = dataclasses.replace(rest, quote=rest.quote + " ")
    sub = ReleaseView(view.kb, view.release, facts, set(view.source_ids))
    sparts, srecs = plan(sub)
    changed = claim_keys(sub, sparts, [audit_blocks.reachable_reference(sub, u.claims + u.context_claims) for u in sparts],
                         "rules-1", srecs)
    assert changed[cid] != k[cid]
    if rest.id not in unit.rests.get(other.id, ()):
        assert changed[other.id] == k[other.id]
    # a group it is compared with, as the rules read it: one source or several, not how many or which
    p = unit.pairs[0]               # its first group is one of the unit's (pairs of one single source are none)
    member = [c.id for c in unit.claims if recs[c.id]["gid"] == p[0]]

    def with_groups(own: dict, partner: dict) -> dict[str, str]:
        def change(g: dict) -> dict:
            return {**g, **own} if g["gid"] == p[0] else {**g, **partner} if g["gid"] == p[1] else g
        return keys([dataclasses.replace(u, groups=[change(g) for g in u.groups],
                                         context_groups=[change(g) for g in u.context_groups]) for u in parts])
    one, several = {"n_sources": 1, "sources": "S1"}, {"n_sources": 3, "sources": "S1|S2|S3"}
    m = member[0]
    assert with_groups(several, {"n_sources": 2, "sources": "S1|S2"})[m] == with_groups(several, {"n_sources": 9, "sources": "S3|S4"})[m]
    assert with_groups(several, {"n_sources": 1, "sources": "S1"})[m] == with_groups(several, {"n_sources": 1, "sources": "S2"})[m]
    assert with_groups(one, {"n_sources": 1, "sources": "S1"})[m] != with_groups(one, {"n_sources": 1, "sources": "S2"})[m]
    assert with_groups(one, {"n_sources": 1, "sources": "S2"})[m] == with_groups(one, {"n_sources": 2, "sources": "S1|S2"})[m]
    assert with_groups(one, several)[m] != with_groups(several, several)[m]
    assert with_groups({}, {"rep": "X"})[m] != k[m]
    assert with_groups({}, {"pub": "2099-01-01"})[m] != k[m]
    # a partner's rep2 is read only by the claims of its rep_source
    src, x, y = view.facts[m].source, view.claims[0].id, view.claims[1].id
    assert with_groups({}, {"rep_source": src, "rep2": x})[m] != with_groups({}, {"rep_source": src, "rep2": y})[m]
    assert with_groups({}, {"rep_source": "S-other", "rep2": x})[m] == with_groups({}, {"rep_source": "S-other", "rep2": y})[m]


@pytest.mark.slow  # worker processes / a Dask cluster
def test_a_dask_cluster_gives_the_findings_of_one_process(synthetic_dir, monkeypatch):
    """The blocks audited on a Dask cluster (a LocalCluster of two worker processes here; a real one
    is named with ``gpukb audit --scheduler tcp://host:8786``)."""
    from dask.distributed import LocalCluster
    monkeypatch.setattr(audit_units, "BATCH_CLAIMS", 300)
    state = GpuKB(synthetic_dir)
    view = state.view(None)
    one = run_audit(state, view)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        dask = run_audit(state, view, scheduler=cluster.scheduler_address)
    assert dask.run.batches > 1
    assert _statuses(dask) == _statuses(one)
    assert _findings(dask) == _findings(one)


def test_the_collector_is_paused_during_an_audit_and_restored_after():
    """run_audit turns Python's cyclic collector off while it runs (its records all live until it ends)
    and back on after, also when the audit fails; a collector that was off stays off."""
    import gc
    from gpukb.engine.core.memory import collector_paused
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with collector_paused():
            raise RuntimeError("an audit that fails")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_merge_holds_a_finding_once_unless_it_completes_it(gpukb):
    """The merged answer shares its units' findings (a 100,000-claim audit's findings are not held
    twice), except a finding that names premises: the merge words their status into a copy, and the
    unit's own stays as audited (a later re-audit reuses it)."""
    res = run_audit(gpukb, gpukb.view(None))
    own = {id(f): f for b in res.run.results.values() for f in b.findings}
    plain = [f for f in res.findings if not f.get("premises")]
    named = [f for f in res.findings if f.get("premises")]
    assert plain and all(id(f) in own for f in plain)
    assert named and not any(id(f) in own for f in named)
    assert all(not p.get("status") for f in own.values() for p in f.get("premises") or ())
