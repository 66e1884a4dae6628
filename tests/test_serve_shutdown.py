"""SIGTERM to the real `gpukb serve` on 127.0.0.1 (issue 36): requests that arrived before it are
answered (one half-sent and finished during the drain, one still in the listen backlog), and a new
connection during the drain is refused, not queued and reset when the worker exits."""
from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest
from tests._net import free_port as _free_port, serve

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow




def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _response(sock: socket.socket, seconds: float = 15.0) -> bytes:
    """Everything the server sends until it closes (bounded in time)."""
    sock.settimeout(1.0)
    data, deadline = b"", time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            raise AssertionError(f"reset after {data[:80]!r}") from None
        if not chunk:
            break
        data += chunk
    return data


def test_sigterm_answers_what_arrived_and_refuses_new_connections(tmp_path):
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPUKB_CACHE_DIR": str(tmp_path / "cache"), "GPUKB_READ_TIMEOUT": "20",
           "GPUKB_NO_SNAPSHOT": "1"}     # no snapshot build: the shutdown is what is tested
    log = open(tmp_path / "serve.log", "w+")
    proc = serve(port, ["--workers", "1", "--reload", "0"], env, log, tmp_path / "serve.log")
    stopped: list[int] = []
    socks: list[socket.socket] = []
    try:
        workers = _children(proc.pid)
        assert workers, "no worker process"

        # A: a request half-sent before SIGTERM (held in the worker's event loop)
        a = socket.create_connection(("127.0.0.1", port), timeout=5)
        socks.append(a)
        a.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n")
        time.sleep(0.5)
        # B: a whole request that only reached the listen backlog (the worker is paused)
        for w in workers:
            os.kill(w, signal.SIGSTOP)
            stopped.append(w)
        b = socket.create_connection(("127.0.0.1", port), timeout=5)
        socks.append(b)
        b.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        time.sleep(1.0)                     # the master closes its listener and signals the worker
        for w in stopped:
            os.kill(w, signal.SIGCONT)
        stopped.clear()

        # C: a new connection while the worker drains (A keeps it draining) is refused
        refused = False
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and not refused:
            try:
                c = socket.create_connection(("127.0.0.1", port), timeout=2)
            except ConnectionRefusedError:
                refused = True
            else:
                c.close()
                time.sleep(0.2)
        assert refused, "new connections were still accepted into the backlog during the drain"
        assert proc.poll() is None or workers, "the server exited before A finished"

        b_out = _response(b)
        assert b_out.startswith(b"HTTP/1.1 200"), b_out[:200]
        a.sendall(b"\r\n")
        a_out = _response(a)
        assert a_out.startswith(b"HTTP/1.1 200"), a_out[:200]
        assert b"connection: close" in a_out.lower()
        proc.wait(30)
        assert proc.returncode is not None
    finally:
        for w in stopped:
            try:
                os.kill(w, signal.SIGCONT)
            except OSError:
                pass
        for s in socks:
            s.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        log.close()
