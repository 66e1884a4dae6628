"""Typed answers built where they are made (issue 34): the sizing, inventory, knowledge, check, audit-gaps,
ask (fact, comparison, instance choice, inverse, claim check, unknown; a sizing question's answer is the
sizing answer with the question's fields first), solve, cheapest, audit and ClaimReview answers are
models constructed by their producers (engine/sizing, engine/catalog, engine/explain/diff.py,
engine/text/check.py, engine/audit/gaps.py, engine/ask, engine/audit/result.py), checked there, and
serialised once by the faces with ``.to_json()``, into the same JSON objects, keys in the same order, as
before; /health and the error body are built as their models where the API makes them."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from gpukb.engine import models
from gpukb.engine.models.base import OMIT, Model, ModelError


def _same(a, b) -> bool:
    """Equal as JSON text: the values and the order of every object's keys."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.mark.parametrize("name, call", [
    ("gpus", lambda kb: kb.catalog("gpu")),
    ("instances", lambda kb: kb.catalog("instance", provider="aws")),
    ("models", lambda kb: kb.catalog("model")),
    ("gpu", lambda kb: kb.catalog_entry("gpu", "A100-80GB")),
    ("instance", lambda kb: kb.catalog_entry("instance", "GN7.2XLARGE32")),
    ("model", lambda kb: kb.catalog_entry("model", "llama-2-7b")),
    ("claims", lambda kb: kb.claims(source="S000")),
    ("claim", lambda kb: kb.claim("S000-C002")),
    ("sources", lambda kb: kb.sources()),
    ("source", lambda kb: kb.source("S000")),
    ("versions", lambda kb: kb.versions()),
    ("diff", lambda kb: kb.diff(kb.kb.releases[-2].name, kb.kb.latest)),
    ("check", lambda kb: kb.check("The T4 has 32 GB of memory. 单张 T4 可以全量微调 Llama-2-13B。 Hello.")),
    ("gaps", lambda kb: kb.audit_gaps()),
    ("audit", lambda kb: kb.audit(source="S001")),
    ("claimreview", lambda kb: kb.audit(fmt="claimreview", source="S001")),
    ("solve", lambda kb: kb.solve({"model": "llama-2-7b", "method": "lora", "gpu": "T4"}, "batch")),
    ("cheapest", lambda kb: kb.cheapest({"model": "llama-2-7b", "method": "qlora"}, ["tencent"], "zh")),
    ("query", lambda kb: kb.query({"params": 13e9, "method": "full", "gpu": "T4"})),
    ("query", lambda kb: kb.query({"model": "llama-3-8b", "method": "inference", "gpu": "A10", "engine": "vllm"}, "S001")),
])
def test_producers_return_their_answer_models(gpukb, name, call):
    answer = call(gpukb)
    assert isinstance(answer, models.ANSWERS[name]), type(answer)
    j = answer.to_json()
    assert _same(models.ANSWERS[name].build(j).to_json(), j), "the JSON object builds as its model unchanged"


def test_the_sizing_answer_is_made_of_its_parts_models(gpukb):
    """The sizing producer builds each part as its model; the cached answer is shared, never changed: a
    ``without`` answer and a question's answer are copies with their own fields."""
    body = {"params": 13e9, "method": "full", "gpu": "T4"}
    a = gpukb.query(dict(body))
    parts = [a.scenario, a.memory, a.capacity, a.compute, a.explanation, a.why_not, a.band, a.summary,
             *a.communication, *a.recommendations, *a.sources, *a.contradictions]
    assert all(isinstance(x, Model) for x in parts), [type(x).__name__ for x in parts]
    assert gpukb.query(dict(body)) is a
    without = gpukb.query(dict(body), "S001")
    assert not a.has("without") and list(without.to_json())[-1] == "without"
    asked = gpukb.ask("why not T4 for 13B full fine-tune")
    assert asked.conclusion_id == a.conclusion_id and not a.has("question") and not a.has("alternatives")


def test_sources_and_claims_are_the_objects_they_were(gpukb):
    kb = gpukb.kb
    assert _same(gpukb.sources().to_json(), {"sources": [s.as_dict() for s in kb.sources.values()]})
    view = gpukb.view(None)
    audit = gpukb.audit_result(view.name)
    before = {"kb_version": view.name,
              "claims": [{**f.as_dict(), "audit": audit.status_of(f.id)}
                         for f in sorted(view.claims, key=lambda f: f.id) if f.source == "S001"]}
    assert _same(gpukb.claims(source="S001").to_json(), before)


