"""`check` reads specifications beyond figures with units: an architecture named beside its word, a compute
capability, a count of MIG instances or board slots, how many GPUs an instance has and how much memory
each has; names glued together in copied tables; and yes/no values worded in Chinese. Sentences written
for these tests, not taken from any gold passage."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.kb.lexicon import match_entities
from gpukb.engine.kb.vocabulary import Vocabulary
from gpukb.engine.text.glued import glued

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(ROOT / "kb" / "vocabulary.yaml")


def _claims(gpukb, text: str, lang: str | None = None) -> list[dict]:
    return gpukb.check(text, lang).to_json()["claims"]


def _of(gpukb, text: str, attribute: str) -> list[dict]:
    return [c for c in _claims(gpukb, text) if c["attribute"] == attribute]


@pytest.mark.parametrize("text,subject,value", [
    ("The RTX 4090 uses the Ada Lovelace architecture.", "gpu:RTX-4090", "Ada Lovelace"),
    ("H100 采用 Hopper 架构。", "gpu:H100", "Hopper"),
    ("T4 的架构：Turing。", "gpu:T4", "Turing"),
])
def test_an_architecture_named_beside_its_word_is_read(gpukb, text, subject, value):
    found = _of(gpukb, text, "architecture")
    assert [(c["subject"], c["value"]) for c in found] == [(subject, value)], _claims(gpukb, text)


@pytest.mark.parametrize("text", [
    "Hopper 架构首次引入了 Transformer 引擎。",          # the architecture spoken of, no product
    "The A100 is faster than Volta cards.",               # an architecture's name without its word
    "A10 并非 Hopper 架构。",                              # denied: nothing stated
])
def test_no_architecture_without_a_product_and_the_word(gpukb, text):
    assert _of(gpukb, text, "architecture") == [], _claims(gpukb, text)


@pytest.mark.parametrize("text,status", [
    ("T4 的计算能力为 7.5。", "supported"),
    ("The H100 has compute capability 8.0.", "incorrect"),
])
def test_a_compute_capability_is_read_and_judged(gpukb, text, status):
    found = _of(gpukb, text, "compute_capability")
    assert len(found) == 1 and found[0]["status"] == status, _claims(gpukb, text)


@pytest.mark.parametrize("text,value,status", [
    ("An H100 supports up to seven MIG instances.", 7, "supported"),
    ("A30 最多可切分为 7 个 MIG 实例。", 7, "incorrect"),
])
def test_a_count_of_mig_instances_is_read_and_judged(gpukb, text, value, status):
    found = _of(gpukb, text, "mig_max_instances")
    assert len(found) == 1 and found[0]["value"] == value and found[0]["status"] == status, _claims(gpukb, text)


def test_a_count_with_another_bound_states_no_maximum(gpukb):
    assert _of(gpukb, "The H100 supports more than 4 MIG instances.", "mig_max_instances") == []


@pytest.mark.parametrize("text,value", [("The A2 is a low-profile, single-slot card.", 1), ("A2 是一款单槽显卡。", 1)])
def test_board_slots_are_read_from_their_compound_word(gpukb, text, value):
    found = _of(gpukb, text, "board_slots")
    assert len(found) == 1 and found[0]["value"] == value and found[0]["status"] == "supported", _claims(gpukb, text)


@pytest.mark.parametrize("text", ["The server with 8 PCIe slots holds eight A100 GPUs.", "服务器有 8 个插槽，可装 A100。"])
def test_slots_of_a_server_are_not_a_cards_width(gpukb, text):
    assert _of(gpukb, text, "board_slots") == [], _claims(gpukb, text)


@pytest.mark.parametrize("text,status", [
    ("The g4dn.12xlarge has four T4 GPUs.", "supported"),
    ("g4dn.12xlarge 实例配备 2 块 T4。", "incorrect"),
])
def test_an_instances_gpu_count_beside_its_gpu_is_judged_not_unclear(gpukb, text, status):
    found = _of(gpukb, text, "gpu_count")
    assert len(found) == 1 and found[0]["subject"] == "instance:g4dn.12xlarge" and found[0]["status"] == status, found
    assert [c["value"] for c in _of(gpukb, text, "gpu")] == [["gpu:T4"]]


@pytest.mark.parametrize("text,count,gb", [
    ("p4de.24xlarge 配备 8 块 80 GB 显存的 A100。", 8, 80),
    ("The p4de.24xlarge instance carries eight A100 GPUs with 80 GB each.", 8, 80),
    ("g4dn.12xlarge 实例搭载 4 块 16GB 的 T4。", 4, 16),
])
def test_the_memory_of_each_of_an_instances_gpus_is_the_instances(gpukb, text, count, gb):
    claims = _claims(gpukb, text)
    mem = [c for c in claims if c["attribute"] == "memory_gb"]
    assert [(c["subject"].split(":")[0], c["value"]) for c in mem] == [("instance", gb)], claims
    assert mem[0]["status"] == "supported", mem
    wrong = _of(gpukb, text.replace(f"{gb}", f"{gb // 2}"), "memory_gb")         # half the memory: never called right
    assert all(c["status"] != "supported" for c in wrong), wrong
    assert [c["value"] for c in claims if c["attribute"] == "gpu_count"] == [count], claims


def test_host_memory_beside_an_instances_gpus_is_never_called_wrong_memory(gpukb):
    claims = _claims(gpukb, "The p4d.24xlarge has eight A100 GPUs and 1152 GB of memory.")
    assert not any(c["attribute"] == "memory_gb" and c["status"] in ("incorrect", "misattributed") for c in claims), claims


@pytest.mark.parametrize("text,names", [
    ("参数RTX 4090A100 80GB", ["RTX 4090", "A100 80GB"]),
    ("型号A100H100", ["A100", "H100"]),
])
def test_names_glued_together_are_read(vocab, text, names):
    low = text.lower()
    found = glued(low, match_entities(low, vocab), vocab)
    assert [text[m.start:m.end] for m in found] == names


@pytest.mark.parametrize("text", ["the data shows", "Using FP16BF16 here", "T4A10 comparison"])
def test_words_that_are_not_all_names_are_not_split(vocab, text):
    low = text.lower()
    assert glued(low, match_entities(low, vocab), vocab) == []


def test_a_yes_no_value_is_worded_in_chinese(gpukb):
    answer = gpukb.check("T4 原生支持 BF16。", "zh").to_json()
    c = next(c for c in answer["claims"] if c["attribute"] == "bf16_native")
    assert c["status"] == "incorrect"
    assert "否" in c["correction"]["zh"] and "false" not in c["correction"]["zh"] and "true" not in c["correction"]["zh"]
    assert "false" in c["correction"]["en"]          # English keeps the value as it is
    assert c["value_text"] == "是"
