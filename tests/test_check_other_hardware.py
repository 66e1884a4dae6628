"""Figures that belong to something other than the product the sentence names (issue #31, precision before
recall): another device or a class of GPUs, the product something is compared with, a total of the cards a
count names, one part of a workload's memory. Sentences written for these tests, not taken from any gold
passage."""
from __future__ import annotations


def _claims(gpukb, text: str) -> list[dict]:
    return gpukb.check(text).to_json()["claims"]


def _codes(c: dict) -> set[str]:
    return {r["code"] for r in c.get("unclear_because") or []}


# -- a figure said of a CPU, system memory or a class of GPUs --------------------------------------------
def test_figures_of_other_hardware_are_unclear_not_wrong(gpukb):
    for text in ("Memory bandwidth is 60-90 GB/sec for desktop CPUs and 2 TB/sec for the A100 80GB.",
                 "Bandwidth runs from 300-1000 GB/s for gaming GPUs up to 3.35 TB/s for the H100 SXM.",
                 "The A100 40GB reads its weights at 1,555 GB/s, far above the 80 GB/s of DDR5 system memory."):
        wrong = [c for c in _claims(gpukb, text) if c["status"] in ("incorrect", "understated", "overstated")]
        assert not wrong, (text, wrong)


def test_the_named_gpus_own_figure_is_still_judged(gpukb):
    claims = _claims(gpukb, "Memory bandwidth is 60-90 GB/sec for desktop CPUs and 1.2 TB/sec for the A100 80GB.")
    own = [c for c in claims if c["quote"].startswith("1.2")]
    assert own and own[0]["status"] == "incorrect"


def test_a_unit_spelt_per_second_in_full_is_the_same_unit(gpukb):
    for text in ("The A100 80GB has 2 TB/second of memory bandwidth.", "A100 80GB 的显存带宽为 2TB/秒。",
                 "The A100 80GB moves 2039 GB/sec of memory bandwidth."):
        c = next(c for c in _claims(gpukb, text) if c["attribute"] == "memory_bandwidth")
        assert c["status"] == "supported", (text, c)


# -- the product a multiple or a comparison is taken of ---------------------------------------------------
def test_a_product_after_twice_the_attribute_of_is_what_is_compared_with(gpukb):
    for text in ("96 GB of HBM3 at 4 TB/s, nearly twice the memory of the A100 40GB.",
                 "Its 24 GB is 1.5x the memory of the T4."):
        claims = _claims(gpukb, text)
        assert not [c for c in claims if c["subject"] in ("gpu:A100-40GB", "gpu:T4")
                    and c["attribute"] in ("memory_gb", "memory_type", "memory_bandwidth")], (text, claims)


def test_an_architecture_named_after_compared_to_is_not_the_subjects(gpukb):
    claims = _claims(gpukb, "The H200 runs inference up to 2x faster compared to the Ampere generation.")
    assert not [c for c in claims if c["attribute"] == "architecture" and c["value"] == "Ampere"]
    own = _claims(gpukb, "The H200 is built on the Hopper architecture.")
    assert [c for c in own if c["attribute"] == "architecture" and c["status"] == "supported"]


# -- a count of cards and the total memory they have ------------------------------------------------------
def test_a_total_of_the_counted_cards_is_no_cards_size(gpukb):
    for text in ("The node packs 8 x A100 320GB for training.", "4 x A100 320GB is enough for a 70B model in BF16.",
                 "集群每个节点 8 卡 A100，共 640GB 显存。",
                 "The pod links 256 H100 SXM GPUs and 20 TB of HBM3 memory."):     # beyond 16 cards: the stated count
        c = next(c for c in _claims(gpukb, text) if c["attribute"] == "memory_gb")
        assert c["status"] == "unclear" and "multiple_of_one_card" in _codes(c), (text, c)


# -- one part of a workload's memory -----------------------------------------------------------------------
def test_a_figure_just_for_the_cache_or_the_gradients_is_no_workloads_total(gpukb):
    for text in ("Serving a 13B model needs 30 GB just for the KV cache at long context.",
                 "Full fine-tuning of a 7B model requires 28 GB only for the gradients in FP32."):
        claims = [c for c in _claims(gpukb, text) if c["attribute"] == "memory_required"]
        assert not [c for c in claims if c["status"] in ("incorrect", "understated", "overstated")], (text, claims)


# -- a verdict on GPUs the sentence counts ----------------------------------------------------------------
def test_a_feasibility_verdict_on_counted_gpus_is_on_that_many(gpukb):
    for text in ("Four A100 80GB cards make serving a 70B model possible.", "This makes 13B inference possible on 2× T4."):
        c = next(c for c in _claims(gpukb, text) if c["attribute"] == "suitability")
        assert c["qualifiers"].get("gpus", {}).get("lo") in (2.0, 4.0) and c["status"] != "inconsistent_with_derivation", c


# -- a model's need, and another model's size after it -------------------------------------------------------
def test_a_figure_after_another_models_size_is_not_the_first_models(gpukb):
    claims = _claims(gpukb, "例如 Llama-2-7B（16位精度）需要 14GB 显存，而 Falcon 180B（8bit 量化）仍需 190GB。")
    mine = [c for c in claims if c["subject"] == "model:llama-2-7b" and c["attribute"] == "memory_required"]
    assert [c["value"] for c in mine] == [14.0], claims
    assert mine[0]["qualifiers"]["precision"][0] == "precision:fp16" and mine[0]["status"] == "supported"


def test_the_models_own_size_right_after_its_name_is_no_other_model(gpukb):
    claims = _claims(gpukb, "Llama-2-13B (13B parameters) needs 26 GB in FP16 for inference.")
    assert [c["status"] for c in claims if c["attribute"] == "memory_required"] == ["supported"], claims
