"""Hostile KB files, forged snapshots and hostile requests, in-process (issue 22).

Each test reproduces one finding: an alias bomb, a non-UTF-8 byte, a FIFO, a path outside the KB, a
runaway rule, unknown top-level keys, a forged snapshot, a missing security header, a log line forged
through a path, an ignored ``@version``, unbounded CLI options, a request without a time limit.
The real server (idle clients, gunicorn's own errors, reloads) is in test_hardening_server.py.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpukb.engine.core import cache, files, limits
from gpukb.engine.core.errors import Issue, MAX_MESSAGE, TimeLimitExceeded, ValidationError
from gpukb.engine.kb.loader import load_kb
from gpukb.engine.core.yamlio import loads

from ._engine import ROOT, bundled

BOMB = "".join(
    [f"a0: &a0 [{', '.join(['lol'] * 9)}]\n"]
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)])   # 9^10 nodes expanded


def runaway_rules(dst: Path) -> Path:
    """A copy of the rules plus a rule that derives a new fact from each one it derived."""
    rules = dst / "rules"
    shutil.copytree(ROOT / "rules", rules)
    types = rules / "types.yaml"
    types.write_text(types.read_text(encoding="utf-8").rstrip("\n") + "\n  counter:\n    fields: {n: {}}\n",
                     encoding="utf-8")
    (rules / "audit" / "runaway.yaml").write_text(
        "rules:\n"
        "  - id: test.runaway.start\n    version: 1\n    description: {en: starts counting, zh: 开始计数}\n"
        "    when: [{bind: r, type: ref, where: \"fid == 'R-T4-memory_gb'\"}]\n"
        "    derive: {type: counter, set: {n: '1'}}\n"
        "  - id: test.runaway.step\n    version: 1\n    description: {en: counts forever, zh: 无限计数}\n"
        "    when: [{bind: c, type: counter}]\n"
        "    derive: {type: counter, set: {n: 'c.n + 1'}}\n", encoding="utf-8")
    return rules


@pytest.fixture
def kbcopy(tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    return kb


def _cli(*argv: str, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    e = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    e.pop("GPUKB_KB", None), e.pop("GPUKB_RULES", None)
    return subprocess.run([sys.executable, "-m", "gpukb.server.cli", *argv], cwd=ROOT, env=e, capture_output=True,
                          text=True, timeout=timeout)


# -- YAML and KB files ------------------------------------------------------------------------------

def test_an_alias_bomb_is_refused_in_under_a_second_and_100_mb(kbcopy):
    claims = kbcopy / "claims" / "S000.yaml"
    text = claims.read_text(encoding="utf-8")
    claims.write_text(BOMB + text.replace("  value: ['gpu:A100', 'gpu:A800']", "  value: *a9", 1), encoding="utf-8")
    probe = ("import json, resource, sys, time\n"
             "from gpukb.engine.kb.loader import load_kb\n"
             "from gpukb.engine.core.errors import ValidationError\n"
             "t = time.process_time()\n"
             "try:\n    load_kb(sys.argv[1]); msg = None\n"
             "except ValidationError as e:\n    msg = str(e)\n"
             "hwm = [l for l in open('/proc/self/status') if l.startswith('VmRSS:')]\n"
             "peak = int(hwm[0].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
             "print(json.dumps({'cpu': time.process_time() - t, 'msg': msg, 'rss_mb': peak / 1024}))\n")
    # VmRSS after the refusal, not ru_maxrss: Linux keeps ru_maxrss across execve (it counted the parent pytest)
    r = subprocess.run([sys.executable, "-c", probe, str(kbcopy)], env={**os.environ, "PYTHONPATH": str(ROOT)},
                       capture_output=True, text=True, timeout=60)
    out = json.loads(r.stdout)
    assert out["msg"] and "alias" in out["msg"] and "S000.yaml" in out["msg"], out
    assert out["cpu"] < 1.0, out
    assert out["rss_mb"] < 100, out


@pytest.mark.parametrize("doc, needle", [
    ("x: &a [*a]\n", "recursive alias"),
    ("[" * 150 + "]" * 150, "nested more than"),
    ("".join(f"a{i}: &a{i} [*a{i - 1}]\n" if i else "a0: &a0 [1]\n" for i in range(150)), "nested more than"),
])
def test_recursive_and_deep_documents_are_refused(doc, needle):
    with pytest.raises(ValidationError, match=needle):
        loads(doc, "x.yaml")


def test_aliases_used_by_the_bundled_files_still_load():
    data = loads("q: &q {gpu: 'gpu:T4'}\nclaims: [{qualifiers: *q}, {qualifiers: *q}]\n")
    assert data["claims"][1]["qualifiers"] == {"gpu": "gpu:T4"}


def test_error_messages_truncate_huge_values(kbcopy):
    claims = kbcopy / "claims" / "S000.yaml"
    text = claims.read_text(encoding="utf-8")
    huge = "[" + ", ".join(["'gpu:NoSuch" + "x" * 50 + "'"] * 20000) + "]"
    claims.write_text(text.replace("  value: ['gpu:A100', 'gpu:A800']", f"  value: {huge}", 1), encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        load_kb(kbcopy)
    assert info.value.issues and all(len(i.message) <= MAX_MESSAGE + 40 for i in info.value.issues)
    assert len(str(info.value)) < 200_000 and "more problem(s) not shown" in str(info.value)
    assert len(Issue("x" * 10_000_000).message) <= MAX_MESSAGE + 40


def test_a_source_that_is_not_utf8_names_the_file_and_byte_offset(kbcopy):
    src = kbcopy / "sources" / "001_13316cdc419f1a5d.txt"
    data = src.read_bytes()
    src.write_bytes(data[:100] + b"\xff" + data[100:])
    r = _cli("--kb", str(kbcopy), "validate", "--quick")
    assert r.returncode == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "001_13316cdc419f1a5d.txt" in r.stderr and "byte offset 100" in r.stderr, r.stderr


def test_a_fifo_in_the_kb_is_refused_not_waited_on(kbcopy):
    os.mkfifo(kbcopy / "claims" / "S009.yaml")
    t0 = time.monotonic()
    r = _cli("--kb", str(kbcopy), "validate", "--quick", timeout=60)
    assert r.returncode == 1 and time.monotonic() - t0 < 30
    assert "S009.yaml" in r.stderr and "FIFO" in r.stderr, r.stderr
    with pytest.raises(ValidationError, match="FIFO"):
        files.read_text(kbcopy / "claims" / "S009.yaml", kbcopy)


@pytest.mark.parametrize("how", ["file_field", "symlink"])
def test_a_source_file_outside_kb_sources_is_refused(kbcopy, tmp_path, how):
    reg = kbcopy / "sources" / "sources.yaml"
    if how == "file_field":
        reg.write_text(reg.read_text(encoding="utf-8").replace("file: 000_224545ea096de99b.txt",
                                                               "file: ../versions.yaml", 1), encoding="utf-8")
    else:
        secret = tmp_path / "secret.txt"
        secret.write_text("not part of the KB", encoding="utf-8")
        os.symlink(secret, kbcopy / "sources" / "leak.txt")
    with pytest.raises(ValidationError) as info:
        load_kb(kbcopy)
    assert "outside" in str(info.value), str(info.value)


def test_unknown_top_level_keys_of_a_claim_file_are_refused_with_file_and_line(kbcopy):
    claims = kbcopy / "claims" / "S001.yaml"
    claims.write_text("source: S001\ncomment: nobody reads this\n" + claims.read_text(encoding="utf-8")
                      .replace("source: S001\n", "", 1), encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        load_kb(kbcopy)
    (issue,) = [i for i in info.value.issues if i.field == "comment"]
    assert issue.file.endswith("claims/S001.yaml") and issue.line == 2 and "unknown top-level key" in issue.message


@pytest.mark.slow  # runs a rule to its firing budget (~20 s)
def test_validate_catches_a_runaway_rule_naming_it(tmp_path):
    rules = runaway_rules(tmp_path)
    t0 = time.monotonic()
    r = _cli("--rules", str(rules), "validate", "--time-limit", "20", timeout=120)
    assert r.returncode == 1 and time.monotonic() - t0 < 90
    assert "test.runaway.step" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert _cli("--rules", str(rules), "validate", "--quick").returncode == 0   # as data the rule is valid


# -- snapshots ------------------------------------------------------------------------------------

@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUKB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_snapshots_live_in_a_private_cache_directory(private_cache):
    from gpukb.engine.audit.snapshot import default_path
    p = default_path(ROOT / "kb", ROOT / "rules")
    assert p.parent.parent == private_cache and (os.stat(private_cache).st_mode & 0o777) == 0o700
    assert not str(p).startswith(os.environ.get("TMPDIR", "/tmp") + "/gpukb-snapshot")


def test_a_cache_directory_open_to_others_is_refused(tmp_path):
    d = tmp_path / "shared"
    d.mkdir(mode=0o777)
    os.chmod(d, 0o777)
    with pytest.raises(cache.UnsafeCache, match="other users"):
        cache.private_dir(d)


def _forged(saved: Path) -> tuple[str, dict]:
    mac, body = saved.read_text(encoding="utf-8").split("\n", 1)
    doc = json.loads(body)
    latest = bundled().kb.latest
    for f in doc["releases"][latest]["facts"].values():
        if f.get("t") == "resolution" and f.get("claim") == "S000-C002" and f.get("status") == "incorrect":
            f["status"] = "supported"
    return mac, doc


@pytest.mark.slow  # builds snapshots of the KB in subprocesses (~18 s)
def test_a_forged_snapshot_is_ignored(private_cache, monkeypatch):
    from gpukb.engine.audit import snapshot
    from gpukb.engine.service.state import GpuKB
    assert bundled().audit_result(bundled().kb.latest).status_of("S000-C002")["status"] == "incorrect"
    saved = snapshot.default_path(ROOT / "kb", ROOT / "rules")
    snapshot.save(bundled(), saved)
    mac, doc = _forged(saved)
    body = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))

    # the forgery would work if it were trusted: signed with the real key, it flips the status
    saved.write_text(cache.sign(body.encode()) + "\n" + body, encoding="utf-8")
    trusting = GpuKB(ROOT / "kb", ROOT / "rules")
    assert snapshot.load(trusting, saved)
    assert trusting.audit_result(trusting.kb.latest).status_of("S000-C002")["status"] == "supported"

    # written by someone without the key: the old signature, or one under another key, is refused
    for forged_mac in (mac, "0" * 64):
        saved.write_text(forged_mac + "\n" + body, encoding="utf-8")
        kb = GpuKB(ROOT / "kb", ROOT / "rules")
        assert snapshot.load(kb, saved) is False and kb._audits == {}
        assert kb.audit_result(kb.kb.latest).status_of("S000-C002")["status"] == "incorrect"

    # a genuine snapshot in a file others may write, or owned by someone else, is not trusted either
    snapshot.save(bundled(), saved)
    os.chmod(saved, 0o666)
    assert snapshot.load(GpuKB(ROOT / "kb", ROOT / "rules"), saved) is False
    os.chmod(saved, 0o600)
    monkeypatch.setattr(cache.os, "getuid", lambda: 4242)
    assert snapshot.load(GpuKB(ROOT / "kb", ROOT / "rules"), saved) is False


def test_a_snapshot_is_bound_to_the_code_version(private_cache, monkeypatch):
    from gpukb.engine.audit import snapshot
    from gpukb.engine.service.state import GpuKB
    saved = snapshot.default_path(ROOT / "kb", ROOT / "rules")
    snapshot.save(bundled(), saved)
    monkeypatch.setattr(cache, "code_digest", lambda: "another version of the engine")
    assert snapshot.load(GpuKB(ROOT / "kb", ROOT / "rules"), saved) is False


# -- the HTTP app ---------------------------------------------------------------------------------

SECURITY = ("Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy")


def test_security_headers_on_every_page_and_error(client, gpukb):
    finding = gpukb.audit().to_json()["findings"][0]["id"]
    paths = ["/", "/?q=why+not+T4+for+13B+full+fine-tune", "/audit", f"/conclusions/{finding}",
             "/static/style.css", "/health", "/openapi.json", "/v1/claims", "/v1/audit", "/v1/sources/S000",
             "/no/such/page", "/v1/claims/NOPE", "/v1/ask?q=" + "x" * 5000, "/conclusions/%00"]
    for path in paths:
        r = client.get(path)
        for h in SECURITY:
            assert r.headers.get(h), (path, r.status_code, h)
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        if r.mimetype == "text/html":
            assert "script-src 'self'" in r.headers["Content-Security-Policy"], path
    r = client.post("/v1/claims")
    assert r.status_code == 405 and all(r.headers.get(h) for h in SECURITY)
    for r in (client.get("/mcp"), client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                              headers={"Accept": "application/json, text/event-stream"})):
        assert all(r.headers.get(h) for h in SECURITY), ("/mcp", r.status_code, dict(r.headers))


def test_control_characters_cannot_forge_log_lines(client, caplog):
    with caplog.at_level(logging.INFO, logger="gpukb.http"):
        client.get("/v1/claims/x%0a2026-12-03 FORGED gpukb.http INFO admin logged in%1b[2J")
    lines = [r.getMessage() for r in caplog.records if r.name == "gpukb.http"]
    assert lines and all("\n" not in m and "\x1b" not in m for m in lines), lines
    assert any("\\x0a2026-12-03 FORGED" in m for m in lines), lines


def test_a_request_over_its_time_limit_is_a_503_in_the_error_shape(app, client, error_shape):
    app.config["REQUEST_TIME_LIMIT"] = 1e-6
    try:
        r = client.post("/v1/query", json={"params": 12.345e9, "method": "full", "gpu": "T4", "batch": 3})
    finally:
        app.config["REQUEST_TIME_LIMIT"] = 30.0
    assert r.status_code == 503, r.get_data(as_text=True)[:300]
    assert "longer than its limit" in error_shape(r.get_json(), 503)["error"]
    assert client.post("/v1/query", json={"params": 12.345e9, "method": "full", "gpu": "T4", "batch": 3}).status_code == 200
    with pytest.raises(TimeLimitExceeded):
        with limits.time_limit(1e-6, "a test"):
            time.sleep(0.01)
            limits.check()


ABORTS = """
import json, random, time
from gpukb.engine.core import limits
from gpukb.engine.core.errors import TimeLimitExceeded
from gpukb.engine.service.state import GpuKB

