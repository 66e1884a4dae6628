"""Compiled snapshots: the audit derivations of every release, saved once and loaded by each worker.

An audit runs the whole rule set over every claim of a release (about a second per release for the
bundled KB, much more for a large one). A snapshot stores those derivations (facts, firings, given
facts) as JSON, so a serving worker rebuilds the audits without running them.

A snapshot is trusted only if gpukb wrote it for exactly this KB, these rules and this code: it lives
in the private cache directory (:mod:`engine.core.cache`: mode 0700, owner checked), its name and content
carry a digest of the KB and rules directories and of the engine's source, and its first line is an
HMAC of the rest under the cache's private key. A file that is not ours, is writable by others, fails
the HMAC or names another digest is ignored (logged), so a forged snapshot cannot change an answer.
Snapshots are written atomically (a temporary file in the same directory, flushed and renamed over the
target), so an interrupted write never leaves a half-written snapshot.
"""
from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from ..core import cache

log = logging.getLogger("gpukb.snapshot")
FORMAT = 2


def digest(kb_dir: str | Path, rules_dir: str | Path) -> str:
    """A digest of every file's path and content under the KB and rules directories and of the code."""
    return cache.tree_digest(kb_dir, rules_dir)


def default_path(kb_dir: str | Path, rules_dir: str | Path) -> Path:
    """Where the snapshot of this KB and these rules lives: the private cache's snapshots/ directory."""
    return cache.subdir("snapshots") / f"{digest(kb_dir, rules_dir)[:32]}.json"


def _derivation_json(d) -> dict[str, Any]:
    return {"facts": d.facts, "given": sorted(d.given),
            "firings": [[f.rule, list(f.premises), f.derived, [list(v) for v in f.values]] for f in d.firings]}


def _derivation(data: dict[str, Any]):
    from ..reasoning.reasoner import Derivation, Firing   # not at import: the serving master reads snapshots
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
    """Audit every release of the service's KB and write the signed snapshot; returns what was written."""
    releases = {}
    for name in service.kb.release_names():
        releases[name] = _derivation_json(service.audit_result(name).full_derivation())
    doc = {"format": FORMAT, "digest": digest(service.kb_dir, service.rules_dir), "releases": releases}
    body = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=_plain)
    write_atomic(path, cache.sign(body.encode("utf-8")) + "\n" + body)
    return {"path": str(path), "releases": list(releases), "digest": doc["digest"][:16]}


def _plain(x: Any) -> Any:
    if isinstance(x, (set, tuple)):
        return list(x)
    return str(x)


def read(path: str | Path, expected_digest: str) -> dict[str, Any] | None:
    """The document of a snapshot gpukb wrote for ``expected_digest``; None (and a log line) otherwise."""
    p = Path(path)
    try:
        cache.check_private(p, is_dir=False)
        raw = p.read_bytes()
        mac, sep, body = raw.partition(b"\n")
        if not sep or not cache.verify(body, mac.decode("ascii", "replace")):
            log.warning("snapshot %s is not signed by this cache's key; ignored", p)
            return None
        doc = json.loads(body.decode("utf-8"))
    except FileNotFoundError:
        return None
    except Exception as exc:  # an unreadable or foreign snapshot is only a missed shortcut
        log.warning("snapshot %s not used: %s", p, str(exc)[:300])
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("digest") != expected_digest:
        log.info("snapshot %s is for another KB, rules or code; ignored", p)
        return None
    return doc


def load(service, path: str | Path) -> bool:
    """Give the service the audits stored in a matching snapshot; False (and nothing changed) otherwise."""
    from .result import _collect
    doc = read(path, digest(service.kb_dir, service.rules_dir))
    if doc is None:
        return False
    try:
        audits = {name: _collect(service.view(name), _derivation(data), rules=service.rules) for name, data in doc["releases"].items()}
    except Exception as exc:  # noqa: BLE001 - signed but unusable (e.g. written by a bug): recompute instead
        log.warning("snapshot %s not used: %s", path, str(exc)[:300])
        return False
    with service._lock:
        service._audits.update(audits)
    return True
