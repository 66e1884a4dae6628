"""Explanations: why / why-not trees down to quotes, contradictions in context, summaries, exports."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from gpukb.engine.core.errors import BadInput

from ._engine import bundled

QUESTIONS = ["why not T4 for 13B full fine-tune", "为什么 T4 不能全量微调 13B 模型"]


@pytest.fixture(scope="module")
def kb():
    return bundled()


def walk(t):
    yield t
    for p in t.get("premises", []) or []:
        yield from walk(p)


@pytest.mark.parametrize("q", QUESTIONS)
def test_why_not_t4_for_13b_full_fine_tune(kb, q):
    a = kb.ask(q).to_json()
    assert a["kind"] == "sizing" and a["verdict"] == "does_not_fit"
    m = a["memory"]
    assert m["model_states"] == pytest.approx(208, abs=0.5)
    assert m["weights"] + m["gradients"] + m["optimizer"] == pytest.approx(m["model_states"], abs=0.01)
    nodes = list(walk(a["explanation"]["tree"]))
    # the tree reaches the sources' sentences that give the T4's 16 GB ...
    t4 = next(n for n in nodes if n.get("given") and n["fact"].startswith("R-T4-memory_gb"))
    quotes = [c["quote"] for c in t4["stated_by"]]
    assert any("16GB" in qt for qt in quotes)
    assert {c["source"] for c in t4["stated_by"]} >= {"S001", "S002"}
    # ... and the cited 16-bytes-per-parameter rule
    assert any(c["id"].startswith("R-ZERO-model_states_bpp") for n in nodes for c in n.get("cites", []))
    # each step names its rule id@version and the values it used
    assert all("@" in n["rule"] and isinstance(n["values"], dict) for n in nodes if "rule" in n)
    # the source claims that disagree with its premises or conclusion, with their status
    contra = {c["claim"]["id"]: c["status"] for c in a["contradictions"]}
    assert contra.get("S000-C018") == "overstated" and contra.get("S001-C035") == "understated"
    # a cited summary in both languages
    assert "[1]" in a["summary"]["en"] and "[1]" in a["summary"]["zh"] and a["summary"]["citations"]
    assert a["answer"] == a["summary"][a["lang"]]


def test_shared_sub_proofs_are_shown_once(kb):
    t = kb.query({"params": 13e9, "method": "full", "gpu": "T4"}).to_json()["explanation"]["tree"]
    full = [n["fact"] for n in walk(t) if not n.get("shared")]
    assert len(full) == len(set(full))
    assert any(n.get("shared") for n in walk(t))


def test_why_not_is_computed_for_the_conclusion_that_does_not_hold(kb):
    doc = kb.explain(kb.ask(QUESTIONS[0]).to_json()["conclusion_id"]).to_json()
    wn = doc["why_not"]
    assert wn["candidates"] and all(c["rule"].startswith("sizing.verdict.fits") for c in wn["candidates"])
    assert wn["smallest_changes"] and all(c["fits"] for c in wn["smallest_changes"])


def test_a_question_that_is_not_understood_says_what_is_missing(kb):
    a = kb.ask("can this train my model?").to_json()
    assert a["kind"] == "unknown" and a["missing"] and a["examples"]
    assert "verdict" not in a


def test_fact_questions(kb):
    a = kb.ask("Does the T4 support BF16?").to_json()
    assert a["kind"] == "fact" and a["fact"] == {**a["fact"], "subject": "gpu:T4", "attribute": "bf16_native", "value": False}
    b = kb.ask("GN7 用的是什么 GPU？").to_json()
    assert b["kind"] == "fact" and b["fact"]["value"] == ["T4"]
    assert any(c["id"] == "S000-C002" and c["status"] == "incorrect" for c in b["contradictions"])
    assert b["lang"] == "zh" and "T4" in b["answer"]


def test_exports_text_dot_prov(kb):
    cid = kb.ask(QUESTIONS[0]).to_json()["conclusion_id"]
    text = kb.explain(cid, "text")
    assert "sizing.verdict.does_not_fit@1" in text and "reference:" in text
    zh = kb.explain(cid, "text", "zh")
    assert "放不下" in zh
    dot = kb.explain(cid, "dot")
    assert dot.startswith("digraph")
    prov = kb.explain(cid, "prov").to_json()
    from prov.model import ProvDocument
    doc = ProvDocument.deserialize(content=json.dumps(prov), format="json")
    assert doc.get_records() and "entity" in prov and "activity" in prov
    if shutil.which("dot"):
        r = subprocess.run(["dot", "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr.decode()[:500]


def test_explain_findings_and_facts(kb):
    f = kb.audit(kind="overstated").to_json()["findings"][0]
    doc = kb.explain(f["id"], "json").to_json()
    assert doc["kind"] == "finding" and doc["tree"]["rule"]
    fact = kb.explain("S001-C041").to_json()
    assert fact["kind"] == "fact" and fact["status"]["status"] == "incorrect"


@pytest.mark.parametrize("cid,fmt,lang", [
    ("Q-notbase64!!", "json", "en"), ("nope", "json", "en"), ("A-none", "json", "en"),
    ("S001-C001", "pdf", "en"), ("S001-C001", "json", "fr"), ("", "json", "en"),
])
def test_bad_explain_requests(kb, cid, fmt, lang):
    from gpukb.engine.core.errors import GpukbError
    with pytest.raises(GpukbError) as e:
        kb.explain(cid, fmt, lang)
    assert e.value.status in (400, 404)


def test_an_inference_conclusion_explains_from_its_own_id(kb):
    # the id carries the normalised scenario, whose optimizer for inference is "none"
    ans = kb.query({"model": "llama-2-7b", "method": "inference", "gpu": "T4"}).to_json()
    cid = ans["conclusion_id"]
    out = kb.explain(cid).to_json()
    assert out["conclusion_id"] == cid and out["tree"]
    with pytest.raises(BadInput):
        kb.query({"model": "llama-2-7b", "method": "inference", "gpu": "T4", "optimizer": "adamw"}).to_json()
