"""A figure for something the vendor says a product does not have (kb/reference unknowns of kind
``not_applicable``) is incorrect, with the vendor's document cited (rule audit.ref.not_applicable); a
figure the product does have is judged against its reference value as before."""
from __future__ import annotations

import pytest

from tests._engine import checked


def _status(gpukb, text: str, lang: str = "en") -> list[dict]:
    return checked(gpukb, text, lang=lang)


@pytest.mark.parametrize("text, cite", [
    ("The Tesla T4 offers 260 TFLOPS of FP8 compute.", "Turing"),
    ("An A100 delivers about 600 TFLOPS in FP8.", "A100"),          # generic: every variant lacks FP8
    ("The H100 SXM reaches 3,958 TOPS of INT4.", "Hopper"),
])
def test_a_rate_for_a_mode_the_card_lacks_is_incorrect_and_cites_the_vendor(gpukb, text, cite):
    claims = _status(gpukb, text)
    assert [c["status"] for c in claims] == ["incorrect"], claims
    why = claims[0]["findings"][0]["explanation"]["en"]
    assert "has no" in why and cite in why, why


def test_a_rate_the_card_has_is_not_called_missing(gpukb):
    claims = _status(gpukb, "The H100 SXM delivers 1,979 TFLOPS of FP8 with sparsity.")
    assert claims and all("has no" not in str(c) for c in claims), claims


def test_the_proof_ends_in_the_vendor_statement_and_zh_is_chinese(gpukb):
    en = _status(gpukb, "The Tesla T4 offers 260 TFLOPS of FP8 compute.")
    proof = gpukb.explain(en[0]["findings"][0]["id"]).to_json()
    leaves = [p for p in proof["tree"]["premises"] if p.get("type") == "na"]
    assert leaves and leaves[0]["tier"] == "reference" and "Turing" in leaves[0]["citation"]
    zh = _status(gpukb, "T4 的 FP8 算力为 260 TFLOPS。", lang="zh")
    assert zh[0]["status"] == "incorrect"
    why = zh[0]["findings"][0]["explanation"]["zh"]
    assert "不具备" in why and "tensor cores have no" not in why, why


def test_the_vendor_statement_is_explained_by_its_id(client, error_shape):
    r = client.get("/v1/conclusions/NA-T4-fp8_tensor_tflops")
    assert r.status_code == 200, r.get_json()
    tree = r.get_json()["tree"]
    assert tree["tier"] == "reference" and "Turing" in tree["citation"] and "FP8" in tree["label"]["en"]
    error_shape(client.get("/v1/conclusions/NA-T4-no_such_attribute").get_json(), 404)
