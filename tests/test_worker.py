"""gpukb's gunicorn worker (server/worker.py, server/http11.py): requests read to their end by the
event loop, the WSGI environ, responses through h11; and, on a real server with one thread, clients
that wait (100-continue without a body, idle connections) holding no thread."""
from __future__ import annotations

import http.client
import os
import socket
import time
import urllib.request
from pathlib import Path

import h11
import pytest
from werkzeug.exceptions import RequestEntityTooLarge

from gpukb.server.http11 import READY, Limits, RequestReader, Responder, build_environ
from tests._net import free_port, serve, stop

ROOT = Path(__file__).resolve().parents[1]


class Cfg:
    limit_request_line, limit_request_fields, limit_request_field_size = 4094, 100, 8190
    header_map, workers = "drop", 2
    forwarded_allow_ips = ["127.0.0.1"]
    secure_scheme_headers = {"X-FORWARDED-PROTO": "https"}


def _read(data: bytes, body_buffer: int = 1024) -> RequestReader:
    reader = RequestReader(Limits(Cfg), body_buffer, Cfg)
    assert reader.feed(data) == READY
    return reader


def test_a_chunked_body_arrives_whole_in_wsgi_input():
    reader = RequestReader(Limits(Cfg), 1024, Cfg)
    assert reader.feed(b"POST /v1/query HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n") != READY
    assert reader.feed(b"2\r\nde\r\n0\r\n\r\n") == READY
    env = build_environ(reader, ("10.0.0.9", 5000), ("127.0.0.1", 8000), Cfg)
    assert env["wsgi.input"].read() == b"abcde" and env["wsgi.input_terminated"] and "CONTENT_LENGTH" not in env


def test_the_environ_follows_pep_3333():
    reader = _read(b"GET /v1/claims/a%20b%0a?x=1&y=%20 HTTP/1.1\r\nHost: example.org:8443\r\nX-A: 1\r\nx-a: 2\r\n"
                   b"X_A: spoofed\r\nContent-Type: text/plain\r\nX-Forwarded-Proto: https\r\n\r\n")
    env = build_environ(reader, ("127.0.0.1", 5000), ("0.0.0.0", 8000), Cfg)
    assert (env["REQUEST_METHOD"], env["PATH_INFO"], env["QUERY_STRING"]) == ("GET", "/v1/claims/a b\n", "x=1&y=%20")
    assert (env["SERVER_NAME"], env["SERVER_PORT"], env["REMOTE_ADDR"], env["REMOTE_PORT"]) == ("0.0.0.0", "8000", "127.0.0.1", "5000")
    assert env["HTTP_X_A"] == "1,2" and env["CONTENT_TYPE"] == "text/plain" and env["HTTP_HOST"] == "example.org:8443"
    assert env["SERVER_PROTOCOL"] == "HTTP/1.1" and env["wsgi.version"] == (1, 0) and env["wsgi.url_scheme"] == "https"
    assert env["wsgi.input"].read() == b""
    untrusted = build_environ(reader, ("10.0.0.9", 5000), ("0.0.0.0", 8000), Cfg)
    assert untrusted["wsgi.url_scheme"] == "http"      # X-Forwarded-Proto only counts from forwarded_allow_ips


def test_a_request_without_host_is_served_without_one():
    env = build_environ(_read(b"GET /health HTTP/1.1\r\n\r\n"), ("127.0.0.1", 1), ("127.0.0.1", 2), Cfg)
    assert "HTTP_HOST" not in env and env["PATH_INFO"] == "/health"


def test_expect_100_continue_is_announced_and_the_body_then_collected():
    reader = RequestReader(Limits(Cfg), 1024, Cfg)
    assert reader.feed(b"POST /v1/query HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n") != READY
    assert reader.wants_continue() and reader.continue_bytes() == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert not reader.wants_continue()
    assert reader.feed(b"{}") == READY and bytes(reader.body) == b"{}"


def test_a_body_too_large_to_collect_is_handed_over_unfinished_and_never_cut_short():
    reader = _read(b"POST /v1/query HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999\r\nExpect: 100-continue\r\n\r\n")
    assert reader.partial
    env = build_environ(reader, ("127.0.0.1", 1), ("127.0.0.1", 2), Cfg)
    assert env["CONTENT_LENGTH"] == "99999999"
    with pytest.raises(RequestEntityTooLarge):
        env["wsgi.input"].read()
    chunked = _read(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + b"x" * 2048 + b"\r\n", 1024)
    stream = build_environ(chunked, ("127.0.0.1", 1), ("127.0.0.1", 2), Cfg)["wsgi.input"]
    assert len(stream.read(1025)) == 1025
    with pytest.raises(RequestEntityTooLarge):
        stream.read()


