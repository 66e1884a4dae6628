"""The real server against hostile clients and hostile KB edits (issue 22), on 127.0.0.1 only.

One server (2 workers × 4 threads, KB checked every 0.3 s) serves a private copy of the KB and rules.
Idle and trickling connections must not delay /health; gunicorn's own errors are JSON; every broken
KB edit is refused with a clear error on /health while the last good KB keeps serving, and the error
clears when the files are repaired; a valid edit switches all workers together without delaying
any request by more than 100 ms.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from .test_hardening import BOMB, SECURITY, runaway_rules
from tests._net import free_port as _free_port, stop

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
THREADS = 4
READ_TIMEOUT = 2




def _get(url: str, timeout: float = 10) -> tuple[int, dict, dict]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, dict(r.headers), json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


def _until(pred, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    return None


#: the build audits every release of a copied KB without a snapshot (34.5 s on the 2-core machine when
#: quiet, with 30-odd releases; 45 s was too little under load); the limit leaves room for a loaded machine
#: and still cuts a runaway rule off well within the 200 s the test waits for the refusal
BUILD_SECONDS = 90


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("hardened")
    kb = d / "kb"
    shutil.copytree(ROOT / "kb", kb)
    rules = d / "rules"
    shutil.copytree(ROOT / "rules", rules)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPUKB_KB": str(kb), "GPUKB_RULES": str(rules),
           "GPUKB_CACHE_DIR": str(d / "cache")}
    log = (d / "server.log").open("w+")
    proc = subprocess.Popen([sys.executable, "-m", "gpukb.server.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--workers", "2", "--threads", str(THREADS), "--reload", "0.3", "--build-timeout", str(BUILD_SECONDS),
                             "--read-timeout", str(READ_TIMEOUT)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"

    def up():
        try:
            return _get(base + "/health", 2)[0] == 200
        except (OSError, ValueError):
            return proc.poll() is not None
    if not _until(up, 180) or proc.poll() is not None:
        proc.kill()
        pytest.fail("server did not start: " + (d / "server.log").read_text()[-3000:])
    yield {"base": base, "port": port, "kb": kb, "rules": rules, "log": d / "server.log", "dir": d}
    stop(proc, log)


def _timed_health(base: str) -> float:
    t0 = time.monotonic()
    status, _, body = _get(base + "/health", 5)
    assert status == 200 and body["status"] == "ok"
    return time.monotonic() - t0


def _raw(port: int, data: bytes, timeout: float = 10) -> tuple[str, dict, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            c = s.recv(65536)
            if not c:
                break
            chunks.append(c)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    return lines[0], {k.strip(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}, body


# -- slow and idle clients ------------------------------------------------------------------------

def test_idle_connections_do_not_starve_health(server):
    base, port = server["base"], server["port"]
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(50)]
    try:
        # longer than gunicorn's own 5 s grace for a silent connection, and than the keep-alive timeout
        worst = max(_timed_health(base) for _ in range(28) if time.sleep(0.25) is None)
        assert worst < 1.0, f"/health took {worst:.2f} s with 50 idle connections open"
        idle[0].settimeout(10)
        assert idle[0].recv(10) == b"", "an idle connection was not closed by the server"
    finally:
        for s in idle:
            s.close()


def test_trickling_clients_are_cut_off_with_408_and_do_not_block_others(server):
    base, port = server["base"], server["port"]
    results: list[bytes] = []

    def trickle():
        with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
            try:
                for ch in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
                    s.send(bytes([ch]))
                    time.sleep(0.1)
            except OSError:
                pass
            try:
                results.append(s.recv(65536))
            except OSError as exc:
                results.append(repr(exc).encode())
    threads = [threading.Thread(target=trickle) for _ in range(5 * THREADS)]   # more than all threads of both workers
    for t in threads:
        t.start()
    worst = max(_timed_health(base) for _ in range(12) if time.sleep(0.25) is None)
    for t in threads:
        t.join(30)
    assert worst < 1.0, f"/health took {worst:.2f} s next to trickling clients"
    answered = [r for r in results if r.startswith(b"HTTP/1.1 408 ") and b'"status": 408' in r]
    assert len(results) == len(threads) and len(answered) >= len(threads) // 2, results   # the rest: reset


def test_gunicorns_own_errors_are_json(server, error_shape):
    port = server["port"]
    cases = [
        (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"GET / HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(120)) + b"\r\n", 431),
        (b"GET / HTTP/1.1\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431),
        (b"HELLO THERE\r\n\r\n", 400),
    ]
    for request, status in cases:
        line, headers, body = _raw(port, request)
        assert line.startswith(f"HTTP/1.1 {status} "), (status, line)
        assert headers.get("Content-Type") == "application/json"
        assert all(headers.get(h) for h in SECURITY), headers
        error_shape(json.loads(body), status)


def test_headers_and_log_lines_on_the_real_server(server):
    base = server["base"]
    for path in ("/", "/audit", "/health", "/static/style.css", "/openapi.json", "/nope"):
        try:
            with urllib.request.urlopen(base + path, timeout=10) as r:
                headers = dict(r.headers)
        except urllib.error.HTTPError as e:
            headers = dict(e.headers)
        assert all(headers.get(h) for h in SECURITY), (path, headers)
    _get(base + "/v1/claims/x%0aFORGED%20line")
    time.sleep(0.5)
    lines = server["log"].read_text(encoding="utf-8", errors="replace").splitlines()
    assert not [ln for ln in lines if ln.startswith("FORGED")]
    assert any("\\x0aFORGED line" in ln for ln in lines)


# -- KB edits -------------------------------------------------------------------------------------

def _health(base: str) -> dict:
    return _get(base + "/health")[2]


def _edit_source_bytes(kb: Path):
    p = kb / "sources" / "001_13316cdc419f1a5d.txt"
    good = p.read_bytes()
    p.write_bytes(good[:100] + b"\xff" + good[100:])
    return lambda: p.write_bytes(good)


def _edit_fifo(kb: Path):
    p = kb / "claims" / "S009.yaml"
    os.mkfifo(p)
    return p.unlink


def _edit_outside(kb: Path):
    p = kb / "sources" / "sources.yaml"
    good = p.read_text(encoding="utf-8")
    p.write_text(good.replace("file: 000_224545ea096de99b.txt", "file: ../versions.yaml", 1), encoding="utf-8")
    return lambda: p.write_text(good, encoding="utf-8")


def _edit_bomb(kb: Path):
    p = kb / "claims" / "S000.yaml"
    good = p.read_text(encoding="utf-8")
    p.write_text(BOMB + good.replace("  value: ['gpu:A100', 'gpu:A800']", "  value: *a9", 1), encoding="utf-8")
    return lambda: p.write_text(good, encoding="utf-8")


def _edit_top_key(kb: Path):
    p = kb / "claims" / "S001.yaml"
    good = p.read_text(encoding="utf-8")
    p.write_text(good.replace("source: S001\n", "source: S001\nreviewer: me\n", 1), encoding="utf-8")
    return lambda: p.write_text(good, encoding="utf-8")


def _edit_runaway(rules: Path):
    spare = rules.parent / "runaway"
    made = runaway_rules(spare)
    types = rules / "types.yaml"
    good = types.read_text(encoding="utf-8")
    shutil.copy(made / "audit" / "runaway.yaml", rules / "audit" / "runaway.yaml")
    shutil.copy(made / "types.yaml", types)

    def undo():
        (rules / "audit" / "runaway.yaml").unlink()
        types.write_text(good, encoding="utf-8")
        shutil.rmtree(spare)
    return undo


@pytest.mark.parametrize("edit, needle, seconds", [
    (_edit_source_bytes, "byte offset 100", 60),
    (_edit_fifo, "FIFO", 30),
    (_edit_outside, "outside", 60),
    (_edit_bomb, "alias", 60),
    (_edit_top_key, "unknown top-level key 'reviewer'", 60),
    (_edit_runaway, "test.runaway.step", 200),
], ids=["not-utf8", "fifo", "outside-path", "alias-bomb", "top-level-key", "runaway-rule"])
def test_a_broken_edit_is_refused_and_the_last_good_kb_keeps_serving(server, edit, needle, seconds):
    base = server["base"]
    before = _health(base)
    assert "last_error" not in before.get("reload", {}), before
    claims = len(_get(base + "/v1/claims")[2]["claims"])
    undo = edit(server["rules"] if edit is _edit_runaway else server["kb"])
    try:
        refused = _until(lambda: all(needle in (h.get("reload", {}).get("last_error") or "")
                                     for h in (_health(base) for _ in range(4))), seconds)
        assert refused, f"not refused with {needle!r}: {_health(base)}"
        for _ in range(4):
            h = _health(base)
            assert h["kb_digest"] == before["kb_digest"] and h["reload"]["generation"] == before["reload"]["generation"]
            status, _, body = _get(base + "/v1/claims")
            assert status == 200 and len(body["claims"]) == claims
    finally:
        undo()
    cleared = _until(lambda: all("last_error" not in h.get("reload", {}) for h in (_health(base) for _ in range(4))), 30)
    assert cleared, f"the refused change is still reported after the files were restored: {_health(base)}"


def test_a_valid_edit_switches_all_workers_together_without_delaying_requests(server):
    base = server["base"]
    before = _health(base)
    samples: list[tuple[float, float, str, int]] = []    # (start, seconds, digest, generation)
    stop = threading.Event()

    def probe():
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                status, _, body = _get(base + "/health", 5)
                samples.append((t0, time.monotonic() - t0, body.get("kb_digest"), status))
            except OSError as exc:
                samples.append((t0, time.monotonic() - t0, repr(exc), 0))
            time.sleep(0.02)
    t = threading.Thread(target=probe)
    t.start()
    p = server["kb"] / "sources" / "sources.yaml"
    good = p.read_text(encoding="utf-8")
    try:
        time.sleep(8)                   # the same probe before the edit: what this machine's load alone costs
        edited = time.monotonic()
        p.write_text(good.replace("publisher: 云小栈", "publisher: 云小栈 (reviewed)", 1), encoding="utf-8")
        switched = _until(lambda: _health(base)["kb_digest"] != before["kb_digest"], 120)
        time.sleep(1)
    finally:
        stop.set()
        t.join(10)
        p.write_text(good, encoding="utf-8")
    assert switched, "the valid change was not loaded"
    after = _health(base)
    assert after["reload"]["generation"] == before["reload"]["generation"] + 1 and "last_error" not in after["reload"]
    assert all(s[3] == 200 for s in samples), [s for s in samples if s[3] != 200][:5]
    digests = [s[2] for s in samples]
    first_new = next(i for i, dg in enumerate(digests) if dg != before["kb_digest"])
    assert set(digests[first_new:]) == {after["kb_digest"]}, "a worker served the old KB after the switch"
    # the reload runs beside the workers, never in front of a request: no request during it takes more
    # than 100 ms longer than the slowest one before it (the machine is shared, so that one is not 0)
    before_edit = max(s[1] for s in samples if s[0] < edited)
    worst = max(s[1] for s in samples if s[0] >= edited)
    assert worst < before_edit + 0.1, (f"a request took {worst * 1000:.0f} ms during the reload, the slowest "
                                       f"before it {before_edit * 1000:.0f} ms ({len(samples)} requests)")
    assert "(reviewed)" in json.dumps(_get(base + "/v1/sources")[2], ensure_ascii=False)
    # and back: the restored file is a change too, served by the next generation
    assert _until(lambda: _health(base)["kb_digest"] == before["kb_digest"], 120)
