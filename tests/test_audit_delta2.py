"""engine/audit/keys.py and delta.py: within a re-plan a claim keeps its key when only its unit's reachable
reference changed (a spread source adds reference facts to nearly every unit), and chained re-audits of
spread additions answer as full audits do."""
from __future__ import annotations

import pytest

from gpukb.engine.audit import blocks as audit_blocks
from gpukb.engine.audit.keys import claim_keys
from gpukb.engine.audit.run import plan, run_audit
from gpukb.engine.kb.synth import add_synthetic_sources, make_synthetic_kb
from gpukb.engine.service.state import GpuKB

from tests.test_audit_run import _same_answer


def test_an_earlier_key_is_kept_when_only_the_reference_part_changed(gpukb):
    view = gpukb.view(None)
    parts, recs = plan(view)
    refs = [audit_blocks.reachable_reference(view, u.claims + u.context_claims) for u in parts]
    inner: dict[str, bytes] = {}
    k = claim_keys(view, parts, refs, "rules-1", recs, None, inner)
    assert set(inner) == set(k)
    i = next(i for i, r in enumerate(refs) if len(r) > 1)
    cid = parts[i].claims[0].id
    fewer = refs[:i] + [refs[i][1:]] + refs[i + 1:]
    assert claim_keys(view, parts, fewer, "rules-1", recs)[cid] != k[cid]     # keyed alone: the part is read
    again: dict[str, bytes] = {}
    assert claim_keys(view, parts, fewer, "rules-1", recs, None, again, earlier=(inner, k)) == k
    assert again == inner
    # a claim whose claim, group, partners or premises changed (its inner digest) is keyed anew
    stale = {**inner, cid: b"other"}
    assert claim_keys(view, parts, fewer, "rules-1", recs, None, {}, earlier=(stale, k))[cid] != k[cid]
    assert claim_keys(view, parts, refs, "rules-1", recs, None, {}, earlier=(stale, k))[cid] == k[cid]


@pytest.mark.slow  # full audits of a synthetic KB compared
def test_chained_spread_reaudits_give_the_answer_of_full_audits(tmp_path):
    base = tmp_path / "kb"
    make_synthetic_kb(base, 1500, seed=3)
    one, two = tmp_path / "one", tmp_path / "two"
    add_synthetic_sources(base, one, 30, seed=5, topical=False)
    add_synthetic_sources(one, two, 30, seed=6, topical=False)
    first = GpuKB(base)
    prev = run_audit(first, first.view(None), keep_proofs=False)
    for kb_dir in (one, two):
        state = GpuKB(kb_dir)
        view = state.view(None)
        inc = run_audit(state, view, previous=prev, keep_proofs=False)
        full = run_audit(state, view)
        _same_answer(inc, full)
        assert 0 < inc.run.claims_audited < full.run.claims_audited // 4
        prev = inc
