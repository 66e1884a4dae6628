"""`gpukb audit --json` / `--jsonl` written item by item (server/cli_stream.py): the same bytes as the
whole-document print, on the bundled KB."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from gpukb.engine import models
from gpukb.engine.models.base import ModelError
from gpukb.server import cli as cli_mod
from gpukb.server.cli_render import print_json
from gpukb.server.cli_stream import write_json, write_jsonl


@pytest.fixture(scope="module")
def kb():
    return cli_mod._engine(*cli_mod._dirs(cli_mod.build_parser().parse_args(["audit"])))


def _whole(name, d) -> str:
    """What the CLI printed before streaming: the model built, then one json.dumps of all of it."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        print_json(models.build(name, d))
    return buf.getvalue()


def _streamed(name, d) -> str:
    buf = io.StringIO()
    write_json(name, d, buf)
    return buf.getvalue()


@pytest.mark.parametrize("kwargs", [{}, {"source": "S000"}, {"kind": "contradiction"}, {"kind": "supported", "source": "S001"},
                                    {"without": "S001"}])
def test_audit_json_is_byte_for_byte_the_whole_document(kb, kwargs):
    d = kb.audit(**kwargs)
    assert d["findings"] and d["statuses"]
    assert _streamed("audit", d) == _whole("audit", d)


def test_claimreview_and_gaps_are_byte_for_byte_too(kb):
    review = kb.audit(fmt="claimreview")
    assert review["@graph"]
    assert _streamed("claimreview", review) == _whole("claimreview", review)
    gaps = kb.audit_gaps().to_json()
    assert _streamed("gaps", gaps) == _whole("gaps", gaps)


def test_empty_arrays_and_nested_values_are_written_as_json_dumps_does(kb):
    d = kb.audit(kind="misattributed", source="S002")
    d = {**d, "findings": []}
    assert _streamed("audit", d) == _whole("audit", d)


def test_a_bad_item_is_a_model_error_like_build(kb):
    d = kb.audit(kind="contradiction")
    bad = {**d, "findings": d["findings"][:1] + [{"id": "x"}]}
    with pytest.raises(ModelError):
        models.build("audit", bad)
    with pytest.raises(ModelError):
        _streamed("audit", bad)
    with pytest.raises(ModelError):      # the top level is checked before anything is written
        write_json("audit", {**d, "surprise": 1}, io.StringIO())


def test_jsonl_one_finding_per_line_then_the_rest(kb):
    d = kb.audit()
    buf = io.StringIO()
    write_jsonl("audit", d, buf)
    lines = buf.getvalue().splitlines()
    assert len(lines) == len(d["findings"]) + 1
    whole = json.loads(_whole("audit", d))
    assert [json.loads(x) for x in lines[:-1]] == whole["findings"]
    last = json.loads(lines[-1])
    assert "findings" not in last and last == {k: v for k, v in whole.items() if k != "findings"}


def test_cli_json_and_jsonl(cli, kb):
    code, out, err = cli("audit", "--json")
    assert code == 0, err
    assert out == _whole("audit", kb.audit())
    code, out, err = cli("audit", "--jsonl", "--kind", "incorrect")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines[:-1] == kb.audit(kind="incorrect")["findings"] and lines[-1]["counts"]["incorrect"] == len(lines) - 1
    code, out, err = cli("audit", "--gaps", "--jsonl")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines[:-1] == kb.audit_gaps().to_json()["gaps"] and "unverifiable" in lines[-1]
