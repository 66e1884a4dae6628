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
    """A non-blocking socket whose client takes ``room`` bytes, then nothing until ``sendall``."""

    def __init__(self, room: int = 1 << 30):
        self.out, self.room, self.timeouts = b"", room, []

    def send(self, data):
        if self.room <= 0:
            raise BlockingIOError
        n = min(len(data), self.room)
        self.out += bytes(data[:n])
        self.room -= n
        return n

    def sendall(self, data):
        self.out += bytes(data)

    def settimeout(self, t):
        self.timeouts.append(t)

    def setblocking(self, flag):
        self.timeouts.append(None if flag else 0.0)


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


def test_what_a_slow_client_does_not_take_waits_for_the_loop_and_past_the_limit_for_the_thread():
    reader = _read(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
    sock = _Sock(room=30)
    resp = Responder(sock, reader, close=False, outbox_limit=1000, send_timeout=7)
    write = resp.start_response("200 OK", [("Content-Length", "1500")])
    write(b"a" * 500)
    assert len(sock.out) == 30 and sock.timeouts == []            # nobody waited: the rest is in the outbox
    head_and_500 = 30 + len(resp.outbox)
    write(b"b" * 1000)                                             # over the limit: the thread waits for the client
    assert sock.timeouts == [7, 0.0] and not resp.outbox and len(sock.out) == head_and_500 + 1000
    resp.finish()
    assert sock.out.endswith(b"b" * 1000) and not resp.outbox


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


@pytest.mark.slow
def test_a_client_that_does_not_read_its_answer_holds_no_thread(one_thread):
    """The one thread hands the end of a 1 MB audit answer to the loop and serves /health; the answer,
    read later, arrives whole."""
    s = socket.create_connection(("127.0.0.1", one_thread), timeout=30)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        s.sendall(b"GET /v1/audit HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        time.sleep(0.5)
        assert max(_health_s(one_thread) for _ in range(5)) < 1.0
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    length = int(next(v for k, _, v in (h.partition(b": ") for h in head.split(b"\r\n")[1:])
                      if k.lower() == b"content-length"))
    assert len(body) == length > 500_000


def _app(size: int):
    def app(environ, start_response):
        body = b"x" * size if environ["PATH_INFO"] == "/big" else b"ok"
        start_response("200 OK", [("Content-Length", str(len(body)))])
        return [body]
    return app


@pytest.fixture
def worker():
    """A GpukbWorker with its loop open and a plain WSGI app, driven turn by turn by the test."""
    import logging
    from gunicorn.config import Config
    from gunicorn.glogging import Logger
    from gpukb.server.switch import Follower
    from gpukb.server.worker import GpukbWorker
    cfg = Config()
    cfg.set("threads", 1)
    w = GpukbWorker(0, os.getpid(), [], None, 30, cfg, Logger(cfg))
    w.open_loop()
    w.wsgi, w.alive, w.follower = _app(3 << 20), True, Follower({})
    logging.getLogger("gunicorn.error").setLevel(logging.ERROR)
    yield w
    w.tpool.shutdown()
    w.probe_pool.shutdown()


def _connect(w, request: bytes):
    from gpukb.server.http11 import Conn
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
    ours.setblocking(False)
    w.nr_conns += 1
    conn = Conn(ours, ("127.0.0.1", 1), ("127.0.0.1", 2), w._reader())
    w._wait(conn)
    theirs.sendall(request)
    return conn, theirs


def test_the_loop_sends_what_a_slow_client_has_not_taken_and_the_thread_serves_the_next(worker):
    conn, client = _connect(worker, b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
    deadline = time.monotonic() + 10
    while not conn.outbox and time.monotonic() < deadline:    # the one thread answers, hands the rest over
        worker._turn()
    assert conn.outbox and worker._outbox_bytes == len(conn.outbox)
    other, other_client = _connect(worker, b"GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
    got = b""
    while not got.endswith(b"ok") and time.monotonic() < deadline:   # served while /big waits for its client
        worker._turn()
        other_client.setblocking(False)
        try:
            got += other_client.recv(65536)
        except BlockingIOError:
            pass
    assert got.startswith(b"HTTP/1.1 200 ") and got.endswith(b"ok")
    data = b""
    client.setblocking(False)
    while len(data) < 3 << 20 and time.monotonic() < deadline:      # the slow client reads at last
        worker._turn()
        try:
            data += client.recv(1 << 20)
        except BlockingIOError:
            pass
    assert data.endswith(b"x" * 1000) and len(data.partition(b"\r\n\r\n")[2]) == 3 << 20
    assert not conn.outbox and worker._outbox_bytes == 0 and conn.registered    # kept, waiting for its next request
    for s in (client, other_client):
        s.close()
