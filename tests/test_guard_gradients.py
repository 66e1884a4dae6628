"""An optimizer's bytes per parameter said beside the gradients count the weights, gradients and states together
(guard ``with_gradients``): not called wrong against the optimizer's own bytes. Sentences written for these tests."""
from __future__ import annotations

import pytest


def checked(gpukb, text: str) -> list[dict]:
    return [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "bytes_per_param"]


@pytest.mark.parametrize("text", [
    "AdamW in mixed precision stores weights, gradients, first moments and second moments: 16-18 bytes per parameter.",
    "AdamW 混合精度训练需要存储权重、梯度和两个动量，每个参数约 16 到 18 字节。",
])
def test_a_figure_beside_the_gradients_is_unclear(gpukb, text):
    got = checked(gpukb, text)
    assert got and all(c["status"] == "unclear" for c in got), got
    assert any(r["code"] == "with_gradients" for c in got for r in c["unclear_because"])


def test_an_optimizers_own_figure_is_still_judged(gpukb):
    got = checked(gpukb, "The Adam optimizer needs 2 bytes per parameter.")
    assert got and got[0]["status"] == "incorrect"
