"""`check` doubts its reading before the text: a figure that is exactly another true figure of the same kind
(an NVLink bandwidth read as a memory bandwidth, an instance's host memory read as its card's), and a card
memory far above every size the product is sold in, are unclear with the reason, not wrong. Sentences
written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation", "misattributed"}


def _claim(gpukb, text: str, attribute: str) -> dict:
    (c,) = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute]
    return c


def _codes(c: dict) -> list[str]:
    return [u["code"] for u in c.get("unclear_because", [])]


@pytest.mark.parametrize("text", [
    "With twelve links the A100 reaches a total bandwidth of 600 GB/s.",
    "H100 的带宽为 900GB/s。",
])
def test_a_bandwidth_that_is_the_products_nvlink_figure_is_unclear(gpukb, text):
    c = _claim(gpukb, text, "memory_bandwidth")
    assert c["status"] == "unclear" and "another_reading" in _codes(c), c
    (why,) = [u for u in c["unclear_because"] if u["code"] == "another_reading"]
    assert "NVLink" in why["en"] and why["zh"]


@pytest.mark.parametrize("text", [
    "The H100 has 900 GB/s of memory bandwidth.",
    "H100 的显存带宽为 900GB/s。",
])
def test_a_bandwidth_named_as_memory_bandwidth_is_still_wrong(gpukb, text):
    c = _claim(gpukb, text, "memory_bandwidth")
    assert c["status"] in WRONG and "another_reading" not in _codes(c), c


def test_an_instances_host_memory_read_as_its_cards_is_unclear(gpukb):
    c = _claim(gpukb, "The T4 in the GN7.2XLARGE32 comes with 32 GB.", "memory_gb")
    assert c["status"] == "unclear" and "another_reading" in _codes(c), c
    assert any("GN7.2XLARGE32" in u["en"] for u in c["unclear_because"])


def test_a_figure_near_no_true_one_stays_wrong(gpukb):
    c = _claim(gpukb, "The A100 reaches a total bandwidth of 700 GB/s.", "memory_bandwidth")
    assert "another_reading" not in _codes(c), c


@pytest.mark.parametrize("text,attribute", [
    ("## NVIDIA H100\nFor a 70B model, the optimizer adds another 560 GB.", "memory_gb"),
    ("| Spec | HGX B200 |\n|---|---|\n| Total FP8 Tensor Core | 72 PFLOPS |", "fp8_tensor_tflops"),
])
def test_a_figure_far_above_every_figure_of_its_kind_is_unclear(gpukb, text, attribute):
    claims = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute]
    assert claims and all(c["status"] not in WRONG for c in claims), claims
    assert any("beyond_figures" in _codes(c) for c in claims), claims


@pytest.mark.parametrize("text", [
    "The H100 has 640 GB of memory.",           # said in so many words: a wrong figure, not a reading in doubt
    "英伟达 V100 配备 256GB 显存。",
    "The T4 is a 250 W card.",
])
def test_a_figure_far_above_but_said_in_so_many_words_is_judged(gpukb, text):
    (c,) = gpukb.check(text).to_json()["claims"][:1]
    assert c["status"] in WRONG and "beyond_figures" not in _codes(c), c


def test_an_fp64_rate_that_is_the_fp64_tensor_one_is_judged(gpukb):
    c = _claim(gpukb, "| 指标 | A100 |\n|---|---|\n| FP64 | 19.5 TFLOPS |", "fp64_tflops")
    assert c["status"] == "incorrect", c


@pytest.mark.parametrize("text,value", [
    ("The V100 has 64 GB of memory.", 64.0),       # twice its largest size: a wrong size, not a total
    ("The A100 comes with 24 GB of memory.", 24.0),
    ("The L4 has 16 GB of GDDR6 memory.", 16.0),
])
def test_a_card_memory_near_the_products_sizes_is_still_checked(gpukb, text, value):
    c = _claim(gpukb, text, "memory_gb")
    assert c["value"] == value and c["status"] in WRONG and "beyond_figures" not in _codes(c), c


# --- a card named by its size, a product given its own figure, a count the scenario lacks, enough GPUs

@pytest.mark.parametrize("text", [
    "On an A100 80GB the run takes 31.5 GB.",
    "H100 80GB 上该任务实测占用 27 GB。",
])
def test_a_memory_figure_beside_a_card_named_by_its_size_is_not_the_cards(gpukb, text):
    for c in gpukb.check(text).to_json()["claims"]:
        if c["attribute"] == "memory_gb":
            assert c["status"] not in WRONG, c


def test_a_size_in_a_name_that_is_not_a_size_is_no_size(gpukb):
    c = _claim(gpukb, "The A10G has 48 GB of memory.", "memory_gb")   # the "10G" of A10G is no 10 GB
    assert c["status"] in WRONG and "named_size" not in _codes(c), c


@pytest.mark.parametrize("text", [
    "This card has 403 GB/s of bandwidth (for reference, the RTX 4090 has 1008 GB/s).",
    "参考：RTX 4090 是 1008GB/s，5090 是 1.7TB/s。",
])
def test_a_figure_beside_the_products_own_is_another_products(gpukb, text):
    claims = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_bandwidth"]
    assert any(c["status"] == "supported" and c["value"] == 1008.0 for c in claims), claims
    others = [c for c in claims if c["value"] != 1008.0]
    assert others and all(c["status"] == "unclear" and "own_figure_elsewhere" in _codes(c) for c in others), claims


def test_a_figure_beside_another_products_figure_is_still_judged(gpukb):
    text = "无论你手上有24GB A100、12GB 3090，都能跑。"     # the 24 GB is the A100's, not the 3090's own
    (c,) = [c for c in gpukb.check(text).to_json()["claims"] if c["subject"] == "gpu:RTX-3090" and c["attribute"] == "memory_gb"]
    assert c["status"] in WRONG, c


def test_a_requirement_said_of_a_count_the_scenario_lacks_is_unclear(gpukb):
    text = "因此 128 卡 A100 80GB 可以安全跑下 175B 模型，且最小显存占用为 27 GB 左右。"
    claims = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_required"]
    assert claims and all(c["status"] == "unclear" and "count_unread" in _codes(c) for c in claims), claims


@pytest.mark.parametrize("text,status", [
    ("A100 80 GB 在 DeepSpeed 下实际可用约 72 GB。", "unclear"),
    ("nvidia-smi shows 72 GB usable on the A100 80GB.", "incorrect"),
])
def test_usable_memory_is_checked_only_as_nvidia_smis(gpukb, text, status):
    c = _claim(gpukb, text, "usable_memory")
    assert c["status"] == status, c


@pytest.mark.parametrize("text,status", [
    ("8 A100 80GB GPUs can serve a 70B model.", "unclear"),
    ("You can serve Llama 2 70B on 8 A100 80GB GPUs.", "unclear"),
    ("Serving a 70B model in FP16 requires 8 A100 80GB GPUs.", "overstated"),
    ("Two T4 GPUs can serve a 70B model in FP16.", "understated"),
])
def test_a_count_said_to_be_enough_is_no_minimum(gpukb, text, status):
    c = _claim(gpukb, text, "min_gpus")
    assert c["status"] == status, c


# --- tables: a column of a product gpukb does not know keeps its figures; FP6 is no FP16

def test_the_cells_of_an_unknown_products_column_are_no_others(gpukb):
    text = ("| Spec | GB200 NVL72 | HGX B200 |\n|---|---|---|\n| FP4 Tensor Core | 20 PFLOPS | 18 PFLOPS |\n"
            "| GPU Memory | 186 GB | 180 GB |")
    claims = gpukb.check(text).to_json()["claims"]
    assert {(c["attribute"], c["value"]) for c in claims if c["attribute"] in ("memory_gb", "fp4_tensor_tflops")} == \
        {("memory_gb", 180.0), ("fp4_tensor_tflops", 18.0)}, claims


def test_an_fp8_fp6_row_is_fp8(gpukb):
    text = "| Spec | HGX B200 |\n|---|---|\n| FP8/FP6 Tensor Core | 9 PFLOPS |"
    assert [c["attribute"] for c in gpukb.check(text).to_json()["claims"]] == ["fp8_tensor_tflops"]


@pytest.mark.parametrize("text", [
    "V100 的双精度浮点运算性能:\n- 7.8 TFLOPS\n",
    "The A100 delivers up to 19.5 TFLOPS.",
])
def test_a_throughput_without_its_precision_is_not_judged_for_a_guessed_one(gpukb, text):
    claims = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"].endswith(("tflops", "tops"))]
    assert claims and all(c["status"] not in WRONG for c in claims), claims


def test_a_throughput_with_its_precision_is_judged(gpukb):
    c = _claim(gpukb, "The A100 delivers 50 TFLOPS of FP64.", "fp64_tflops")
    assert c["status"] in WRONG, c


# --- a clause's own figure: a difference, another model size, another precision's label, a named size

@pytest.mark.parametrize("text", [
    "At 46.7 GB the INT8 model exceeds the A100's capacity by 6.7 GB.",
    "H100 的显存比 A100 40GB 多出 40GB。",
])
def test_a_difference_is_not_the_products_figure(gpukb, text):
    for c in gpukb.check(text).to_json()["claims"]:
        if c["attribute"] == "memory_gb" and c["value"] in (6.7, 40.0) and c["status"] == "unclear":
            assert "difference" in _codes(c), c
        assert not (c["attribute"] == "memory_gb" and c["value"] in (6.7, 40.0) and c["status"] in WRONG), c


def test_a_figure_of_another_model_size_in_its_clause_is_not_checked_for_the_first(gpukb):
    text = "A 13B model in FP16 needs about 26 GB, while a 70B model (4-bit) still needs 300 GB."
    for c in gpukb.check(text).to_json()["claims"]:
        if c["value"] == 300.0:
            assert c["status"] not in WRONG, c


def test_a_figure_labelled_with_another_precision_is_that_ones(gpukb):
    claims = gpukb.check("Each parameter takes 2 bytes (FP16) or 4 bytes (FP32).").to_json()["claims"]
    assert not [c for c in claims if c["status"] in WRONG], claims


def test_a_parameter_count_beside_a_model_named_by_its_size_is_another_models(gpukb):
    claims = gpukb.check("中小参数模型（如 Llama 3-8B 或 70B 量化版）适合双卡。").to_json()["claims"]
    assert not [c for c in claims if c["attribute"] == "params" and c["status"] in WRONG], claims


@pytest.mark.parametrize("text,value", [
    ("Running the Mixtral 8x7B model on a T4 is not feasible.", "unsuitable"),
    ("在 T4 上全量微调 13B 模型不可行。", "unsuitable"),
])
def test_not_feasible_is_a_negative_verdict(gpukb, text, value):
    (c,) = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "suitability"]
    assert c["value"] == value and c["status"] == "supported", c


# --- a list item's figure takes the attribute its list's label names

def test_a_list_items_figure_takes_its_labels_attribute(gpukb):
    claims = gpukb.check("V100 的双精度浮点运算性能:\n- 7.8 TFLOPS\n- 40 TFLOPS\n").to_json()["claims"]
    assert [c["attribute"] for c in claims] == ["fp64_tflops", "fp64_tflops"], claims
    assert claims[1]["status"] in WRONG, claims


def test_a_long_paragraph_before_a_list_is_no_label(gpukb):
    text = ("The A100 Tensor Core GPU comes as PCIe and SXM4 boards. Below is what four PCIe cards give together:\n"
            "- A100 PCIe 40GB: 19.5 TFLOPS each, 78 TFLOPS for the four.\n")
    for c in gpukb.check(text).to_json()["claims"]:
        if c["value"] == 78.0:
            assert c["status"] not in WRONG, c
