"""Run import-linter's contract (.importlinter) on the checkout.

The checkout keeps ``engine/`` and ``server/`` at the top while the installed names are
``gpukb.engine`` and ``gpukb.server`` (an editable install maps them), and grimp, which import-linter
builds its graph with, reads packages from directories. So the two trees are copied into a temporary
``gpukb`` package and the contract is checked there. Exit status: import-linter's (0: every contract kept).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gpukb-lint-") as tmp:
        pkg = Path(tmp) / "gpukb"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        for name in ("engine", "server"):
            shutil.copytree(ROOT / name, pkg / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        env = {**os.environ, "PYTHONPATH": tmp}
        lint = Path(sys.executable).with_name("lint-imports")
        cmd = [str(lint)] if lint.exists() else [sys.executable, "-m", "importlinter.cli"]
        return subprocess.run(cmd + [str(ROOT / ".importlinter"), "--no-cache"], cwd=tmp, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