def test_versions_and_entries_keep_their_key_order(gpukb):
    rules = len(gpukb.rules.rules)
    before = {"versions": [{**r.as_dict(), "counts": {"claims": len(v.claims), "reference": len(v.reference),
                                                      "sources": len(v.source_ids), "rules": rules}}
                           for r in gpukb.kb.releases for v in [gpukb.view(r.name)]],
              "latest": gpukb.kb.latest}
    assert _same(gpukb.versions().to_json(), before)
    head = ["kind", "id", "name", "label", "aliases", "kb_version"]
    gpu = gpukb.catalog_entry("gpu", "A100-80GB").to_json()
    assert list(gpu) == head + ["umbrella", "facts", "unknowns", "missing", "instances", "fact_count", "unknown_count"]
    inst = gpukb.catalog_entry("instance", "GN7.2XLARGE32").to_json()
    assert list(inst)[:10] == head + ["provider", "family", "gpu", "prices"]
    assert list(inst)[-4:] == ["facts", "unknowns", "fact_count", "unknown_count"]
    item = gpukb.catalog("gpu").gpus[0].to_json()
    assert list(item)[:3] == ["id", "name", "label"] and list(item)[-3:] == ["specs", "facts", "unknowns"]


CLAIM_KEYS = ["id", "span", "quote", "subject", "subject_label", "attribute", "attribute_label", "value", "value_text",
              "qualifiers", "modality", "confidence", "status", "findings", "correction"]


def test_the_check_answer_keeps_its_key_order_and_its_json_for_ask(gpukb):
    from gpukb.engine.text import check as text_check
    text = "The T4 has 32 GB of memory. The A100 has 80 GB of memory. Nothing here."
    answer = gpukb.check(text)
    assert isinstance(answer.claims[0], models.CheckedClaim) and answer.summary.en.startswith("2 checkable claims")
    j = answer.to_json()
    assert list(j) == ["kb_version", "text_id", "lang", "wrong", "claims", "not_understood", "summary"]
    wrong, right = j["claims"]
    assert list(wrong) == CLAIM_KEYS + ["unit"] and wrong["status"] == "incorrect"
    assert list(wrong["findings"][0])[:2] == ["id", "kind"] and list(wrong["findings"][0])[-1] == "explain"
    assert list(j["wrong"][0]) == ["claim", "span", "quote", "status", "en", "zh"]
    assert j["wrong"][0]["en"].startswith(f"“{wrong['quote']}” is incorrect: ") and right["status"] == "supported"
    assert list(j["not_understood"][0]) == ["span", "quote", "reason"]
    # the answer an ask claim check embeds is the same answer, built once
    assert _same(text_check.check_answer(gpukb, text).to_json(), j)


def test_an_unclear_claim_carries_the_audit_status_last(gpukb):
    text = "The A100 has 80 GB HBM2e and 2 TB/s bandwidth; 8 A100s give 16 TB/s."
    unclear = [c.to_json() for c in gpukb.check(text).claims if c.status.value == "unclear"]
    assert unclear, "the total of eight cards is no figure of one"
    assert list(unclear[0])[-2:] == ["audit_status", "unclear_because"]


def test_gaps_health_and_errors_keep_their_key_order(gpukb, client):
    gaps = gpukb.audit_gaps()
    assert gaps.gaps and all(isinstance(g, models.Gap) for g in gaps.gaps)
    assert list(gaps.gaps[0].to_json()) == ["subject", "attribute", "subject_label", "attribute_label", "claims", "count"]
    assert [g.count for g in gaps.gaps] == sorted((g.count for g in gaps.gaps), reverse=True)
    assert list(client.get("/health").get_json()) == ["status", "kb_version", "claims", "rules"]
    from gpukb.server.errors import error_body
    assert list(error_body(400, "bad", [{"message": "m", "field": "f"}])) == ["ok", "status", "error", "errors"]
    assert error_body(400, "bad", [{"message": "m", "line": "x"}])["errors"] == [{"message": "m"}]   # still one shape


def test_the_library_returns_the_producers_check_model(gpukb):
    from gpukb.server.library import KB
    answer = KB(gpukb).check("The NVIDIA T4 has 16 GB of GDDR6 memory.")
    assert type(answer) is models.CheckAnswer and answer.claims[0].status.value == "supported"


