"""Tables of what workloads need, one row per model or size and one column per method ("| Model | Full FT (FP16) |
LoRA | QLoRA (4-bit) |"): each cell's memory figure is that method's requirement for that row's model.
Tables written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation"}


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


@pytest.mark.parametrize("text", [
    "| Model size | Full fine-tuning | LoRA | QLoRA |\n|---|---|---|---|\n| 7B | 120 GB | 16 GB | 6 GB |\n"
    "| 13B | 240 GB | 32 GB | 12 GB |\n| 70B | 1200 GB | 160 GB | 48 GB |\n",
    "| 模型 | 推理 (FP16) | 推理 (INT4) |\n|---|---|---|\n| 7B | 14GB | 4GB |\n| 13B | 26GB | 7GB |\n| 70B | 140GB | 35GB |\n",
    "| Model | Inference (FP16) | Inference (4-bit) | QLoRA fine-tuning |\n|---|---|---|---|\n"
    "| Llama-2-7B | ~14 GB | ~4 GB | ~10 GB |\n| Llama-2-70B | ~140 GB | ~40 GB | ~48 GB |\n",
    "| Model | QLoRA | LoRA | Full fine-tune |\n|---|---|---|---|\n| 7B | ~12–24 GB | ~24 GB | 1–2× 80 GB |\n"
    "| 13B | ~24 GB | ~24–48 GB | multi-GPU (80 GB class) |\n",
])
def test_true_requirement_tables_are_read_and_not_flagged(gpukb, text):
    claims = _claims(gpukb, text)
    req = [c for c in claims if c["attribute"] == "memory_required"]
    assert len(req) >= 3 and any(c["status"] == "supported" for c in req), claims
    assert not [c for c in claims if c["status"] in WRONG], claims


def test_false_cells_of_a_requirement_table_are_flagged(gpukb):
    text = "| Model | Inference (FP16) | LoRA |\n|---|---|---|\n| 13B | 8 GB | 4 GB |\n| 70B | 40 GB | 20 GB |\n"
    req = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required"]
    assert len(req) == 4 and all(c["status"] == "understated" for c in req), req
    assert {c["qualifiers"]["method"] for c in req} == {"method:inference", "method:lora"}


def test_a_table_of_precisions_alone_leaves_the_method_open(gpukb):
    text = "| Model | FP16 | INT8 | INT4 |\n|---|---|---|---|\n| 7B | 14 GB | 7 GB | 3.5 GB |\n"
    req = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required"]
    assert [c["subject"] for c in req] == ["concept:model-memory"] * 3
    assert all("method" not in c["qualifiers"] for c in req) and all(c["status"] == "supported" for c in req), req
    assert [c["qualifiers"]["precision"] for c in req] == [["precision:fp16"], ["precision:int8"], ["precision:int4"]]


def test_a_cell_naming_the_card_it_runs_on_is_a_requirement_not_the_cards_memory(gpukb):
    text = "| Model | Full FT (FP16) | LoRA (rank 32) |\n|---|---|---|\n| Llama 3.2 8B | 48GB (H200) | 16GB (RTX 5080) |\n"
    claims = _claims(gpukb, text)
    assert not [c for c in claims if c["attribute"] == "memory_gb" and c["status"] in WRONG], claims
    (full,) = [c for c in claims if c["attribute"] == "memory_required" and c["value"] == 48]
    assert full["qualifiers"]["method"] == "method:full" and full["status"] == "understated"
