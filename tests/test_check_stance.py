"""gpukb check reads what a sentence asserts: a question, a hypothesis or a denied figure is no claim; a
negated yes/no is the opposite value; a sparsity word qualifies the figure it stands beside; a stated
optimizer is carried into sizing; a table's "total" column is the instance's total. Sentences of our own
(never a gold passage's)."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.evals.real import PARTS, evaluate, load_spec, report_text, spec_files

ROOT = Path(__file__).resolve().parents[1]


def _claims(result, attribute=None):
    return [c for c in result["claims"] if attribute is None or c["attribute"] == attribute]


# -- questions, hypotheses and denials state nothing ----------------------------------------------------

@pytest.mark.parametrize("text, why", [
    ("Does the A40 have 24 GB of memory?", None),
    ("A40 的显存是 24 GB 吗？", None),
    ("I wonder whether the L40 has 96 GB.", None),
    ("If the A10 had 48 GB of memory, it could hold the model.", "condition"),
    ("如果 L4 的显存有 48 GB，就能跑 30B 模型。", None),          # its verdict stays, unclear
    ("假设 A10 的带宽为 900 GB/s，推理会更快。", "condition"),
    ("The A30 does not have 48 GB of memory.", "denied"),
    ("A30 的显存并不是 48 GB。", "denied"),
    ("L20 没有 96 GB 显存。", "denied"),
])
def test_asked_supposed_or_denied_figures_are_no_claims(gpukb, text, why):
    res = gpukb.check(text).to_json()
    assert not [c for c in _claims(res) if c["attribute"] in ("memory_gb", "memory_bandwidth")], res["claims"]
    assert res["wrong"] == []
    if why is not None:                 # listed as not checked (with the reason when a claim was read)
        assert res["not_understood"], res


@pytest.mark.parametrize("text, subject, value", [
    ("A40 不仅有 48 GB 显存，还支持 NVLink。", "gpu:A40", 48),          # "不仅" denies nothing
    ("The L40 has not only 48 GB of memory but also ECC.", "gpu:L40", 48),
    ("If you serve a 7B model, the A30 with its 24 GB of memory is enough.", "gpu:A30", 24),   # main clause
    ("The A10 has no less than 24 GB of memory.", "gpu:A10", 24),      # a bound, not a denial
])
def test_statements_next_to_negation_or_condition_words_are_kept(gpukb, text, subject, value):
    mem = [c for c in _claims(gpukb.check(text).to_json(), "memory_gb") if c["subject"] == subject]
    assert mem, gpukb.check(text).to_json()["claims"]
    assert str(value) in str(mem[0]["value"])
    assert mem[0]["status"] == "supported"


@pytest.mark.parametrize("text, subject, value, status", [
    ("L40S 不支持 FP8。", "gpu:L40S", False, "incorrect"),        # Ada supports FP8
    ("The A30 does not support FP8.", "gpu:A30", False, "supported"),  # Ampere does not
    ("The H100 PCIe supports FP8.", "gpu:H100-PCIe", True, "supported"),
])
def test_a_denied_yes_no_is_the_opposite_value(gpukb, text, subject, value, status):
    (c,) = _claims(gpukb.check(text).to_json(), "fp8_native")
    assert (c["subject"], c["value"], c["status"]) == (subject, value, status)


# -- sparsity, optimizer, totals, another attribute's figure ----------------------------------------------

def test_sparsity_before_the_second_figure(gpukb):
    res = gpukb.check("A30 的 INT8 Tensor 算力为 330 TOPS，稀疏时为 661 TOPS。").to_json()
    by_value = {c["value"]: c for c in _claims(res, "int8_tops")}
    assert not by_value[330.0]["qualifiers"].get("sparsity")
    assert by_value[661.0]["qualifiers"].get("sparsity") is True
    assert res["wrong"] == []


def test_a_stated_8bit_optimizer_is_sized_not_read_as_int8_weights(gpukb):
    res = gpukb.check("Full fine-tuning a 13B model in BF16 with 8-bit optimizers needs about 130 GB of VRAM.").to_json()
    (c,) = _claims(res, "memory_required")
    assert c["qualifiers"]["optimizer"] == "optimizer:adamw8bit"
    assert "precision:int8" not in (c["qualifiers"].get("precision") or [])


def test_a_total_column_is_the_instances_total_gpu_memory(gpukb):
    text = ("| Instance | GPU | GPUs | Total GPU memory |\n|---|---|---|---|\n"
            "| g5.24xlarge | NVIDIA A10G | 4 | 96 GB |\n| p3.8xlarge | NVIDIA V100 | 4 | 64 GB |\n")
    res = gpukb.check(text).to_json()
    totals = {c["subject"]: c for c in _claims(res, "gpu_memory_total_gb")}
    assert set(totals) == {"instance:g5.24xlarge", "instance:p3.8xlarge"}
    assert not [c for c in _claims(res, "memory_gb") if c["subject"].startswith("instance:")]
    assert res["wrong"] == []


def test_another_attributes_figure_among_several_is_unclear_not_wrong(gpukb):
    # 9.7 is the A100's plain FP64 rate and 19.5 its FP64 Tensor (and FP32) rate: the words decide, not gpukb
    res = gpukb.check("The A100 gives 9.7 TFLOPS of FP64 Tensor and 19.5 TFLOPS of FP64.").to_json()
    assert res["wrong"] == []
    # one figure alone that is another attribute's stays wrong (a dense BF16 rate given as TF32's)
    one = gpukb.check("The A40 delivers 149.7 TFLOPS of TF32 Tensor Core throughput without sparsity.").to_json()
    assert [c["attribute"] for c in one["claims"] if c["status"] == "incorrect"] == ["tf32_tensor_tflops"]


# -- the spec parts of `gpukb eval real` -------------------------------------------------------------------

def test_spec_parts_are_measured_and_heldout_rows_never_shown(gpukb):
    assert PARTS == ("dev", "heldout", "spec-dev", "spec")
    mine = [{"text": "The L40 has 48 GB of GDDR6 memory.", "lang": "en",
             "expect": [{"subject": "gpu:L40", "attribute": "memory_gb", "status": "supported"}]},
            {"text": "The L40 has 96 GB of memory.", "lang": "en",
             "expect": [{"subject": "gpu:L40", "attribute": "memory_gb", "status": "incorrect"}]},
            {"text": "Does the L40 have 96 GB?", "lang": "en", "expect": []}]
    rep = evaluate(gpukb, [], splits=("spec-dev", "spec"), spec={"spec-dev": mine, "spec": mine})
    for part in ("spec-dev", "spec"):
        m = rep["splits"][part]["measures"]
        assert m["right"] == 1.0 and m["error_recall"] == 1.0 and m["flag_precision"] == 1.0
        assert m["wrong_supported"] == 0.0
    assert rep["splits"]["spec"]["rows"] == []
    text = report_text(rep, verbose=True)
    assert "judged right" in text and "(held out)" in text


def test_the_dev_spec_gold_is_well_formed():
    files = spec_files(ROOT / "kb" / "gold", "spec-dev")
    st = [s for f in files for s in load_spec(f)]
    assert len(files) >= 2 and len(st) >= 30
    assert {s["lang"] for s in st} == {"en", "zh"}
    statuses = [e["status"] for s in st for e in s["expect"]]
    assert "supported" in statuses and "incorrect" in statuses


def test_real_passages_list_the_dev_claims_not_found_and_never_heldout_rows(gpukb):
    from gpukb.engine.evals.real import evaluate

    text = "The L40 has 48 GB of memory. It was launched in a year we do not name."
    claims = [{"quote": "The L40 has 48 GB of memory", "subject": "gpu:L40", "attribute": "memory_gb", "label": "true",
               "span": (0, 27), "in_domain": True},
              {"quote": "It was launched", "subject": "gpu:L40", "attribute": "tdp_w", "label": "true",
               "span": (29, 44), "in_domain": True}]
    passages = [{"id": "MINE1", "split": "dev", "lang": "en", "text": text, "claims": claims},
                {"id": "MINE2", "split": "heldout", "lang": "en", "text": text, "claims": claims}]
    rep = evaluate(gpukb, passages, splits=("dev", "heldout"))
    rows = rep["splits"]["dev"]["rows"]
    assert [r["attribute"] for r in rows if r["kind"] == "not_found"] == ["tdp_w"]
    assert rep["splits"]["heldout"]["rows"] == []
    assert rep["splits"]["dev"]["measures"]["coverage"] == 0.5


def test_an_instances_sized_gpu_counts_as_its_memory_per_card(gpukb):
    # "p4d.24xlarge: 8× A100 80GB" says the p4d's cards are the 80 GB A100: gpukb's `gpu` claim of that variant
    # and a labeller's memory_gb 80 of the instance are one statement; another size or attribute is not
    from gpukb.engine.evals.real import evaluate

    text = "p4d.24xlarge: 8× A100 80GB."
    span = (0, len(text) - 1)
    def gold(value, attribute="memory_gb"):
        return [{"id": "MINE", "split": "dev", "lang": "en", "text": text, "claims": [
            {"quote": text[:-1], "subject": "instance:p4d.24xlarge", "attribute": attribute, "value": value,
             "label": "false", "span": span, "in_domain": True}]}]
    caught = evaluate(gpukb, gold(80), splits=("dev",))["splits"]["dev"]["counts"]
    assert caught["caught"] == 1 and caught["right_flags"] == 1, caught
    other = evaluate(gpukb, gold(40), splits=("dev",))["splits"]["dev"]["counts"]
    assert other.get("caught", 0) == 0 and other.get("right_flags", 0) == 0, other
    spec = [{"text": text, "lang": "en", "expect": [{"subject": "instance:p4d.24xlarge", "attribute": "memory_gb",
                                                     "status": "incorrect"}]}]
    m = evaluate(gpukb, [], splits=("spec-dev",), spec={"spec-dev": spec})["splits"]["spec-dev"]["measures"]
    assert m["error_recall"] == 1.0, m
