"""KB releases: answers as of a release, and the diff of facts and conclusions between releases."""
from __future__ import annotations

import pytest

from gpukb.engine.core.errors import UnknownRelease

from ._engine import bundled


@pytest.fixture(scope="module")
def kb():
    return bundled()


def test_versions_list_oldest_first_with_counts(kb):
    v = kb.versions().to_json()["versions"]
    import yaml
    from gpukb.engine.core.paths import BUNDLED_KB
    written = [r["name"] for r in yaml.safe_load((BUNDLED_KB / "versions.yaml").read_text())["releases"]]
    assert [r["name"] for r in v] == written and written[:5] == ["2026.09", "2026.10", "2026.12", "2026.12.1", "2026.12.4"]
    assert v[0]["counts"]["claims"] < v[1]["counts"]["claims"]
    assert all(r["date"] and r["note"] for r in v)


def test_revised_fact_keeps_its_old_value_in_the_earlier_release(kb):
    old = kb.ask("What is the memory bandwidth of the T4?", kb_version="2026.09").to_json()
    new = kb.ask("What is the memory bandwidth of the T4?", kb_version="2026.12").to_json()
    assert old["kind"] == new["kind"] == "fact"
    assert old["fact"]["value"] == 300 and new["fact"]["value"] == 320
    assert old["kb_version"] == "2026.09" and new["kb_version"] == "2026.12"


def test_retired_fact_no_longer_supports_anything(kb):
    body = {"model": "qwen2.5-7b", "method": "lora", "gpu": "A10", "gradient_checkpointing": True}
    before = kb.query({**body, "kb_version": "2026.10"}).to_json()
    after = kb.query({**body, "kb_version": "2026.12"}).to_json()
    assert before["compute"] is not None and before["compute"]["tflops"] == 125
    assert after["compute"] is None      # the only FP16 figure for the A10 was retired


def test_answers_say_which_release_they_used(kb):
    assert kb.query({"params": 13e9, "gpu": "T4"}).to_json()["kb_version"] == kb.kb.latest
    assert kb.query({"params": 13e9, "gpu": "T4", "kb_version": "2026.09"}).to_json()["kb_version"] == "2026.09"
    assert kb.audit(kb_version="2026.09").to_json()["kb_version"] == "2026.09"


def test_audit_before_and_after_the_2026_09_16_article(kb):
    before = kb.audit(kb_version="2026.09").to_json()
    after = kb.audit(kb_version="2026.10").to_json()
    assert not any(c["claim"].startswith("S002") for c in before["statuses"])
    assert any(c["claim"].startswith("S002") for c in after["statuses"])


def test_diff_names_facts_rules_and_the_conclusions_that_changed(kb):
    d = kb.diff("2026.09", "2026.12").to_json()
    assert d["from"] == "2026.09" and d["to"] == "2026.12"
    assert any(x["id"].startswith("S002-") for x in d["added"])
    assert [r["id"] for r in d["revised"]] == ["R-T4-memory_bandwidth"]
    assert d["revised"][0]["old"]["value"].startswith("300") and d["revised"][0]["new"]["value"].startswith("320")
    assert [r["id"] for r in d["retired"]] == ["R-A10-fp16_tensor_tflops"]
    # a claim whose status changed because the new article contradicts it, with the cause named
    c = next(c for c in d["conclusions"] if c.get("claim") == "S001-C004")
    assert c["from"] == "unverifiable" and c["to"] == "contradiction"
    assert any("S002-C041" in (cause.get("because") or []) for cause in c["causes"])
    # a watch-list answer that changed because a fact was retired
    w = next(c for c in d["conclusions"] if c.get("question") == "a10-lora-qwen")
    assert {"fact": "R-A10-fp16_tensor_tflops"} in w["causes"]


def test_diff_of_a_release_with_itself_is_empty(kb):
    d = kb.diff("2026.10", "2026.10").to_json()
    assert not (d["added"] or d["revised"] or d["retired"] or d["conclusions"])


@pytest.mark.parametrize("call", [
    lambda kb: kb.diff("2026.09", "nope"),
    lambda kb: kb.query({"params": 13e9, "gpu": "T4", "kb_version": "nope"}).to_json(),
    lambda kb: kb.audit(kb_version="nope").to_json(),
    lambda kb: kb.ask("does the T4 support BF16?", kb_version="nope").to_json(),
])
def test_unknown_release_is_a_clear_error(kb, call):
    with pytest.raises(UnknownRelease) as e:
        call(kb)
    assert e.value.status == 400 and "2026.09" in str(e.value)
