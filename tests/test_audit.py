"""The audit of the bundled KB: pinned findings for the known wrong and conflicting claims."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.audit.result import KINDS

from ._engine import bundled


@pytest.fixture(scope="module")
def kb():
    return bundled()


@pytest.fixture(scope="module")
def audit(kb):
    return kb.audit_result(kb.kb.latest)


def status(audit, cid):
    return audit.status_of(cid)["status"]


def kinds_for(audit, cid):
    return {f["kind"] for f in audit.findings_for(cid)}


def test_gn7_with_a100_is_incorrect_and_contradicts_the_other_sources(audit):
    # S000: "GN7 系列实例通常搭载 NVIDIA A100 或 A800" — Tencent's catalog and S001/S002 say T4
    assert status(audit, "S000-C002") == "incorrect"
    f = next(f for f in audit.findings_for("S000-C002") if f["kind"] == "incorrect")
    assert any(e.startswith("R-GN7-gpu") for e in f["evidence"])
    contra = [f for f in audit.findings_for("S000-C002") if f["kind"] == "contradiction"]
    assert {c["id"] for f in contra for c in f["claims"]} >= {"S001-C002", "S002-C013"}
    assert status(audit, "S001-C002") == "supported" and status(audit, "S002-C013") == "supported"


def test_not_recommended_for_formal_training_vs_memory_enough_is_a_scope_difference(audit):
    # S001: "GN7-T4 不推荐用于正式模型训练" vs S002: "“内存”和“带宽”配置通常是够用的" (LLM training)
    f = next(f for f in audit.findings_for("S001-C138") if {c["id"] for c in f["claims"]} == {"S001-C138", "S002-C003"})
    assert f["kind"] == "scope_dependent"
    assert "attribute" in f["scope_differences"]
    assert "different scopes" in f["explanation"]["en"]


def test_full_fine_tuning_memory_of_7b_hundreds_vs_at_least_24(audit):
    # S000: weights and gradients alone "数百 GB" → overstated: in mixed precision as PyTorch AMP keeps it
    # (FP32 weights and gradients, 4Ψ + 4Ψ) that is 56 GB for 7B; 28 GB in pure BF16 (2Ψ + 2Ψ)
    assert status(audit, "S000-C018") == "overstated"
    f = next(f for f in audit.findings_for("S000-C018") if f["kind"] == "overstated")
    assert "56" in f["explanation"]["en"]
    # S001: full fine-tuning "≥24GB+" → understated (about 112 GB of model states for Llama-2-7B)
    assert status(audit, "S001-C035") == "understated"


@pytest.mark.parametrize("cid,expected", [
    ("S001-C041", "incorrect"),              # "无 ECC 显存": the T4 has ECC
    ("S001-C102", "misattributed"),          # the A10 placed in GN10X (a V100 family); the A10 is in PNV4
    ("S001-C104", "misattributed"),          # GI3 with A100 40GB: that is GT4's hardware
    ("S002-C055", "misattributed"),          # ESSD PL1 is Alibaba Cloud's
    ("S002-C057", "misattributed"),          # CPFS is Alibaba Cloud's
    ("S002-C111", "misattributed"),          # ossfs is Alibaba Cloud's
    ("S002-C128", "misattributed"),          # GN7-A10: not a Tencent family; Alibaba's gn7i carries the A10
    ("S002-C016", "incorrect"),              # T4 tensor cores "FP32": the brief's complete list has no FP32
    ("S002-C079", "incorrect"),              # ZeRO "to reduce communication": it moves 2Ψ-3Ψ, like data parallelism
    ("S000-C052", "understated"),            # "start with at least 4 GN7 cards" for 13B-30B full fine-tuning
    ("S001-C065", "inconsistent_with_derivation"),  # T4 FP32 "1/3~1/2" of the A10's: the figures give 0.26
    ("S000-C025", "incorrect"),              # GN7 for 30B-70B LoRA, said on the false premise that GN7 has 80 GB cards
    ("S002-C083", "supported"),              # QLoRA of 13B on one T4 with QLoRA's own defaults (checkpointing on)
    ("S001-C034", "supported"),              # LoRA of Llama-2-7B needs ≥ 12 GB
    ("S002-C010", "incorrect"),              # "GN7.T4large exists": not in Tencent's catalog
])
def test_pinned_statuses(audit, cid, expected):
    assert status(audit, cid) == expected, [(f["kind"], f["explanation"]["en"][:120]) for f in audit.findings_for(cid)]


def test_every_claim_has_exactly_one_status(kb, audit):
    claims = kb.view().claims
    assert set(audit.statuses) == {c.id for c in claims}
    assert all(st["status"] in KINDS for st in audit.statuses.values())


def test_never_supported_and_contradicted_in_the_same_scope(audit):
    for cid, st in audit.statuses.items():
        kinds = kinds_for(audit, cid)
        if st["status"] == "supported":
            assert not ({"incorrect", "misattributed", "inconsistent_with_derivation"} & {
                f["kind"] for f in audit.findings_for(cid) if f["claims"][0]["id"] == cid and f["rank"] and f["rank"] > st["rank"]})
        # the status is the top-ranked resolution
        ranks = [f["rank"] for f in audit.findings_for(cid) if f["claims"][0]["id"] == cid and f["rank"] is not None]
        if ranks:
            assert st["rank"] >= max(ranks)


def test_findings_carry_claims_with_quote_and_span(kb, audit):
    text = {s.id: s.text for s in kb.kb.sources.values()}
    assert audit.findings
    for f in audit.findings:
        assert f["kind"] in KINDS and f["explanation"]["en"] and f["explanation"]["zh"]
        for c in f["claims"]:
            assert text[c["source"]][c["span"][0]:c["span"][1]] == c["quote"]


def test_each_source_gets_a_summary(audit):
    summary = audit.summary()
    assert set(summary) == {"S000", "S001", "S002"}
    assert sum(v["claims"] for v in summary.values()) == len(audit.statuses)


def test_resolution_is_explainable_like_any_conclusion(kb, audit):
    f = next(f for f in audit.findings_for("S002-C055") if f["kind"] == "misattributed")
    doc = kb.explain(f["id"]).to_json()
    assert doc["kind"] == "finding" and doc["tree"]["rule"].startswith("audit.ref.vendor.misattributed")
    leaves = [n for n in _walk(doc["tree"]) if n.get("given")]
    assert any(n.get("tier") == "claim" and n.get("quote") for n in leaves)
    assert any(n.get("tier") == "reference" and n.get("citation") for n in leaves)


def _walk(t):
    yield t
    for p in t.get("premises", []):
        yield from _walk(p)


def test_filters_and_bad_filters(kb):
    a = kb.audit(source="S002", kind="misattributed").to_json()
    assert a["findings"] and all(f["kind"] == "misattributed" for f in a["findings"])
    assert all(any(c["source"] == "S002" for c in f["claims"]) for f in a["findings"])
    from gpukb.engine.core.errors import BadInput
    with pytest.raises(BadInput):
        kb.audit(kind="wrongish").to_json()
    with pytest.raises(BadInput):
        kb.audit(source="S999").to_json()


def test_claimreview_json_ld(kb, audit):
    doc = kb.audit(fmt="claimreview").to_json()
    assert doc["@context"] == "https://schema.org"
    reviews = doc["@graph"]
    not_supported = [c for c, st in audit.statuses.items() if st["status"] != "supported"]
    assert len(reviews) == len(not_supported)
    for r in reviews:
        assert r["@type"] == "ClaimReview"
        for field in ("claimReviewed", "itemReviewed", "reviewRating", "author"):
            assert field in r
        assert 1 <= r["reviewRating"]["ratingValue"] <= 5
    json.dumps(doc, ensure_ascii=False)


def test_claimreview_is_valid_json_ld_when_pyld_is_available(kb):
    pyld = pytest.importorskip("pyld", reason="pyld (JSON-LD processor) is not installed")
    doc = kb.audit(fmt="claimreview").to_json()
    # expand with an inline schema.org-like context so no network is needed
    ctx = {"@vocab": "https://schema.org/"}
    expanded = pyld.jsonld.expand({**doc, "@context": ctx})
    assert expanded
