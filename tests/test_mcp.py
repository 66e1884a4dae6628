"""The MCP server, driven by the SDK's own client: `gpukb mcp` as a subprocess over stdio, and /mcp
over streamable HTTP (a threaded WSGI server on 127.0.0.1 and, once, the real gunicorn server).

Every tool's structured result is compared with the HTTP API's answer to the same input (the Flask
test client of the session app), errors with the API's error bodies. One server per module.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from gpukb.engine.core import terms
from gpukb.engine.models import scenario as scen
from gpukb.engine.service.state import GpuKB
from tests._net import free_port as _free_port

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
HEADLINE = "why not T4 for 13B full fine-tune?"
TOOLS = {"ask", "query", "explain", "audit", "claim", "fact"} | ({"check"} if callable(getattr(GpuKB, "check", None)) else set())
QUOTE_LINE = re.compile(r"^\[(\d+)\] quote (\S+), (S\d+) \[(\d+), (\d+)\): “(.*)”")


class SyncClient:
    """An ``mcp.Client`` kept open on a private event loop, called synchronously from the tests."""

    def __init__(self, target: Any, mode: str = "auto"):
        self.target, self.mode = target, mode
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> "SyncClient":
        self.thread.start()
        ready: concurrent.futures.Future = concurrent.futures.Future()
        self.host = asyncio.run_coroutine_threadsafe(self._host(ready), self.loop)
        self.client = ready.result(timeout=120)
        return self

    async def _host(self, ready: concurrent.futures.Future) -> None:
        try:
            async with Client(self.target, mode=self.mode, read_timeout_seconds=120) as c:
                self._stop = asyncio.Event()
                ready.set_result(c)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    def run(self, fn: Callable[[Client], Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(fn(self.client), self.loop).result(timeout=180)

    def call(self, tool: str, args: dict[str, Any]):
        return self.run(lambda c: c.call_tool(tool, args))

    def __exit__(self, *exc: Any) -> None:
        self.loop.call_soon_threadsafe(self._stop.set)
        try:
            self.host.result(timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)


def _text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def _same(mcp_value: Any, api_value: Any) -> bool:
    """Equal as JSON (the API's body and the MCP result both went through JSON)."""
    return json.loads(json.dumps(mcp_value)) == json.loads(json.dumps(api_value))


# -- fixtures -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def stdio():
    params = StdioServerParameters(command=sys.executable, args=["-m", "gpukb.server.cli", "mcp"], cwd=str(ROOT),
                                   env={"PYTHONPATH": str(ROOT)})
    with SyncClient(params) as c:
        yield c


@pytest.fixture(scope="module")
def http_url(app):
    """The session app (with /mcp mounted) on a threaded WSGI server on 127.0.0.1."""
    from werkzeug.serving import make_server
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_port}/mcp"
    srv.shutdown()


@pytest.fixture(scope="module")
def http(http_url):
    with SyncClient(http_url) as c:
        yield c


@pytest.fixture(scope="module")
def api_ask(app):
    r = app.test_client().get("/v1/ask", query_string={"q": HEADLINE})
    assert r.status_code == 200
    return r.get_json()


# -- stdio: tools ----------------------------------------------------------------------------------------

def test_tools_are_listed_with_schemas_from_the_vocabulary(stdio, gpukb):
    tools = {t.name: t for t in stdio.run(lambda c: c.list_tools()).tools}
    assert set(tools) == TOOLS
    q = tools["query"].input_schema["properties"]
    assert set(q) == set(scen.KEYS) | {"without"}     # the scenario, and the sources to leave out
    assert q["method"]["enum"] == list(terms.METHODS) and q["precision"]["enum"] == list(terms.PRECISIONS)
    gpus = {e.split(":", 1)[1] for e in gpukb.kb.vocab.entities_of("gpu")}
    assert "T4" in q["gpu"]["enum"] and set(q["gpu"]["enum"]) <= gpus
    assert q["kb_version"]["enum"] == [r.name for r in gpukb.kb.releases]
    assert q["zero"]["minimum"] == scen.LIMITS["zero"][0] and q["zero"]["maximum"] == scen.LIMITS["zero"][1]
    assert tools["audit"].input_schema["properties"]["kind"]["enum"] == list(terms.FINDING_KINDS)
    assert set(tools["fact"].input_schema["properties"]["attribute"]["enum"]) == set(gpukb.kb.vocab.attributes)
    assert tools["ask"].input_schema["required"] == ["question"]
    for t in tools.values():
        assert len(t.description) > 80 and t.annotations.read_only_hint is True


