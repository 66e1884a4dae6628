"""A throughput may name its precision between its number and its unit ("989 BF16 TFLOPS", "624 INT8 TOPS"): the
figure is read, with that precision's attribute. Sentences written for these tests."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("text, attribute, value, status", [
    ("The H100 SXM delivers 989 BF16 TFLOPS.", "bf16_tensor_tflops", 989, "supported"),
    ("The A100 offers 624 INT8 TOPS.", "int8_tops", 624, "supported"),
    ("The A10 gives 250 TF32 TFLOPS.", "tf32_tensor_tflops", 250, "incorrect"),
    ("T4 的算力为 65 FP16 TFLOPS。", "fp16_tensor_tflops", 65, "supported"),
])
def test_a_precision_between_number_and_unit_names_the_attribute(gpukb, text, attribute, value, status):
    got = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute]
    assert got and got[0]["value"] == value and got[0]["status"] == status, gpukb.check(text).to_json()["claims"]
