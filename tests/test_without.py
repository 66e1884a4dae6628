"""What still holds without a source (engine/audit/without.py): the answer read from the audit's ATMS
labels, checked against an independent oracle (the audit re-run on the KB without that source's
claims), and its CLI, API and page."""
from __future__ import annotations

import re

import pytest

from gpukb.engine.audit.run import run_audit
from gpukb.engine.models.scenario import normalise
from gpukb.engine.audit.without import derivation_labels, parse_sources, retract, source_graph
from gpukb.engine.core.errors import BadInput
from gpukb.engine.kb.store import ReleaseView
from gpukb.engine.reasoning.provenance import surviving

BUNDLED = ["S000", "S001", "S002"]
T4_13B = {"model": "llama-2-13b", "method": "full", "gpu": "T4"}


# -- helpers ---------------------------------------------------------------------------------------

def pair_key(f: dict) -> tuple:
    """A finding's identity: a finding two claims share is one finding whichever claim it is told under
    (the audit names it under the lower claim id among those it found)."""
    if f["basis"] == "claims" and len(f["claims"]) == 2:
        return (f["kind"],) + tuple(sorted(c["id"] for c in f["claims"]))
    return (f["id"],)


def without_view(view: ReleaseView, removed: set[str]) -> ReleaseView:
    """The release with the claims of ``removed`` taken out (what the oracle audits)."""
    facts = {k: f for k, f in view.facts.items() if not (f.tier == "claim" and f.source in removed)}
    return ReleaseView(view.kb, view.release, facts, set(view.source_ids) - removed)


@pytest.fixture(scope="module")
def state(gpukb):
    view = gpukb.view(None)
    res = gpukb.audit_result(view.name)
    return gpukb, view, res, gpukb.source_labels(view.name)


@pytest.fixture(scope="module")
def oracle(state):
    """The audit re-run from scratch on the release without some sources (memoised per removal)."""
    kb, view, _, _ = state
    done: dict[frozenset, object] = {}

    def audit(removed: set[str]):
        key = frozenset(removed)
        if key not in done:
            done[key] = run_audit(kb, without_view(view, set(removed)))
        return done[key]
    return audit


def test_the_bundled_sources_are_the_ones_tested(state):
    assert sorted(state[1].source_ids) == BUNDLED


# -- parsing source ids ----------------------------------------------------------------------------

@pytest.mark.parametrize("given, expected", [
    ("S001", ["S001"]), ("S002,S000", ["S000", "S002"]), (["S001", "S001"], ["S001"]),
    ([" S002 ", "S000,S001"], ["S000", "S001", "S002"]), (None, []), ([], []),
])
def test_parse_sources_accepts_repeated_and_comma_separated_ids(given, expected):
    assert parse_sources(given, BUNDLED) == expected


@pytest.mark.parametrize("given", ["S009", "s001", "S001,", ",", "", "S001,S9", ["S000", "x" * 500], "S001;S002",
                                   "S001\nS002", "../S001"])
def test_parse_sources_names_the_allowed_ids(given):
    with pytest.raises(BadInput) as exc:
        parse_sources(given, BUNDLED)
    assert exc.value.issues and all(i.field == "without" and i.allowed == BUNDLED for i in exc.value.issues)
    assert "S000, S001, S002" in exc.value.message


# -- the answer against the oracle -----------------------------------------------------------------

def test_removing_nothing_changes_nothing(state):
    _, view, res, sl = state
    out, block = retract(res, view, sl, [])
    assert out.findings == res.findings and out.statuses == res.statuses and out.corroboration == res.corroboration
    assert block["withdrawn"] == [] and block["status_changes"] == [] and block["removed_claims"] == 0


@pytest.mark.parametrize("removed", [{"S000"}, {"S001"}, {"S002"}, {"S001", "S002"}], ids=lambda r: "+".join(sorted(r)))
def test_surviving_findings_are_those_a_re_audit_keeps(state, oracle, removed):
    """From the labels: exactly the findings of the full audit that a re-audit without the sources
    still finds; what the re-audit finds anew is only the re-pairing the answer marks repairable."""
    _, view, res, sl = state
    out, block = retract(res, view, sl, removed)
    again = oracle(removed)
    before = {pair_key(f) for f in res.findings}
    after = {pair_key(f) for f in again.findings}
    kept = {pair_key(f) for f in out.findings}
    assert kept == before & after
    # removal only withdraws: every withdrawn finding rests on a removed source, every finding kept is the audit's own
    assert {f["id"] for f in out.findings} <= {f["id"] for f in res.findings}
    assert len(out.findings) + len(block["withdrawn"]) == len(res.findings)
    for w in block["withdrawn"]:
        assert w["depended_on"] and set(w["depended_on"]) <= removed
        assert all(set(env) & removed for env in w["environments"])
    for f in res.findings:
        if any(c["source"] in removed for c in f["claims"]):
            assert f["id"] in {w["id"] for w in block["withdrawn"]}
    # what the labels cannot give: a finding new in the re-audit pairs a claim whose named partner was removed
    repairable = {(w["kind"], w["claims"][0]["id"]) for w in block["withdrawn"] if w["repairable"]}
    for key in after - before:
        assert len(key) == 3 and any((key[0], cid) in repairable for cid in key[1:]), key
    # statuses: the best surviving resolution is the re-audit's status, except where a claim is re-paired
    repaired = {cid for _, cid in repairable}
    assert set(out.statuses) == set(again.statuses)
    for cid, st in out.statuses.items():
        if cid not in repaired:
            assert st["status"] == again.statuses[cid]["status"], cid
    changed = {c["claim"] for c in block["status_changes"]}
    assert changed == {cid for cid, st in out.statuses.items() if st["status"] != res.statuses[cid]["status"]}