def test_a_pipelined_request_is_left_for_the_next_cycle():
    reader = _read(b"GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
    assert reader.request.target == b"/a" and reader.leftover() == b"GET /b HTTP/1.1\r\nHost: h\r\n\r\n"


@pytest.mark.parametrize("data, status", [
    (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\n", 414),
    (b"GET / HTTP/1.1\r\n" + b"X-H: v\r\n" * 101 + b"\r\n", 431),
    (b"GET / HTTP/1.1\r\nX-Big: " + b"b" * 9000, 431),
    (b"GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400),
    (b"GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
    (b"GET / HTTP/1.1\r\nHost: h\r\nExpect: something\r\n\r\n", 417),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
])
def test_refused_requests_and_their_status(data, status):
    from gpukb.server.wire import classify
    with pytest.raises(Exception) as caught:
        RequestReader(Limits(Cfg), 1024, Cfg).feed(data)
    assert classify(caught.value)[0] == status


class _Sock:
    def __init__(self):
        self.out = b""

    def sendall(self, data):
        self.out += data


@pytest.mark.parametrize("method, close, expect", [
    (b"GET", False, b"\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),      # no Content-Length: chunked
    (b"HEAD", True, b"Transfer-Encoding: chunked\r\n\r\n"),   # the head GET would have, no body
])
def test_the_response_goes_through_h11(method, close, expect):
    sock, reader = _Sock(), _read(method + b" / HTTP/1.1\r\nHost: h\r\n\r\n")
    resp = Responder(sock, reader, close=close)
    write = resp.start_response("200 OK", [("Content-Type", "text/plain")])
    write(b"hello")
    resp.finish()
    assert sock.out.startswith(b"HTTP/1.1 200 OK\r\n") and sock.out.endswith(expect) and b"Date: " in sock.out
    assert (b"hello" in sock.out) is (method == b"GET") and (b"Connection: close" in sock.out) is close
    assert reader.reusable() is not close and reader.h11.our_state in (h11.DONE, h11.MUST_CLOSE)


# -- on a real server with one worker of one thread ---------------------------------------------------

@pytest.fixture(scope="module")
def one_thread(tmp_path_factory):
    port = free_port()
    d = tmp_path_factory.mktemp("one-thread")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPUKB_CACHE_DIR": str(d / "cache"), "GPUKB_NO_SNAPSHOT": "1",
           "GPUKB_READ_TIMEOUT": "10"}
    log = (d / "serve.log").open("w+")
    proc = serve(port, ["--workers", "1", "--threads", "1", "--reload", "0"], env, log, d / "serve.log")
    yield port
    stop(proc, log)


def _health_s(port: int) -> float:
    t0 = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
        assert r.status == 200
    return time.monotonic() - t0


@pytest.mark.slow
def test_clients_waiting_for_100_continue_or_idle_hold_no_thread(one_thread):
    port = one_thread
    waiting = []
    try:
        for _ in range(5):          # more than the one thread: each would hold it while it waits
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 2\r\nExpect: 100-continue\r\n\r\n")
            waiting.append(s)
        for s in waiting:
            assert s.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        waiting += [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
        time.sleep(0.3)
        assert max(_health_s(port) for _ in range(5)) < 1.0
        waiting[0].sendall(b"{}")                           # the body, at last: answered
        assert waiting[0].recv(65536).startswith(b"HTTP/1.1 400 ")
    finally:
        for s in waiting:
            s.close()


@pytest.mark.slow
def test_keep_alive_and_pipelining_on_the_real_server(one_thread):
    conn = http.client.HTTPConnection("127.0.0.1", one_thread, timeout=10)
    for path in ("/health", "/v1/versions", "/health"):
        conn.request("GET", path)
        r = conn.getresponse()
        assert r.status == 200 and r.read()
    conn.close()
    with socket.create_connection(("127.0.0.1", one_thread), timeout=10) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\nHEAD /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    first, second = data.split(b"HTTP/1.1 200 OK")[1:]
    assert b"Connection: close" not in first and b"Connection: close" in second and data.endswith(b"\r\n\r\n")
