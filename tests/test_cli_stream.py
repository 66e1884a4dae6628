"""`gpukb audit --json` / `--jsonl` written item by item (server/cli_stream.py): the same bytes as the
whole-document print, on the bundled KB; the audit's findings and statuses are built as their models
one at a time, as they are written."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from gpukb.engine import models
from gpukb.engine.models.base import Items, ModelError
from gpukb.server import cli as cli_mod
from gpukb.server.cli_render import print_json
from gpukb.server.cli_stream import write_json, write_jsonl


@pytest.fixture(scope="module")
def kb():
    return cli_mod._engine(*cli_mod._dirs(cli_mod.build_parser().parse_args(["audit"])))


def _whole(answer) -> str:
    """What the CLI printed before streaming: one json.dumps of the whole answer."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        print_json(answer)
    return buf.getvalue()


def _streamed(answer) -> str:
    buf = io.StringIO()
    write_json(answer, buf)
    return buf.getvalue()


@pytest.mark.parametrize("kwargs", [{}, {"source": "S000"}, {"kind": "contradiction"}, {"kind": "supported", "source": "S001"},
                                    {"without": "S001"}])
def test_audit_json_is_byte_for_byte_the_whole_document(kb, kwargs):
    d = kb.audit(**kwargs)
    assert isinstance(d, models.FindingList) and isinstance(d.findings, Items) and d.findings and d.statuses
    assert _streamed(d) == _whole(d)
    assert json.loads(_streamed(d)) == models.FindingList.build(d.to_json()).to_json()


def test_claimreview_and_gaps_are_byte_for_byte_too(kb):
    review = kb.audit(fmt="claimreview")
    assert isinstance(review, models.ClaimReview) and review.to_json()["@graph"]
    assert _streamed(review) == _whole(review)
    gaps = kb.audit_gaps()
    assert _streamed(gaps) == _whole(gaps)


def test_empty_arrays_and_nested_values_are_written_as_json_dumps_does(kb):
    d = kb.audit(kind="misattributed", source="S002").replace(findings=[])
    assert _streamed(d) == _whole(d)


def test_a_bad_item_is_a_model_error_when_it_is_built(kb):
    d = kb.audit(kind="contradiction")
    bad = d.replace(findings=Items(models.Finding, d.findings.raw[:1] + [{"id": "x"}]))
    with pytest.raises(ModelError):
        _streamed(bad)
    with pytest.raises(ModelError):      # a whole field of the wrong shape fails where the model is made
        d.replace(findings=[{"id": "x"}])
    with pytest.raises(ModelError):
        d.replace(surprise=1)


def test_jsonl_one_finding_per_line_then_the_rest(kb):
    d = kb.audit()
    buf = io.StringIO()
    write_jsonl(d, buf)
    lines = buf.getvalue().splitlines()
    assert len(lines) == len(d.findings) + 1
    whole = json.loads(_whole(d))
    assert [json.loads(x) for x in lines[:-1]] == whole["findings"]
    last = json.loads(lines[-1])
    assert "findings" not in last and last == {k: v for k, v in whole.items() if k != "findings"}


def test_cli_json_and_jsonl(cli, kb):
    code, out, err = cli("audit", "--json")
    assert code == 0, err
    assert out == _whole(kb.audit())
    code, out, err = cli("audit", "--jsonl", "--kind", "incorrect")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines[:-1] == kb.audit(kind="incorrect").to_json()["findings"] and lines[-1]["counts"]["incorrect"] == len(lines) - 1
    code, out, err = cli("audit", "--gaps", "--jsonl")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines[:-1] == kb.audit_gaps().to_json()["gaps"] and "unverifiable" in lines[-1]
