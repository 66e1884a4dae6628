"""Fixtures in layers: one app per session → a test client per test → domain helpers (api, cli).

Building the app compiles the rules (about a second), so the app is session-scoped; the client is
cheap and per test. `api` wraps the client with assertions on the contract's shapes; `cli` runs
`gpukb` in-process and captures its output.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ERROR_KEYS = {"ok", "status", "error", "errors"}
ISSUE_KEYS = {"message", "field", "allowed", "file", "line"}


def assert_error_shape(body: Any, status: int) -> dict[str, Any]:
    """The one error shape of the API contract, with the given status."""
    assert isinstance(body, dict), body
    assert set(body) == ERROR_KEYS, body
    assert body["ok"] is False
    assert body["status"] == status
    assert isinstance(body["error"], str) and body["error"]
    assert isinstance(body["errors"], list) and body["errors"]
    for issue in body["errors"]:
        assert isinstance(issue, dict) and isinstance(issue.get("message"), str), issue
        assert set(issue) <= ISSUE_KEYS, issue
    return body


def requires_engine(name: str) -> None:
    """Fail the calling test when the engine lacks GpuKB.<name>: a missing method is a defect, not a skip."""
    from gpukb.engine.service.state import GpuKB
    if not callable(getattr(GpuKB, name, None)):
        pytest.fail(f"gpukb.engine.service.state.GpuKB.{name} is missing")


# -- layer 1: the app ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def app():
    from gpukb.server import create_app
    return create_app({"TESTING": True})


@pytest.fixture(scope="session")
def gpukb(app):
    """The engine behind the app."""
    return app.extensions["gpukb"]


# -- layer 2: the client ------------------------------------------------------------------------------

@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def site(app):
    """The app with its pages (the factory registers them), for the page tests."""
    assert "pages" in app.blueprints
    return app


@pytest.fixture(scope="module")
def web(site):
    """A client for the page tests, one per module."""
    return site.test_client()


@pytest.fixture(scope="module")
def kb(site):
    """The engine behind the pages (a module that means another KB defines its own ``kb``)."""
    return site.extensions["gpukb"]


# -- layer 3: domain helpers --------------------------------------------------------------------------

class Api:
    """The test client with the contract's expectations built in."""

    def __init__(self, client):
        self.client = client

    def get(self, path: str, **kw):
        return self.client.get(path, **kw)

    def ok(self, path: str, **kw) -> Any:
        r = self.client.get(path, **kw)
        assert r.status_code == 200, (path, r.status_code, r.get_data(as_text=True)[:500])
        assert r.mimetype == "application/json", r.mimetype
        return r.get_json()

    def post_query(self, body: Any, **kw):
        return self.client.post("/v1/query", json=body, **kw)

    def query(self, **body: Any) -> dict[str, Any]:
        r = self.post_query(body)
        assert r.status_code == 200, (body, r.get_data(as_text=True)[:500])
        return r.get_json()

    def error(self, status: int, method: str, path: str, **kw) -> dict[str, Any]:
        r = self.client.open(path, method=method, **kw)
        assert r.status_code == status, (method, path, r.status_code, r.get_data(as_text=True)[:500])
        assert r.mimetype == "application/json", r.mimetype
        return assert_error_shape(r.get_json(), status)


@pytest.fixture
def requires():
    """requires(name): fail unless the engine has GpuKB.<name>."""
    return requires_engine


@pytest.fixture
def error_shape():
    """assert_error_shape(body, status), for tests that make their own requests."""
    return assert_error_shape


@pytest.fixture
def api(client) -> Api:
    return Api(client)


class Cli:
    """`gpukb ...` run in-process: returns (exit code, stdout, stderr)."""

    def __init__(self, capsys):
        self.capsys = capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        from gpukb.server.cli import main
        self.capsys.readouterr()
        try:
            code = main(list(argv))
        except SystemExit as exc:           # argparse: --version, usage errors
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *argv: str) -> Any:
        code, out, err = self(*argv)
        assert code == 0, err
        return json.loads(out)


@pytest.fixture
def cli(capsys) -> Cli:
    return Cli(capsys)


@pytest.fixture(scope="session")
def subprocess_env() -> dict[str, str]:
    """The environment for running `python -m server.cli` from a checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("GPUKB_KB", None)
    env.pop("GPUKB_RULES", None)
    return env
