"""Progress bars: drawn on a terminal, silent in a pipe or with --quiet; the engine reports through a callback."""
from __future__ import annotations

import pytest

import io
import sys

from gpukb.server.progress import Bar


def test_a_disabled_bar_draws_nothing(capsys):
    with Bar(False) as b:
        b("phase", 1, 10)
    assert capsys.readouterr().err == ""


def test_an_enabled_bar_draws_each_phase_on_stderr(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with Bar(True) as b:
        b("generating claims", 5, 10)
        b("rule firings", 300, None)
    text = err.getvalue()
    assert "generating claims" in text and "rule firings" in text


def test_the_reasoner_reports_its_progress(gpukb, monkeypatch):
    """In an audit of one engine run, the reasoner's own phases; in one of several, the runs done (below)."""
    seen = []
    view = gpukb.view(None)
    from gpukb.engine.audit import units
    from gpukb.engine.audit.run import run_audit
    monkeypatch.setattr(units, "BATCH_PAIRS", 10**9)          # the bundled KB in one engine run
    gpukb.progress = lambda phase, done, total: seen.append((phase, done, total))
    try:
        run_audit(gpukb, view)
    finally:
        gpukb.progress = None
    phases = {p for p, _, _ in seen}
    assert {"asserting facts", "rule firings"} <= phases
    asserted = [d for p, d, t in seen if p == "asserting facts"]
    assert asserted == sorted(asserted) and asserted[-1] == next(t for p, _, t in seen if p == "asserting facts")


@pytest.mark.slow      # a subprocess / worker processes
def test_synth_then_audit_in_a_pipe_prints_no_bar(tmp_path, cli):
    out = tmp_path / "syn"
    code, stdout, stderr = cli("synth", "--claims", "200", "--seed", "2", "--out", str(out))
    assert code == 0 and "wrote 200 claims" in stdout and "generating" not in stderr
    code, stdout, stderr = cli("--kb", str(out), "audit", "--source", "S000", "--json")
    assert code == 0 and "rule firings" not in stderr


def test_an_audit_of_several_runs_reports_the_runs_done(gpukb, monkeypatch):
    seen = []
    from gpukb.engine.audit import units
    from gpukb.engine.audit.run import run_audit
    monkeypatch.setattr(units, "BATCH_PAIRS", 1000)           # the bundled KB in several engine runs
    gpukb.progress = lambda phase, done, total: seen.append((phase, done, total))
    try:
        result = run_audit(gpukb, gpukb.view(None))
    finally:
        gpukb.progress = None
    runs = [(d, t) for p, d, t in seen if p == "auditing blocks"]
    assert result.run.batches > 1 and runs[-1] == (result.run.batches, result.run.batches), runs