def test_the_headline_question_does_not_fit_and_cites_a_t4_memory_quote(stdio, api_ask, client):
    r = stdio.call("ask", {"question": HEADLINE})
    assert not r.is_error
    assert _same(r.structured_content, api_ask)
    assert r.structured_content["verdict"] == "does_not_fit"
    text = _text(r)
    assert text.startswith("Verdict: does_not_fit")
    quotes = [QUOTE_LINE.match(line).groups() for line in text.splitlines() if QUOTE_LINE.match(line)]
    t4_memory = []
    for _, claim_id, source, start, end, quote in quotes:
        c = client.get(f"/v1/claims/{claim_id}").get_json()
        source_text = client.get(f"/v1/sources/{source}").get_json()["text"]
        assert source_text[int(start):int(end)] == quote == c["quote"]      # the span points at the quote
        if c["subject"] == "gpu:T4" and c["attribute"] == "memory_gb" and float(c["value"]) == 16:
            t4_memory.append(claim_id)
    assert t4_memory, text


def test_ask_in_chinese_and_a_fact_question_match_the_api(stdio, client):
    for q in ("为什么 T4 不能全量微调 13B 模型", "Does the T4 support BF16?", "what is the weather"):
        api = client.get("/v1/ask", query_string={"q": q}).get_json()
        r = stdio.call("ask", {"question": q})
        assert not r.is_error and _same(r.structured_content, api), q


def test_query_matches_the_api(stdio, client):
    for body in ({"params": "13B", "method": "full", "gpu": "T4"},
                 {"model": "llama-2-7b", "method": "qlora", "instance": "GN7.2XLARGE32", "kb_version": "2026.09"}):
        api = client.post("/v1/query", json=body)
        assert api.status_code == 200
        r = stdio.call("query", body)
        assert not r.is_error and _same(r.structured_content, api.get_json())
        assert _text(r).startswith(f"Verdict: {api.get_json()['verdict']}")


def test_explain_in_every_format_matches_the_api(stdio, client, api_ask):
    cid = api_ask["conclusion_id"]
    for fmt in ("json", "prov"):
        api = client.get(f"/v1/conclusions/{cid}/explain", query_string={"format": fmt, "lang": "zh"}).get_json()
        r = stdio.call("explain", {"conclusion_id": cid, "format": fmt, "lang": "zh"})
        assert not r.is_error and _same(r.structured_content, api), fmt
    for fmt in ("text", "dot"):
        api = client.get(f"/v1/conclusions/{cid}/explain", query_string={"format": fmt}).get_data(as_text=True)
        r = stdio.call("explain", {"conclusion_id": cid, "format": fmt})
        assert not r.is_error and r.structured_content is None and _text(r) == api, fmt
    r = stdio.call("explain", {"conclusion_id": "S001-C009"})
    assert _same(r.structured_content, client.get("/v1/conclusions/S001-C009/explain").get_json())
    assert "quote S001-C009" in _text(r)


def test_audit_matches_the_api_and_filters_by_status(stdio, client):
    api = client.get("/v1/audit", query_string={"source": "S001", "kind": "incorrect"}).get_json()
    r = stdio.call("audit", {"source": "S001", "kind": "incorrect"})
    assert not r.is_error and _same(r.structured_content, api)
    assert all(f"quote {c['id']}" in _text(r) for f in api["findings"][:5] for c in f["claims"])
    full = client.get("/v1/audit").get_json()
    want = {s["claim"] for s in full["statuses"] if s["status"] == "incorrect"}
    r = stdio.call("audit", {"status": "incorrect"}).structured_content
    assert want and {s["claim"] for s in r["statuses"]} == want
    assert r["findings"] and all(any(c["id"] in want for c in f["claims"]) for f in r["findings"])


