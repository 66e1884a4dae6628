"""Compiled snapshots: same audits as computing them, written atomically, ignored when stale or broken."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from gpukb.engine.audit import snapshot
from gpukb.engine.service.state import GpuKB

from ._engine import ROOT, bundled


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("snap") / "audits.json"
    snapshot.save(bundled(), path)
    return path


def test_a_loaded_snapshot_gives_the_same_audits(saved):
    fresh = GpuKB(ROOT / "kb", ROOT / "rules")
    assert snapshot.load(fresh, saved)
    for release in fresh.kb.release_names():
        a = json.dumps(fresh.audit(kb_version=release).to_json(), sort_keys=True, default=str)
        b = json.dumps(bundled().audit(kb_version=release).to_json(), sort_keys=True, default=str)
        assert a == b
    # explanations of findings work from the loaded derivations
    f = fresh.audit(kind="misattributed").to_json()["findings"][0]
    assert fresh.explain(f["id"]).tree.get("rule")


def test_an_interrupted_write_leaves_the_old_snapshot_whole(saved, tmp_path, monkeypatch):
    target = tmp_path / "audits.json"
    shutil.copy(saved, target)
    before = target.read_bytes()

    def boom(fd):
        raise OSError("disk full (simulated)")
    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        snapshot.write_atomic(target, '{"format": 1, "partial": ')
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["audits.json"]  # no temporary file left behind


def test_a_snapshot_of_another_kb_is_ignored(saved, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    notes = kb / "sources" / "sources.yaml"
    notes.write_text(notes.read_text(encoding="utf-8").replace("publisher: 云小栈", "publisher: 云小栈 (edited)"), encoding="utf-8")
    other = GpuKB(kb, ROOT / "rules")
    assert snapshot.load(other, saved) is False
    assert other._audits == {}


@pytest.mark.parametrize("content", [b"", b"{\"format\": 1, \"digest\"", b"\xff\xfe not json", b"[1, 2, 3]"])
def test_a_broken_snapshot_is_ignored(tmp_path, content):
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    kb = GpuKB(ROOT / "kb", ROOT / "rules")
    assert snapshot.load(kb, path) is False
    assert snapshot.load(kb, tmp_path / "missing.json") is False
