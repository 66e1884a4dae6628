"""Hostile texts and slow clients, in-process (issue 36). Each test reproduces one finding.

The real server (slow clients, the engine queue, /health under load) is in test_hostile_server.py.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ._engine import ROOT


@pytest.fixture
def kbcopy(tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    return kb


def _cli(*argv: str, timeout: float = 120, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    e = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    e.pop("GPUKB_KB", None), e.pop("GPUKB_RULES", None)
    return subprocess.run([sys.executable, "-m", "gpukb.server.cli", *argv], cwd=ROOT, env=e, capture_output=True,
                          text=True, timeout=timeout, input=stdin)


# -- YAML: one large anchored scalar aliased many times -----------------------------------------------

def test_a_large_scalar_aliased_many_times_is_refused_fast(kbcopy):
    claims = kbcopy / "claims" / "S000.yaml"
    text = claims.read_text(encoding="utf-8")
    bomb = "big: &b '" + "x" * 1_000_000 + "'\n"
    many = "[" + ", ".join(["*b"] * 19_000) + "]"
    claims.write_text(bomb + text.replace("  value: ['gpu:A100', 'gpu:A800']", f"  value: {many}", 1), encoding="utf-8")
    t = time.monotonic()
    r = _cli("--kb", str(kbcopy), "validate", "--quick", timeout=60)
    took = time.monotonic() - t
    assert r.returncode == 1, r
    assert "characters of text once its aliases are followed" in r.stderr, r.stderr[-2000:]
    assert len(r.stderr) < 20_000
    assert took < 20, took


# -- the API: hostile bodies and headers ----------------------------------------------------------------

@pytest.fixture(scope="module")
def app():
    from gpukb.server import create_app
    return create_app({"TESTING": True})


@pytest.fixture
def client(app):
    return app.test_client()


def test_a_redirect_never_reflects_the_host_header(client):
    r = client.get("/conclusions", headers={"Host": "evil.example"})
    assert r.status_code == 308
    assert r.headers["Location"] == "/conclusions/", r.headers["Location"]


def test_a_lone_surrogate_is_a_400_naming_the_field(client):
    for text in ('{"text": "T4 has 16 GB \\ud800 memory"}', '{"text": "\\udfff unknown words here"}'):
        r = client.post("/v1/check", data=text, content_type="application/json")
        assert r.status_code == 400, r.data[:300]
        body = r.get_json()
        assert "surrogate" in body["error"] and body["errors"][0]["field"] == "text"


def test_an_over_long_chunked_body_is_a_413(client):
    import io
    body = b'{"text": "' + b"a" * 300_000 + b'"}'
    r = client.post("/v1/check", input_stream=io.BytesIO(body), content_type="application/json",
                    headers={"Transfer-Encoding": "chunked"}, environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 413, r.data[:300]
    assert "larger than" in r.get_json()["error"]


def test_20000_escaped_emoji_meet_the_character_limit_not_the_byte_limit(client):
    ok = json.dumps({"text": "\U0001F600" * 20_000})           # ensure_ascii: 12 bytes each
    assert len(ok) > 128 * 1024
    r = client.post("/v1/check", data=ok, content_type="application/json")
    assert r.status_code == 200, r.data[:300]
    over = json.dumps({"text": "\U0001F600" * 20_001})
    r = client.post("/v1/check", data=over, content_type="application/json")
    assert r.status_code == 413, r.data[:300]
    assert "20,000" in r.get_json()["error"]         # the character limit speaks, not the byte limit


# -- the engine's turn and the time budget, on every face ----------------------------------------------

def _busy_app(**conf):
    from gpukb.server import create_app
    return create_app({"TESTING": True, **conf})


def test_the_engine_queue_is_bounded_503_with_retry_after(app):
    """A flood of uncached questions: one computes, ENGINE_QUEUE wait, the rest are refused at once."""
    import threading
    from gpukb.server.engine_gate import gate_of
    gate = gate_of(app.extensions, app.config)
    hold = threading.Event()
    taken = threading.Event()

    def holder():
        with gate.turn():
            taken.set()
            hold.wait(20)
    t = threading.Thread(target=holder)
    t.start()
    try:
        assert taken.wait(10)
        results = []

        def ask(i):
            r = app.test_client().get(f"/v1/ask?q=can+a+T4+fine-tune+a+{i}B+model+with+qlora")
            results.append((r.status_code, r.headers.get("Retry-After"), time.monotonic()))
        t0 = time.monotonic()
        threads = [threading.Thread(target=ask, args=(i + 3,)) for i in range(gate.queue + 6)]
        for x in threads:
            x.start()
        time.sleep(1.0)
        refused = [r for r in results if r[0] == 503]
        assert len(refused) >= 6, results           # the ones beyond the queue: at once, not after a wait
        assert all(r[1] and int(r[1]) > 0 for r in refused)
        assert all(r[2] - t0 < 1.0 for r in refused)
        r = app.test_client().get("/health")         # never waits for the engine
        assert r.status_code == 200
        body = app.test_client().get("/v1/ask?q=x" * 1).get_json()
        assert body
    finally:
        hold.set()
        t.join(20)
        for x in threads:
            x.join(60)
    assert all(code in (200, 503) for code, *_ in results)


def test_a_waiting_request_gives_up_after_the_queue_wait():
    from gpukb.engine.core.errors import GpukbError
    from gpukb.server.engine_gate import EngineGate
    gate = EngineGate(1, 2, 0.3)
    with gate.turn():
        t = time.monotonic()
        with pytest.raises(GpukbError) as info:
            with gate.turn():
                pass
        assert 0.25 < time.monotonic() - t < 2
        assert info.value.status == 503 and "busy" in info.value.message


def _slow_check(monkeypatch, seconds_limit: float):
    from gpukb.engine.core import limits
    from gpukb.engine.service import state as service

    def crawl(self, text, lang=None, kb_version=None):
        while True:
            limits.check("extracting claims")
            time.sleep(0.01)
    monkeypatch.setattr(service.GpuKB, "check", crawl)


def test_a_text_over_the_time_budget_is_a_422_naming_the_limit_on_the_api_and_the_page(monkeypatch):
    app = _busy_app(REQUEST_TIME_LIMIT=0.5)
    _slow_check(monkeypatch, 0.5)
    c = app.test_client()
    r = c.post("/v1/check", json={"text": "T4 has 16 GB of memory " * 20})
    assert r.status_code == 422, r.data[:300]
    assert "time limit of 0.5 s" in r.get_json()["error"]
    r = c.post("/check", data={"text": "T4 has 16 GB of memory"})
    assert r.status_code == 422 and b"0.5 s" in r.data


def test_mcp_has_the_time_limit_and_the_engine_gate(monkeypatch):
    app = _busy_app(REQUEST_TIME_LIMIT=0.5)
    _slow_check(monkeypatch, 0.5)
    c = app.test_client()
    hdr = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "check", "arguments": {"text": "T4 has 16 GB of memory"}}}
    t = time.monotonic()
    r = c.post("/mcp", data=json.dumps(call), headers=hdr)
    assert time.monotonic() - t < 10
    res = r.get_json()["result"]
    assert res["isError"] is True and "time limit of 0.5 s" in res["content"][0]["text"], res
    assert res["structuredContent"]["status"] == 422
    from gpukb.server.engine_gate import gate_of
    gate = gate_of(app.extensions, app.config)
    assert gate.waiting == 0 and gate._sem.acquire(blocking=False)     # the turn was taken and given back
    gate._sem.release()


def test_the_cli_check_has_the_time_limit():
    r = _cli("check", "T4 has 16 GB of memory", "--json", env={"GPUKB_REQUEST_TIMEOUT": "0.000001"})
    assert r.returncode == 1, r
    body = json.loads(r.stdout)              # under --json the error is the API's error object, on stdout
    assert body["ok"] is False and body["status"] == 422 and "time limit" in body["error"], body
    r = _cli("check", "T4 has 16 GB of memory", env={"GPUKB_REQUEST_TIMEOUT": "0.000001"})
    assert r.returncode == 1 and "time limit" in r.stderr, r.stderr


# -- gpukb ingest: atomic, in an order that always leaves a valid KB --------------------------------------

def _tree(kb: Path) -> dict[str, bytes]:
    return {str(p.relative_to(kb)): p.read_bytes() for p in sorted(kb.rglob("*")) if p.is_file()}


ARTICLE = "The T4 has 16 GB of memory. A 13B full fine-tune needs about 208 GB.\n"


@pytest.mark.slow  # copies and validates the KB after every step (~5 s)
def test_ingest_killed_at_any_step_leaves_a_kb_that_validates(kbcopy, tmp_path, monkeypatch):
    """kill -9 after any rename: a copy of the KB at that moment validates (after `gpukb validate`
    undoes the interrupted ingest from its journal) and is then exactly the KB before the ingest."""
    from gpukb.engine.text import ingest as ingest_mod
    art = tmp_path / "a.txt"
    art.write_text(ARTICLE, encoding="utf-8")
    before = _tree(kbcopy)
    real = os.replace
    moments = []

    def replace_and_freeze(a, b):
        real(a, b)
        frozen = tmp_path / f"kill{len(moments)}"
        shutil.copytree(kbcopy, frozen)
        moments.append(frozen)
    monkeypatch.setattr(ingest_mod.os, "replace", replace_and_freeze)
    ingest_mod.ingest(kbcopy, art, "S003", title="Notes")
    assert len(moments) == 4 and not (kbcopy / ingest_mod.JOURNAL).exists()
    for frozen in moments[:-1]:              # the last moment is the finished ingest (journal not yet removed)
        r = _cli("--kb", str(frozen), "validate", "--quick", timeout=120)
        assert r.returncode == 0, (frozen.name, r.stderr[-1500:])
        assert "was undone" in r.stderr
        assert _tree(frozen) == before, frozen.name
    assert not list(kbcopy.rglob("*.tmp"))


def test_a_failed_ingest_leaves_the_kb_exactly_as_it_was_and_says_why(kbcopy, tmp_path, monkeypatch):
    import errno
    from gpukb.engine.text import ingest as ingest_mod
    from gpukb.engine.core.errors import GpukbError
    art = tmp_path / "a.txt"
    art.write_text(ARTICLE, encoding="utf-8")
    before = _tree(kbcopy)
    real = os.replace

    def disk_full_on_claims(a, b):
        if str(b).endswith("S003.yaml"):
            raise OSError(errno.ENOSPC, "No space left on device", str(b))
        real(a, b)
    monkeypatch.setattr(ingest_mod.os, "replace", disk_full_on_claims)
    with pytest.raises(GpukbError) as info:
        ingest_mod.ingest(kbcopy, art, "S003", title="Notes")
    assert "No space left on device" in info.value.message and "exactly as it was" in info.value.message
    assert _tree(kbcopy) == before


# -- gpukb audit --scheduler: a bad address is said in plain words, within seconds ---------------------------

def _listener(behaviour: str):
    import socket
    import threading
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve():
        srv.settimeout(0.2)
        conns = []
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                continue
            conns.append(c)
            if behaviour == "http":
                c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        for c in conns:
            c.close()
        srv.close()
    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1], stop


@pytest.mark.parametrize("kind, needle", [
    ("closed", "nothing listens"), ("http", "not as a Dask scheduler"), ("silent", "said nothing within"),
    ("garbage", "expected an address like")])
def test_a_bad_scheduler_address_fails_fast_and_says_why(kind, needle):
    from gpukb.engine.audit.workers import probe_scheduler
    from gpukb.engine.core.errors import BadInput
    import socket
    stop = None
    if kind == "closed":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        addr = f"tcp://127.0.0.1:{port}"
    elif kind == "garbage":
        addr = "http://"
    else:
        port, stop = _listener(kind)
        addr = f"tcp://127.0.0.1:{port}"
    t = time.monotonic()
    try:
        with pytest.raises(BadInput) as info:
            probe_scheduler(addr, seconds=1.0)
    finally:
        if stop:
            stop.set()
    assert time.monotonic() - t < 5
    assert needle in info.value.message, info.value.message


# -- caches bounded in bytes; findings explained on any worker; the small findings ------------------------

def test_the_answer_cache_is_bounded_in_bytes():
    app = _busy_app(ANSWER_CACHE_BYTES=200_000)
    c = app.test_client()
    for i in range(12):
        text = f"The T4 has {i + 10} GB of memory. " * 40
        assert c.post("/v1/check", json={"text": text}).status_code == 200
    entries, _ = app.extensions["gpukb_answers"]
    size = sum(len(v) for v in entries.values())
    assert size <= 200_000 and app.extensions.get("gpukb_answers_bytes", 0) == size


def test_the_engine_keeps_recent_checks_bounded_by_their_text():
    from gpukb.engine.service.state import GpuKB
    app = _busy_app()
    kb = app.extensions["gpukb"]
    old = (GpuKB.CHECK_CHARS_KEPT,)
    GpuKB.CHECK_CHARS_KEPT = 3_000
    try:
        for i in range(6):
            kb.check(f"The T4 has {i + 20} GB of memory. " * 30)
        assert sum(kb._check_chars.get(k, 0) for k in kb._checks) <= 3_000 + 1_000
        assert len(kb._checks) <= 3
    finally:
        GpuKB.CHECK_CHARS_KEPT = old[0]


def test_a_check_finding_resolves_on_another_worker(tmp_path):
    """Two apps (two workers of one server) share the store of checked texts: a finding made on one is
    explained by the other."""
    store = tmp_path / "checks"
    a = _busy_app(GPUKB_CHECK_STORE=str(store))
    b = _busy_app(GPUKB_CHECK_STORE=str(store))
    r = a.test_client().post("/v1/check", json={"text": "The T4 has 24 GB of memory."})
    fid = r.get_json()["claims"][0]["findings"][0]["id"]
    r = b.test_client().get(f"/v1/conclusions/{fid}/explain?format=json")
    assert r.status_code == 200, r.data[:300]
    lone = _busy_app()                     # without the shared store: still a clear 404, never a 500
    assert lone.test_client().get(f"/v1/conclusions/{fid.replace('X', 'X0', 1)}/explain").status_code == 404


def test_the_audit_page_is_rendered_once_per_release(client, app, monkeypatch):
    from gpukb.server import audit_pages
    calls = []
    real = audit_pages._render_audit
    monkeypatch.setattr(audit_pages, "_render_audit", lambda: calls.append(1) or real())
    for _ in range(3):
        assert client.get("/audit?source=S000").status_code == 200
    assert len(calls) <= 1


def test_health_shows_no_absolute_server_paths():
    from gpukb.server.state import relative_paths
    text = relative_paths("the KB in /root/.cache/gpukb/generations/ab12/kb has 1 problem(s): "
                          "/root/.cache/gpukb/generations/ab12/kb/claims/S000.yaml:4: bad")
    assert "/root" not in text and "kb/claims/S000.yaml:4" in text


def test_include_pending_reaches_the_served_engine():
    app = _busy_app(GPUKB_INCLUDE_PENDING=True)
    assert app.extensions["gpukb"].include_pending is True


def test_every_serve_option_is_also_an_environment_variable(monkeypatch):
    from gpukb.server.cli_args import build_parser
    env = {"GPUKB_WORKERS": "3", "GPUKB_THREADS": "5", "GPUKB_ENGINE_QUEUE": "2", "GPUKB_REQUEST_TIMEOUT": "12",
           "GPUKB_READ_TIMEOUT": "7", "GPUKB_SEND_TIMEOUT": "9", "GPUKB_MCP_ALLOWED_HOSTS": "127.0.0.1:*",
           "GPUKB_MCP_ALLOWED_ORIGINS": "http://127.0.0.1", "GPUKB_CORS_ORIGINS": "https://a.example",
           "GPUKB_PUBLIC_URL": "https://kb.example", "GPUKB_NO_MCP": "1", "GPUKB_HOST": "0.0.0.0"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    a = build_parser().parse_args(["serve"])
    assert (a.workers, a.threads, a.engine_queue, a.request_timeout, a.read_timeout, a.send_timeout) == (3, 5, 2, 12, 7, 9)
    assert a.mcp_allowed_hosts == "127.0.0.1:*" and a.cors_origins == "https://a.example" and a.no_mcp and a.host == "0.0.0.0"
    assert build_parser().parse_args(["serve", "--workers", "4"]).workers == 4      # a flag wins


def test_mcp_refuses_a_foreign_host_when_hosts_are_configured():
    app = _busy_app(MCP_ALLOWED_HOSTS="127.0.0.1:*,localhost:*")
    c = app.test_client()
    hdr = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    bad = c.post("/mcp", data=json.dumps(init), headers={**hdr, "Host": "evil.example"})
    assert bad.status_code in (400, 421), bad.status_code
    good = c.post("/mcp", data=json.dumps(init), headers={**hdr, "Host": "127.0.0.1:8000"})
    assert good.status_code == 200, good.data[:300]
