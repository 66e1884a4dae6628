"""Fact questions that compare products ("Which has more memory, the A100 or the H100?"): each product's
reference value with its citation, and which is higher or lower only when the values decide it."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.ask.facts import _leader
from gpukb.engine.ask.parser import parse_question
from gpukb.engine.kb.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(Path(__file__).parents[1] / "kb" / "vocabulary.yaml")


@pytest.mark.parametrize("question, subjects, attribute, order", [
    ("Which has more memory, the A100 or the H100?", ["gpu:A100", "gpu:H100"], "memory_gb", "more"),
    ("A100 和 H100 哪个显存更大", ["gpu:A100", "gpu:H100"], "memory_gb", "more"),
    ("Which has lower TDP, the L4 or the T4?", ["gpu:L4", "gpu:T4"], "tdp_w", "less"),
    ("GN7 和 GN8 的显存哪个小", ["family:GN7", "family:GN8"], "memory_gb", "less"),
    ("memory bandwidth of the A100 80GB vs the A100 40GB", ["gpu:A100-80GB", "gpu:A100-40GB"], "memory_bandwidth", "more"),
])
def test_a_fact_question_naming_several_products_is_a_comparison(vocab, question, subjects, attribute, order):
    p = parse_question(question, vocab)
    assert p.kind == "fact_comparison"
    assert p.compared == {"subjects_compared": subjects}
    assert p.fact["attribute"] == attribute and p.fact["order"] == order
    assert p.as_dict()["subjects_compared"] == subjects


@pytest.mark.parametrize("question", [
    "How much memory does the T4 have?",
    "T4 or A10 for 7B LoRA?",                       # a workload: the sizing comparison, not a fact one
    "What GPU does GN7 use?",
])
def test_one_product_or_a_workload_is_not_a_fact_comparison(vocab, question):
    assert parse_question(question, vocab).kind != "fact_comparison"


def test_an_instance_named_beside_its_gpu_is_not_compared_with_it(vocab):
    # one family and one GPU: the family is what is asked about, nothing is compared
    assert parse_question("How much memory do the A100s in GT4 have?", vocab).kind == "fact"


def test_the_leader_is_beyond_every_variant_or_there_is_none():
    a = [(40.0, 40.0), (80.0, 80.0)]
    h = [(80.0, 80.0)]
    assert _leader([("A", a), ("H", h)], "more") == ("H", False)          # equal for one variant
    assert _leader([("A", a), ("H", [(94.0, 94.0)])], "more") == ("H", True)
    assert _leader([("A", a), ("H", [(60.0, 60.0)])], "more") == (None, False)   # overlap: undecided
    assert _leader([("A", h), ("H", h)], "more") == (None, False)         # a tie
    assert _leader([("A", [(70.0, 70.0)]), ("B", [(72.0, 72.0)])], "less") == ("A", True)


def test_the_answer_cites_each_value_and_names_the_higher(gpukb):
    a = gpukb.ask("Which has more memory, the GN7 or the GN8?").to_json()
    assert a["kind"] == "fact_comparison" and a["attribute"] == "memory_gb"
    assert [c["named"] for c in a["compared"]] == ["family:GN7", "family:GN8"]
    values = {c["named"]: [f["value"] for f in c["facts"]] for c in a["compared"]}
    assert values == {"family:GN7": [16], "family:GN8": [24]}
    assert a["leader"] == "family:GN8" and a["strict"] is True and a["order"] == "more"
    assert all(s["citation"] for s in a["support"]) and len(a["support"]) >= 2
    assert "[1" in a["answer"] and "higher" in a["answer"]
    assert "更高" in a["summary"]["zh"]


def test_variants_that_differ_are_each_shown_and_a_tie_is_said(gpukb):
    a = gpukb.ask("Which has more memory, the A100 or the H100?").to_json()
    a100 = next(c for c in a["compared"] if c["named"] == "gpu:A100")
    assert sorted(f["value"] for f in a100["facts"]) == [40, 80]       # both sizes, not the smaller one alone
    assert a["leader"] == "gpu:H100" and a["strict"] is False and "equal for some variants" in a["answer"]
    tie = gpukb.ask("Which has more memory, the A100 80GB or the H100 SXM?").to_json()
    assert tie["kind"] == "fact_comparison" and tie["leader"] is None


def test_asking_for_the_lower_value(gpukb):
    a = gpukb.ask("Which has lower TDP, the L4 or the T4?").to_json()
    watts = {c["named"]: c["facts"][0]["value"] for c in a["compared"]}
    low = min(watts, key=watts.get)
    assert a["order"] == "less" and a["leader"] == low and "lower" in a["answer"]


def test_a_value_missing_from_the_reference_decides_nothing(gpukb):
    a = gpukb.ask("Which has more memory, the T4 or the GN7.LARGE20?").to_json()
    # a GPU and an instance: not one kind, so not compared
    assert a["kind"] != "fact_comparison"


def test_the_api_serves_it_with_its_schema(client):
    r = client.get("/v1/ask", query_string={"q": "A100 和 H100 哪个显存更大"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["kind"] == "fact_comparison" and body["lang"] == "zh" and "对比" in body["answer"]
    spec = client.get("/openapi.json").get_json()
    assert "FactComparisonAnswer" in spec["components"]["schemas"]


def test_the_cli_mcp_and_page_show_each_value_with_its_reference(gpukb, client, cli):
    from gpukb.server import mcp_text
    code, out, _ = cli("ask", "Which has lower TDP, the L4 or the T4?")
    assert code == 0 and "gpu:L4:" in out and "gpu:T4:" in out and "[2]" in out
    text = mcp_text.answer(gpukb.ask("Which has lower TDP, the L4 or the T4?").to_json())
    assert "fact: R-" in text and "lower" in text
    page = client.get("/", query_string={"q": "Which has lower TDP, the L4 or the T4?"}).get_data(as_text=True)
    assert 'class="compared"' in page and "data-leader" in page


def test_a_value_stated_per_configuration_is_given_for_each(gpukb):
    # the vendor gives the H800's bandwidth for SXM and for PCIe: neither stands for both
    one = gpukb.ask("What is the memory bandwidth of the H800?").to_json()
    assert one["kind"] == "fact" and one["fact"]["qualifiers"]
    stated = {s["id"] for s in one["support"] if s.get("type") == "reference"}
    assert len(stated) == 2 and "Also" in one["answer"]
    both = gpukb.ask("Compare the memory bandwidth of the H100 and the H800").to_json()
    h800 = next(c for c in both["compared"] if c["named"] == "gpu:H800")
    assert sorted(f["qualifiers"]["form_factor"] for f in h800["facts"]) == ["PCIe", "SXM"]
    assert both["leader"] is None          # the configurations overlap: nothing is decided


@pytest.mark.parametrize("question, attribute", [
    ("What is the FP8 TFLOPS of the H100?", "fp8_tensor_tflops"),      # no FP32 or FP16 figure
    ("H100 的 BF16 算力是多少", "bf16_tensor_tflops"),                     # no yes/no question of BF16 support
    ("What is the TF32 performance of the A100?", "tf32_tensor_tflops"),
    ("A100 的双精度算力", "fp64_tflops"),
    ("When was the L4 released?", "launch_year"),
    ("What process node is the H100 built on?", "process_node"),
    ("How many MIG instances does the A100 support?", "mig_max_instances"),
    ("Does the T4 support BF16?", "bf16_native"),
])
def test_a_named_precision_or_spec_word_picks_its_attribute(vocab, question, attribute):
    p = parse_question(question, vocab)
    assert p.kind == "fact" and p.fact["attribute"] == attribute


def test_earlier_asks_for_the_lower_year(vocab):
    p = parse_question("Which launched earlier, the V100 or the A100?", vocab)
    assert p.kind == "fact_comparison" and p.fact == {"subject": "gpu:V100-16GB", "attribute": "launch_year", "order": "less"}
