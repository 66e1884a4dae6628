"""`check` reads a value heading a parenthesised list of products as each product's ("Ampere (A100/A800)"),
gives a change's target figure, not its start, to the product the clause leaves open, and ends an English
sentence at a stop that carries citation marks ("… on the T4.[3][5] Next …"). Sentences written for these
tests, not taken from any gold passage."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "inconsistent_with_derivation", "misattributed"}


def _claims(gpukb, text: str, attribute: str) -> dict[str, dict]:
    return {c["subject"]: c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute}


@pytest.mark.parametrize("text", [
    "The lineage runs Volta (V100), Ampere (A100/A800) and Hopper (H100, H800).",
    "架构演进：Volta(V100)、Ampere架构(A100/A800)、Hopper架构(H100、H800)。",
])
def test_each_product_of_the_list_gets_the_architecture(gpukb, text):
    got = _claims(gpukb, text, "architecture")
    assert {s: c["value"] for s, c in got.items()} == {
        "gpu:V100": "Volta", "gpu:A100": "Ampere", "gpu:A800": "Ampere", "gpu:H100": "Hopper", "gpu:H800": "Hopper"}
    assert all(c["status"] == "supported" for c in got.values()), got


@pytest.mark.parametrize("text", [
    "Blackwell (B200/H200) is the newest generation.",
    "最新一代是 Blackwell 架构（B200、H200）。",
])
def test_a_product_listed_under_the_wrong_architecture_is_wrong(gpukb, text):
    got = _claims(gpukb, text, "architecture")
    assert got["gpu:B200"]["status"] == "supported", got
    assert got["gpu:H200"]["status"] in WRONG and "Hopper" in got["gpu:H200"]["findings"][0]["explanation"]["en"], got


@pytest.mark.parametrize("text", [
    "Hopper (H100 or the new chip) leads.",     # a list that is not only names gives nobody the value
    "Ampere (2020) brought TF32.",
])
def test_a_parenthesis_that_is_not_a_list_of_names_gives_no_one_the_value(gpukb, text):
    got = _claims(gpukb, text, "architecture")
    assert "gpu:A100" not in got and all(c["status"] not in WRONG for c in got.values()), got


def test_a_figure_that_starts_a_later_change_is_the_products_own(gpukb):
    text = "H20 的变化：显存带宽从4.0TB/s降至3.0TB/s，FP16算力从296 TFLOPS降至200 TFLOPS。"
    fp16 = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "fp16_tensor_tflops"
            and c["value"] == 296.0]
    assert fp16 and fp16[0]["status"] in WRONG, fp16
    assert "from_to" not in [u["code"] for u in fp16[0].get("unclear_because", [])]


def test_a_changes_target_in_a_clause_that_names_no_product_stays_unclear(gpukb):
    text = "这款 RTX 4090 的功耗低了 50W，另外显存从GDDR6X换成GDDR6。"
    (c,) = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "memory_type" and c["value"] == "GDDR6"]
    assert c["status"] == "unclear" and "from_to" in [u["code"] for u in c["unclear_because"]], c


def test_a_stop_with_citation_marks_ends_the_sentence():
    from gpukb.engine.text.tokens import sentences
    low = "the l4 draws 72 w while the t4 draws 70 w.[3][5] the a100 has 80 gb. see [2] above."
    got = [low[a:b] for a, b in sentences(low)]
    assert got == ["the l4 draws 72 w while the t4 draws 70 w.[3][5]", "the a100 has 80 gb.", "see [2] above."], got


@pytest.mark.parametrize("text, verdict, ok", [
    ("单卡 A100 80GB 可承载 70B 模型的 FP16 推理。", "sufficient", False),
    ("一张 RTX 4090 可以容纳 7B 模型的 FP16 推理。", "sufficient", True),
    ("The L4 can host a 7B model in FP16 for inference.", "sufficient", True),
    ("一张 T4 承载不了 70B 模型的 FP16 推理。", "insufficient", True),
    ("The T4 cannot accommodate a 70B model in FP16 for inference.", "insufficient", True),
])
def test_host_and_carry_words_state_a_memory_verdict(gpukb, text, verdict, ok):
    (c,) = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] in ("memory_verdict", "suitability")]
    assert c["value"] == verdict, c
    assert (c["status"] == "supported") is ok and (c["status"] in WRONG) is not ok, c


@pytest.mark.parametrize("text, subject, attribute, ok", [
    ("The A800 keeps the A100's 600 GB/s NVLink bandwidth.", "gpu:A800", "nvlink_bandwidth", False),   # A800: 400
    ("The H200 keeps the H100's 700W power envelope.", "gpu:H200", "tdp_w", True),
    ("L20 的 FP32 算力与 L40S 相同，都是约 91.6 TFLOPS。", "gpu:L20", "fp32_tflops", False),
    ("L20 的显存和 L40S 一样，都是 48GB。", "gpu:L20", "memory_gb", True),
    ("L20 vs L40S: the same 48GB of GDDR6 at 864 GB/s, but the L20 is a 275W card.", "gpu:L20", "memory_bandwidth", True),
])
def test_a_figure_said_to_be_the_same_for_two_products_is_each_ones(gpukb, text, subject, attribute, ok):
    got = _claims(gpukb, text, attribute)
    assert subject in got, got
    assert (got[subject]["status"] == "supported") is ok and (got[subject]["status"] in WRONG) is not ok, got


@pytest.mark.parametrize("text, absent", [
    ("L20 的功耗和 L40S 不一样，L40S 是 350W。", ("gpu:L20", "tdp_w")),            # denied: not the same
    ("The H100 SXM is the same Hopper chip and is ~3× faster than the A100.", ("gpu:A100", "performance_gain")),
    ("The A800 is the Ampere counterpart to the Hopper-based H800, introduced through the same strategy.",
     ("gpu:H800", "architecture")),                                          # "same" far from the figure
    ("L20 vs L40S: the same 48GB of GDDR6, but the L20 is a 275W card.", ("gpu:L40S", "tdp_w")),   # after "but"
])
def test_sameness_is_not_spread_where_it_is_denied_far_or_a_comparison(gpukb, text, absent):
    got = {(c["subject"], c["attribute"]): c for c in gpukb.check(text).to_json()["claims"]}
    assert absent not in got or got[absent]["status"] not in WRONG | {"supported"}, got.get(absent)


@pytest.mark.parametrize("text, subject, ok", [
    ("You can use a 24GB RTX 3090 or RTX 4090 for this.", "gpu:RTX-4090", True),
    ("Pick a 24GB RTX 4090 or A100 for the job.", "gpu:A100", False),
])
def test_a_size_before_a_list_of_cards_is_each_ones(gpukb, text, subject, ok):
    got = _claims(gpukb, text, "memory_gb")
    assert subject in got, got
    assert (got[subject]["status"] == "supported") is ok, got     # an A100 has no 24 GB card: never supported


def test_a_size_before_a_list_is_not_given_twice_to_a_sized_variant(gpukb):
    got = [c for c in gpukb.check("Rent an 80GB A100 or H100.").to_json()["claims"] if c["attribute"] == "memory_gb"]
    assert sorted(c["subject"] for c in got) == ["gpu:A100-80GB", "gpu:H100-80GB"], got


@pytest.mark.parametrize("text, subject, value", [
    ("The A100 is fast. It is based on the Ampere architecture.", "gpu:A100", "Ampere"),
    ("英伟达推出了 H20 和 H800。这两款芯片均基于 Hopper 架构。", "gpu:H20", "Hopper"),
])
def test_a_pronoun_names_the_product_an_architecture_is_said_of(gpukb, text, subject, value):
    got = _claims(gpukb, text, "architecture")
    assert got[subject]["value"] == value and got[subject]["status"] in ("supported", "unclear"), got


def test_an_architecture_spoken_of_without_a_product_is_no_claim(gpukb):
    assert _claims(gpukb, "Hopper 架构首次引入 Transformer 引擎。", "architecture") == {}
