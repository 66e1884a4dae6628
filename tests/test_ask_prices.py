"""Price questions (issue #32): an instance's on-demand hourly list price as a fact answer, two instances'
prices compared (cheaper = the lower price leads; prices in different currencies are never converted), an
instance without a price says why, and questions that only use a price word in another sense keep their kind."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from gpukb.engine.ask.parser import parse_question

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vocab(gpukb):
    return gpukb.kb.vocab


@pytest.mark.parametrize("question, subject", [
    ("How much does g5.xlarge cost per hour?", "instance:g5.xlarge"),
    ("g5.xlarge 每小时多少钱", "instance:g5.xlarge"),
    ("What is the hourly price of GN8.LARGE56?", "instance:GN8.LARGE56"),
    ("what's the on-demand pricing for GN7.2XLARGE32", "instance:GN7.2XLARGE32"),
    ("How much is GN7.LARGE20 per hour?", "instance:GN7.LARGE20"),
    ("GN7.2XLARGE32 的价格是多少", "instance:GN7.2XLARGE32"),
    ("GN7.LARGE20 单价", "instance:GN7.LARGE20"),
    ("租一台 GN7.5XLARGE80 一小时要几块钱？", "instance:GN7.5XLARGE80"),
    ("What is the hourly rate of GN7.2XLARGE32?", "instance:GN7.2XLARGE32"),
])
def test_a_price_question_is_a_fact_question_about_the_price(vocab, question, subject):
    p = parse_question(question, vocab)
    assert p.kind == "fact", question
    assert p.fact["subject"] == subject and p.fact["attribute"] == "price_hourly_usd"


@pytest.mark.parametrize("question, order", [
    ("Which is cheaper, g5.xlarge or g4dn.xlarge?", "less"),
    ("g5.xlarge 和 g4dn.xlarge 哪个更便宜", "less"),
    ("Which is more expensive, g5.xlarge or g4dn.xlarge?", "more"),
    ("g5.xlarge 和 g4dn.xlarge 哪个更贵", "more"),
    ("Which costs less per hour: GN7.2XLARGE32 or GN7.5XLARGE80?", "less"),
    ("is GN7.2XLARGE32 less expensive than GN7.5XLARGE80", "less"),
    ("GN7.2XLARGE32 和 GN8.LARGE56 谁的价格低", "less"),
    ("which is pricier, GN7.2XLARGE32 or GN8.LARGE56", "more"),
])
def test_which_is_cheaper_compares_the_prices(vocab, question, order):
    p = parse_question(question, vocab)
    assert p.kind == "fact_comparison", question
    assert p.fact["attribute"] == "price_hourly_usd" and p.fact["order"] == order


@pytest.mark.parametrize("question", [
    "Is the T4 cost-effective for 7B inference?",          # value for money, and a workload: sizing
    "What does it cost in memory to fine-tune 13B?",        # a cost in memory, not money
    "How much does GN7.2XLARGE32 cost per month in USD?",  # the KB has hourly list prices only (gold: unknown)
    "Is GN7.2XLARGE32 cost-effective?",
    "GN7.2XLARGE32 性价比怎么样",
    "GN7.2XLARGE32 包月多少钱",
    "What is the spot price of GN7.2XLARGE32?",
    "What is the memory cost of GN7.2XLARGE32?",
    "What is the network rate of GN7.2XLARGE32?",           # a rate that is no price
    "GN7.2XLARGE32 一个月多少钱",                             # a month's price
    "Which is cheaper to run 7B LoRA, T4 or A10?",          # a workload compared: the sizing comparison
    "What is the cheapest GN7 size that can QLoRA a 7B model?",
])
def test_other_senses_of_price_words_are_not_price_questions(vocab, question):
    p = parse_question(question, vocab)
    assert not (p.fact and p.fact.get("attribute", "").startswith("price_hourly")), question


def test_a_priced_instance_answers_with_its_price_region_date_and_citation(gpukb):
    a = gpukb.ask("How much does GN7.2XLARGE32 cost per hour?").to_json()
    assert a["kind"] == "fact" and a["fact"]["attribute"] == "price_hourly_usd"
    assert a["fact"]["value"] == 1.26 and a["fact"]["unit"] == "USD/h"
    assert "ap-guangzhou, as of 2023-06-30" in a["answer"] and "1.26 USD/h" in a["answer"]
    assert a["support"] and "intl.cloud.tencent.com" in a["support"][0]["citation"]
    zh = gpukb.ask("GN7.2XLARGE32 每小时多少钱").to_json()
    assert zh["kind"] == "fact" and zh["fact"]["value"] == 1.26 and "按量付费小时单价" in zh["answer"]


def test_an_instance_without_a_price_says_why(gpukb):
    a = gpukb.ask("How much does ecs.gn7i-c8g1.2xlarge cost per hour?").to_json()     # Alibaba: unpriced
    assert a["kind"] == "fact" and a["fact"]["value"] is None
    assert "Alibaba Cloud's ECS pricing page" in a["fact"]["reason"] and "Alibaba Cloud's ECS pricing page" in a["answer"]
    zh = gpukb.ask("ecs.gn7i-c8g1.2xlarge 每小时多少钱").to_json()
    assert zh["kind"] == "fact" and "阿里云 ECS 价格页" in zh["answer"] and "。。" not in zh["answer"]


def test_cheaper_means_the_lower_price_leads(gpukb):
    a = gpukb.ask("Which is cheaper, GN7.2XLARGE32 or GN8.LARGE56?").to_json()
    assert a["kind"] == "fact_comparison" and a["order"] == "less"
    assert {c["named"]: c["facts"][0]["value"] for c in a["compared"]} == {"instance:GN7.2XLARGE32": 1.26,
                                                                          "instance:GN8.LARGE56": 2.45}
    assert a["leader"] == "instance:GN7.2XLARGE32" and a["strict"] is True and "lower" in a["answer"]
    b = gpukb.ask("GN7.2XLARGE32 和 GN8.LARGE56 哪个更贵").to_json()
    assert b["order"] == "more" and b["leader"] == "instance:GN8.LARGE56" and "更高" in b["answer"]


def test_aws_sizes_priced_since_2026_12_31_compare_with_a_leader(gpukb):
    a = gpukb.ask("Which is cheaper, g5.xlarge or g4dn.xlarge?").to_json()
    assert a["kind"] == "fact_comparison" and a["leader"] == "instance:g4dn.xlarge"
    assert {c["named"]: c["facts"][0]["value"] for c in a["compared"]} == {"instance:g5.xlarge": 1.006,
                                                                          "instance:g4dn.xlarge": 0.526}
    assert "us-east-1, as of 2023-12-13" in a["answer"]


def test_unpriced_instances_are_compared_without_a_leader(gpukb):
    a = gpukb.ask("Which is cheaper, ecs.gn7i-c8g1.2xlarge or ecs.gn6i-c4g1.xlarge?").to_json()
    assert a["kind"] == "fact_comparison" and a["leader"] is None
    assert all(c["facts"][0]["value"] is None and "not published" in c["facts"][0]["reason"] for c in a["compared"])


@pytest.fixture(scope="module")
def cny_kb(tmp_path_factory):
    """The KB with one instance priced in CNY (a hypothetical figure, only for the comparison's logic)."""
    from gpukb.engine.service.state import GpuKB
    kb = tmp_path_factory.mktemp("cny") / "kb"
    shutil.copytree(ROOT / "kb", kb)
    fact = {"id": "R-test-cny-price", "version": 1, "subject": "instance:ecs.gn7i-c8g1.2xlarge",
            "attribute": "price_hourly_cny", "value": 10.0, "unit": "CNY/h",
            "qualifiers": {"region": "cn-hangzhou", "as_of": "2026-01-01"},
            "citation": "https://www.aliyun.com/price/product#/ecs/detail", "confidence": "low"}
    (kb / "reference" / "zz_test_cny.yaml").write_text(yaml.safe_dump({"facts": [fact]}, allow_unicode=True), encoding="utf-8")
    return GpuKB(kb, ROOT / "rules")


def test_prices_in_different_currencies_are_both_given_and_never_converted(cny_kb):
    a = cny_kb.ask("Which is cheaper, GN7.2XLARGE32 or ecs.gn7i-c8g1.2xlarge?").to_json()
    assert a["kind"] == "fact_comparison" and a["leader"] is None
    got = {c["named"]: (c["facts"][0]["attribute"], c["facts"][0]["value"]) for c in a["compared"]}
    assert got == {"instance:GN7.2XLARGE32": ("price_hourly_usd", 1.26),
                   "instance:ecs.gn7i-c8g1.2xlarge": ("price_hourly_cny", 10.0)}
    assert "different currencies" in a["answer"] and "CNY/h" in a["answer"] and "USD/h" in a["answer"]
    assert "(USD)" not in a["answer"]                       # the label names no one currency
    assert "币种不同" in a["summary"]["zh"]
    one = cny_kb.ask("How much does ecs.gn7i-c8g1.2xlarge cost per hour?").to_json()
    assert one["fact"]["attribute"] == "price_hourly_cny" and one["fact"]["value"] == 10.0   # the instance's own currency


# -- tensor-core precisions: every GPU has its cited list, and "Does X support Y?" is answered yes or no --------

def test_every_gpu_has_its_tensor_core_precisions_or_a_reason(gpukb):
    from gpukb.engine.kb import names
    view, vocab = gpukb.view(None), gpukb.kb.vocab
    for g in names.known(vocab, "gpu"):
        if vocab.entities[g].get("variants"):
            continue
        f = view.ref(g, "tensor_core_precisions") or view.ref(vocab.generic(g), "tensor_core_precisions")
        if f is None:
            assert any(u.subject == g and u.attribute == "tensor_core_precisions" and u.reason for u in gpukb.kb.unknowns), g
            continue
        assert f.citation and "nvidia" in f.citation.lower() and "kb/" not in f.citation, g
        assert "precision:fp16" in f.value, g                      # every tensor core since Volta runs FP16


@pytest.mark.parametrize("gpu, has, lacks", [
    ("V100-32GB", ["fp16"], ["int8", "bf16"]),
    ("A100-80GB", ["fp64", "tf32", "bf16", "int4"], ["fp8"]),
    ("A10", ["tf32", "bf16", "int8", "int4"], ["fp64", "fp8"]),
    ("L4", ["fp8", "bf16"], ["fp64", "fp4"]),
    ("H100-80GB", ["fp64", "fp8", "int8"], ["int4", "fp4"]),
    ("B200", ["fp8", "fp6", "fp4"], ["int4"]),
])
def test_the_lists_follow_the_architecture(gpukb, gpu, has, lacks):
    f = gpukb.view(None).ref(f"gpu:{gpu}", "tensor_core_precisions")
    assert all(f"precision:{p}" in f.value for p in has) and not any(f"precision:{p}" in f.value for p in lacks)


def test_a_yes_no_precision_question_answers_from_the_cited_list(gpukb):
    yes = gpukb.ask("Does the H100 support FP8?").to_json()
    assert yes["kind"] == "fact" and yes["fact"]["attribute"] == "tensor_core_precisions"
    assert yes["holds"] is True and yes["asks"] == ["FP8"] and yes["answer"].startswith("Yes.")
    assert "datasheet" in yes["support"][0]["citation"]
    no = gpukb.ask("Does the A100 support FP8?").to_json()
    assert no["holds"] is False and no["answer"].startswith("No: FP8") and "fp16" in no["answer"]
    zh = gpukb.ask("H100 支持 FP8 吗").to_json()
    assert zh["holds"] is True and zh["answer"].startswith("是")
    fam = gpukb.ask("Does GN7 support INT4?").to_json()          # a family: its GPU's list, cited
    assert fam["holds"] is True and len(fam["support"]) == 2
    assert "holds" not in gpukb.ask("What precisions does the L4 support?").to_json()   # no value asked: the list
    bf16 = gpukb.ask("T4 支持 BF16 吗").to_json()                 # BF16 stays the native-support fact: no
    assert bf16["fact"]["attribute"] == "bf16_native" and bf16["fact"]["value"] is False


def test_list_only_precisions_are_not_read_in_texts(gpukb):
    from gpukb.engine.kb.lexicon import match_entities
    vocab = gpukb.kb.vocab
    # a text's "FP8" stays the throughput and support words it was (no workload precision FP8)
    assert not [m for m in match_entities("the h100 runs fp8 at 1979 tflops", vocab) if m.kind == "precision"]
    assert vocab.named_in("does the b200 support fp4 and float8?", "precision") == ["precision:fp4", "precision:fp8"]
    assert vocab.named_in("fp80 and xfp8", "precision") == []
