"""Wording is data: a finding kind's explanation and a record's label are templates in
kb/vocabulary.yaml (``findings:``, ``labels:``), checked when the vocabulary loads."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpukb.engine.audit import wording as audit_wording
from gpukb.engine.core.errors import ValidationError
from gpukb.engine.kb.labels import fact_label
from gpukb.engine.kb.vocabulary import Vocabulary
from gpukb.engine.core.paths import BUNDLED_KB, BUNDLED_RULES
from gpukb.engine.core.terms import FINDING_FIELDS

VOCAB = BUNDLED_KB / "vocabulary.yaml"
CONTRADICTION_EN = ('    en: "{source} says {subject} {attribute} is {claim_text}; {other_source} says {other_text}, '
                    'for overlapping scopes')


def _vocab_with(tmp_path: Path, old: str, new: str) -> Path:
    text = VOCAB.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    p = tmp_path / "vocabulary.yaml"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


def test_every_finding_placeholder_has_a_value():
    assert set(audit_wording._FIELDS) == set(FINDING_FIELDS)


def test_a_finding_kinds_wording_is_one_data_edit(tmp_path):
    from gpukb.engine.service.state import GpuKB
    kb_dir = tmp_path / "kb"
    shutil.copytree(BUNDLED_KB, kb_dir)
    text = VOCAB.read_text(encoding="utf-8")
    start = text.index(CONTRADICTION_EN)
    end = text.index("\n  - ", start)
    case = text[text.rindex("\n  - ", 0, start):end]
    reworded = case[:case.index("    en:")] + ('    en: "CONFLICT {source} vs {other_source} on {subject} ({attribute})."\n'
                                              '    zh: "冲突 {source} 对 {other_source}：{subject}"')
    (kb_dir / "vocabulary.yaml").write_text(text.replace(case, reworded, 1), encoding="utf-8")
    kb = GpuKB(kb_dir, BUNDLED_RULES)
    res = kb.audit_result(kb.kb.latest)
    found = [f for f in res.findings if f["kind"] == "contradiction" and f["basis"] == "claims"]
    assert found
    for f in found:
        assert f["explanation"]["en"].startswith("CONFLICT S00"), f["explanation"]
        assert f["explanation"]["zh"].startswith("冲突 S00")


@pytest.mark.parametrize("old, new, message", [
    ('{other_source} states the same ({other_text})', '{other_source} states the same ({nope})',
     "names unknown placeholder(s) nope"),
    ("  - when: {basis: claims, other: true, kinds: [contradiction]}",
     "  - when: {basis: claims, other: true, kinds: [contradicted]}", "must be a list of finding kinds"),
    ("  - when: {basis: claims, other: true, kinds: [contradiction]}",
     "  - when: {basis: claims, other: yes please, kinds: [contradiction]}", "must be true or false"),
    ("  - when: {attributes: [min_gpus], value: true}", "  - when: {attributes: [min_gpu], value: true}",
     "unknown attribute(s) min_gpu"),
    ('{other_source} states the same ({other_text})', '{other_source} states the same ({other_text:g})',
     "has a format it cannot take"),
    ('{other_source} states the same ({other_text})', '{other_source} states the same ({other_text)',
     "malformed template"),
    ('    - {en: "{component:component}: {gb:gb}", zh:', '    - {en: "{component:colour}: {gb:gb}", zh:',
     "has a format it cannot take"),
    ("    - when: {equals: {verdict: fits}}", "    - when: {equal: {verdict: fits}}", "unknown test 'equal'"),
    ("which the audit finds {premise_status}.", "which the audit finds {status}.", "names unknown placeholder(s) status"),
])
def test_bad_wording_is_refused_with_file_line_and_what_is_allowed(tmp_path, old, new, message):
    p = _vocab_with(tmp_path, old, new)
    with pytest.raises(ValidationError) as e:
        Vocabulary.load(p)
    hits = [i for i in e.value.issues if message in str(i)]
    assert hits, e.value.issues
    assert all(i.line and "vocabulary.yaml" in str(i.file) for i in hits)
    if "placeholder" in message:                    # the allowed placeholders are listed
        assert "premise_quote" in str(hits[0]) if "status" in message else "own_subject" in str(hits[0])


def test_a_label_is_one_data_edit(tmp_path):
    p = _vocab_with(tmp_path, "labels:\n", "labels:\n"
                    "  widget:\n"
                    "    - when: {has: [gpus]}\n"
                    "      en: '{gpus} widgets on {gpu:name}, {gb:gb} each'\n"
                    "      zh: '{gpu:name} 上 {gpus} 个部件，各 {gb:gb}'\n"
                    "    - {en: 'a widget of {n:params}', zh: '{n:params}的部件'}\n")
    vocab = Vocabulary.load(p)
    assert fact_label({"t": "widget", "gpus": 2, "gpu": "gpu:T4", "gb": 16}, None, vocab) == {
        "en": "2 widgets on NVIDIA Tesla T4, 16.0 GB each", "zh": "NVIDIA Tesla T4 上 2 个部件，各 16.0 GB"}
    assert fact_label({"t": "widget", "n": 7e9}, None, vocab) == {"en": "a widget of 7B", "zh": "70 亿的部件"}
    # a type without a template is labelled by its name
    assert fact_label({"t": "gadget"}, None, vocab) == {"en": "gadget", "zh": "gadget"}


def test_labels_follow_the_bundled_templates():
    vocab = Vocabulary.load(VOCAB)
    rec = {"t": "scenario", "method": "qlora", "params": 7e9, "gpu": "gpu:T4", "gpus": 2, "precision": "nf4",
           "seq_len": 512, "batch": 1}
    assert fact_label(rec, None, vocab) == {
        "en": "question: QLoRA fine-tuning of 7B on 2 × NVIDIA Tesla T4 (nf4, seq 512, batch 1)",
        "zh": "问题：在 2 × NVIDIA Tesla T4 上对 70 亿参数模型 做QLoRA 微调（nf4，序列 512，批 1）"}
    assert fact_label({"t": "min_gpus", "n": 4, "zero": 3}, None, vocab)["zh"] == "放得下的最少卡数：4（ZeRO-3）"
    assert fact_label({"t": "comm", "gb_per_step": 2.0, "seconds": 0.5, "link": "PCIe"}, None, vocab)["en"] == \
        "communication 2.00 GB per step, 0.50 s per step over PCIe"
