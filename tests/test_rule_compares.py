"""An audit rule says what its finding's computed value is (``compares: total | part``), so the checker's
error-band guard reads it from the rules rather than from a list of rule ids in Python; a value outside the
allowed ones is refused with the file, the line and the allowed values."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpukb.engine.core.errors import ValidationError
from gpukb.engine.audit.functions import load_rules_for

ROOT = Path(__file__).resolve().parents[1]


def test_the_total_rule_is_marked_and_parts_are_not_totals(gpukb):
    rules = {r.id: r for r in gpukb.rules.rules}
    assert rules["audit.derive.memory.total"].compares == "total"
    assert rules["audit.derive.memory.weights"].compares == "part"
    assert rules["audit.derive.memory.weights_gradients"].compares == "part"
    assert rules["audit.derive.verdict"].compares is None


def test_the_checkers_bands_name_the_rules_marked_total(gpukb):
    from gpukb.engine.text.bands import error_bands
    bands = error_bands(gpukb, gpukb.view())
    assert bands.totals == frozenset({"audit.derive.memory.total"})


def test_an_unknown_value_is_refused_with_file_line_and_allowed(gpukb, tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    f = rules / "audit" / "derivation.yaml"
    text = f.read_text(encoding="utf-8")
    f.write_text(text.replace("compares: total", "compares: everything", 1), encoding="utf-8")
    line = f.read_text(encoding="utf-8").splitlines().index("    compares: everything") + 1
    with pytest.raises(ValidationError) as exc:
        load_rules_for(gpukb.kb, rules)
    issue = next(i for i in exc.value.issues if "compares" in i.message)
    assert "everything" in issue.message and issue.line == line and "derivation.yaml" in str(issue.file)
    assert "total" in str(issue.allowed) and "part" in str(issue.allowed)
