"""The shortcuts a question's answer takes (issue 34) choose what the long way chooses: label cases by an
index, notes remembered, the Chinese walk of an answer, reference records no pattern can match left out."""
from __future__ import annotations

import random

import pytest

from gpukb.engine.kb import label_cases
from gpukb.engine.kb.notes import Note, in_lang
from gpukb.engine.kb.wording import _Fields
from gpukb.engine.service.state import GpuKB
from gpukb.engine.sizing import run as sizing


@pytest.fixture(scope="module")
def kb() -> GpuKB:
    return GpuKB()


def test_indexed_label_cases_choose_the_case_a_scan_chooses(kb):
    rng = random.Random(34)
    for rtype, spec in kb.kb.vocab.wording.labels.items():
        for cases in [spec.cases] + [c for _, c in spec.parts]:
            index = label_cases.CaseIndex(cases)
            tested = [(k, v) for c in cases for k, v in (c.when.get("equals") or {}).items()]
            fields = sorted({k for k, _ in tested} | {"method", "prec", "missing", "reason"})
            for _ in range(200):
                rec = {"t": rtype}
                for f in fields:
                    if rng.random() < 0.7:
                        rec[f] = rng.choice([v for k, v in tested if k == f] + [None, "other", 1, True, 1.0])
                values = _Fields(rec, {})
                assert index.first(values) is label_cases._scan(cases, values), rec


def test_a_remembered_note_is_the_note_worded_again(kb):
    vocab = kb.kb.vocab
    w = vocab.wording
    first = w.note("disagreeing", vocab, n=2)
    again = w.note("disagreeing", vocab, n=2)
    fresh = w.label({"t": "note", "key": "disagreeing", "n": 2}, vocab)
    assert again is first and (first, first.zh) == (fresh["en"], fresh["zh"])
    assert label_cases.note_key("k", vocab, {"n": 1}) != label_cases.note_key("k", vocab, {"n": True})
    assert label_cases.note_key("k", vocab, {"gb": 1.5}) is None        # a float is worded anew


def _old_in_lang(value, lang):
    if lang != "zh":
        return value
    if isinstance(value, Note):
        return value.zh
    if isinstance(value, dict):
        out = {k: _old_in_lang(v, lang) for k, v in value.items()}
        return out if any(out[k] is not v for k, v in value.items()) else value
    if isinstance(value, list):
        items = [_old_in_lang(v, lang) for v in value]
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value


def test_the_chinese_walk_gives_what_it_gave_and_shares_what_it_shared():
    rng = random.Random(7)

    def gen(depth):
        r = rng.random()
        if depth > 3 or r < 0.4:
            return rng.choice([1, 2.5, "x", None, True, Note("a", "甲"), Note("b")])
        if r < 0.7:
            return {f"k{i}": gen(depth + 1) for i in range(rng.randint(0, 4))}
        return [gen(depth + 1) for _ in range(rng.randint(0, 4))]
    for _ in range(3000):
        v = gen(0)
        old, new = _old_in_lang(v, "zh"), in_lang(v, "zh")
        assert repr(old) == repr(new) and (old is v) == (new is v)


def test_other_families_records_are_sent_only_when_a_pattern_can_match_them(kb):
    view = kb.view(kb.kb.latest)
    usable = sizing.reference_use(kb.question_reasoner.ruleset)
    seeds = kb.seeds(view)
    families = {r["subject"] for r in seeds if r["subject"].startswith("family:") and r["attribute"] == "gpu"}
    kept = {r["subject"] for r in seeds if r["subject"].startswith("family:") and r["attribute"] == "gpu" and usable(r)}
    assert kept and kept < families            # the families the family recommendation may name
    # every GPU's memory stays (a pattern joins it on a derived fact's field, which only the run knows)
    assert all(usable(r) for r in seeds if r["subject"].startswith("gpu:") and r["attribute"] == "memory_gb")
    # a scenario's own family is always sent, whether or not the recommendation may name it
    own = next(iter(families - kept))
    s = {"family": own}
    assert any(r["subject"] == own for r in sizing.relevant(seeds, s, usable))
    assert {r["fk"] for r in sizing.relevant(seeds, s, usable)} <= {r["fk"] for r in sizing.relevant(seeds, s)}