def test_some_removal_withdraws_a_finding_of_a_claim_that_stays(state):
    """The test above would pass vacuously if removing a source only withdrew its own claims' findings."""
    _, view, res, sl = state
    reasons = {w["reason"] for s in BUNDLED for w in retract(res, view, sl, [s])[1]["withdrawn"]}
    assert {"claim_removed", "partner_removed"} <= reasons
    changes = [c for s in BUNDLED for c in retract(res, view, sl, [s])[1]["status_changes"]]
    assert changes


def test_removing_every_source_leaves_no_finding(state):
    _, view, res, sl = state
    out, block = retract(res, view, sl, BUNDLED)
    assert out.findings == [] and out.statuses == {} and out.corroboration == {}
    assert block["removed_claims"] == len(view.claims)


def test_labels_agree_with_retraction_by_fixpoint(state):
    """Two ATMS readings of one graph: a label with an environment free of the removed sources, and
    the least fixpoint of what is still supported (provenance.surviving)."""
    _, view, res, sl = state
    g = source_graph(view, res.full_derivation())
    keys = [f["fact"] for f in res.findings]
    for removed in ({"S000"}, {"S001"}, {"S002"}, {"S000", "S002"}):
        alive = surviving(g, [f"src:{s}" for s in removed])
        assert [sl.holds(k, removed) for k in keys] == [k in alive for k in keys]


def test_a_contradiction_rests_on_both_sources(state):
    """Value groups and pairs are given to the engine, not derived: the graph still makes a finding
    between two sources' claims rest on both."""
    _, _, res, sl = state
    pairs = [f for f in res.findings if f["kind"] == "contradiction" and len(f["claims"]) == 2
             and f["claims"][0]["source"] != f["claims"][1]["source"]]
    assert pairs
    for f in pairs:
        srcs = {c["source"] for c in f["claims"]}
        assert all(srcs <= set(env) for env in sl.environments(f["fact"])), f["id"]


def test_the_answer_reads_labels_and_runs_no_rules(state, monkeypatch):
    kb, view, _, _ = state

    def refuse(*a, **k):
        raise AssertionError("the rules were run again")
    monkeypatch.setattr(kb.reasoner, "run", refuse)
    d = kb.audit(without="S001", kb_version=view.name).to_json()
    assert d["without"]["sources"] == ["S001"] and d["findings"]


def test_an_audit_that_dropped_its_proofs_is_rerun_with_them(gpukb, state):
    from gpukb.engine.service.state import GpuKB
    kb = GpuKB(gpukb.kb_dir, gpukb.rules_dir)
    kb.audit_keep_proofs = False
    view = kb.view(None)
    assert kb.audit_result(view.name).derivation is None
    assert kb.audit(without="S002").to_json() == state[0].audit(without="S002").to_json()


def test_a_sizing_conclusion_rests_on_no_source(state):
    kb, view, _, _ = state
    s, notes = normalise(dict(T4_13B), kb.kb.vocab, view)
    r = kb.run_scenario(s, notes, view)
    sl = derivation_labels(r.derivation)
    verdict = r.one("verdict")["fk"]
    assert sl.environments(verdict) == [[]] and sl.holds(verdict, set(BUNDLED))


def test_query_without_a_source_drops_its_disagreeing_claims(state):
    kb = state[0]
    base = kb.query(dict(T4_13B)).to_json()
    out = kb.query(dict(T4_13B), without=["S001"]).to_json()
    assert out["verdict"] == base["verdict"] and out["memory"] == base["memory"]
    w = out["without"]
    assert w["conclusion_holds"] is True and w["depended_on"] == []
    assert all(x["claim"]["source"] != "S001" for x in out["contradictions"])
    assert all(x.get("source") != "S001" for x in out["sources"] if x["type"] == "claim")
    assert {x["claim"]["id"] for x in w["withdrawn"]} == {x["claim"]["id"] for x in base["contradictions"]
                                                          if x["claim"]["source"] == "S001"}
    assert "without" not in base


# -- API ---------------------------------------------------------------------------------------------

def test_api_audit_without(api, state):
    d = api.ok("/v1/audit?without=S001")
    assert d["without"]["sources"] == ["S001"]
    assert all(c["source"] != "S001" for f in d["findings"] for c in f["claims"])
    assert all(not st["claim"].startswith("S001-") for st in d["statuses"])
    assert "S001" not in d["summary"]
    assert api.ok("/v1/audit?without=S001&without=S002") == api.ok("/v1/audit?without=S002,S001")
    narrowed = api.ok("/v1/audit?without=S001&source=S002&kind=contradiction")
    assert {f["kind"] for f in narrowed["findings"]} <= {"contradiction"}
    assert all(w["kind"] == "contradiction" for w in narrowed["without"]["withdrawn"])
    assert "without" not in api.ok("/v1/audit")


