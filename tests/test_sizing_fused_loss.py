"""A loss fused into the output head (Cut Cross-Entropy, Liger's fused linear cross-entropy) holds no
batch x sequence x vocabulary logits (rule sizing.logits.fused, R-LOGITS-fused); a chunked loss still keeps the
head's 16-bit output, and a release before 2026.12.25 sizes the question as if the loss were not fused."""
from __future__ import annotations

Q = {"model": "llama-3.1-8b", "method": "qlora", "gpu": "L4", "seq_len": 4096, "batch": 2}


def _memory(gpukb, **extra) -> dict:
    return gpukb.query({**Q, **extra}).to_json()["memory"]


def test_a_fused_loss_holds_no_logits_and_a_chunked_one_keeps_the_heads_output(gpukb):
    fused, chunked, plain = _memory(gpukb, fused_cross_entropy=True), _memory(gpukb, chunked_cross_entropy=True), _memory(gpukb)
    assert fused["logits"] == 0 < chunked["logits"] < plain["logits"], (fused, chunked, plain)
    # 16-bit logits of 2 x 4096 tokens x Llama 3's 128,256-token vocabulary: about 2.1 GB with a chunked loss
    assert abs(chunked["logits"] - 2 * 4096 * 128256 * 2 / 1e9) < 0.01, chunked
    assert fused["per_gpu_total"] < chunked["per_gpu_total"]


def test_the_proof_cites_the_papers(gpukb):
    answer = gpukb.query({**Q, "fused_cross_entropy": True}).to_json()
    text = str(answer)
    assert "sizing.logits.fused" in text and "R-LOGITS-fused" in text


def test_an_earlier_release_sizes_the_loss_as_not_fused(gpukb):
    old = gpukb.query({**Q, "fused_cross_entropy": True, "kb_version": "2026.12.24"}).to_json()["memory"]
    plain = gpukb.query({**Q, "kb_version": "2026.12.24"}).to_json()["memory"]
    assert old["logits"] == plain["logits"] > 0
