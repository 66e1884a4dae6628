"""Loopback helpers for the tests that start a real server."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(port: int, args: list[str], env: dict[str, str], log: IO[str], log_path: Path,
          timeout: float = 240) -> subprocess.Popen:
    """``gpukb serve --port PORT ARGS`` started from the checkout, its output in ``log``, once ``/health``
    answers 200; the test fails with the log's end if the server exits or does not answer in time."""
    proc = subprocess.Popen([sys.executable, "-m", "gpukb.server.cli", "serve", "--port", str(port), *args],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
        if proc.poll() is not None:
            pytest.fail("the server exited: " + log_path.read_text()[-2000:])
    proc.kill()
    pytest.fail(f"the server did not start within {timeout:g} s: " + log_path.read_text()[-2000:])


def stop(proc: subprocess.Popen, log: IO[str] | None = None) -> None:
    """SIGTERM, then SIGKILL after 20 s; the log closed."""
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
    if log is not None:
        log.close()
