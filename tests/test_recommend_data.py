"""Recommendations are data: a new kind is one YAML edit (the rule carries its change, label and cost)."""
from __future__ import annotations

import shutil

import pytest

from gpukb.engine.service.state import DEFAULT_KB, DEFAULT_RULES, GpuKB

EXTRA = '''rules:
  - id: recommend.smaller_batch
    version: 1
    label: {en: "use a batch of one", zh: "把 batch 降到 1"}
    description: {en: "A smaller micro-batch holds fewer activations.", zh: "更小的 micro-batch 占用更少的激活。"}
    when:
      - {bind: s, type: scenario, where: "trainable == 1 and batch > 1"}
      - {bind: v, type: verdict, where: "qid == s.qid and verdict == 'does_not_fit'"}
    derive: {type: recommendation, set: {qid: s.qid, action: "'smaller_batch'", change: "'batch=1'", rank: 2, cost: "'fewer samples per step'"}}
'''


@pytest.fixture(scope="module")
def kb_with_extra_rule(tmp_path_factory):
    rules = tmp_path_factory.mktemp("rules") / "rules"
    shutil.copytree(DEFAULT_RULES, rules)
    (rules / "sizing" / "extra.yaml").write_text(EXTRA, encoding="utf-8")
    return GpuKB(DEFAULT_KB, rules)


def test_a_recommendation_added_in_yaml_appears_with_its_label_in_both_languages(kb_with_extra_rule):
    a = kb_with_extra_rule.query({"model": "bert-base", "method": "full", "gpu": "T4", "batch": 512, "seq_len": 512}).to_json()
    rec = next(r for r in a["recommendations"] if r["action"] == "smaller_batch")
    assert rec["label"] == {"en": "use a batch of one", "zh": "把 batch 降到 1"}
    assert rec["change"] == {"batch": 1} and rec["cost"] == "fewer samples per step"
    assert rec["fits"] is True and rec["need_gb"] <= rec["capacity_gb"]


def test_a_rule_label_needs_both_languages(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(DEFAULT_RULES, rules)
    (rules / "sizing" / "extra.yaml").write_text(EXTRA.replace(', zh: "把 batch 降到 1"', ""), encoding="utf-8")
    with pytest.raises(Exception, match="label needs 'en' and 'zh'"):
        GpuKB(DEFAULT_KB, rules)
