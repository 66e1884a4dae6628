"""KB generations: a checked, compiled, private copy of the KB and rules that workers serve from.

A generation is made off the request path, in the serving master (or before it starts):

1. *stage*: every file of the KB and rules directories is copied into the private cache
   (``generations/<digest>``): regular files only, nothing outside the directories (a FIFO, a device or
   an escaping symlink refuses the change). Workers load this copy, so what they serve is exactly what
   was checked, even if the files change again meanwhile.
2. *build*: a child process (``gpukb snapshot``, at low CPU priority) loads and validates the copy,
   compiles the rules, runs the bounded smoke derivation (a runaway rule is stopped by the firing
   budget or the time limit) and audits every release into a signed snapshot; a snapshot already
   built for the same digest is reused.

The master records the generation being served and the last refused change in a small JSON state
file that every worker's /health reads.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gpukb.engine.core import cache
from gpukb.engine.core.errors import GpukbError, Issue, clip
from gpukb.engine.core.files import read_bytes, tree_files

log = logging.getLogger("gpukb.reload")
DEFAULT_BUILD_SECONDS = 300.0


class BuildError(GpukbError):
    """A KB change that cannot be served (invalid, a runaway rule, a build that failed)."""

    status = 422


@dataclass
class Generation:
    """One servable state of the KB and rules."""

    digest: str
    kb: str
    rules: str
    snapshot: str | None
    number: int = 0
    loaded_at: str = ""

    def app_config(self) -> dict[str, Any]:
        return {"GPUKB_KB": self.kb, "GPUKB_RULES": self.rules, "GPUKB_SNAPSHOT": self.snapshot,
                "GPUKB_DIGEST": self.digest, "GPUKB_GENERATION": self.number}


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def stamp(*dirs: str | Path) -> tuple:
    """A cheap signature of the directories (names, types, sizes, times; nothing is opened)."""
    out = []
    for d in dirs:
        for dirpath, dirnames, filenames in os.walk(d, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames + [n for n in dirnames if os.path.islink(os.path.join(dirpath, n))]):
                p = os.path.join(dirpath, name)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                out.append((p, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino))
                if len(out) > 200_000:
                    return tuple(out)
    return tuple(out)


class Builder:
    """Stages and builds generations of one KB and rules directory pair."""

    def __init__(self, kb_dir: str | Path, rules_dir: str | Path, *, cache_root: Path | None = None,
                 use_snapshot: bool = True, build_seconds: float = DEFAULT_BUILD_SECONDS):
        self.kb_dir, self.rules_dir = Path(kb_dir), Path(rules_dir)
        self.cache_root = cache.private_dir(cache_root)
        self.use_snapshot = use_snapshot
        self.build_seconds = build_seconds

    def stamp(self) -> tuple:
        return stamp(self.kb_dir, self.rules_dir)

    # -- stage ------------------------------------------------------------------------------------
    def stage(self) -> Path:
        """Copy the directories into a private generation directory named by their digest."""
        gens = cache.subdir("generations", self.cache_root)
        tmp = Path(tempfile.mkdtemp(prefix="staging-", dir=gens))
        try:
            for label, src in (("kb", self.kb_dir), ("rules", self.rules_dir)):
                (tmp / label).mkdir()
                for rel, real in tree_files(src, str(src)):
                    dst = tmp / label / rel
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    dst.write_bytes(read_bytes(real, real.parent, f"{src}/{rel}"))
            digest = cache.tree_digest(tmp / "kb", tmp / "rules")
            final = gens / digest[:32]
            if final.exists():
                if cache.tree_digest(final / "kb", final / "rules") == digest:
                    return final
                shutil.rmtree(final)
            os.rename(tmp, final)
            return final
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)

    # -- build ------------------------------------------------------------------------------------
    def build(self, staged: Path) -> Generation:
        """Check and compile a staged copy in a child process; raise :class:`BuildError` if it fails."""
        digest = cache.tree_digest(staged / "kb", staged / "rules")
        snap = None
        if self.use_snapshot:
            from gpukb.engine.audit.snapshot import read
            snap = cache.subdir("snapshots", self.cache_root) / f"{digest[:32]}.json"
            if read(snap, digest) is not None:
                return Generation(digest, str(staged / "kb"), str(staged / "rules"), str(snap))
            cmd = ["snapshot", "--out", str(snap)]
        else:
            cmd = ["validate", "--json"]
        argv = [sys.executable, "-m", "gpukb.server.cli", "--kb", str(staged / "kb"), "--rules", str(staged / "rules"),
                *cmd, "--time-limit", f"{self.build_seconds:g}", "--nice", "10"]
        env = {**os.environ, "GPUKB_CACHE_DIR": str(self.cache_root)}
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=self.build_seconds + 60, env=env,
                               stdin=subprocess.DEVNULL)
            out, err = r.stdout, r.stderr
        except subprocess.TimeoutExpired as exc:
            raise BuildError(f"checking the KB did not finish within {self.build_seconds + 60:g} s",
                             [Issue("the build was stopped", str(self.kb_dir))]) from None
        # the exit status is not trusted (gunicorn's master reaps every child): the result is
        if self.use_snapshot:
            from gpukb.engine.audit.snapshot import read
            ok = read(snap, digest) is not None
        else:
            try:
                ok = json.loads(out).get("ok") is True
            except ValueError:
                ok = False
        if not ok:
            # name the directories the user edits, not the private copy the check ran on
            text = (err or "").replace(str(staged / "kb"), str(self.kb_dir)).replace(str(staged / "rules"), str(self.rules_dir))
            raise BuildError(_child_error(text, out), [Issue(line) for line in _issue_lines(text)])
        return Generation(digest, str(staged / "kb"), str(staged / "rules"), str(snap) if snap else None)

    def prune(self, keep: set[str], min_age: float = 600.0) -> None:
        """Delete generation directories and snapshots older than ``min_age`` seconds whose digest is
        not in ``keep`` (a build in progress is younger than that)."""
        keep32 = {k[:32] for k in keep}
        old = time.time() - min_age
        for p in [*(self.cache_root / "generations").glob("*"), *(self.cache_root / "snapshots").glob("*.json")]:
            name = p.name.removesuffix(".json")
            try:
                if name in keep32 or p.is_symlink() or p.lstat().st_mtime > old:
                    continue
                shutil.rmtree(p) if p.is_dir() else p.unlink()
            except OSError:
                pass


def _child_error(err: str, out: str) -> str:
    lines = [ln for ln in (err or "").splitlines() if ln.strip()]
    head = next((ln for ln in lines if ln.startswith("gpukb: ")), lines[0] if lines else (out or "no output").strip())
    return clip(head.removeprefix("gpukb: ").removeprefix("error: "), 600)


def _issue_lines(err: str) -> list[str]:
    return [clip(ln.strip(), 400) for ln in (err or "").splitlines() if ln.startswith("  ")][:50]


# -- the state file --------------------------------------------------------------------------------

def write_state(path: Path, state: dict[str, Any]) -> None:
    from gpukb.engine.audit.snapshot import write_atomic
    write_atomic(path, json.dumps(state, ensure_ascii=False))


_STATE_CACHE: dict[str, tuple[tuple, dict]] = {}


def read_state(path: str | Path | None) -> dict[str, Any]:
    """The master's state file (cached until it changes); {} when there is none."""
    if not path:
        return {}
    try:
        st = os.stat(path)
    except OSError:
        return {}
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    hit = _STATE_CACHE.get(str(path))
    if hit and hit[0] == key:
        return hit[1]
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return hit[1] if hit else {}
    _STATE_CACHE[str(path)] = (key, data)
    return data


def state_of(current: Generation | None, refused: dict[str, Any] | None) -> dict[str, Any]:
    return {"generation": asdict(current) if current else None, "refused": refused}
