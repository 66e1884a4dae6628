"""A memory figure that a workload uses or needs is never read as a card's memory, a count written as
"双卡" is a count of cards, and a training verdict whose method the text leaves open is not called wrong.
Sentences written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


@pytest.mark.parametrize("text", [
    "Serving a 70B model in FP16 needs more than 140 GB, which is why people buy H100s.",
    "用 FP16 加载一个 34B 模型需要超过 68GB 显存，所以要用 A100。",
    "On the L4 the peak memory was 21 GB after we enabled gradient checkpointing.",
    "在 A10 上显存占用从 22GB 降到了 15GB。",
])
def test_a_workloads_memory_is_not_the_cards_memory(gpukb, text):
    assert not [c for c in _claims(gpukb, text) if c["attribute"] == "memory_gb"], _claims(gpukb, text)


@pytest.mark.parametrize("text,value", [
    ("The T4 uses 16 GB of GDDR6 memory.", 16),
    ("A 7B model needs 14 GB, and the A10 has 24 GB.", 24),
])
def test_a_cards_own_memory_is_still_read(gpukb, text, value):
    mem = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_gb"]
    assert mem and mem[-1]["value"] == value and mem[-1]["status"] == "supported", mem


def test_a_count_of_cards_written_with_a_measure_word(gpukb):
    c = [c for c in _claims(gpukb, "全量微调 70B 模型至少需要双卡 A100。") if c["attribute"] == "min_gpus"]
    assert c and c[0]["value"] == 2, c


@pytest.mark.parametrize("text", [
    "Training a 13B model needs at least two A100s.",
    "训练 13B 模型至少需要双卡 A100。",
])
def test_a_training_claim_without_a_method_is_not_called_wrong(gpukb, text):
    for c in _claims(gpukb, text):
        if c["attribute"] in ("min_gpus", "memory_verdict"):
            assert c["status"] not in ("incorrect", "understated", "overstated", "inconsistent_with_derivation"), c
            if c["status"] == "unclear":
                assert "method_unstated" in [u["code"] for u in c["unclear_because"]]


def test_a_stated_method_is_still_judged(gpukb):
    (c,) = [c for c in _claims(gpukb, "Full fine-tuning a 13B model fits on one T4.") if c["attribute"] == "memory_verdict"]
    assert c["status"] in ("incorrect", "inconsistent_with_derivation"), c


@pytest.mark.parametrize("text", [
    "Fine-tuning Llama 2 7B with QLoRA uses about 10 GB of VRAM.",
    "LoRA fine-tuning of a 7B model needs about 40 GB of GPU memory.",
])
def test_a_peft_figure_without_sequence_or_batch_is_within_practice(gpukb, text):
    # activations, not weights, dominate LoRA and QLoRA memory: a figure without its setup is not wrong
    for c in _claims(gpukb, text):
        if c["attribute"] == "memory_required":
            assert c["status"] not in ("overstated", "understated", "incorrect"), c


@pytest.mark.parametrize("text,status", [
    ("QLoRA fine-tuning of a 7B model needs only 2 GB.", "understated"),             # below the 4-bit weights
    ("Fine-tuning a 7B model with QLoRA at sequence length 512 and batch 1 needs 20 GB.", "overstated"),
])
def test_a_peft_figure_outside_any_setup_or_with_its_setup_is_still_judged(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required"]
    assert c["status"] == status, c


@pytest.mark.parametrize("text,expected", [
    ("A100 40GB 的显存带宽为 1555GB/s，80GB 版本为 2039GB/s。",
     {("gpu:A100-40GB", 1555.0), ("gpu:A100-80GB", 2039.0)}),
    ("The V100 comes in two versions, and the 32 GB version draws 300 W.", {("gpu:V100-32GB", 300.0)}),
])
def test_a_size_followed_by_version_names_that_variant(gpukb, text, expected):
    claims = _claims(gpukb, text)
    got = {(c["subject"], c["value"]) for c in claims if c["attribute"] in ("memory_bandwidth", "tdp_w")}
    assert got == expected, claims
    assert not [c for c in claims if c["attribute"] == "memory_gb" and c["status"] == "incorrect"], claims


def test_a_verdict_on_counted_gpus_is_sized_on_that_many(gpukb):
    claims = _claims(gpukb, "With 4-bit quantization a 70B model takes about 40 GB, so two RTX 4090s can serve it.")
    (v,) = [c for c in claims if c["attribute"] == "memory_verdict" and c["subject"] == "gpu:RTX-4090"]
    assert v["qualifiers"].get("gpus", {}).get("lo") == 2 and v["status"] == "supported", v


@pytest.mark.parametrize("text,status", [
    ("The T4 GPUs in GN7 instances have 16 GB of memory each.", "supported"),
    ("The T4 GPUs in GN7 instances have 32 GB of memory each.", "incorrect"),    # "each": no instance total
])
def test_a_gpu_in_an_instance_keeps_its_own_memory(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] in ("memory_gb", "host_memory_gb")]
    assert (c["subject"], c["attribute"], c["status"]) == ("gpu:T4", "memory_gb", status), c


def test_an_instances_bare_memory_is_still_its_host_memory(gpukb):
    (c,) = [c for c in _claims(gpukb, "GN7.5XLARGE80 has 20 vCPUs and 80 GB of memory.") if c["unit"] == "GB"]
    assert c["attribute"] == "host_memory_gb" and c["status"] == "supported", c


@pytest.mark.parametrize("text", ["GN7 实例单卡 16GB 显存。", "Every GN7 card has 16 GB of GPU memory."])
def test_a_family_per_card_figure_is_judged_on_its_full_cards_not_a_vgpu_share(gpukb, text):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_gb"]
    assert c["status"] == "supported", c
    assert not any("GN7.2XLARGE40" in str(f.get("evidence")) for f in c["findings"]), c


def test_a_mig_slices_memory_is_not_the_cards(gpukb):
    claims = _claims(gpukb, "The A30 supports MIG with up to 4 instances of 6 GB each.")
    assert not [c for c in claims if c["attribute"] == "memory_gb"], claims


def test_a_verdict_in_a_precision_gpukb_does_not_size_is_not_checked_against_another(gpukb):
    (c,) = [c for c in _claims(gpukb, "A single H100 80GB can serve Llama 2 70B in FP8.") if c["attribute"] == "memory_verdict"]
    assert c["status"] == "unclear" and "unread_precision" in [u["code"] for u in c["unclear_because"]], c
    (c,) = [c for c in _claims(gpukb, "A single T4 can serve Llama 2 70B in 4-bit.") if c["attribute"] == "memory_verdict"]
    assert c["status"] == "inconsistent_with_derivation", c        # 4-bit is read, and 35 GB of weights do not fit 16 GB


@pytest.mark.parametrize("text,judged", [
    ("With LoRA, a 7B model in FP16 needs roughly 14 GB for the frozen weights plus a few GB for activations.", False),
    ("With LoRA, a 7B model in FP16 needs only 4 GB.", True),          # below its own 16-bit weights
])
def test_a_methods_usual_precision_stated_keeps_the_practice_band(gpukb, text, judged):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required"]
    assert (c["status"] == "understated") == judged, c


def test_an_instances_gpu_memory_column_may_be_its_total(gpukb):
    text = ("| Instance | GPU | GPUs | GPU memory | vCPUs |\n|---|---|---|---|---|\n"
            "| g5.12xlarge | A10G | 4 | 96 GB | 48 |\n| p4d.24xlarge | A100 40GB | 8 | 320 GB | 96 |\n")
    mem = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_gb"]
    assert len(mem) == 2 and all(c["status"] in ("unclear", "supported") for c in mem), mem
    wrong = "| Instance | GPU | GPUs | GPU memory |\n|---|---|---|---|\n| g5.12xlarge | A10G | 4 | 80 GB |\n"
    (c,) = [c for c in _claims(gpukb, wrong) if c["attribute"] == "memory_gb"]
    assert c["status"] == "incorrect", c


def test_each_clause_of_a_verdict_keeps_its_own_method_and_size(gpukb):
    claims = [c for c in _claims(gpukb, "T4 适合 7B 模型的推理，但不适合 13B 模型的全量微调。") if c["attribute"] == "suitability"]
    got = {(c["value"], c["qualifiers"]["method"], c["qualifiers"]["params"]["lo"]) for c in claims}
    assert got == {("suitable", "method:inference", 7e9), ("unsuitable", "method:full", 13e9)}, claims
    assert all(c["status"] == "supported" for c in claims), claims


@pytest.mark.parametrize("text,status", [
    ("Full fine-tuning of a 13B model needs at least two A100 80GB GPUs.", "unclear"),    # pure BF16: 2, mixed: 3+
    ("Full fine-tuning a 13B model needs at least two T4s.", "understated"),             # even pure BF16 needs 6+
    ("Full fine-tuning a 7B model needs 16 A100 80GB GPUs.", "overstated"),               # even mixed needs 3 at most
])
def test_a_full_training_gpu_count_between_common_setups_is_not_called_wrong(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "min_gpus"]
    assert c["status"] == status, c
    if status == "unclear":
        assert "count_within_practice" in [u["code"] for u in c["unclear_because"]]


@pytest.mark.parametrize("text,status", [
    ("A 13B model in FP16 needs about 8 GB just to load.", "understated"),       # its FP16 weights are 26 GB
    ("加载一个 13B 模型（FP16）需要约 26GB 显存。", "supported"),
])
def test_loading_a_model_is_serving_its_weights_when_no_method_is_named(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required"]
    assert c["qualifiers"]["method"] == "method:inference" and c["status"] == status, c


def test_a_named_method_that_loads_in_4_bit_keeps_its_method(gpukb):
    (c,) = [c for c in _claims(gpukb, "QLoRA loads the 7B base model in 4-bit and needs about 6 GB.")
            if c["attribute"] == "memory_required"]
    assert c["qualifiers"]["method"] == "method:qlora", c
