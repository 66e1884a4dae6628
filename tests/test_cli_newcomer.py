"""A newcomer's first hour with `gpukb` (issue #35): help with examples and defaults, "did you mean",
errors printed once (as the API's JSON error object under --json), exit statuses 2 for bad input and 1
for other failures, Chinese answers in Chinese, progress bars with an ETA."""
from __future__ import annotations

import io
import json
import re
import sys

import pytest

from gpukb.server.cli_args import EXAMPLES, build_parser

COMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)     # type: ignore[union-attr]


# -- help -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_examples(cli, command):
    code, out, _ = cli(command, "--help")
    assert code == 0
    assert "examples:" in out and f"gpukb {command}" in out.split("examples:", 1)[1], out


def test_every_command_has_examples_and_every_example_names_its_command():
    assert set(EXAMPLES) == set(COMMANDS)
    for name, lines in EXAMPLES.items():
        assert lines and all(re.search(rf"\bgpukb {name}\b", line) for line in lines), name


def test_help_shows_defaults(cli):
    _, out, _ = cli("explain", "--help")
    assert "(default: en)" in out          # --lang en: from %(default)s
    _, out, _ = cli("synth", "--help")
    assert "(default 0)" in out or "(default: 0)" in out
    _, out, _ = cli("--help")
    assert "exit status:" in out and "2  bad input" in out


# -- did you mean ---------------------------------------------------------------------------------------------

def test_an_unknown_command_suggests_the_closest(cli):
    code, out, err = cli("quer")
    assert code == 2 and not out
    assert "did you mean query?" in err
    assert err.count("error:") == 1


def test_an_unknown_flag_suggests_the_flags_of_its_command(cli):
    code, _, err = cli("query", "--gpuu", "T4")
    assert code == 2 and "did you mean --gpu" in err
    code, _, err = cli("audit", "--sorce", "S000")
    assert code == 2 and "did you mean --source" in err


def test_an_unknown_gpu_or_model_names_the_closest_once(cli):
    code, out, err = cli("query", "--gpu", "A1000", "--model", "llama-2-13b", "--method", "full")
    assert code == 2 and not out
    assert "did you mean A100" in err
    assert err.count("knows no GPU called A1000") == 1, err           # printed once
    assert err.count("allowed:") == 0, err                            # the message names the closest already
    code, _, err = cli("query", "--gpu", "T4", "--model", "llama-2-13", "--method", "full")
    assert code == 2 and "did you mean llama-2-13b" in err


# -- --json errors and exit statuses --------------------------------------------------------------------------

def _error(out: str, status: int) -> dict:
    d = json.loads(out)
    assert d["ok"] is False and d["status"] == status and d["error"] and d["errors"], d
    assert set(d) == {"ok", "status", "error", "errors"}
    return d


def test_json_errors_are_the_api_error_object_on_stdout(cli):
    code, out, err = cli("query", "--gpu", "A1000", "--model", "llama-2-13b", "--method", "full", "--json")
    assert code == 2 and not err
    d = _error(out, 400)
    assert d["errors"][0]["field"] == "gpu" and d["errors"][0]["allowed"][0] == "A100"


def test_json_usage_errors_too(cli):
    code, out, err = cli("query", "--gpuu", "T4", "--json")
    assert code == 2 and not err
    assert "did you mean --gpu" in _error(out, 400)["error"]


def test_json_not_found_is_a_404_object_with_exit_status_2(cli):
    code, out, _ = cli("explain", "Q-nope", "--format", "json")
    assert code == 2
    code, out, err = cli("claims", "--source", "S999", "--json")
    assert code == 2 and not err
    _error(out, 404)


def test_a_broken_kb_exits_1_and_json_says_why(cli, tmp_path):
    code, out, err = cli("--kb", str(tmp_path / "nowhere"), "claims")
    assert code == 1 and not out and err.startswith("gpukb: error:")
    code, out, err = cli("--kb", str(tmp_path / "nowhere"), "claims", "--json")
    assert code == 1 and not err
    _error(out, 400)


def test_an_internal_error_under_json_is_a_500_object(cli, monkeypatch):
    import gpukb.server.cli as cli_module

    def boom(*a):
        raise RuntimeError("kaboom")
    monkeypatch.setattr(cli_module, "_engine", boom)
    code, out, _ = cli("versions", "--json")
    assert code == 1 and "kaboom" in _error(out, 500)["error"]


