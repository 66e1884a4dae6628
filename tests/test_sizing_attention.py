"""The attention a training question is sized with (issue 33, release 2026.12.10): when the question does not
say, the one Hugging Face transformers runs by default, PyTorch's scaled_dot_product_attention (SDPA), whose
flash and memory-efficient kernels keep no s × s scores (R-HF-sdpa-default, R-SDPA-kernels). Eager attention
when asked for; earlier releases size eager attention as they did."""
from __future__ import annotations

import pytest

from ._engine import proof_nodes

BASE = {"model": "llama-2-7b", "method": "lora", "gpu": "A100-80GB", "seq_len": 1024, "batch": 2}
#: Llama-2-7B (32 layers, h = 4096, a = 32) at s = 1024, b = 2: L·s·b·h·(34 + 8 + 5·a·s/h) with eager attention,
#: without the 5·a·s/h term when the s × s scores are not kept
NO_SCORES = 32 * 1024 * 2 * 4096 * (34 + 8) / 1e9
EAGER = 32 * 1024 * 2 * 4096 * (34 + 8 + 5 * 32 * 1024 / 4096) / 1e9




def _attention_node(answer: dict) -> dict:
    found = [n for n in proof_nodes(answer["explanation"]["tree"]) if (n.get("rule") or "").startswith("sizing.attention.")]
    assert len(found) == 1, [n.get("rule") for n in found]
    return found[0]


def test_the_default_is_sdpa_with_its_citation_in_the_proof_and_the_notes(kb):
    a = kb.query(dict(BASE)).to_json()
    assert a["kb_version"] == kb.view().name          # the latest release, which has the SDPA default (2026.12.10 on)
    assert a["memory"]["activations"] == pytest.approx(NO_SCORES, rel=1e-3)
    assert "flash_attention" not in a["scenario"]          # not given: the release's default, not "false"
    node = _attention_node(a)
    assert node["rule"].startswith("sizing.attention.default_sdpa")
    cited = {p["fact"].split("@")[0] for p in node.get("premises") or []}
    assert {"R-HF-sdpa-default", "R-SDPA-kernels"} <= cited
    assert "SDPA" in node["label"]["en"] and "default" in node["label"]["en"]
    assert any(f.startswith("R-HF-sdpa-default") for s in a["sources"] for f in s.get("facts", []))
    assert any("PyTorch SDPA" in n and "transformers" in n and "flash_attention=false" in n for n in a["notes"])
    assert not any(n.startswith("flash_attention not given: off") for n in a["notes"])
    # nothing to gain from FlashAttention then: it is not recommended
    big = kb.query({**BASE, "seq_len": 16384, "batch": 4}).to_json()
    assert big["verdict"] == "does_not_fit"
    assert not {"flash_attention", "sdpa_memory_efficient"} & {r["action"] for r in big["recommendations"]}


def test_eager_when_asked_is_sized_as_before(kb):
    eager = kb.query({**BASE, "flash_attention": False}).to_json()
    assert eager["memory"]["activations"] == pytest.approx(EAGER, rel=1e-3)
    assert eager["scenario"]["flash_attention"] is False
    node = _attention_node(eager)
    assert node["rule"] == "sizing.attention.asked_eager@1" and "eager" in node["label"]["en"]
    assert not any("SDPA, what Hugging Face" in n for n in eager["notes"])
    # "eager" and "not given" are two questions: two conclusion ids, each explained as asked
    default = kb.query(dict(BASE)).to_json()
    assert eager["conclusion_id"] != default["conclusion_id"]
    again = kb.explain(eager["conclusion_id"], "json", "en").to_json()
    assert again["scenario"].get("flash_attention") is False
    assert any((n.get("rule") or "") == "sizing.attention.asked_eager@1" for n in proof_nodes(again["tree"]))
    flash = kb.query({**BASE, "flash_attention": True}).to_json()
    assert flash["memory"]["activations"] == pytest.approx(NO_SCORES, rel=1e-3)
    assert _attention_node(flash)["rule"] == "sizing.attention.asked_flash@1"
    big = kb.query({**BASE, "seq_len": 16384, "batch": 4, "flash_attention": False}).to_json()
    assert "flash_attention" in {r["action"] for r in big["recommendations"]}


def test_an_older_release_stays_eager(kb):
    old = kb.query({**BASE, "kb_version": "2026.12.9"}).to_json()
    assert old["memory"]["activations"] == pytest.approx(EAGER, rel=1e-3)
    assert _attention_node(old)["rule"] == "sizing.attention.default_release_without_sdpa@1"
    assert any(n.startswith("flash_attention not given: off, eager attention") for n in old["notes"])
    assert not any("R-HF-sdpa-default" in f for s in old["sources"] for f in s.get("facts", []))
    # and the explicit choice answers the same there
    assert kb.query({**BASE, "kb_version": "2026.12.9", "flash_attention": False}).to_json()["memory"] == old["memory"]


def test_where_sdpa_efficient_kernels_do_not_run(kb):
    t4 = {"model": "llama-2-7b", "method": "lora", "gpu": "T4", "seq_len": 1024, "batch": 2}
    # FP32 and FP16 on a T4 (compute capability 7.5): the memory-efficient kernel, no scores kept
    for prec in ("fp32", "fp16"):
        a = kb.query({**t4, "precision": prec}).to_json()
        assert a["memory"]["activations"] == pytest.approx(NO_SCORES, rel=1e-3), prec
        assert _attention_node(a)["rule"] == "sizing.attention.default_sdpa@1"
    # pure BF16 there: neither efficient kernel takes BF16 below 8.0, SDPA's math kernel keeps the scores
    bf16 = kb.query({**t4, "precision": "bf16"}).to_json()
    assert bf16["memory"]["activations"] == pytest.approx(EAGER, rel=1e-3)
    assert _attention_node(bf16)["rule"] == "sizing.attention.default_sdpa_math@1"
    assert any("math kernel" in n for n in bf16["notes"])
    # BF16 on an A100, or on a card given by its memory: the flash kernel
    for hw in ({"gpu": "A100-80GB"}, {"vram_gb": 80}):
        a = kb.query({**BASE, "gpu": None, **hw, "precision": "bf16"}).to_json()
        assert a["memory"]["activations"] == pytest.approx(NO_SCORES, rel=1e-3), hw


def test_inference_is_not_changed_by_the_default(kb):
    body = {"model": "llama-2-13b", "method": "inference", "gpu": "L4", "seq_len": 4096}
    # (2026.12.10 against the release before it; 2026.12.11 changed inference's forward buffers, not attention)
    new, old = kb.query({**body, "kb_version": "2026.12.10"}).to_json(), kb.query({**body, "kb_version": "2026.12.9"}).to_json()
    assert new["memory"] == old["memory"]
    assert not any("SDPA" in n for n in new["notes"])
