"""The Dockerfile builds and serves the same app (only where a Docker engine runs)."""
from __future__ import annotations

import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _docker_engine() -> bool:
    if not shutil.which("docker"):
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0


def test_dockerfile_builds_patched_durable_on_a_current_python_and_serves_as_non_root():
    text = (ROOT / "Dockerfile").read_text()
    assert text.startswith("#") and "FROM python:3.13-slim" in text
    assert "pip install --no-cache-dir ." in text and "durable_build.py --check" in text
    assert "HEALTHCHECK" in text and "/health" in text
    assert "\nUSER " in text and "USER root" not in text
    assert "gpukb serve" in text


@pytest.mark.skipif(not _docker_engine(), reason="no Docker engine here (the docker client alone cannot build)")
def test_docker_image_builds_and_answers_health():
    tag = "gpukb-test:latest"
    subprocess.run(["docker", "build", "-t", tag, str(ROOT)], check=True, timeout=1200)
    cid = subprocess.run(["docker", "run", "-d", "-p", "127.0.0.1:18765:8000", tag], check=True,
                         capture_output=True, text=True).stdout.strip()
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen("http://127.0.0.1:18765/health", timeout=3) as r:
                    assert r.status == 200
                    break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)