def test_a_producer_bug_fails_where_the_model_is_made():
    @dataclass(kw_only=True)
    class Pair(Model):
        en: str
        zh: str = OMIT

    assert Pair.of(zh="是", en="yes").to_json() == {"zh": "是", "en": "yes"}
    assert list(Pair.of(zh="是", en="yes").to_json()) == ["zh", "en"]
    assert Pair.of(en="yes", zh=OMIT).to_json() == {"en": "yes"}
    with pytest.raises(ModelError, match="Pair.en: expected a string"):
        Pair.of(en=3)
    with pytest.raises(ModelError, match="missing field"):
        Pair.of(zh="是")
    with pytest.raises(ModelError, match="unknown field 'fr'"):
        Pair.of(en="yes", fr="oui")


ASK_HEAD = ["question", "lang", "kb_version", "parsed", "kind"]


@pytest.mark.parametrize("question, model, lang", [
    ("why not T4 for 13B full fine-tune", "SizingAnswer", None),
    ("Does the T4 support BF16?", "FactAnswer", "zh"),
    ("T4 or A10 for 7B LoRA?", "ComparisonAnswer", None),
    ("which GN7 size can QLoRA a 7B model?", "InstanceChoiceAnswer", "zh"),
    ("cheapest instance for Llama-2-7B inference", "InstanceChoiceAnswer", None),
    ("the longest context for Llama-2-7B inference on a T4", "InverseAnswer", None),
    ("Is it true that the T4 supports BF16?", "ClaimCheckAnswer", None),
    ("hello", "UnknownAnswer", "zh"),
    # a GPU gpukb does not know: said first, then the run over the GPUs it knows (was an UnknownAnswer)
    ("Can an RTX 9090 run Llama-2-7B?", "GpuChoiceAnswer", None),
    ("How much VRAM does Llama 3 8B need for inference?", "GpuChoiceAnswer", None),
])
def test_ask_returns_the_model_of_its_kind_built_by_its_producer(gpukb, question, model, lang):
    a = gpukb.ask(question, lang=lang)
    assert type(a).__name__ == model, type(a)
    j = a.to_json()
    assert list(j)[:5] == ASK_HEAD, list(j)
    assert _same(models.ANSWERS["ask"].build(j).to_json(), j), "the JSON object builds as its model unchanged"
    nested = {"ComparisonAnswer": "options", "InstanceChoiceAnswer": "tried", "FactAnswer": "support"}.get(model)
    if nested:
        assert all(isinstance(x, Model) for x in getattr(a, nested))


def test_a_chinese_answer_has_its_notes_in_chinese_inside_its_models(gpukb):
    from gpukb.engine.kb.notes import Note, in_lang
    c = models.Candidate.of(verdict=None, error=Note("cannot be sized", "无法计算"))
    parent = models.InverseAnswer.of(kind="inverse", target="batch", answer="a", checked=[c])
    zh = in_lang(parent, "zh")
    assert zh.checked[0].error == "无法计算" and parent.checked[0].error == "cannot be sized"
    assert in_lang(parent, "en") is parent and in_lang(models.Candidate.of(verdict=None), "zh").verdict is None
    unknown = gpukb.ask("hello", lang="zh").to_json()
    assert not any(m.isascii() for m in unknown["missing"]), unknown["missing"]


def test_replace_sets_fields_as_a_json_object_does():
    c = models.Candidate.of(verdict="fits", need_gb=1.0)
    d = c.replace(error="x", verdict=None)
    assert list(d.to_json()) == ["verdict", "need_gb", "error"] and d.verdict is None
    assert c.to_json() == {"verdict": "fits", "need_gb": 1.0}, "the original is unchanged"
    assert d.replace(need_gb=OMIT).to_json() == {"verdict": None, "error": "x"}
    with pytest.raises(ModelError, match="Candidate.need_gb"):
        c.replace(need_gb="a lot")
    with pytest.raises(ModelError, match="unknown field"):
        c.replace(colour="red")


def test_the_audit_findings_are_built_one_at_a_time_when_read(gpukb):
    from gpukb.engine.models.base import Items
    a = gpukb.audit(kind="incorrect")
    assert isinstance(a.findings, Items) and isinstance(a.statuses, Items)
    first = next(iter(a.findings))
    assert isinstance(first, models.Finding) and first.kind.value == "incorrect"
    assert first.to_json() == a.findings.raw[0], "each finding is the audit's own object, typed"
    review = gpukb.audit(fmt="claimreview").to_json()
    assert list(review) == ["@context", "@graph"]
