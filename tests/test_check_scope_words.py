"""`check` reads what a figure is of before judging it: a size of local storage is no memory, a memory figure
of a MIG partition is no card's memory, a method named as what came before ("Before QLoRA, …") is not the
method of the sentence's figures, and "1.1 TB" of RAM is any figure that rounds to it, in TB or TiB.
Sentences written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation", "misattributed"}


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


@pytest.mark.parametrize("text", [
    "The p4d instance type comes with 8 TB of local NVMe storage.",
    "The p4d.24xlarge pairs 1,152 GiB of RAM with 8 TB of NVMe SSD storage.",
    "GN10Xp 配备 3.2TB 本地 NVMe SSD 存储。",
])
def test_a_storage_size_is_no_memory_figure(gpukb, text):
    got = [c for c in _claims(gpukb, text) if c["attribute"] in ("memory_gb", "gpu_memory_total_gb")]
    assert got == [], got


def test_a_memory_figure_followed_by_other_words_is_still_memory(gpukb):
    (c,) = [c for c in _claims(gpukb, "The T4 has 16 GB of memory, and it reads data from disk.")
            if c["attribute"] == "memory_gb"]
    assert c["value"] == 16.0 and c["status"] == "supported", c


@pytest.mark.parametrize("text", [
    "The A30 can be split into four GPU instances, each with 6 GB of memory.",
    "An A100 80GB can be partitioned into seven MIG slices of 10 GB.",
    "A100 可切分为 7 个 MIG 实例，每个 10GB 显存。",
])
def test_a_partitions_memory_is_not_the_cards(gpukb, text):
    wrong = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_gb" and c["status"] in WRONG]
    assert wrong == [], wrong


def test_the_cards_memory_before_its_partitions_is_still_read(gpukb):
    text = "The A100 80GB has 80 GB of memory and supports up to seven MIG instances."
    got = {c["attribute"]: c for c in _claims(gpukb, text)}
    assert got["memory_gb"]["value"] == 80.0 and got["memory_gb"]["status"] == "supported", got


@pytest.mark.parametrize("text", [
    "Before QLoRA, fine-tuning a 13B model required at least 100 GB of GPU memory.",
    "在 QLoRA 出现之前，微调 13B 模型至少需要 100GB 显存。",
    "Without LoRA, fine-tuning a 7B model needs more than 100 GB.",
])
def test_a_method_named_as_what_came_before_is_not_the_sentences(gpukb, text):
    got = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required"]
    assert got and all(c["qualifiers"].get("method") not in ("method:qlora", "method:lora") for c in got), got
    assert all(c["status"] not in WRONG for c in got), got


def test_a_method_the_sentence_uses_is_still_its_own(gpukb):
    (c,) = [c for c in _claims(gpukb, "With QLoRA, fine-tuning a 13B model needs at least 100 GB.")
            if c["attribute"] == "memory_required"]
    assert c["qualifiers"]["method"] == "method:qlora" and c["status"] in WRONG, c


@pytest.mark.parametrize("text, ok", [
    ("The p4d.24xlarge has 1.1 TB of RAM.", True),        # 1,152 GiB = 1.125 TiB: "1.1 TB" as written
    ("The p4d comes with 96 vCPUs and 1.1 TB of RAM.", True),   # a family: its sizes' figure
    ("The p4d.24xlarge has 3 TB of RAM.", False),
])
def test_a_rounded_figure_in_the_binary_twin_unit_is_not_called_wrong(gpukb, text, ok):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "host_memory_gb"]
    assert (c["status"] in WRONG) is not ok, c
    if ok and c["status"] == "unclear":
        assert "binary_prefix" in [u["code"] for u in c["unclear_because"]], c


@pytest.mark.parametrize("text, ok", [
    ("p4d.24xlarge: 8× A100 40GB.", True),
    ("p4d.24xlarge: 8× A100 80GB.", False),
    ("GN10Xp.20XLARGE320：8 张 V100 32GB，80 核 vCPU。", True),
    ("GN10Xp.20XLARGE320：8 张 V100 16GB，80 核 vCPU。", False),
])
def test_an_instances_gpu_after_a_count_of_cards_is_its_gpu(gpukb, text, ok):
    (c,) = [c for c in _claims(gpukb, text) if c["subject"].startswith("instance:") and c["attribute"] == "gpu"]
    assert (c["status"] == "supported") is ok and (c["status"] in WRONG) is not ok, c


@pytest.mark.parametrize("text, year", [
    ("RTX 4090 使用 GDDR6X 显存，2022 年发布。", 2022),
    ("RTX 4090: 24GB GDDR6X, 450W, on sale since October 2022.", 2022),
])
def test_a_launch_year_after_a_comma_or_on_sale_since(gpukb, text, year):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "launch_year"]
    assert c["value"] == year and c["status"] == "supported", c


@pytest.mark.parametrize("text, value", [
    ("a3-highgpu-8g ships 8× H100 80GB with 208 vCPUs and 1,872 GB of memory.", 1872.0),
    ("Tencent GT4.41XLARGE948: eight A100 40GB, 164 vCPUs, 948 GB of memory.", 948.0),
])
def test_a_bare_memory_beside_an_instances_vcpus_is_its_host_memory(gpukb, text, value):
    got = [c for c in _claims(gpukb, text) if c["value"] == value]
    assert [(c["attribute"], c["status"]) for c in got] == [("host_memory_gb", "supported")], got


@pytest.mark.parametrize("text, ok", [
    ("The A100 supports MIG.", True),
    ("The A16 supports MIG partitioning.", False),       # the A16 has no MIG
    ("L40S 不支持 MIG。", True),                          # denied: none, as the datasheet says
    ("A100 不支持 MIG。", False),
])
def test_a_feature_had_or_denied_is_its_count_at_least_one_or_zero(gpukb, text, ok):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "mig_max_instances"]
    assert (c["status"] == "supported") is ok and (c["status"] in WRONG) is not ok, c


def test_a_feature_named_without_having_it_states_nothing(gpukb):
    got = [c for c in _claims(gpukb, "MIG instances of 10 GB are available.") if c["attribute"] == "mig_max_instances"]
    assert got == [], got


@pytest.mark.parametrize("text, attribute, value", [
    ("H100 SXM GPUs are linked by fourth-generation NVLink at 900 GB/s per GPU.", "nvlink_bandwidth", 900.0),
    ("The A100 has NVLink 3.0 at 600 GB/s.", "nvlink_bandwidth", 600.0),
])
def test_a_bandwidth_right_after_nvlink_is_nvlinks(gpukb, text, attribute, value):
    got = [c for c in _claims(gpukb, text) if c["value"] == value]
    assert [(c["attribute"], c["status"]) for c in got] == [(attribute, "supported")], got


def test_a_word_that_leads_another_products_figure_does_not_name_a_later_one(gpukb):
    text = "H100 SXM: 80 GB @ 3.35 TB/s, NVLink 900 GB/s, 700 W H200 SXM: 141 GB @ 4.8 TB/s, NVLink 900 GB/s"
    got = {(c["subject"], c["value"]): c["attribute"] for c in _claims(gpukb, text) if c["unit"] in ("TB/s", "GB/s")}
    assert got.get(("gpu:H200", 4.8)) == "memory_bandwidth", got


@pytest.mark.parametrize("text, ok", [
    ("The B200 is two dies joined by a custom high-bandwidth interface (NV-HBI) running at 10 TB/s.", None),
    ("The RTX 4090 has a 384-bit memory interface and 1,008 GB/s of bandwidth.", True),
])
def test_a_bandwidth_of_an_interface_between_dies_is_not_memorys(gpukb, text, ok):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_bandwidth"]
    if ok is None:
        assert c["status"] == "unclear" and "interconnect_bandwidth" in [u["code"] for u in c["unclear_because"]], c
    else:
        assert c["status"] == "supported", c


@pytest.mark.parametrize("text, status", [
    ("The A100 uses HBM2e memory.", "scope_dependent"),       # 80GB: HBM2e; 40GB: HBM2
    ("The A100 uses GDDR6 memory.", "incorrect"),             # no A100 has GDDR6
    ("The H100 uses HBM3 memory.", "scope_dependent"),        # SXM: HBM3; PCIe: HBM2e
    ("The A100 40GB uses HBM2e memory.", "incorrect"),        # a variant named: its own reference
])
def test_a_word_claimed_for_a_gpu_of_several_variants_is_judged_per_variant(gpukb, text, status):
    (c,) = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_type"]
    assert c["status"] == status, c