def test_audit_and_query_without_a_source_match_the_api(stdio, client):
    api = client.get("/v1/audit", query_string={"source": "S002", "without": "S001"}).get_json()
    r = stdio.call("audit", {"source": "S002", "without": "S001"})
    assert not r.is_error and _same(r.structured_content, api)
    assert r.structured_content["without"]["sources"] == ["S001"]
    body = {"params": "13B", "method": "full", "gpu": "T4"}
    api = client.post("/v1/query", query_string={"without": "S001"}, json=body).get_json()
    r = stdio.call("query", {**body, "without": "S001"})
    assert not r.is_error and _same(r.structured_content, api) and r.structured_content["without"]
    bad = stdio.call("audit", {"without": "S999"})
    assert bad.is_error and "S999" in _text(bad)


def test_claim_and_fact_match_the_api(stdio, client):
    r = stdio.call("claim", {"id": "S001-C009"})
    assert not r.is_error and _same(r.structured_content, client.get("/v1/claims/S001-C009").get_json())
    api = client.get("/v1/ask", query_string={"q": "Does the T4 support BF16?"}).get_json()
    assert api["kind"] == "fact"
    r = stdio.call("fact", dict(api["parsed"]["fact"]))
    assert not r.is_error
    for key in ("kind", "kb_version", "conclusion_id", "fact", "support", "contradictions", "answer", "summary"):
        assert _same(r.structured_content[key], api[key]), key
    assert "[1] reference" in _text(r)
    by_alias = stdio.call("fact", {"subject": "T4", "attribute": "memory_gb", "lang": "zh"}).structured_content
    assert by_alias["fact"]["subject"] == "gpu:T4" and by_alias["answer"] == by_alias["summary"]["zh"]


def test_check_is_offered_exactly_when_the_engine_can_check(gpukb):
    """GpuKB.check is written separately: an engine that has it gets the tool, mapped like the others."""
    from gpukb.server.mcp_server import build_server

    class Checking:
        def __init__(self, kb):
            self.kb_ = kb
            self.calls = []

        def __getattr__(self, name):
            return getattr(self.kb_, name)

        def check(self, text, lang=None, kb_version=None):
            self.calls.append((text, lang, kb_version))
            return {"kb_version": "2026.12", "claims": [{"span": [0, 3], "quote": "GN7", "status": "incorrect",
                                                         "correction": {"en": "GN7 carries T4", "zh": "GN7 配 T4"}}],
                    "not_understood": [], "summary": {"en": "1 statement checked", "zh": "检查了 1 条"}}
    engine = Checking(gpukb)
    with SyncClient(build_server(lambda: engine)) as c:
        assert "check" in {t.name for t in c.run(lambda c: c.list_tools()).tools}
        r = c.call("check", {"text": "GN7 has A100", "lang": "en", "kb_version": "2026.12"})
        assert not r.is_error and r.structured_content == engine.check("x")
        assert engine.calls[0] == ("GN7 has A100", "en", "2026.12")
        assert "→ incorrect; correction: GN7 carries T4" in _text(r)
        assert c.call("check", {"lang": "en"}).is_error
    with SyncClient(build_server(lambda: gpukb)) as c:
        assert ("check" in {t.name for t in c.run(lambda c: c.list_tools()).tools}) == callable(getattr(gpukb, "check", None))


