"""More GPUs for serving is tensor parallelism, not ZeRO-3: the recommendation a serving answer gets splits the
model over the smallest card count that fits (one that divides the attention heads) and names the per-layer
all-reduce it costs; training keeps ZeRO-3. Cases of our own."""
from __future__ import annotations


def _more_gpus(answer: dict) -> dict:
    found = [r for r in answer["recommendations"] if r["action"] == "more_gpus"]
    assert len(found) == 1, [r["action"] for r in answer["recommendations"]]
    return found[0]


def test_serving_a_70b_model_on_a10s_splits_it_over_eight_cards(kb):
    a = kb.query({"model": "llama-3-70b", "method": "inference", "gpu": "A10"}).to_json()
    rec = _more_gpus(a)
    assert rec["change"] == {"gpus": a["min_gpus"]} and "zero" not in rec["change"]
    # 64 attention heads and 8 key/value heads: the count divides both (R-MEGATRON-tp-heads)
    assert 64 % a["min_gpus"] == 0 and 8 % a["min_gpus"] == 0
    assert rec["fits"] and "tensor parallelism" in rec["label"]["en"] and "张量并行" in rec["label"]["zh"]
    assert "all-reduce" in rec["cost"] and "gradients" not in rec["cost"]


def test_training_still_uses_zero_3(kb):
    a = kb.query({"model": "llama-2-13b", "method": "full", "gpu": "A100-80GB"}).to_json()
    rec = _more_gpus(a)
    assert rec["change"] == {"gpus": rec["gpus_needed"], "zero": 3}
    assert "ZeRO-3" in rec["label"]["en"]