def test_api_claimreview_without(client):
    r = client.get("/v1/audit?format=claimreview&without=S000")
    assert r.status_code == 200
    assert all(":review:S000-" not in x["@id"] for x in r.get_json()["@graph"])


@pytest.mark.parametrize("value", ["S009", "S001,", "s001", "", "%00", "S001,x" + "y" * 300])
def test_api_audit_bad_without_is_a_400(api, value):
    body = api.error(400, "GET", f"/v1/audit?without={value}")
    assert any(e.get("field") == "without" for e in body["errors"])
    if value in ("S009", "s001", "S001,"):
        assert any(e.get("allowed") == BUNDLED for e in body["errors"])


def test_api_query_without(api):
    r = api.client.post("/v1/query?without=S001", json=T4_13B)
    assert r.status_code == 200
    d = r.get_json()
    assert d["without"]["conclusion_holds"] is True
    assert all(x["claim"]["source"] != "S001" for x in d["contradictions"])
    assert "without" not in api.query(**T4_13B)


@pytest.mark.parametrize("qs", ["without=S7", "without=S001&without=nope", "without=", "without=S001,,S002"])
def test_api_query_bad_without_is_a_400(api, qs):
    body = api.error(400, "POST", f"/v1/query?{qs}", json=T4_13B)
    assert any(e.get("field") == "without" for e in body["errors"])


def test_openapi_documents_without(api):
    spec = api.ok("/openapi.json")
    ref = {"$ref": "#/components/parameters/Without"}
    assert ref in spec["paths"]["/v1/audit"]["get"]["parameters"]
    assert ref in spec["paths"]["/v1/query"]["post"]["parameters"]
    assert spec["components"]["parameters"]["Without"]["name"] == "without"


# -- CLI ---------------------------------------------------------------------------------------------

def test_cli_audit_without_prints_what_the_api_answers(cli, api):
    d = cli.json("audit", "--without", "S001", "--without", "S002", "--json")
    assert d == api.ok("/v1/audit?without=S001,S002")
    assert cli.json("audit", "--without", "S002,S001", "--json") == d
    code, out, _ = cli("audit", "--without", "S001")
    assert code == 0
    n = len(api.ok("/v1/audit?without=S001")["without"]["withdrawn"])
    assert re.search(rf"^without S001: \d+ claims removed, {n} findings withdrawn", out, re.M)
    assert "status of " in out and "note: " in out


@pytest.mark.parametrize("value", ["S009", "S001,bogus", ",", "s000"])
def test_cli_audit_unknown_source_is_a_usage_error(cli, value):
    code, out, err = cli("audit", "--without", value)
    assert code == 2 and not out and "usage:" in err and "--without" in err
    assert "S000, S001, S002" in err and "Traceback" not in err


def test_cli_gaps_take_no_without(cli):
    code, _, err = cli("audit", "--gaps", "--without", "S001")
    assert code == 2 and "--without" in err


# -- the audit page -----------------------------------------------------------------------------------

def test_audit_page_offers_removing_each_source(client):
    html = client.get("/audit").get_data(as_text=True)
    assert re.search(r'<select id="f-without" name="without">', html)
    for s in BUNDLED:
        assert f'href="/audit?without={s}" data-without="{s}"' in html


def test_audit_page_without_a_source(client, api):
    r = client.get("/audit?without=S001")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert 'id="source-S001"' not in html and 'id="source-S000"' in html
    assert 'data-claim="S001-' not in html and 'data-claim-id="S001-' not in html
    assert 'data-claim-id="S002-' in html
    block = api.ok("/v1/audit?without=S001")["without"]
    section = html[html.index('id="without"'):]
    section = section[:section.index("</section>")]
    for c in block["status_changes"]:
        assert f'data-claim="{c["claim"]}"' in section
    for w in block["withdrawn"]:
        assert (f'data-finding="{w["id"]}"' in section) == (w["reason"] != "claim_removed")
    assert 'href="/audit">' in section           # put it back
    # each remaining claim is listed with the status that still holds
    d = api.ok("/v1/audit?without=S001")
    for st in d["statuses"]:
        cid = st["claim"]
        m = re.search(rf'id="f-{cid}" data-claim="{cid}">\s*<p class="claim-head"><strong translate="no">{cid}</strong> '
                      rf'<span class="status-badge" data-status="([a-z_]+)"', html)
        assert m and m.group(1) == st["status"], cid


@pytest.mark.parametrize("value", ["S009", "S001,", "x" * 300])
def test_audit_page_bad_without_is_a_400_page(client, value):
    r = client.get(f"/audit?without={value}")
    assert r.status_code == 400 and r.mimetype == "text/html"
    if len(value) < 100:
        assert 'href="/audit?without=S000"' in r.get_data(as_text=True)
