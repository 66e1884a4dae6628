"""The package layout as a contract: the import-linter contract (``.importlinter``) holds, no engine
module outgrows one screenful of responsibilities (400 lines), and doctests run.

The layers, top to bottom: the faces (``gpukb.server``), the service (``GpuKB``), then the capabilities
(evals, ask, text | catalog, sizing, audit, explain), then models, reasoning, kb and core. A layer may
import only the layers below it; a capability gets :class:`gpukb.engine.core.session.Session`, never
the service. Imports made only for type annotations (``if TYPE_CHECKING``) are not dependencies.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
MAX_LINES = 400


def test_the_import_contract_holds():
    """scripts/lint_imports.py runs import-linter's contract on a copy of engine/ and server/ as ``gpukb``."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "lint_imports.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout and "KEPT" in proc.stdout


def test_the_contract_names_every_engine_package():
    """A new capability package must be placed in the layers, or the contract silently ignores it."""
    text = (ROOT / ".importlinter").read_text(encoding="utf-8")
    packages = sorted(p.name for p in ENGINE.iterdir() if (p / "__init__.py").is_file())
    assert [p for p in packages if f"gpukb.engine.{p}" not in text] == []


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_modules_stay_small(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(ROOT)} has {n} lines (at most {MAX_LINES}): split it by responsibility"


def test_the_installed_names_are_namespaced():
    """gpukb claims ``gpukb.*`` only: no top-level ``engine`` or ``server`` module comes from it."""
    import gpukb.engine
    import gpukb.server
    assert Path(gpukb.engine.__file__).resolve().parent == ENGINE
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["engine", "server"]' not in text


def _engine_modules():
    import gpukb.engine
    for info in pkgutil.walk_packages(gpukb.engine.__path__, "gpukb.engine."):
        yield info.name


@pytest.mark.parametrize("name", sorted(_engine_modules()))
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"


@pytest.mark.parametrize("name", ["gpukb", "gpukb.server.library"])
def test_the_public_python_api_doctests(name):
    """``import gpukb; kb = gpukb.open()``: the README's library example, run as a doctest."""
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and (name == "gpukb" or result.attempted >= 8)


def test_the_readme_library_example_runs():
    """The README's ``Use from Python`` block is a doctest, so it cannot drift from the library."""
    import re
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Use from Python\n.*?```python\n(.*?)```", text, re.S).group(1)
    test = doctest.DocTestParser().get_doctest(block, {}, "README", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 6
