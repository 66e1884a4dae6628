"""A component's generation written after its name ("Tensor Cores of the third generation", "Tensor Cores
(3rd Gen)", "Tensor Core（第四代）") is read like the ordinal before it. Sentences written for these tests."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("text, value, status", [
    ("The RTX 4090 has Tensor Cores from the third generation.", 3.0, "incorrect"),
    ("The RTX 4090 has Tensor Cores of the 4th generation.", 4.0, "supported"),
    ("RTX 4090: 512 Tensor Cores (3rd Gen)", 3.0, "incorrect"),
    ("H100 的 Tensor Core（第四代）", 4.0, "supported"),
])
def test_an_ordinal_after_the_component(gpukb, text, value, status):
    c = next(c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == "tensor_core_generation")
    assert (c["value"], c["status"]) == (value, status), c


def test_an_ordinal_of_another_component_is_not_read(gpukb):
    claims = gpukb.check("The A100 has Tensor Cores, and second generation RT cores are absent.").to_json()["claims"]
    assert not [c for c in claims if c["attribute"] == "tensor_core_generation"]
