"""The real `gpukb serve` (2 workers × 8 threads, the defaults) on 127.0.0.1 under expensive and slow
clients (issue 36): /health stays fast while 50 clients check 20,000-character texts (the engine's
queue answers the surplus 503 with Retry-After), and clients that hold connections open in the ways
the issue lists do not take the threads /health needs."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from tests._net import free_port as _free_port

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow




@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPUKB_CACHE_DIR": str(tmp_path_factory.mktemp("cache")),
           "GPUKB_READ_TIMEOUT": "3", "GPUKB_SEND_TIMEOUT": "3"}
    log = open(tmp_path_factory.mktemp("log") / "serve.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "gpukb.server.cli", "serve", "--port", str(port), "--reload", "0"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as r:
                if r.status == 200:
                    break
        except Exception:
            time.sleep(0.3)
        assert proc.poll() is None, "the server exited"
    else:
        proc.kill()
        pytest.fail("the server did not start within 240 s")
    yield port, base
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()


def _health_ms(base: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(base + "/health", timeout=30) as r:
        assert r.status == 200
    return (time.perf_counter() - t0) * 1000


def test_health_stays_fast_while_50_clients_check_long_texts(server):
    sys.path.insert(0, str(ROOT))
    from benchmarks.run import health_under_checks
    _, base = server
    r = health_under_checks(base, clients=50, chars=20_000, seconds=15)
    assert set(r["health_statuses"]) == {200}, r
    assert all(s in (200, 503, 422) for s in r["check_statuses"]), r      # the surplus: 503 + Retry-After
    assert r["check_statuses"].get(503), r
    assert r["health_p99_ms"] <= 1000, r          # the bench's goal is 200 ms on a quiet machine


def _hold(port: int, data: bytes, n: int) -> list[socket.socket]:
    out = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(data)
        out.append(s)
    return out


def test_clients_that_hold_connections_do_not_starve_health(server):
    """40 clients of each kind the issue lists: Expect: 100-continue without a body, a chunked body
    that never ends, a large answer never read."""
    port, base = server
    held: list[socket.socket] = []
    try:
        held += _hold(port, b"POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            b"Content-Length: 1000\r\nExpect: 100-continue\r\n\r\n", 40)
        held += _hold(port, b"POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            b"Transfer-Encoding: chunked\r\n\r\n5\r\n{\"tex\r\n", 40)
        for s in _hold(port, b"GET /v1/audit HTTP/1.1\r\nHost: x\r\n\r\n", 40):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            held.append(s)
        time.sleep(0.5)
        worst = max(_health_ms(base) for _ in range(20))
        assert worst < 2000, worst
    finally:
        for s in held:
            s.close()
