"""Every failure has one JSON shape: {"ok": false, "status", "error", "errors": [issues]}.

A table of failing requests (in the manner of Datasette's tests/test_error_shape.py): each row is a
request, the status it must get and, where the API can say what would be accepted, a value that the
issues' `allowed` lists must contain.
"""
from __future__ import annotations

import json

import pytest

LONG_ID = "S" * 2001
Q = "/v1/query"
JSON = "application/json"


def _post(data, content_type=JSON, **headers):
    return {"data": data, "content_type": content_type, "headers": headers}


# (id, method, path, request kwargs, status, (field, allowed value) or None, engine method needed or None)
CASES = [
    # routing
    ("no-such-endpoint", "GET", "/v1/nothing", {}, 404, ("path", "/v1/query"), None),
    ("trailing-junk", "GET", "/v1/claims/S000-C001/extra", {}, 404, None, None),
    ("put", "PUT", "/v1/claims", {}, 405, ("method", "GET"), None),
    ("delete", "DELETE", "/v1/claims/S000-C001", {}, 405, ("method", "GET"), None),
    ("patch", "PATCH", "/health", {}, 405, ("method", "GET"), None),
    ("post-on-a-get", "POST", "/v1/claims", {"json": {}}, 405, ("method", "GET"), None),
    ("get-query", "GET", Q, {}, 405, ("method", "POST"), None),
    ("put-query", "PUT", Q, {"json": {}}, 405, ("method", "POST"), None),
    ("propfind", "PROPFIND", "/health", {}, 405, None, None),
    # unknown ids
    ("unknown-claim", "GET", "/v1/claims/S999-C999", {}, 404, None, None),
    ("unknown-source", "GET", "/v1/sources/S999", {}, 404, ("id", "S000"), None),
    ("claims-of-unknown-source", "GET", "/v1/claims?source=S999", {}, 404, ("source", "S000"), None),
    ("unknown-conclusion", "GET", "/v1/conclusions/nope/explain", {}, 404, None, "explain"),
    ("unknown-conclusion-plain", "GET", "/v1/conclusions/nope", {}, 404, None, "explain"),
    ("malformed-sizing-id", "GET", "/v1/conclusions/Q-%21%21%21/explain", {}, 400, None, "explain"),
    ("id-too-long", "GET", f"/v1/claims/{LONG_ID}", {}, 400, None, None),
    ("source-id-too-long", "GET", f"/v1/sources/{LONG_ID}", {}, 400, None, None),
    ("conclusion-id-too-long", "GET", f"/v1/conclusions/{LONG_ID}/explain", {}, 400, None, None),
    # query parameters
    ("unknown-param", "GET", "/v1/claims?color=red", {}, 400, ("color", "source"), None),
    ("param-on-health", "GET", "/health?verbose=1", {}, 400, None, None),
    ("param-on-versions", "GET", "/v1/versions?x=1", {}, 400, None, None),
    ("param-on-query", "POST", "/v1/query?debug=1", {"json": {"params": 1e9, "gpu": "T4"}}, 400, None, None),
    ("unknown-release", "GET", "/v1/claims?kb_version=1999.01", {}, 400, ("kb_version", "2026.09"), None),
    ("unknown-release-claim", "GET", "/v1/claims/S000-C001?kb_version=x", {}, 400, ("kb_version", "2026.09"), None),
    ("repeated-param", "GET", "/v1/claims?source=S000&source=S001", {}, 400, None, None),
    ("param-too-long", "GET", "/v1/claims?source=" + "S" * 201, {}, 400, None, None),
    ("control-chars", "GET", "/v1/claims?source=S0%0000", {}, 400, None, None),
    ("ask-without-q", "GET", "/v1/ask", {}, 400, None, None),
    ("ask-empty-q", "GET", "/v1/ask?q=", {}, 400, None, None),
    ("ask-blank-q", "GET", "/v1/ask?q=%20%20", {}, 400, None, None),
    ("ask-q-too-long", "GET", "/v1/ask?q=" + "a" * 501, {}, 400, None, None),
    ("ask-nul", "GET", "/v1/ask?q=T4%00", {}, 400, None, None),
    ("ask-bad-lang", "GET", "/v1/ask?q=hi&lang=fr", {}, 400, ("lang", "zh"), None),
    ("ask-unknown-release", "GET", "/v1/ask?q=why+not+T4+for+13B+full+fine-tune&kb_version=nope", {}, 400,
     ("kb_version", "2026.09"), "ask"),
    ("explain-bad-format", "GET", "/v1/conclusions/X/explain?format=pdf", {}, 400, ("format", "dot"), None),
    ("explain-bad-lang", "GET", "/v1/conclusions/X/explain?lang=de", {}, 400, ("lang", "en"), None),
    ("conclusion-format-not-accepted", "GET", "/v1/conclusions/X?format=text", {}, 400, ("format", "lang"), None),
    ("audit-bad-kind", "GET", "/v1/audit?kind=wrongish", {}, 400, ("kind", "misattributed"), None),
    ("audit-bad-format", "GET", "/v1/audit?format=csv", {}, 400, ("format", "claimreview"), None),
    ("audit-unknown-release", "GET", "/v1/audit?kb_version=0", {}, 400, ("kb_version", "2026.09"), "audit"),
    ("diff-without-params", "GET", "/v1/diff", {}, 400, None, None),
    ("diff-without-to", "GET", "/v1/diff?from=2026.09", {}, 400, None, None),
    ("diff-unknown-release", "GET", "/v1/diff?from=2026.09&to=nope", {}, 400, None, "diff"),
    # bodies
    ("invalid-json", "POST", Q, _post("{not json"), 400, None, None),
    ("truncated-json", "POST", Q, _post('{"params": 13e9,'), 400, None, None),
    ("nan", "POST", Q, _post('{"params": NaN, "gpu": "T4"}'), 400, None, None),
    ("infinity", "POST", Q, _post('{"params": Infinity, "gpu": "T4"}'), 400, None, None),
    ("minus-infinity", "POST", Q, _post('{"vram_gb": -Infinity, "params": 1e9}'), 400, None, None),
    ("overflowing-float", "POST", Q, _post('{"params": 1e400, "gpu": "T4"}'), 400, None, None),
    ("huge-integer", "POST", Q, _post('{"params": ' + "9" * 5000 + ', "gpu": "T4"}'), 400, None, None),
    ("array-body", "POST", Q, _post("[1, 2]"), 400, None, None),
    ("string-body", "POST", Q, _post('"13B on T4"'), 400, None, None),
    ("null-body", "POST", Q, _post("null"), 400, None, None),
    ("empty-body", "POST", Q, _post(""), 400, None, None),
    ("duplicate-key", "POST", Q, _post('{"params": 1e9, "params": 2e9, "gpu": "T4"}'), 400, None, None),
    ("deep-nesting", "POST", Q, _post("[" * 20000 + "]" * 20000), 400, None, None),
    ("invalid-utf8", "POST", Q, _post(b'{"gpu": "\xff\xfe"}'), 400, None, None),
    ("latin1-charset", "POST", Q, _post('{"gpu": "T4"}', "application/json; charset=latin-1"), 400,
     ("Content-Type", "utf-8"), None),
    ("text-plain", "POST", Q, _post('{"params": 1e9, "gpu": "T4"}', "text/plain"), 400,
     ("Content-Type", "application/json"), None),
    ("form", "POST", Q, {"data": {"params": "1e9"}}, 400, ("Content-Type", "application/json"), None),
    ("no-content-type", "POST", Q, {"data": b'{"params": 1e9}'}, 400, ("Content-Type", "application/json"), None),
    ("gzip", "POST", Q, _post(b"\x1f\x8b\x08\x00", JSON, **{"Content-Encoding": "gzip"}), 415,
     ("Content-Encoding", "identity"), None),
    ("too-large", "POST", Q, _post('{"model": "' + "x" * 300000 + '"}'), 413, None, None),
    ("unknown-key", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "colour": "red"}}, 400, ("colour", "seq_len"), None),
    ("both-model-and-params", "POST", Q, {"json": {"params": 1e9, "model": "llama-2-7b", "gpu": "T4"}}, 400, None, None),
    ("nothing-to-size", "POST", Q, {"json": {}}, 400, None, None),
    ("no-hardware", "POST", Q, {"json": {"params": 1e9}}, 400, None, None),
    ("two-hardware", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "vram_gb": 16}}, 400, None, None),
    ("unknown-gpu", "POST", Q, {"json": {"params": 1e9, "gpu": "Voodoo5"}}, 400, ("gpu", "T4"), None),
    ("unknown-model", "POST", Q, {"json": {"model": "gpt-17", "gpu": "T4"}}, 400, ("model", "llama-2-7b"), None),
    ("bad-method", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "method": "magic"}}, 400, ("method", "qlora"), None),
    ("bad-precision", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "precision": "fp8"}}, 400, ("precision", "nf4"), None),
    ("bad-optimizer", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "optimizer": "adam"}}, 400, ("optimizer", "sgd"), None),
    ("gpus-zero", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "gpus": 0}}, 400, ("gpus", "1..65536"), None),
    ("gpus-fraction", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "gpus": 1.5}}, 400, None, None),
    ("zero-stage-4", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "zero": 4}}, 400, ("zero", "0..3"), None),
    ("params-negative", "POST", Q, {"json": {"params": -5, "gpu": "T4"}}, 400, None, None),
    ("params-too-big", "POST", Q, {"json": {"params": 1e20, "gpu": "T4"}}, 400, None, None),
    ("params-boolean", "POST", Q, {"json": {"params": True, "gpu": "T4"}}, 400, None, None),
    ("params-object", "POST", Q, {"json": {"params": {"n": 1}, "gpu": "T4"}}, 400, None, None),
    ("vram-too-small", "POST", Q, {"json": {"params": 1e9, "vram_gb": 0.01}}, 400, None, None),
    ("seq-len-huge", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "seq_len": 10 ** 9}}, 400, None, None),
    ("flag-not-boolean", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "flash_attention": "yes"}}, 400, None, None),
    ("gpu-not-a-string", "POST", Q, {"json": {"params": 1e9, "gpu": ["T4"]}}, 400, None, None),
    ("unknown-release-in-body", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "kb_version": "1999.01"}}, 400,
     ("kb_version", "2026.09"), None),
    ("release-not-a-string", "POST", Q, {"json": {"params": 1e9, "gpu": "T4", "kb_version": 2026}}, 400, None, None),
]