def statuses(kb):
    res = kb.audit_result(kb.kb.latest)
    return {c: s["status"] for c, s in sorted(res.statuses.items())}, len(res.findings)

clean_kb = GpuKB()
clean = statuses(clean_kb)      # the first audit also warms the process (rulesets, imports)
clean_kb.drop_audits()
t0 = time.perf_counter()
statuses(clean_kb)              # how long one warm audit takes on this machine: the limits are drawn around it
took = time.perf_counter() - t0
kb, rnd, n, done = GpuKB(), random.Random(1), 0, 0
for i in range(25):
    kb.drop_audits()            # a completed audit is cached: every attempt must derive again
    try:
        with limits.time_limit(rnd.uniform(0.05, 1.6) * took, "test"):
            kb.audit_result(kb.kb.latest)
        done += 1
    except TimeLimitExceeded:
        n += 1
    time.sleep(rnd.uniform(0, 0.3))
after = statuses(kb)            # the stopped runs left nothing half-made behind
print(json.dumps({"aborted": n, "completed": done, "same": after == clean, "findings": after[1]}))
"""


@pytest.mark.slow
def test_derivations_stopped_midway_do_not_crash_the_process():
    # durable_rules' background dispatcher threads used to pick up actions of a session being deleted.
    # The limits are drawn around the time one warm audit takes here and the cached audit is dropped
    # before each attempt, so on any machine most runs are stopped midway and some complete; that the
    # process survives them and that the audit afterwards equals a clean one is what is tested.
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", ABORTS], env={**os.environ, "PYTHONPATH": str(ROOT)},
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Fatal Python error" not in r.stderr, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["aborted"] >= 5 and out["aborted"] + out["completed"] == 25, out
    assert out["same"] and out["findings"] > 0, out


def test_shared_work_is_not_cut_short_by_a_request_deadline():
    token = limits.start(1e-6, "a request")
    try:
        time.sleep(0.01)
        with limits.shared_work():
            limits.check()                      # the audit every request reuses runs to its end
        with pytest.raises(TimeLimitExceeded):
            limits.check()
        with limits.shared_work(), limits.time_limit(1e-6, "a smoke derivation"):
            time.sleep(0.01)
            with pytest.raises(TimeLimitExceeded):
                limits.check()                  # other limits still apply to it
    finally:
        limits.stop(token)


def test_a_version_in_a_conclusion_id_is_honoured(api, gpukb):
    revised = next(f for f in gpukb.kb.all_facts if f.version > 1)
    old = api.ok(f"/v1/conclusions/{revised.id}@1/explain")
    new = api.ok(f"/v1/conclusions/{revised.id}@{revised.version}/explain")
    assert old["conclusion_id"] == f"{revised.id}@1" and new["conclusion_id"] == revised.key
    assert old["kb_version"] != new["kb_version"]
    err = api.error(404, "GET", f"/v1/conclusions/{revised.id}@{revised.version + 5}/explain")
    assert "versions are 1" in err["error"]
    api.error(400, "GET", "/v1/conclusions/S000-C002@x/explain")
    assert api.ok("/v1/claims/S000-C002@1")["version"] == 1
    api.error(404, "GET", "/v1/claims/S000-C002@7")


# -- the CLI's bounds -----------------------------------------------------------------------------

@pytest.mark.parametrize("argv, needle", [
    (["serve", "--workers", "100000"], "out of range 1..64"),
    (["serve", "--workers", "0"], "out of range 1..64"),
    (["serve", "--threads", "1000"], "out of range 1..64"),
    (["serve", "--reload", "-5"], "out of range"),
    (["serve", "--reload", "nan"], "out of range"),
    (["serve", "--reload", "inf"], "out of range"),
    (["serve", "--request-timeout", "0"], "out of range"),
    (["serve", "--read-timeout", "100000"], "out of range"),
    (["validate", "--time-limit", "-1"], "out of range"),
    (["synth", "--claims", "0", "--out", "x"], "out of range"),
])
def test_cli_options_are_bounded(cli, argv, needle):
    code, _, err = cli(*argv)
    assert code == 2 and needle in err, err


# -- the worker's pieces --------------------------------------------------------------------------

def test_an_oversized_head_is_refused_as_it_arrives():
    """The limits are checked on each piece received: a request line is a 414 once it is longer than
    the limit, before its end (or the rest of the head) has to be buffered."""
    from gpukb.server.http11 import Limits, RequestReader
    from gpukb.server.wire import ProtocolError
    reader = RequestReader(Limits(), 1024)
    assert reader.feed(b"GET /") == "need data"
    with pytest.raises(ProtocolError) as caught:
        for _ in range(100):
            reader.feed(b"a" * 100)
    assert caught.value.status == 414 and len(reader.scanner.buf) < 4094 + 200


def test_refusals_become_the_api_error_shape(error_shape):
    import h11
    from gpukb.server.wire import classify, error_bytes, headers_too_large, line_too_long, slow_request
    cases = ((line_too_long(4094), 414), (headers_too_large(100, 8190), 431), (slow_request(15), 408),
             (h11.RemoteProtocolError("illegal request line: b'HELLO'"), 400))
    for exc, status in cases:
        raw = error_bytes(*classify(exc))
        head, body = raw.split(b"\r\n\r\n", 1)
        assert head.startswith(f"HTTP/1.1 {status} ".encode()) and b"Content-Type: application/json" in head
        assert all(h.encode() in head for h in SECURITY)
        error_shape(json.loads(body), status)
        assert b"b'" not in body                  # h11's repr of the bytes is left out


@pytest.mark.parametrize("data, complete", [
    (b"GET /health HTTP/1.1\r\nHost: x\r\n", False),
    (b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", True),
    (b"POST /v1/query HTTP/1.1\r\nContent-Length: 10\r\n\r\n{\"a\": ", False),
    (b"POST /v1/query HTTP/1.1\r\nContent-Length: 10\r\n\r\n{\"a\": 1}  ", True),
    (b"POST /v1/query HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", False),    # the loop collects the chunks
    (b"POST /v1/query HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", True),  # ... to the last
    (b"POST /v1/query HTTP/1.1\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n", False),  # the loop sends 100, waits
    (b"POST /v1/query HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", True),     # too big to collect
    (b"GET /" + b"a" * 40000, True),                                               # the parser will say 414
])
def test_the_event_loop_hands_a_request_to_a_thread_only_when_it_has_arrived(data, complete):
    from gpukb.server.worker import request_complete
    assert request_complete(data) is complete