def test_exit_statuses_are_documented():
    import gpukb.server.cli as cli_module
    from pathlib import Path
    doc = cli_module.__doc__ or ""
    assert "exit status" in doc.lower() and " 2 " in doc
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "Exit status" in readme or "exit status" in readme


# -- Chinese throughout ---------------------------------------------------------------------------------------

ENGLISH_LABELS = ("Verdict", "Memory", "Capacity", "Minimum GPUs", "Recommendations", "Explain:", "per GPU",
                  "Disagreeing", "still does not fit", "release ")


def _labels(out: str) -> str:
    """The text without the engine's notes on what was assumed (English data of the sizing engine)."""
    return "\n".join(line for line in out.splitlines() if not line.startswith("  - "))


def test_query_in_chinese_has_chinese_labels(cli):
    code, out, err = cli("query", "--model", "llama-2-13b", "--method", "full", "--gpu", "T4", "--lang", "zh")
    assert code == 0, err
    assert "结论：放不下" in out and "显存" in out and "最少卡数" in out and "权重" in out
    for word in ENGLISH_LABELS:
        assert word not in _labels(out), (word, out)


def test_ask_in_chinese_has_chinese_labels(cli):
    code, out, err = cli("ask", "为什么 T4 不能全量微调 13B 模型")
    assert code == 0, err
    assert "放不下" in out
    for word in ENGLISH_LABELS:
        assert word not in _labels(out), (word, out)


def test_query_in_english_is_unchanged(cli):
    code, out, _ = cli("query", "--model", "llama-2-13b", "--method", "full", "--gpu", "T4")
    assert code == 0 and out.startswith("Verdict: DOES NOT FIT") and "Minimum GPUs" in out


# -- progress -------------------------------------------------------------------------------------------------

def test_a_bar_shows_an_eta(monkeypatch):
    from gpukb.server.progress import Bar
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with Bar(True) as b:
        b("generating claims", 5, 10)
    assert "eta" in err.getvalue()


def test_validate_and_eval_report_progress(cli, monkeypatch):
    import gpukb.server.cli as cli_module
    seen = []

    class Recorder:
        def __init__(self, *_):
            pass

        def __enter__(self):
            return lambda phase, done, total=None: seen.append((phase, done, total))

        def __exit__(self, *exc):
            return None
    monkeypatch.setattr(cli_module, "bar", Recorder)
    code, _, err = cli("validate", "--quick")
    assert code == 0, err
    assert ("validate: checking the files", 1, 1) in seen


def test_ask_about_an_unknown_gpu_names_the_closest_once(cli):
    for q, said in (("why not A1000 for 13B full fine-tune", "gpukb knows no GPU called A1000"),
                    ("为什么 A1000 不能全量微调 13B 模型", "gpukb 不认识名为 A1000 的GPU")):
        code, out, _ = cli("ask", q)
        assert code == 0 and out.count("A1000") == 1 and said in out and "A100" in out, out
        assert "in all" not in out if said.startswith("gpukb 不") else True


@pytest.mark.slow  # three CLI processes
def test_explain_of_an_id_printed_by_check_works_in_a_new_process(tmp_path):
    """`gpukb check` keeps the text in the user's check store, so another process recomputes the finding."""
    import json as _json
    import os as _os
    import subprocess as _sp
    import sys as _sys
    env = {k: v for k, v in _os.environ.items() if not k.startswith("GPUKB_")}
    env["GPUKB_CHECK_STORE"] = str(tmp_path / "checks")
    run = lambda *a: _sp.run([_sys.executable, "-m", "gpukb.server.cli", *a], capture_output=True, text=True,
                             timeout=300, env=env, cwd=tmp_path)
    r = run("check", "The T4 has 32 GB of memory.", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    fid = _json.loads(r.stdout)["claims"][0]["findings"][0]["id"]
    r = run("explain", fid, "--format", "json")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "R-T4-memory_gb" in r.stdout
    (tmp_path / "checks").chmod(0o777)                     # a store others can write is not trusted
    r = run("explain", fid, "--format", "json")
    assert r.returncode != 0 and "no recent check holds" in (r.stdout + r.stderr)
