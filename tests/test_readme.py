"""Every `gpukb` command line in the README's code blocks runs and exits 0.

The commands are read from the README itself, so an example that drifts from the CLI fails here. A line
is run as the README writes it (pipes and `&&` included) through bash, with `.venv/bin/gpukb` standing
for this interpreter's CLI, in a scratch directory: ``<conclusion_id>`` gets the id of a real answer,
``audit|ask|...`` alternatives run one by one, and a command writing to the KB (ingest) gets a copy of it.
Long-running servers (`serve`, `mcp`, `curl` against one) are exercised by the server tests instead
(tests/test_cli.py, tests/test_mcp.py, tests/test_reliability.py).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GPUKB = f"{sys.executable} -m gpukb.server.cli"
LONG_RUNNING = ("gpukb serve", "gpukb mcp", "curl ")


def _commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    out: list[str] = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.strip()
            if not line.startswith((".venv/bin/gpukb", "echo ")) or ".venv/bin/gpukb" not in line \
                    or any(x in line for x in LONG_RUNNING):
                continue                                     # not a command line (a config snippet, prose)
            code = re.sub(r"\s+#\s.*$", "", line)          # the README's comments
            alts = re.search(r"(eval) ((?:\w+\|)+\w+)", code)
            if alts:                                         # "eval audit|ask|sizing": each one
                out += [code.replace(alts.group(0), f"eval {a}") for a in alts.group(2).split("|")]
            else:
                out.append(code)
    return out


COMMANDS = _commands()


def test_the_readme_has_commands():
    assert len(COMMANDS) >= 20, COMMANDS


@pytest.fixture(scope="module")
def conclusion_id(tmp_path_factory) -> str:
    out = subprocess.run(f"{GPUKB} ask 'why not T4 for 13B full fine-tune' --json", shell=True, capture_output=True,
                         text=True, timeout=300, cwd=tmp_path_factory.mktemp("cid"))
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)["conclusion_id"]


# each command starts a process (~2.5 s): the whole set runs in make test-slow
@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[16:70])
def test_a_readme_command_runs(command, conclusion_id, tmp_path):
    line = command.replace(".venv/bin/gpukb", GPUKB).replace("<conclusion_id>", conclusion_id)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUKB_")}
    if " ingest " in line:
        kb = tmp_path / "kb"
        shutil.copytree(ROOT / "kb", kb)
        (tmp_path / "article.md").write_text("# GN7\n\nGN7 实例搭载 NVIDIA T4，单卡显存 16GB。\n", encoding="utf-8")
        line = line.replace(" ingest ", f" --kb {kb} ingest ")
    if "--kb /tmp/synth" in line and "synth --" not in line:
        # the README makes /tmp/synth on the line before; each test has its own directory, so make it here
        made = subprocess.run(f"{GPUKB} synth --claims 2000 --seed 1 --out {tmp_path / 'synth'}", shell=True,
                              capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
        assert made.returncode == 0, made.stderr[-2000:]
    line = line.replace("/tmp/synth", str(tmp_path / "synth"))
    r = subprocess.run(["bash", "-o", "pipefail", "-c", line], capture_output=True, text=True, timeout=600,
                       cwd=tmp_path, env=env)
    assert r.returncode == 0, f"{command}\nexit {r.returncode}\n{r.stderr[-2000:]}"
    if " > " in line:                                # the README writes the answer to a file
        out = tmp_path / line.rsplit(" > ", 1)[1].split()[0]
        assert out.is_file() and out.stat().st_size > 0, command
    else:
        assert r.stdout.strip(), command
