"""gpukb check / POST /v1/check / the /check page / gpukb ingest: claims found in free text, audited."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tests.conftest import assert_error_shape
from gpukb.engine.text.extract import aligned_lower, extract, sentences
from gpukb.engine.core.errors import BadInput, TooLarge, ValidationError
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab():
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def _one(result, attribute):
    found = [c for c in result["claims"] if c["attribute"] == attribute]
    assert len(found) == 1, [(c["attribute"], c["quote"]) for c in result["claims"]]
    return found[0]


# -- statuses and evidence, English and Chinese -------------------------------------------------------

@pytest.mark.parametrize("text, attribute, subject, status, evidence", [
    ("The NVIDIA T4 has 16 GB of GDDR6 memory.", "memory_gb", "gpu:T4", "supported", "R-T4-memory_gb"),
    ("The T4 has 32 GB of memory.", "memory_gb", "gpu:T4", "incorrect", "R-T4-memory_gb"),
    ("T4 显存为 24GB。", "memory_gb", "gpu:T4", "incorrect", "R-T4-memory_gb"),
    ("T4 不支持 BF16。", "bf16_native", "gpu:T4", "supported", "R-T4-bf16_native"),
    ("The T4 supports BF16.", "bf16_native", "gpu:T4", "incorrect", "R-T4-bf16_native"),
    ("GN7 instances have NVLink.", "nvlink", "family:GN7", "incorrect", "R-T4-nvlink"),
    ("腾讯云 GN7 实例搭载 T4 GPU。", "gpu", "family:GN7", "supported", "R-GN7-gpu"),
    ("Tesla T4 的 INT8 算力为 130 TOPS。", "int8_tops", "gpu:T4", "supported", "R-T4-int8_tops"),
    # a fractional size's GPU memory is its vGPU share, not the whole T4's; a whole-T4 size inherits the T4's
    ("GN7.2XLARGE40 只有半张 T4，也就是 8GB 的 vGPU 显存。", "memory_gb", "instance:GN7.2XLARGE40", "supported", "R-GN7.2XLARGE40-memory_gb"),
    ("GN7.LARGE20 has 16 GB of GPU memory.", "memory_gb", "instance:GN7.LARGE20", "incorrect", "R-GN7.LARGE20-memory_gb"),
    ("GN7.5XLARGE80 has 16 GB of GPU memory.", "memory_gb", "instance:GN7.5XLARGE80", "supported", "R-T4-memory_gb"),
    ("The PNV4.7XLARGE116 gives you 28 vCPUs and 116 GB of memory.", "host_memory_gb", "instance:PNV4.7XLARGE116",
     "supported", "R-PNV4.7XLARGE116-host_memory_gb"),
    # near misses: within 10% of the reference holds, beyond it does not
    ("The A10 comes with 20 GB of GPU memory.", "memory_gb", "gpu:A10", "incorrect", "R-A10-memory_gb"),
    ("T4 的显存大约 15GB。", "memory_gb", "gpu:T4", "supported", "R-T4-memory_gb"),
])
def test_spec_statements_get_the_status_and_evidence(gpukb, text, attribute, subject, status, evidence):
    c = _one(gpukb.check(text).to_json(), attribute)
    assert c["subject"] == subject
    assert c["status"] == status, c["findings"]
    top = next(f for f in c["findings"] if f["kind"] == status)
    assert any(e.split("@")[0] == evidence for e in top["evidence"]), top["evidence"]
    assert top["explanation"]["en"] and top["explanation"]["zh"]
    assert text[c["span"][0]:c["span"][1]] == c["quote"]
    if status == "incorrect":
        assert c["correction"]["en"] and c["correction"]["zh"]
    else:
        assert c["correction"] is None


def test_a_misattributed_gpu_is_named_with_the_family_that_has_it(gpukb):
    c = _one(gpukb.check("GN7 instances carry A100 GPUs.").to_json(), "gpu")
    assert c["status"] == "misattributed"
    assert "T4" in c["correction"]["en"] and "A100" in c["correction"]["en"]


def test_a_workload_verdict_is_checked_against_the_sizing(gpukb):
    wrong = _one(gpukb.check("单张 T4 可以全量微调 Llama-2-13B。").to_json(), "memory_verdict")
    assert wrong["qualifiers"]["method"] == "method:full"
    assert wrong["status"] == "inconsistent_with_derivation"
    assert wrong["correction"] is not None
    right = _one(gpukb.check("A single T4 cannot fully fine-tune Llama-2-13B.").to_json(), "memory_verdict")
    assert right["status"] == "supported"


@pytest.mark.parametrize("text, status, usable", [
    # an instance size is sized with what it has: a quarter, a half or a whole T4
    ("GN7.LARGE20 has enough GPU memory to serve Llama-2-7B in FP16.", "inconsistent_with_derivation", "3.48 GB"),
    ("GN7.2XLARGE40 不够跑 Llama-2-7B 的 FP16 推理。", "supported", "7.48 GB"),
    ("GN7.5XLARGE80 can serve Llama-2-7B in FP16.", "supported", "15.6 GB"),   # nvidia-smi 15,360 MiB less the CUDA context
])
def test_a_workload_verdict_on_an_instance_size_uses_its_share_of_the_gpu(gpukb, text, status, usable):
    c = _one(gpukb.check(text).to_json(), "memory_verdict")
    assert c["subject"].startswith("instance:GN7.") and c["status"] == status, c["findings"]
    assert any(usable in f["explanation"]["en"] for f in c["findings"]), c["findings"]


def test_a_requirement_with_a_bound_is_read_as_a_bound(gpukb):
    c = _one(gpukb.check("7B 模型全量微调至少需要 112GB 显存。").to_json(), "memory_required")
    assert c["value"] == ">= 112" and c["qualifiers"]["params"]["lo"] == 7e9


def test_nothing_checkable_returns_no_claims_and_the_whole_text_as_not_understood(gpukb):
    text = "Hello there. 今天天气不错。"
    r = gpukb.check(text).to_json()
    assert r["claims"] == []
    covered = sorted(tuple(x["span"]) for x in r["not_understood"])
    assert covered[0][0] == 0 and covered[-1][1] == len(text)
    assert "not understood" in r["summary"]["en"]


def test_every_finding_can_be_explained(gpukb):
    r = gpukb.check("The T4 has 32 GB of memory.").to_json()
    fid = r["claims"][0]["findings"][0]["id"]
    doc = gpukb.explain(fid, "json").to_json()
    assert doc["conclusion_id"] == fid and doc["kind"] == "finding"


# -- bad input -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, status", [
    ({"text": ""}, 400),
    ({"text": "   \n"}, 400),
    ({"text": 5}, 400),
    ({}, 400),
    ({"text": "T4", "lang": "fr"}, 400),
    ({"text": "T4", "lang": 3}, 400),
    ({"text": "T4", "extra": 1}, 400),
    ({"text": "T4", "kb_version": "1999.01"}, 400),
    ({"text": "x" * 20_001}, 413),
])
def test_bad_bodies_get_a_4xx_in_the_error_shape(client, body, status):
    r = client.post("/v1/check", json=body)
    assert r.status_code in ((status, 404) if "kb_version" in body else (status,)), r.get_data(as_text=True)[:300]
    assert_error_shape(r.get_json(), r.status_code)


@pytest.mark.parametrize("text", [
    "T4 \x00\x07 显存 16GB", "GN7\u202e has NVLink", "混合 scripts: T4 has 16 GB 显存 and 不支持 BF16", "🙂" * 500,
    "1" * 5000, "|" * 3000, "x" * 20_000,
])
def test_hostile_text_gets_an_answer(client, text):
    r = client.post("/v1/check", json={"text": text})
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    d = r.get_json()
    for c in d["claims"]:
        assert text[c["span"][0]:c["span"][1]] == c["quote"]


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_extraction_never_fails_and_spans_are_in_the_text(vocab, text):
    ex = extract(text, vocab)
    assert len(aligned_lower(text)) == len(text)
    for c in ex.claims:
        assert 0 <= c.start < c.end <= len(text)
    for s, e in ex.not_understood:
        assert 0 <= s < e <= len(text)


def test_sentences_split_english_and_chinese_but_not_decimals():
    low = aligned_lower("The T4 has 16 GB. It runs at 8.1 TFLOPS。第二句；第三句")
    parts = ["The T4 has 16 GB.", "It runs at 8.1 TFLOPS。", "第二句；", "第三句"]
    assert [low[s:e].strip() for s, e in sentences(low)] == [aligned_lower(p) for p in parts]


def test_a_cue_for_an_unknown_attribute_is_an_error_with_the_allowed_names(tmp_path):
    text = (ROOT / "kb" / "vocabulary.yaml").read_text(encoding="utf-8")
    text = text.replace("  attribute:\n", "  attribute:\n    no_such_attribute: ['x']\n", 1)
    p = tmp_path / "vocabulary.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ValidationError) as exc:
        Vocabulary.load(p)
    issue = next(i for i in exc.value.issues if "no_such_attribute" in i.message)
    assert issue.line and "memory_gb" in issue.allowed


def test_too_large_is_a_413():
    assert TooLarge.status == 413 and issubclass(TooLarge, BadInput)


# -- the page ------------------------------------------------------------------------------------------

def test_the_check_page_marks_the_claims_without_javascript(client):
    assert client.get("/check").status_code == 200
    r = client.post("/check", data={"text": "The T4 has 32 GB of memory. 单张 T4 可以全量微调 Llama-2-13B。"})
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    assert 'data-status="incorrect"' in html and 'data-status="inconsistent_with_derivation"' in html
    assert "/conclusions/A-X" in html
    too_long = client.post("/check", data={"text": "x" * 20_001})
    assert too_long.status_code == 413


# -- ingest --------------------------------------------------------------------------------------------

def test_ingest_registers_a_source_with_pending_claims(tmp_path):
    from gpukb.engine.text.ingest import ingest
    from gpukb.engine.service.state import GpuKB
    from gpukb.engine.kb.loader import load_kb
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    art = tmp_path / "a.md"
    art.write_text("The NVIDIA T4 has 32 GB of memory. GN7 instances are based on the T4.\n", encoding="utf-8")
    d = ingest(kb, art, "S003", title="Notes", date="2026-12-01")
    assert d["claims"] >= 2
    text = (kb / "claims" / "S003.yaml").read_text(encoding="utf-8")
    assert text.count("\n    review: pending") == d["claims"]
    assert not any(c.source == "S003" for c in load_kb(kb).release(None).claims)       # not used by default
    pending = GpuKB(kb, ROOT / "rules", include_pending=True)
    statuses = pending.audit(source="S003").to_json()["summary"]["S003"]["by_status"]
    assert statuses["incorrect"] >= 1
    with pytest.raises(BadInput):
        ingest(kb, art, "S003")                   # the id is taken; nothing changes
    before = (kb / "sources" / "sources.yaml").read_text(encoding="utf-8")
    with pytest.raises(BadInput):
        ingest(kb, tmp_path / "missing.md", "S004")
    assert (kb / "sources" / "sources.yaml").read_text(encoding="utf-8") == before


def test_a_review_mark_other_than_pending_is_refused(tmp_path):
    from gpukb.engine.kb.loader import load_kb
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    p = kb / "claims" / "S000.yaml"
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace("  version: 1\n", "  version: 1\n  review: done\n", 1), encoding="utf-8")
    with pytest.raises(ValidationError) as exc:
        load_kb(kb)
    assert any(i.field == "review" and i.line for i in exc.value.issues)


def test_eval_extract_reports_precision_and_recall(gpukb):
    from gpukb.engine.evals.extract import evaluate
    rep = evaluate(gpukb.view(None))
    o = rep["overall"]
    assert o["curated"] == len(gpukb.view(None).claims)
    assert 0 < o["matched"] <= o["extracted"] and 0 < o["precision"] <= 1 and 0 < o["recall"] <= 1


# -- the block audit: the reachable part of the reference tier decides as the whole tier does -----------

def _texts():
    import random
    rng = random.Random(7)
    gpus = ["T4", "A10", "A100-40GB", "A100", "L4", "V100-32GB", "H100-80GB", "H20"]
    tpl = ["The {g} has {m} GB of memory.", "The {g} supports BF16.", "{g} does not have NVLink.",
           "A single {g} can fully fine-tune a {p}B model.", "GN7 instances carry {g} GPUs.", "{g} 显存为 {m}GB。",
           "单张 {g} 可以用 QLoRA 微调 {p}B 模型。", "GN7.2XLARGE32 有 8 核 vCPU 和 32GB 内存。", "阿里云 ESSD 是腾讯云的产品。",
           "On GN7, use BF16 mixed precision.", "GN7 is not suitable for large-scale training."]
    return [" ".join(rng.choice(tpl).format(g=rng.choice(gpus), m=rng.choice([16, 24, 40, 80]), p=rng.choice([3, 7, 13, 70]))
                     for _ in range(8)) for _ in range(12)]


@pytest.mark.slow  # audits every text against the whole tier (~12 s)
def test_the_block_audit_finds_what_the_whole_tier_finds(gpukb):
    from gpukb.engine.text.check import audit_claims, claims_of, text_id
    view = gpukb.view(None)
    texts = _texts() + [s.text for s in view.kb.sources.values()]
    for text in texts:
        claims, _, _ = claims_of(text, text_id(text, view.name), view)
        block = audit_claims(gpukb, view, claims)
        whole = audit_claims(gpukb, view, claims, whole_tier=True)
        assert sorted((f["id"], tuple(f["evidence"])) for f in block.findings) == \
            sorted((f["id"], tuple(f["evidence"])) for f in whole.findings), text[:80]
        assert {k: v["status"] for k, v in block.statuses.items()} == {k: v["status"] for k, v in whole.statuses.items()}


def test_out_of_scope_statements_are_not_understood_or_unverifiable(gpukb):
    # a card the KB does not know (a consumer GPU of 2019): listed as not understood, nothing invented
    r = gpukb.check("The RTX 2060 has 6 GB of memory. GN7 is the best value on the market.").to_json()
    assert [x["quote"] for x in r["not_understood"]][:1] == ["The RTX 2060 has 6 GB of memory."]
    assert not any(c["attribute"] == "memory_gb" for c in r["claims"])     # nothing invented for an unknown GPU
    zh = gpukb.check("RTX 2060 有 6GB 显存。").to_json()
    assert zh["claims"] == [] and zh["not_understood"]
    known = gpukb.check("The RTX 4090 has 24 GB of memory.").to_json()                # a card the tier now knows
    assert [c["status"] for c in known["claims"] if c["attribute"] == "memory_gb"] == ["supported"]


def test_eval_check_scores_the_held_out_statements(gpukb):
    from gpukb.engine.evals.check import evaluate, load_gold
    gold = load_gold(ROOT / "kb" / "gold" / "check.yaml")
    rep = evaluate(gpukb, gold)
    assert rep["expected"] == sum(len(s["expect"]) for s in gold) > 30
    assert 0 <= rep["right"] <= rep["found"] <= rep["expected"]
    assert set(rep["per_lang"]) == {"en", "zh"}


def test_eval_check_refuses_a_malformed_gold_file(tmp_path):
    from gpukb.engine.evals.check import load_gold
    p = tmp_path / "g.yaml"
    p.write_text("statements:\n  - text: x\n    expect: [{subject: gpu:T4, attribute: memory_gb, status: maybe}]\n")
    with pytest.raises(BadInput):
        load_gold(p)


# -- a figure agrees within the rounding it is written with (10% when hedged) -----------------------------
@pytest.mark.parametrize("text,status", [
    ("The L4 has 280 GB/s of memory bandwidth.", "incorrect"),          # 300: written to the unit, 7% off
    ("The L4 has about 280 GB/s of memory bandwidth.", "supported"),    # hedged: within 10%
    ("The L4 has 0.3 TB/s of memory bandwidth.", "supported"),          # 300 GB/s, written to a tenth of a TB/s
    ("L4 的显存带宽为 290GB/s。", "incorrect"),
    ("L4 的显存带宽约为 290GB/s。", "supported"),
    ("The L4 has 300 GB/s of memory bandwidth.", "supported"),
])
def test_a_figure_agrees_within_the_rounding_it_states(gpukb, text, status):
    [c] = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_bandwidth"]
    assert c["status"] == status, c


def test_the_stated_tolerance_function():
    from gpukb.engine.audit.functions import stated_tolerance
    assert stated_tolerance(2000.0, 2000.0, 0, 2039.0, 2039.0, 0) == 0.1          # "2 TB/s": rounded to a TB/s
    assert stated_tolerance(1900.0, 1900.0, 0, 2039.0, 2039.0, 0) < 0.03          # "1.9 TB/s": to a tenth
    assert stated_tolerance(16.0, 32.0, 0, 24.0, 24.0, 0) == 0.1                  # a range keeps 10%
    assert stated_tolerance(16.0, 16.0, 0, 16.0, 16.0, 1) == 0.1                  # a hedged reference too
