"""A price asked of a GPU ("How much does an A100 cost?"): the KB prices renting an instance, so the answer
compares the hourly list prices of the instances that carry the GPU, the priced ones first and the cheapest
leading, and says in a note that it answers with instances; a GPU no priced instance carries gets those
instances with the reason each has no price. Questions written for these tests."""
from __future__ import annotations

import pytest

from gpukb.engine.catalog import inventory as inv


@pytest.mark.parametrize("question, lang", [("How much does a T4 cost per hour?", "en"), ("T4 多少钱一小时？", "zh"),
                                            ("What is the price of a V100?", "en")])
def test_a_gpus_price_is_its_instances_cheapest_first(gpukb, question, lang):
    a = gpukb.ask(question).to_json()
    assert a["kind"] == "fact_comparison", a
    view = gpukb.view()
    gpu = a["assumed"][0]["value"]
    own = {gpu, *(view.kb.vocab.entities[gpu].get("variants") or ())}
    prices = []
    for c in a["compared"]:
        assert own & set(inv.gpus_of(view, c["named"])), c          # each carries the GPU asked
        values = [f["value"] for f in c["facts"] if f.get("value") is not None]
        assert values, c                                             # priced ones only, when there are any
        prices.append(min(values))
    assert prices == sorted(prices) and a["leader"] == a["compared"][0]["named"], a
    assert a["support"] and all(s["citation"] for s in a["support"])
    note = a["assumed"][0]["text"]
    assert ("instances" in note) if lang == "en" else ("实例" in a["answer"]), a


def test_a_gpu_no_priced_instance_carries_gets_the_reasons(gpukb):
    a = gpukb.ask("How much does a P100 cost?").to_json()     # only Alibaba's unpriced gn5 sizes carry it (2026.12.31)
    assert a["kind"] == "fact_comparison" and a["leader"] is None, a
    assert a["compared"] and all(f.get("value") is None and f.get("reason") for c in a["compared"] for f in c["facts"]), a
    assert "0 of the" in a["assumed"][0]["text"]


def test_a_price_of_an_instance_is_still_that_instances(gpukb):
    a = gpukb.ask("How much does GN7.2XLARGE32 cost per hour?").to_json()
    assert a["kind"] == "fact" and "assumed" not in a, a


def test_cost_effectiveness_is_no_price_question(gpukb):
    assert gpukb.ask("Is the T4 cost-effective?").to_json()["kind"] != "fact_comparison"
