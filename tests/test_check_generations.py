"""A component's generation ("third-generation Tensor Cores", "第四代 NVLink") and a text value in a table
cell whose row label names its attribute ("| Architecture | Volta | Ampere |") are read and checked.
Sentences and tables written for these tests, not taken from any gold passage."""
from __future__ import annotations

import pytest


def _read(gpukb, text: str, attribute: str) -> dict[str, dict]:
    return {c["subject"]: c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute}


@pytest.mark.parametrize("text,attribute,subject,value,status", [
    ("The A100 brings third-generation Tensor Cores.", "tensor_core_generation", "gpu:A100", 3, "supported"),
    ("The L4 has fifth-generation Tensor Cores.", "tensor_core_generation", "gpu:L4", 5, "incorrect"),
    ("H100 采用第四代 NVLink。", "nvlink_generation", "gpu:H100", 4, "supported"),
    ("The T4 has 320 2nd-gen Tensor Cores.", "tensor_core_generation", "gpu:T4", 2, "supported"),
])
def test_an_ordinal_before_a_component_is_its_generation(gpukb, text, attribute, subject, value, status):
    c = _read(gpukb, text, attribute)[subject]
    assert c["value"] == value and c["status"] == status, c


@pytest.mark.parametrize("text", [
    "The A100 has third-generation RT cores.",                 # not a component gpukb knows the generation of
    "Third-generation Tensor Cores arrived with Ampere.",      # no product named
])
def test_no_generation_without_its_component_and_product(gpukb, text):
    assert not _read(gpukb, text, "tensor_core_generation")


def test_table_cells_give_text_values_and_generations_by_their_row_label(gpukb):
    text = ("| Spec | NVIDIA T4 | NVIDIA A10 |\n|---|---|---|\n| Architecture | Turing | Hopper |\n"
            "| Tensor Cores | 2nd Generation | 3rd Generation |\n| Notes | Ampere-class drivers | fast |\n")
    arch = _read(gpukb, text, "architecture")
    assert arch["gpu:T4"]["status"] == "supported" and arch["gpu:A10"]["status"] == "incorrect", arch
    assert arch["gpu:A10"]["value"] == "Hopper"          # "Ampere-class drivers": its label names no architecture
    gen = _read(gpukb, text, "tensor_core_generation")
    assert {s: c["value"] for s, c in gen.items()} == {"gpu:T4": 2, "gpu:A10": 3}, gen
