"""Claim builders of the extractor (engine/text/claims.py) on sentences written for these
tests (none taken from the bundled articles), with the sentences that must not produce a claim."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def effects(text: str, vocab: Vocabulary) -> list[tuple[str, list]]:
    return sorted((c.subject, sorted(c.value)) for c in extract(text, vocab).claims if c.attribute == "effect")


# -- an effect stated after a list of techniques is each one's ---------------------------------------------
@pytest.mark.parametrize("text, subjects", [
    ("换成 ZeRO-2/3 之后，可以明显减少显存占用。", ["technique:zero2", "technique:zero3"]),
    ("Switching to ZeRO stage 2/3 reduces GPU memory use.", ["technique:zero2", "technique:zero3"]),
    ("开启梯度检查点和 FlashAttention 能降低显存占用。", ["technique:flash_attention", "technique:gradient_checkpointing"]),
    ("Gradient checkpointing or FlashAttention cut GPU memory.", ["technique:flash_attention", "technique:gradient_checkpointing"]),
])
def test_an_effect_after_a_list_of_techniques_is_each_ones(vocab, text, subjects):
    assert [s for s, _ in effects(text, vocab)] == subjects


@pytest.mark.parametrize("text, subjects", [
    ("After ZeRO-2, FlashAttention reduces GPU memory further.", ["technique:flash_attention"]),   # not a list
    ("用了 ZeRO-3 以后，梯度检查点还能降低显存占用。", ["technique:gradient_checkpointing"]),
    ("ZeRO-3 is slow on PCIe.", []),                                                           # no effect named
])
def test_an_effect_is_not_spread_beyond_its_list(vocab, text, subjects):
    assert [s for s, _ in effects(text, vocab)] == subjects


# -- a figure said of an instance size: a bare "memory" is its RAM, a vGPU share its own GPU memory ---------
def figures(text: str, vocab: Vocabulary) -> list[tuple[str, str, object]]:
    return sorted((c.subject, c.attribute, c.value) for c in extract(text, vocab).claims
                  if c.attribute in ("memory_gb", "host_memory_gb"))


@pytest.mark.parametrize("text, want", [
    ("GN7.5XLARGE80 has 20 vCPUs, 80 GB of memory and one T4.",
     [("instance:GN7.5XLARGE80", "host_memory_gb", 80.0)]),
    ("With GN7.10XLARGE160 you get 160 GB of RAM next to two T4 cards.",
     [("instance:GN7.10XLARGE160", "host_memory_gb", 160.0)]),
    ("GN7.5XLARGE80 offers 16 GB of GPU memory.", [("instance:GN7.5XLARGE80", "memory_gb", 16.0)]),   # GPU memory stays
    ("The T4 has 16 GB of memory.", [("gpu:T4", "memory_gb", 16.0)]),                     # a GPU's memory is VRAM
    ("GN7 carries the T4, with 16 GB of memory per card.", [("family:GN7", "memory_gb", 16.0)]),  # the GPU is nearest
    ("GN7.LARGE20 gets a quarter of a T4, i.e. 4 GB of vGPU memory.", [("instance:GN7.LARGE20", "memory_gb", 4.0)]),
    ("GN7.2XLARGE40 配的是半张 T4，只有 8GB 虚拟 GPU 显存。", [("instance:GN7.2XLARGE40", "memory_gb", 8.0)]),
    ("A whole T4 has 16 GB, while GN7.LARGE20's vGPU has 4 GB.",
     [("gpu:T4", "memory_gb", 16.0), ("instance:GN7.LARGE20", "memory_gb", 4.0)]),
])
def test_an_instance_sizes_figures_are_its_own(vocab, text, want):
    assert figures(text, vocab) == want


# -- counts written as words, and the verbs that give an instance size its GPUs -------------------------------
def hardware(text: str, vocab: Vocabulary) -> list[tuple[str, str, object]]:
    return sorted((c.subject, c.attribute, c.value if not isinstance(c.value, list) else tuple(c.value))
                  for c in extract(text, vocab).claims if c.attribute in ("gpu", "gpu_count"))


@pytest.mark.parametrize("text, want", [
    ("GN7.10XLARGE160 comes with two T4 GPUs.",
     [("instance:GN7.10XLARGE160", "gpu", ("gpu:T4",)), ("instance:GN7.10XLARGE160", "gpu_count", 2.0)]),
    ("GN7.20XLARGE320 offers 80 vCPUs, 320 GB of RAM and four T4 cards.",
     [("instance:GN7.20XLARGE320", "gpu", ("gpu:T4",)), ("instance:GN7.20XLARGE320", "gpu_count", 4.0)]),
    ("GN7.5XLARGE80 includes a single T4.",
     [("instance:GN7.5XLARGE80", "gpu", ("gpu:T4",)), ("instance:GN7.5XLARGE80", "gpu_count", 1.0)]),
    ("GN7.LARGE20 只配了四分之一张 T4。",
     [("instance:GN7.LARGE20", "gpu", ("gpu:T4",)), ("instance:GN7.LARGE20", "gpu_count", 0.25)]),
    ("GN7.10XLARGE160 装有两张 T4 显卡。",
     [("instance:GN7.10XLARGE160", "gpu", ("gpu:T4",)), ("instance:GN7.10XLARGE160", "gpu_count", 2.0)]),
    ("GN7.2XLARGE40 gets half a T4.",
     [("instance:GN7.2XLARGE40", "gpu", ("gpu:T4",)), ("instance:GN7.2XLARGE40", "gpu_count", 0.5)]),
])
def test_counts_in_words_and_the_gpus_of_an_instance_size(vocab, text, want):
    assert hardware(text, vocab) == want


@pytest.mark.parametrize("text", [
    "One of the reasons GN7 is popular is its price.",         # "one" not before a GPU
    "这两种方法在 GN7 上结果一致。",                              # 两 / 一 not before a card word
    "A single config file sets up the whole cluster.",
    "Use two data loaders per GPU.",                           # a count of loaders, not of GPUs
])
def test_number_words_away_from_gpus_state_no_count(vocab, text):
    assert [c for c in extract(text, vocab).claims if c.attribute in ("gpu_count", "min_gpus")] == []


# -- "makes X possible": a feasibility verdict on the hardware that makes it so -----------------------------
@pytest.mark.parametrize("text, subject", [
    ("L40S 的 48GB 显存让 30B 模型的 FP16 推理成为可能。", "gpu:L40S"),
    ("The L4's 24 GB makes FP16 inference of 7B models possible.", "gpu:L4"),
    ("A100 80GB 使得 70B 模型的 4-bit 推理成为可能。", "gpu:A100-80GB"),
])
def test_making_a_workload_possible_is_a_feasibility_verdict(text, subject, vocab):
    verdicts = [c for c in extract(text, vocab).claims if c.value == "feasible"]
    assert [c.subject for c in verdicts] == [subject], extract(text, vocab).claims
    assert verdicts[0].qualifiers.get("params") is not None


@pytest.mark.parametrize("text", ["It is possible that the T4 runs 7B models.", "H100 是否可能成为主流？"])
def test_possible_alone_is_no_verdict(text, vocab):
    assert not [c for c in extract(text, vocab).claims if c.value == "feasible"]