@pytest.mark.parametrize("method, path, kwargs, status, allowed, needs",
                         [pytest.param(*row[1:], id=row[0]) for row in CASES])
def test_error_shape(client, error_shape, requires, method, path, kwargs, status, allowed, needs):
    if needs:
        requires(needs)
    r = client.open(path, method=method, **kwargs)
    assert r.status_code == status, r.get_data(as_text=True)[:400]
    assert r.mimetype == "application/json"
    assert r.headers.get("X-Request-ID")
    body = error_shape(r.get_json(), status)
    if status == 405:
        assert r.headers.get("Allow")
    if allowed:
        field, value = allowed
        hits = [i for i in body["errors"] if i.get("field") == field]
        assert hits, f"no issue about {field!r}: {body['errors']}"
        assert any(value in (i.get("allowed") if isinstance(i.get("allowed"), (list, str)) else [])
                   for i in hits), f"{value!r} not among the allowed values: {hits}"


def test_a_400_lists_every_problem_not_just_the_first(client, error_shape):
    r = client.post(Q, json={"params": -1, "gpu": "Voodoo5", "method": "magic", "colour": 1})
    body = error_shape(r.get_json(), 400)
    assert {"params", "gpu", "method", "colour"} <= {i.get("field") for i in body["errors"]}


def test_head_of_an_unknown_path_is_a_bodiless_404(client):
    r = client.head("/v1/nothing")
    assert r.status_code == 404 and r.mimetype == "application/json" and not r.data


def test_error_bodies_are_utf8_json_not_ascii_escaped(client):
    r = client.post(Q, json={"params": 1e9, "gpu": "显卡"})
    assert r.status_code == 400
    assert "显卡" in r.get_data(as_text=True)
    json.loads(r.get_data(as_text=True))
