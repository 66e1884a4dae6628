"""A non-editable install works from any directory and claims only the ``gpukb`` import name."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(out), str(ROOT)], capture_output=True, text=True, timeout=300, cwd=out)
    assert r.returncode == 0, r.stderr[-2000:]
    (path,) = out.glob("gpukb-*.whl")
    return path


def test_the_wheel_ships_the_kb_and_rules_under_gpukb_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"gpukb"}, tops
    for needed in ("gpukb/engine/service/state.py", "gpukb/server/templates/base.html", "gpukb/server/openapi.json",
                   "gpukb/engine/models/base.py", "gpukb/engine/models/query.py",
                   "gpukb/kb/vocabulary.yaml", "gpukb/kb/claims/S000.yaml", "gpukb/kb/sources/sources.yaml",
                   "gpukb/rules/types.yaml", "gpukb/rules/audit/policy.yaml"):
        assert needed in names, needed
    assert any(n.startswith("gpukb/kb/reference/") for n in names)
    # the patched rule engine travels inside, compiled for this interpreter (so the wheel is not py3-none-any)
    assert "gpukb/_durable/engine.py" in names and "gpukb/_durable/LICENSE" in names
    assert any(n.startswith("gpukb/_durable/durable_rules_engine.") for n in names)
    assert not wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert "Requires-Dist: durable-rules" not in zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()


def test_the_installed_package_answers_from_another_directory(wheel, tmp_path):
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    # -S: no site processing, so this checkout's editable finder is not in play; the dependencies come
    # from this environment's site-packages, gpukb from the unpacked wheel only
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUKB_", "PYTHON"))}
    env["PYTHONPATH"] = os.pathsep.join([str(target), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    run = lambda *args: subprocess.run([sys.executable, "-S", "-m", "gpukb.server.cli", *args], cwd=tmp_path, env=env,
                                       capture_output=True, text=True, timeout=300)
    r = run("validate")
    assert r.returncode == 0, r.stderr[-2000:]
    r = run("ask", "why not T4 for 13B full fine-tune", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    assert '"does_not_fit"' in r.stdout
    r = run("openapi", "--check")           # the shipped document is the one the shipped models generate
    assert r.returncode == 0, r.stderr[-2000:]
    code = ("import gpukb.engine.core.paths as p, sys; print(p.DEFAULT_KB); "
            "print(any(m in sys.modules for m in ('engine', 'server')))")
    r = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    kb_dir, leaked = r.stdout.split()
    assert Path(kb_dir).is_relative_to(target) and leaked == "False"


def test_pip_install_in_a_fresh_venv_answers_the_headline_question(tmp_path):
    """`pip install .` alone (no Makefile) gives a working gpukb: the build compiles the patched engine in."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(ROOT)],
                       capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUKB_", "PYTHON"))}
    r = subprocess.run([str(venv / "bin" / "gpukb"), "ask", "why not T4 for 13B full fine-tune", "--json"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert '"does_not_fit"' in r.stdout
