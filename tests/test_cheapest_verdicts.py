"""The cheapest-instance search sizes every instance size from one engine run (`verdicts`), without the proof,
recommendations and largest-model search of a full answer; its verdicts, needs, capacities and conclusion ids
must be exactly those of the full sizing answer of each size."""
from __future__ import annotations

import pytest

from gpukb.engine.ask.choice import _option
from gpukb.engine.sizing.answer import verdicts

KEYS = ("verdict", "need_gb", "usable_gb_per_gpu", "gpus", "conclusion_id", "error")
SIZES = ("GN7.2XLARGE32", "GN10Xp.20XLARGE320", "p4d.24xlarge", "g5.xlarge", "ecs.gn7i-c8g1.2xlarge", "no-such-size")


@pytest.mark.parametrize("base", [
    {"params": 7e9, "method": "inference"},
    {"model": "llama-2-70b", "method": "qlora"},
    {"params": 13e9, "method": "full", "seq_len": 2048},
])
def test_the_searchs_verdicts_are_the_full_answers(gpukb, base):
    view = gpukb.view(None)
    bodies = [{**base, "instance": name} for name in SIZES]
    fast = verdicts(gpukb, bodies, view)
    assert [o.get("verdict") for o in fast].count(None) == 1          # the unknown size is an error, not a crash
    for body, got in zip(bodies, fast):
        full = _option(gpukb, body, view)
        assert {k: got.get(k) for k in KEYS} == {k: full.get(k) for k in KEYS}, body
