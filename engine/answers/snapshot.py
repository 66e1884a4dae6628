"""Compiled snapshots: the audit derivations of every release, saved once and loaded by each worker.

An audit runs the whole rule set over every claim of a release (about a second per release for the
bundled KB, much more for a large one). A snapshot stores those derivations (facts, firings, given
facts) as JSON, keyed by a digest of the KB and rules directories, so a serving worker rebuilds the
audits without running them. Snapshots are written atomically (a temporary file in the same
directory, flushed and renamed over the target), so an interrupted write never leaves a half-written
snapshot; a snapshot whose digest does not match, or that cannot be read, is ignored.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from ..reasoning.reasoner import Derivation, Firing

log = logging.getLogger("gpukb.snapshot")
FORMAT = 1


def digest(kb_dir: str | Path, rules_dir: str | Path) -> str:
    """A digest of every file's path and content under the KB and rules directories."""
    h = hashlib.sha256()
    for root in (Path(kb_dir), Path(rules_dir)):
        for p in sorted(root.rglob("*")):
            if p.is_file():
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def default_path(kb_dir: str | Path, rules_dir: str | Path) -> Path:
    return Path(tempfile.gettempdir()) / f"gpukb-snapshot-{digest(kb_dir, rules_dir)[:16]}.json"


def _derivation_json(d: Derivation) -> dict[str, Any]:
    return {"facts": d.facts, "given": sorted(d.given),
            "firings": [[f.rule, list(f.premises), f.derived, [list(v) for v in f.values]] for f in d.firings]}


def _derivation(data: dict[str, Any]) -> Derivation:
    firings = [Firing(r, tuple(p), dv, tuple((k, v) for k, v in vals)) for r, p, dv, vals in data["firings"]]
    return Derivation(data["facts"], firings, set(data["given"]))


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save(service, path: str | Path) -> dict[str, Any]:
    """Audit every release of the service's KB and write the snapshot; returns what was written."""
    releases = {}
    for name in service.kb.release_names():
        releases[name] = _derivation_json(service.audit_result(name).derivation)
    doc = {"format": FORMAT, "digest": digest(service.kb_dir, service.rules_dir), "releases": releases}
    write_atomic(path, json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=_plain))
    return {"path": str(path), "releases": list(releases), "digest": doc["digest"][:16]}


def _plain(x: Any) -> Any:
    if isinstance(x, (set, tuple)):
        return list(x)
    return str(x)


def load(service, path: str | Path) -> bool:
    """Give the service the audits stored in a matching snapshot; False (and nothing changed) otherwise."""
    from .audit import _collect
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
        if doc.get("format") != FORMAT or doc.get("digest") != digest(service.kb_dir, service.rules_dir):
            log.info("snapshot %s is for another KB or rules; ignored", p)
            return False
        audits = {name: _collect(service.view(name), _derivation(data)) for name, data in doc["releases"].items()}
    except FileNotFoundError:
        return False
    except Exception as exc:  # an unreadable snapshot is only a missed shortcut
        log.warning("snapshot %s not used: %s", p, exc)
        return False
    with service._lock:
        service._audits.update(audits)
    return True