# -- stdio: errors ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("tool,args,method,path,body", [
    ("query", {"params": "13B", "method": "foo", "gpu": "T4"}, "post", "/v1/query", {"params": "13B", "method": "foo", "gpu": "T4"}),
    ("query", {"params": "13B", "gpu": "T4", "colour": "red"}, "post", "/v1/query", {"params": "13B", "gpu": "T4", "colour": "red"}),
    ("query", {"params": "13B", "gpu": "T4", "kb_version": "1999.01"}, "post", "/v1/query", {"params": "13B", "gpu": "T4", "kb_version": "1999.01"}),
    ("claim", {"id": "S001-C999"}, "get", "/v1/claims/S001-C999", None),
    ("explain", {"conclusion_id": "Q-bm90IGFuIGlk"}, "get", "/v1/conclusions/Q-bm90IGFuIGlk/explain", None),
    ("explain", {"conclusion_id": "A-none"}, "get", "/v1/conclusions/A-none/explain", None),
    ("audit", {"source": "S9"}, "get", "/v1/audit?source=S9", None),
])
def test_bad_arguments_give_the_api_errors(stdio, client, tool, args, method, path, body):
    api = client.post(path, json=body) if method == "post" else client.get(path)
    assert api.status_code in (400, 404)
    r = stdio.call(tool, args)
    assert r.is_error
    assert _same(r.structured_content, api.get_json())
    assert _text(r).startswith(f"error {api.status_code}: {api.get_json()['error']}")


@pytest.mark.parametrize("tool,args,needle", [
    ("ask", {}, "the argument 'question' is required"),
    ("ask", {"question": 5}, "expected a string, got int"),
    ("ask", {"question": "T4?", "colour": "red"}, "unknown argument 'colour'"),
    ("ask", {"question": "x" * 501}, "at most 500 are accepted"),
    ("ask", {"question": "T4?", "lang": "fr"}, "unknown language 'fr'"),
    ("explain", {"conclusion_id": "S001-C009", "format": "pdf"}, "unknown format 'pdf'"),
    ("audit", {"status": "wrong"}, "unknown audit status 'wrong'"),
    ("fact", {"subject": "gpu:Z9", "attribute": "colour"}, "unknown subject 'gpu:Z9': gpukb knows no GPU called Z9"),
    ("fact", {"subject": "gpu:T4", "attribute": "colour"}, "unknown attribute 'colour'"),
    ("claim", {"id": "a\x00b"}, "contains control characters"),
])
def test_bad_arguments_are_error_results_not_crashes(stdio, tool, args, needle):
    r = stdio.call(tool, args)
    assert r.is_error and needle in _text(r)
    body = r.structured_content
    assert body["ok"] is False and body["status"] == 400 and needle in body["error"] and body["errors"]


def test_an_unknown_tool_is_a_protocol_error_and_the_server_keeps_serving(stdio):
    with pytest.raises(MCPError) as e:
        stdio.call("delete_everything", {})
    assert "unknown tool" in e.value.message
    assert not stdio.call("claim", {"id": "S000-C001"}).is_error


# -- stdio: resources ------------------------------------------------------------------------------------

def test_resources_are_the_sources_their_claims_and_proof_trees(stdio, client, api_ask):
    listed = {str(r.uri) for r in stdio.run(lambda c: c.list_resources()).resources}
    assert {"gpukb://sources", "gpukb://sources/S001", "gpukb://sources/S001/claims"} <= listed
    templates = {t.uri_template for t in stdio.run(lambda c: c.list_resource_templates()).resource_templates}
    assert "gpukb://conclusions/{conclusion_id}" in templates

    def read(uri: str):
        return stdio.run(lambda c: c.read_resource(uri)).contents[0]
    doc = read("gpukb://sources/S001")
    assert doc.mime_type == "text/plain" and doc.text == client.get("/v1/sources/S001").get_json()["text"]
    claims = read("gpukb://sources/S001/claims")
    assert _same(json.loads(claims.text), client.get("/v1/claims?source=S001").get_json())
    cid = api_ask["conclusion_id"]
    tree = json.loads(read(f"gpukb://conclusions/{cid}").text)
    assert _same(tree, client.get(f"/v1/conclusions/{cid}/explain").get_json())
    assert _same(json.loads(read("gpukb://sources").text), client.get("/v1/sources").get_json())
    for bad in ("gpukb://sources/S9", "gpukb://nothing", "file:///etc/passwd"):
        with pytest.raises(MCPError) as e:
            read(bad)
        assert e.value.code == -32002 and e.value.message.startswith("no ")


