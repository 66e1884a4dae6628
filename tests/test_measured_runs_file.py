"""A measured-runs gold file of the wrong shape is refused with its file and line, not an internal error."""
from __future__ import annotations

import pytest

from gpukb.engine.core.errors import ValidationError
from gpukb.engine.sizing.calibration import measured_runs


@pytest.mark.parametrize("text, said", [
    ("- id: M1\n  split: dev\n", "expected a mapping with a 'runs' list, got a list"),
    ("runs:\n  - 3\n", "'runs' must be a list of mappings (one per run), got a number"),
    ("runs: M1\n", "'runs' must be a list of mappings (one per run), got a string"),
])
def test_a_gold_file_of_the_wrong_shape_names_file_and_line(kb, tmp_path, text, said):
    p = tmp_path / "measured_runs.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ValidationError) as e:
        measured_runs(kb, kb.view(), p)
    assert said in e.value.message and str(p) in e.value.message
    assert e.value.issues[0].line == 1


def test_an_empty_runs_list_is_no_error(kb, tmp_path):
    p = tmp_path / "measured_runs.yaml"
    p.write_text("runs: []\n", encoding="utf-8")
    assert measured_runs(kb, kb.view(), p)["splits"] == {}
