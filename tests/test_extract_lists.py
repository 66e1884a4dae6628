"""Statements shared by a list of products, pronouns, headings and abbreviated variant lists in the
claim extractor (engine/text/lists.py), on sentences written for these tests (none taken
from the bundled articles), with the sentences that must not be distributed."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.text.extract import extract
from gpukb.engine.kb.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def said(text: str, vocab: Vocabulary, attribute: str) -> list[tuple[str, object]]:
    return sorted((c.subject, c.value) for c in extract(text, vocab).claims if c.attribute == attribute)


# -- one statement, a list of subjects ------------------------------------------------------------------
@pytest.mark.parametrize("text, attribute, expected", [
    ("The L4 and the A10 both support BF16.", "bf16_native", [("gpu:A10", True), ("gpu:L4", True)]),
    ("A10、L4 和 H100 都支持 BF16。", "bf16_native", [("gpu:A10", True), ("gpu:H100", True), ("gpu:L4", True)]),
    ("GI3 和 GI3N 都配备 RDMA 网络。", "rdma", [("family:GI3", True), ("family:GI3N", True)]),
    ("GI3/GI3N 支持 RDMA。", "rdma", [("family:GI3", True), ("family:GI3N", True)]),
    ("Neither the L4 nor the A10 has NVLink.", "nvlink", [("gpu:A10", False), ("gpu:L4", False)]),
    ("L4 与 A10 均不支持 NVLink。", "nvlink", [("gpu:A10", False), ("gpu:L4", False)]),
])
def test_a_statement_shared_by_a_list(vocab, text, attribute, expected):
    assert said(text, vocab, attribute) == expected


@pytest.mark.parametrize("text, attribute, expected", [
    ("The A10 is faster than the T4 and supports BF16.", "bf16_native", [("gpu:A10", True)]),   # T4 compared
    ("比起 T4 和 V100，L4 支持 BF16。", "bf16_native", [("gpu:L4", True)]),
    ("GN7 carries the T4 and supports RDMA.", "rdma", [("family:GN7", True)]),                     # an object, not a list of subjects
    ("The H100 has NVLink; the L4 and the A10 are PCIe cards.", "nvlink", [("gpu:H100", True)]),
])
def test_a_list_that_is_not_the_subject_gets_nothing(vocab, text, attribute, expected):
    assert said(text, vocab, attribute) == expected


# -- pronouns: the products the previous sentence named ---------------------------------------------------
@pytest.mark.parametrize("text, attribute, expected", [
    ("The L4 and the A10 are PCIe cards. They do not have NVLink.", "nvlink", [("gpu:A10", False), ("gpu:L4", False)]),
    ("V100 与 H100 是数据中心卡。它们都支持 NVLink。", "nvlink", [("gpu:H100", True), ("gpu:V100", True)]),
    ("V100 与 H100 是数据中心卡。二者都支持 NVLink。", "nvlink", [("gpu:H100", True), ("gpu:V100", True)]),
    ("The L4 is a small card. It does not support NVLink.", "nvlink", [("gpu:L4", False)]),
    ("L4 是一张推理卡。它不支持 NVLink。", "nvlink", [("gpu:L4", False)]),
])
def test_a_pronoun_stands_for_the_products_named_before(vocab, text, attribute, expected):
    assert said(text, vocab, attribute) == expected


def test_a_plural_pronoun_after_a_single_product_is_that_product(vocab):
    assert said("The H100 is a training card. They support NVLink.", vocab, "nvlink") == [("gpu:H100", True)]


def test_a_list_is_forgotten_once_another_product_is_named(vocab):
    text = "The L4 and the A10 are PCIe cards. The H100 is not. It has NVLink."
    assert said(text, vocab, "nvlink") == [("gpu:H100", True)]


def test_comparison_with_a_pronoun_for_a_list(vocab):
    got = sorted((c.subject, c.value, c.qualifiers.get("compared_to")) for c in
                 extract("The A10 and the L4 replace the T4. They offer far higher FP16 throughput than the T4.",
                         vocab).claims if c.attribute == "compute_ratio")
    assert got == [("gpu:A10", "> 1", ["gpu:T4"]), ("gpu:L4", "> 1", ["gpu:T4"])]


# -- abbreviated variant lists ("ZeRO-2/3") -------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "On GN7, use ZeRO-2/3 to shard optimizer states.",
    "在 GN7 上建议使用 ZeRO-2/3 切分优化器状态。",
    "On GN7, consider DeepSpeed ZeRO stage 2/3.",
])
def test_an_abbreviated_list_of_variants(vocab, text):
    [c] = [c for c in extract(text, vocab).claims if c.attribute == "recommended_technique"]
    assert sorted(c.value) == ["technique:zero2", "technique:zero3"]


def test_an_abbreviation_naming_no_known_variant_adds_none(vocab):
    [c] = [c for c in extract("On GN7, use ZeRO-2/9 to shard optimizer states.", vocab).claims
           if c.attribute == "recommended_technique"]
    assert c.value == ["technique:zero2"]


# -- headings that state a verdict ---------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("## ✅ Where the L4 is a good fit\n- inference serving\n", [("gpu:L4", "suitable")]),
    ("### 适合 L4 的场景\n- 推理服务\n", [("gpu:L4", "suitable")]),
    ("The L4 is an inference card.\n\n❌ 不适合的场景\n- 大规模预训练\n", [("gpu:L4", "unsuitable")]),
])
def test_a_heading_states_its_verdict_of_the_product(vocab, text, expected):
    line = next(x for x in text.split("\n") if x and x[0] in "#✅❌")
    a = text.index(line)
    got = sorted((c.subject, c.value) for c in extract(text, vocab).claims
                 if c.modality == "verdict" and a <= c.start < a + len(line) and not c.qualifiers)
    assert got == expected


@pytest.mark.parametrize("text", [
    "## 适合的场景有哪些？\n- 推理服务\n",           # a question
    "## Suitable workloads\n- inference serving\n",  # no product named or carried
])
def test_a_heading_that_asks_or_names_no_product_states_nothing(vocab, text):
    first = text.index("\n")
    assert [c for c in extract(text, vocab).claims if c.start < first] == []


# -- a GPU named with the size of a variant -------------------------------------------------------------
# The size inside a product's name ("A100 80GB") names the variant: it states nothing a reader could check
# (the variant has that memory by definition), so it is no claim; a size said with its own word is one.
@pytest.mark.parametrize("text, expected", [
    ("GI3N instances use the A100 80GB.", []),
    ("我们在 80GB 的 A100 上做了测试。", [("gpu:A100-80GB", 80.0)]),
    ("H100（80GB 显存）适合大模型。", [("gpu:H100-80GB", 80.0)]),
])
def test_a_size_in_a_gpu_name_is_no_memory_claim_but_a_size_said_beside_it_is(vocab, text, expected):
    assert sorted(set(said(text, vocab, "memory_gb"))) == expected


@pytest.mark.parametrize("text", [
    "The A100 is a data-centre GPU.",            # no size: no variant named
    "The T4 has no larger variant.",             # a GPU without sized variants
    "A100 节点配 64GB 内存。",                      # a size that names no variant (host memory)
])
def test_a_gpu_without_a_variant_size_states_no_memory_by_its_name(vocab, text):
    assert said(text, vocab, "memory_gb") == []
