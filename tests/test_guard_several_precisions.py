"""A requirement read with several precisions of its clause ("~14GB in FP16 or ~3.5GB in INT4") is not called wrong
by a derivation (guard ``several_precisions``); one precision stated is still judged. Sentences written for these tests."""
from __future__ import annotations

import pytest


def requirements(gpukb, text: str) -> list[dict]:
    return [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_required"]


@pytest.mark.parametrize("text", [
    "A 7B model needs ~14GB in FP16 or ~3.5GB in INT4.",
    "7B 模型 FP16 需要约 14GB 显存，INT4 只需约 3.5GB。",
])
def test_no_requirement_read_with_several_precisions_is_called_wrong(gpukb, text):
    got = requirements(gpukb, text)
    assert got and all(c["status"] in ("supported", "unclear") for c in got), got
    assert all(any(r["code"] == "several_precisions" for r in c["unclear_because"]) for c in got if c["status"] == "unclear")


def test_one_precision_stated_is_still_judged(gpukb):
    got = requirements(gpukb, "A 70B model needs about 10 GB in FP16.")
    assert got and got[0]["status"] == "understated", got
