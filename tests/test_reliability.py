"""Reliability of the real server: a broken KB edit keeps the last good KB serving, and a killed
worker is replaced by gunicorn without losing more than the request in flight."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from tests._net import free_port as _free_port

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow




def _get(url: str, timeout: float = 30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, json.loads(r.read().decode("utf-8"))


@pytest.fixture
def server(tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPUKB_KB": str(kb)}
    proc = subprocess.Popen([sys.executable, "-m", "gpukb.server.cli", "serve", "--port", str(port), "--workers", "2",
                             "--reload", "0.5"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180     # the first start of a KB checks and compiles it
    while True:
        try:
            if _get(base + "/health", 2)[0] == 200:
                break
        except Exception:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("server did not start: " + proc.stderr.read().decode()[-2000:])
        time.sleep(0.2)
    yield base, kb, proc
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


def _until(pred, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.3)
    return None


def test_a_broken_kb_file_leaves_the_last_good_kb_serving(server):
    base, kb, proc = server
    status, before = _get(base + "/v1/claims?source=S001")
    n = len(before["claims"])
    claims = kb / "claims" / "S001.yaml"
    good = claims.read_text(encoding="utf-8")
    claims.write_text(good.replace("source: S001", "source: S001\nsource: S001", 1), encoding="utf-8")  # duplicate key
    # every worker notices the change, refuses it, and keeps answering from the last good KB
    refused = _until(lambda: all("reload" in h and "duplicate key" in (h["reload"].get("last_error") or "")
                                 for h in (_get(base + "/health")[1] for _ in range(6))))
    assert refused, "the broken change was not reported by /health"
    for _ in range(6):
        status, after = _get(base + "/v1/claims?source=S001")
        assert status == 200 and len(after["claims"]) == n
    # repairing it and making a valid edit is picked up
    claims.write_text(good, encoding="utf-8")
    f = kb / "sources" / "sources.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("publisher: 云小栈", "publisher: 云小栈 (reviewed)"), encoding="utf-8")
    # it is checked and compiled in the background (tens of seconds on a busy machine), then served
    picked = _until(lambda: all("(reviewed)" in json.dumps(_get(base + "/v1/sources")[1], ensure_ascii=False)
                                for _ in range(6)), 180)
    assert picked, "a valid change was not loaded"


def test_a_killed_worker_is_replaced_and_only_in_flight_requests_fail(server):
    base, kb, proc = server
    workers = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert len(workers) == 2
    os.kill(int(workers[0]), signal.SIGKILL)
    ok = failed = 0
    for i in range(40):
        try:
            status, body = _get(base + "/v1/ask?q=" + urllib.request.quote(f"Does the T4 support BF16? {i % 3}"))
            ok += status == 200
        except Exception:
            failed += 1
    assert failed <= 1 and ok >= 39
    replaced = _until(lambda: len(subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()) == 2)
    assert replaced, "gunicorn did not start a new worker"
    assert _get(base + "/health")[0] == 200
