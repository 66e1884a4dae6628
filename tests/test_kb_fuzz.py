"""Fuzzing the KB loader: whatever a claim file says, loading fails with a ValidationError or succeeds."""
from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from gpukb.engine.core.errors import ValidationError
from gpukb.engine.kb.loader import load_kb

import pytest

pytestmark = pytest.mark.slow   # property-based fuzzing of the loader (~20 s)

ROOT = Path(__file__).resolve().parents[1]
TEXT = "GN7 实例搭载 NVIDIA T4，单卡 16GB 显存。\n"

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=30), st.sampled_from(["gpu:T4", "family:GN7", "memory_gb", "GB", ">= 24", "[1, 2]", "spec"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=10), inner, max_size=3)), max_leaves=6)
FIELDS = ["id", "version", "quote", "span", "subject", "attribute", "value", "unit", "qualifiers", "modality",
          "gloss_en", "approx", "note", "extra"]


def _base_claim():
    q = "单卡 16GB 显存"
    s = TEXT.index(q)
    return {"id": "S000-C001", "version": 1, "quote": q, "span": [s, s + len(q)], "subject": "gpu:T4",
            "attribute": "memory_gb", "value": 16, "unit": "GB", "qualifiers": {"family": "family:GN7"},
            "modality": "spec", "gloss_en": "The T4 has 16 GB."}


def _tiny_kb(root: Path, claim_yaml: str) -> Path:
    kb = root / "kb"
    (kb / "sources").mkdir(parents=True)
    (kb / "claims").mkdir()
    (kb / "reference").mkdir()
    shutil.copy(ROOT / "kb" / "vocabulary.yaml", kb / "vocabulary.yaml")
    (kb / "sources" / "s.txt").write_text(TEXT, encoding="utf-8")
    (kb / "sources" / "sources.yaml").write_text(
        "sources:\n  - {id: S000, file: s.txt, title: t, publisher: p, published: null, language: zh}\n", encoding="utf-8")
    (kb / "versions.yaml").write_text("releases:\n  - {name: r1, date: '2026-01-01', note: n, adds: {sources: [S000]}}\n",
                                      encoding="utf-8")
    (kb / "claims" / "S000.yaml").write_text(claim_yaml, encoding="utf-8")
    return kb


def test_the_tiny_kb_loads(tmp_path):
    kb = load_kb(_tiny_kb(tmp_path, yaml.safe_dump({"source": "S000", "claims": [_base_claim()]}, allow_unicode=True)))
    assert len(kb.all_facts) == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=values)
def test_any_field_value_is_accepted_or_refused_with_a_located_error(tmp_path_factory, field, value):
    claim = _base_claim()
    claim[field] = value
    text = yaml.safe_dump({"source": "S000", "claims": [claim]}, allow_unicode=True)
    root = tmp_path_factory.mktemp("kb")
    try:
        load_kb(_tiny_kb(root, text))
    except ValidationError as exc:
        assert exc.issues and all(i.file for i in exc.issues), [str(i) for i in exc.issues]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300))
def test_arbitrary_claim_file_text_never_crashes_the_loader(tmp_path_factory, text):
    root = tmp_path_factory.mktemp("kb")
    try:
        load_kb(_tiny_kb(root, text))
    except ValidationError as exc:
        assert exc.issues
