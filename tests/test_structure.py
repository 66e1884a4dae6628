"""The package layout as a contract: layers import downwards only, and doctests run.

Layers of ``gpukb.engine``: ``errors``/``yamlio``/``paths`` (shared) <- ``kb`` <- ``reasoning`` <- ``answers``;
``reasoning`` never imports ``answers``, ``kb`` imports neither; ``models`` (the answers' typed shapes)
sits on ``kb`` beside ``reasoning``, so that ``answers`` may build them; nothing in the engine imports
``gpukb.server`` (checked on the source text, so a lazy import inside a function counts too).
"""
from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"

# (layer, the layers it must not import)
FORBIDDEN = {
    "kb": {"reasoning", "answers", "models", "server"},
    "reasoning": {"answers", "models", "server"},
    "models": {"reasoning", "answers", "server"},
    "answers": {"server"},
    "": {"kb", "reasoning", "answers", "models", "server"},   # engine/errors.py, yamlio.py, paths.py
}


def _imports(path: Path) -> set[str]:
    """Absolute dotted names of the gpukb modules a file imports (relative imports resolved)."""
    rel = path.relative_to(ROOT).with_suffix("")
    package = ["gpukb", *rel.parts[:-1]] if rel.name != "__init__" else ["gpukb", *rel.parts[:-1]]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {n for n in out if n.startswith("gpukb")}


def _layer(path: Path) -> str:
    parts = path.relative_to(ENGINE).parts
    return parts[0] if len(parts) > 1 else ""


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_layers_import_downwards(path):
    layer = _layer(path)
    bad = []
    for name in _imports(path):
        parts = name.split(".")
        if len(parts) > 1 and parts[1] == "server":
            bad.append(name)
        elif len(parts) > 2 and parts[1] == "engine" and parts[2] in FORBIDDEN[layer]:
            bad.append(name)
    assert not bad, f"{path.relative_to(ROOT)} (layer {layer or 'engine'}) imports {sorted(bad)}"


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
