"""A heading naming one model (or one model size) gives that size to the requirements and verdicts of its
section that name none ("# Fine-tuning Llama-2-13B" … "With LoRA in FP16 you need at least 12 GB"), and a
version number glued to a model's name ("Qwen3-14B", "Llama-3-70B") is no range of sizes. Passages written
for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

from gpukb.engine.text.tokens import quantities

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation", "misattributed"}


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


@pytest.mark.parametrize("text", [
    "# Fine-tuning Llama-2-13B\n\nFull fine-tuning fits on a single 24 GB RTX 4090.\n",
    "## Qwen-14B 推理\n\nFP16 推理只需要 12 GB 显存。\n",
    "# 微调Qwen3-14B模型建议配备多少显存?\n\nLoRA 微调最低显存要求 ≥ 16 GB(单卡)。\n",
    "# Llama-2-7B\n\nFull fine-tuning with AdamW in mixed precision needs about 28 GB.\n",
])
def test_a_requirement_under_a_model_heading_is_about_that_model(gpukb, text):
    assert any(c["status"] in WRONG for c in _claims(gpukb, text)), _claims(gpukb, text)


@pytest.mark.parametrize("text", [
    "# Llama-2-7B fine-tuning guide\n\nQLoRA needs about 6 GB of GPU memory at a short sequence length.\n",
    "# Llama-2-70B on A100s\n\n## Hardware\n\nFull fine-tuning needs more than 1 TB of GPU memory in mixed precision.\n",
    "# Fine-tuning Llama-2-13B\n\nThe A100 80GB can run LoRA on it.\n",
    "# Qwen-7B deployment\n\nA single T4 is enough for 4-bit inference.\n",
    "# Llama-2-13B\n\nFor comparison, a 7B model needs about 14 GB for FP16 inference.\n",
])
def test_true_statements_under_a_model_heading_stay_unflagged(gpukb, text):
    claims = _claims(gpukb, text)
    assert not [c for c in claims if c["status"] in WRONG], claims
    assert any(c["status"] == "supported" for c in claims), claims


def test_a_heading_naming_two_sizes_gives_none(gpukb):
    claims = _claims(gpukb, "# 7B vs 13B\n\nLoRA needs 16 GB.\n")
    assert claims and all(c["status"] not in WRONG and not (c.get("qualifiers") or {}).get("params") for c in claims)


@pytest.mark.parametrize("text,lo,hi", [("微调qwen3-14b模型", 14, 14), ("llama-3-70b model", 70, 70),
                                        ("qwen2.5-72b", 72, 72), ("chatglm2-6b", 6, 6),
                                        ("7-13b models", 7, 13), ("模型7-13b", 7, 13)])
def test_a_version_glued_to_a_name_is_no_range(kb, text, lo, hi):
    (q,) = [q for q in quantities(text, 0, len(text), kb.kb.vocab) if q.dimension == "params"]
    assert (q.lo, q.hi) == (lo, hi)
