"""The KB switch on gunicorn's documented signals (issue 34), on the real server: a generation that
passes the build but that a new worker cannot load is refused and the last good KB keeps serving;
after a refused and after an accepted change the master keeps exactly ``--workers`` workers (TTIN
added the new ones, TTOU took the count back), and the old workers are gone after a switch."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests._net import free_port, stop

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
MARK = "(fails to load)"

#: ``gpukb serve`` whose workers refuse to load a KB whose sources.yaml carries MARK (the build, a
#: child process, accepts it): the case of a generation that checks out but does not load
SERVER = f"""
import sys
from pathlib import Path
import gpukb.server as gs
from gpukb.server import cli
original = gs.create_app
def create_app(conf=None):
    kb = (conf or {{}}).get("GPUKB_KB")
    if kb and {MARK!r} in (Path(kb) / "sources" / "sources.yaml").read_text(encoding="utf-8"):
        raise RuntimeError("this KB does not load in a worker")
    return original(conf)
gs.create_app = create_app
sys.exit(cli.main(sys.argv[1:]))
"""


def _health(base: str) -> dict:
    with urllib.request.urlopen(base + "/health", timeout=10) as r:
        return json.loads(r.read())


def _until(pred, seconds: float):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if v := pred():
            return v
        time.sleep(0.3)
    return None


def _workers(pid: int) -> set[int]:
    return {int(x) for x in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()}


def test_an_unloadable_generation_is_refused_and_the_worker_count_comes_back(tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPUKB_KB": str(kb), "GPUKB_CACHE_DIR": str(tmp_path / "cache"),
           "GPUKB_NO_SNAPSHOT": "1"}
    log = (tmp_path / "serve.log").open("w+")
    proc = subprocess.Popen([sys.executable, "-c", SERVER, "serve", "--port", str(port), "--workers", "2", "--threads", "2",
                             "--reload", "0.3"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        assert _until(lambda: _ok(base) or proc.poll() is not None, 240) and proc.poll() is None, _tail(tmp_path)
        before, first = _health(base), _workers(proc.pid)
        assert len(first) == 2
        sources = kb / "sources" / "sources.yaml"
        good = sources.read_text(encoding="utf-8")
        sources.write_text(good.replace("publisher: 云小栈", f"publisher: 云小栈 {MARK}", 1), encoding="utf-8")
        refused = _until(lambda: "could not load" in (_health(base).get("reload", {}).get("last_error") or ""), 150)
        assert refused, _tail(tmp_path)
        assert _until(lambda: len(_workers(proc.pid)) == 2, 60), (_workers(proc.pid), _tail(tmp_path))
        for _ in range(6):
            h = _health(base)
            assert h["kb_digest"] == before["kb_digest"] and h["reload"]["generation"] == before["reload"]["generation"]
        sources.write_text(good.replace("publisher: 云小栈", "publisher: 云小栈 (reviewed)", 1), encoding="utf-8")
        assert _until(lambda: _health(base)["kb_digest"] != before["kb_digest"], 150), _tail(tmp_path)
        after = _health(base)
        assert after["reload"]["generation"] == before["reload"]["generation"] + 1 and "last_error" not in after["reload"]
        now = _until(lambda: w if len(w := _workers(proc.pid)) == 2 else None, 60)
        assert now and not now & first, (first, _workers(proc.pid), _tail(tmp_path))
        assert proc.poll() is None
    finally:
        stop(proc, log)


def _ok(base: str) -> bool:
    try:
        return _health(base)["status"] == "ok"
    except (OSError, ValueError):
        return False


def _tail(tmp_path: Path) -> str:
    return (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace")[-3000:]