# -- streamable HTTP -------------------------------------------------------------------------------------

def test_http_transport_answers_like_the_api(http, api_ask, client):
    assert {t.name for t in http.run(lambda c: c.list_tools()).tools} == TOOLS
    r = http.call("ask", {"question": HEADLINE})
    assert not r.is_error and _same(r.structured_content, api_ask)
    body = {"params": "13B", "method": "foo", "gpu": "T4"}
    r = http.call("query", body)
    assert r.is_error and _same(r.structured_content, client.post("/v1/query", json=body).get_json())
    text = http.run(lambda c: c.read_resource("gpukb://sources/S002")).contents[0].text
    assert text == client.get("/v1/sources/S002").get_json()["text"]


def test_http_transport_serves_handshake_era_clients(http_url, client):
    with SyncClient(http_url, mode="legacy") as legacy:
        assert {t.name for t in legacy.run(lambda c: c.list_tools()).tools} == TOOLS
        r = legacy.call("claim", {"id": "S002-C014"})
        assert _same(r.structured_content, client.get("/v1/claims/S002-C014").get_json())


def test_mcp_is_a_plain_json_post_through_the_wsgi_app(client):
    r = client.post("/mcp", json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
                    headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"})
    assert r.status_code == 200 and r.mimetype == "application/json"
    assert r.get_json()["id"] == 7 and {t["name"] for t in r.get_json()["result"]["tools"]} == TOOLS
    assert client.get("/health").status_code == 200          # everything else is still Flask


def test_mcp_refuses_streams_sessions_and_oversized_bodies_at_once(client):
    """A stateless endpoint opens no event stream: GET would otherwise hold a sync worker forever."""
    for method in ("get", "delete", "put"):
        t0 = time.monotonic()
        r = getattr(client, method)("/mcp", headers={"Accept": "text/event-stream"})
        assert r.status_code == 405 and r.headers["Allow"] == "POST" and time.monotonic() - t0 < 5
        assert r.get_json()["error"]["message"].startswith(f"method {method.upper()} is not allowed")
    r = client.post("/mcp", data=b"[" * 300_000, headers={"Content-Type": "application/json"})   # over the 256 KiB body limit
    assert r.status_code == 413 and "larger than" in r.get_json()["error"]["message"]
    r = client.post("/mcp", data=b"{not json", headers={"Content-Type": "application/json",
                                                        "Accept": "application/json, text/event-stream"})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == -32700


def test_mcp_can_be_turned_off():
    from gpukb.server import create_app
    r = create_app({"TESTING": True, "MCP_ENABLED": False}).test_client().post("/mcp", json={})
    assert r.status_code in (404, 405) and r.get_json()["ok"] is False


def test_host_checks_can_be_turned_on():
    from gpukb.server import create_app
    c = create_app({"TESTING": True, "MCP_ALLOWED_HOSTS": "gpukb.example.org"}).test_client()
    msg = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    assert c.post("/mcp", json=msg, headers=headers).status_code == 421          # Host: localhost
    assert c.post("/mcp", json=msg, headers={**headers, "Host": "gpukb.example.org"}).status_code == 200




def test_gunicorn_serves_mcp_across_its_workers(tmp_path):
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "gpukb.server.cli", "serve", "--port", str(port), "--workers", "2",
                             "--no-snapshot", "--reload", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except Exception:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()[-2000:]
            time.sleep(0.3)
        with SyncClient(f"http://127.0.0.1:{port}/mcp", mode="legacy") as c:   # stateless: any worker answers
            listed = [{t.name for t in c.run(lambda c: c.list_tools()).tools} for _ in range(4)]
            answers = [c.call("query", {"params": "7B", "method": "qlora", "gpu": "T4"}) for _ in range(2)]
        assert all(names == TOOLS for names in listed)
        assert all(not a.is_error for a in answers)
        assert len({json.dumps(a.structured_content, sort_keys=True) for a in answers}) == 1
        assert answers[0].structured_content["verdict"] == "fits"
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
