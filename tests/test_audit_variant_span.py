"""A generic product's reference range is the span of its variants' figures (R-A100-memory_gb: 40-80 GB, the
40 GB and 80 GB cards), not a continuum: a single figure said of the product must be one variant's figure
(rules/audit/reference.yaml, audit.ref.variant_span.*). A range or a bound keeps the span's reading, and a
claim about a variant is judged on the variant's own figure. Sentences written for these tests."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpukb.engine.audit.functions import nearest_figure, variant_figure
from gpukb.engine.core.errors import ValidationError
from gpukb.engine.kb.loader import load_kb

KB = Path(__file__).resolve().parents[1] / "kb"
WRONG = ("incorrect", "unclear")


def _claims(gpukb, text: str, attribute: str) -> list[dict]:
    return [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] == attribute]


@pytest.mark.parametrize("text", [
    "The A100 has 52 GB of memory.",
    "A100 显存为 52GB",
    "NVIDIA 的 A100 配备 60 GB 显存。",
])
def test_a_figure_between_the_variants_of_a_generic_gpu_is_incorrect(gpukb, text):
    (c,) = _claims(gpukb, text, "memory_gb")
    assert c["subject"] == "gpu:A100" and c["status"] == "incorrect", c
    (f,) = [f for f in c["findings"] if f["kind"] == "incorrect"]
    assert f["rule"].startswith("audit.ref.variant_span.none@")
    # the explanation names every variant's figure, in both languages; the evidence is a variant's own fact
    for lang in ("en", "zh"):
        assert "40 GB" in f["explanation"][lang] and "80 GB" in f["explanation"][lang], f["explanation"]
        assert "A100 40GB" in f["explanation"][lang] and "A100 80GB" in f["explanation"][lang]
    assert f["evidence"][0].startswith(("R-A100-40GB-memory_gb@", "R-A100-80GB-memory_gb@")), f
    assert "R-A100-memory_gb@1" not in f["evidence"]
    # the correction gives a real card's figure, not the span (which 52 GB lies within)
    for lang in ("en", "zh"):
        assert "40 GB" in c["correction"][lang] or "80 GB" in c["correction"][lang], c["correction"]
        assert "40–80" not in c["correction"][lang]


@pytest.mark.parametrize("text", [
    "The A100 has 80 GB of memory.",
    "The A100 comes with 40 GB of HBM2 memory.",
    "A100 显存为 80GB。",
])
def test_a_variants_own_figure_said_of_the_generic_gpu_is_not_wrong(gpukb, text):
    (c,) = _claims(gpukb, text, "memory_gb")
    assert c["status"] not in WRONG, c


@pytest.mark.parametrize("text,attribute", [
    ("The A100 has 40–80 GB of memory.", "memory_gb"),
    ("The A100 has up to 80 GB of memory.", "memory_gb"),
    ("The A100 is sold with 40GB/80GB of memory.", "memory_gb"),
    ("A100 显存为 40GB/80GB。", "memory_gb"),
    ("The A100 offers 1.6–2.0 TB/s of memory bandwidth.", "memory_bandwidth"),
    ("A100 的显存带宽为 1.6-2TB/s。", "memory_bandwidth"),
])
def test_a_range_or_a_bound_keeps_the_span(gpukb, text, attribute):
    cs = _claims(gpukb, text, attribute)
    assert cs and all(c["status"] not in WRONG for c in cs), cs
    for c in cs:
        if c["subject"] == "gpu:A100":        # said of the generic GPU: read against the span, as before
            assert c["status"] == "supported" and not [f for f in c["findings"] if "variant_span" in f["rule"]], c


def test_a_middle_variant_figure_is_supported(gpukb):
    # the A100 80GB PCIe's 1,935 GB/s lies strictly inside the span 1,555-2,039 GB/s: a variant's own figure
    for text in ("The A100 has 1,935 GB/s of memory bandwidth.", "A100 的显存带宽为 1935GB/s。"):
        (c,) = _claims(gpukb, text, "memory_bandwidth")
        assert c["subject"] == "gpu:A100" and c["status"] == "supported", c
        (f,) = [f for f in c["findings"] if f["rule"].startswith("audit.ref.variant_span.agrees@")]
        assert f["evidence"][0].startswith("R-A100-80GB-memory_bandwidth-pcie@"), f


def test_a_bandwidth_no_a100_has_is_incorrect(gpukb):
    # more than 10% from each variant's figure (1,555, 1,935 and 2,039 GB/s)
    (c,) = _claims(gpukb, "The A100 has 1.72 TB/s of memory bandwidth.", "memory_bandwidth")
    assert c["status"] == "incorrect", c
    text = c["findings"][0]["explanation"]["en"]
    assert all(x in text for x in ("1555 GB/s", "1935 GB/s", "2039 GB/s")), text


def test_the_sxm_figure_said_of_the_h100_agrees_with_the_sxm_card(gpukb):
    # 3.35 TB/s is the H100 SXM's figure, not the PCIe card's: it agrees with that variant and is not wrong
    # (audit.variant.generic_some still says it holds for some variants only)
    (c,) = _claims(gpukb, "The H100 has 3.35 TB/s of memory bandwidth.", "memory_bandwidth")
    assert c["subject"] == "gpu:H100" and c["status"] in ("supported", "scope_dependent"), c
    (f,) = [f for f in c["findings"] if f["rule"].startswith("audit.ref.variant_span.agrees@")]
    assert f["kind"] == "supported" and f["evidence"][0].startswith("R-H100-80GB-memory_bandwidth@"), f
    assert not [f for f in c["findings"] if f["kind"] == "incorrect"]


def test_a_figure_outside_the_span_is_still_incorrect_against_the_span(gpukb):
    (c,) = _claims(gpukb, "The A100 has 96 GB of memory.", "memory_gb")
    assert c["status"] == "incorrect", c
    assert any(f["rule"].startswith("audit.ref.quantity.disagrees@") for f in c["findings"]), c["findings"]


@pytest.mark.parametrize("text,status", [
    ("The A100-80GB has 80 GB of memory.", "supported"),
    ("The A100-40GB has 80 GB of memory.", "incorrect"),
])
def test_a_claim_about_a_variant_is_unaffected(gpukb, text, status):
    (c,) = _claims(gpukb, text, "memory_gb")
    # (a figure another variant has may make the reading itself unclear; the audit's verdict is the same)
    assert c["subject"] in ("gpu:A100-80GB", "gpu:A100-40GB") and c.get("audit_status", c["status"]) == status, c
    assert not [f for f in c["findings"] if "variant_span" in f["rule"]]


def test_the_span_is_recognised_from_the_vocabulary_and_marked_on_its_record(gpukb):
    from gpukb.engine.kb import facts as factrec
    view = gpukb.view(None)
    span, plain = view.ref("gpu:A100", "memory_gb"), view.ref("gpu:A100-40GB", "memory_gb")
    assert factrec.record(span, view.kb.vocab).get("vspan") == 1
    assert "vspan" not in factrec.record(plain, view.kb.vocab)


def test_the_figure_functions():
    figs = [[40, 40, 0, "", "R-40@1"], [80, 80, 0, "", "R-80@1"]]
    assert variant_figure(80, 80, 0, "", figs) == "R-80@1"
    assert variant_figure(52, 52, 0, "", figs) is None and nearest_figure(52, 52, "", figs) == "R-40@1"
    scoped = [[1935, 1935, 0, "form_factor=PCIe", "R-pcie@1"], [2039, 2039, 0, "form_factor=SXM", "R-sxm@1"]]
    assert variant_figure(1935, 1935, 0, "form_factor=SXM", scoped) is None      # a PCIe figure is no SXM one
    assert variant_figure(1935, 1935, 0, "", scoped) == "R-pcie@1"


def test_a_range_that_does_not_span_its_variants_figures_is_refused(tmp_path):
    dst = tmp_path / "kb"
    shutil.copytree(KB, dst)
    path = dst / "reference" / "gpus.yaml"
    text = path.read_text(encoding="utf-8")
    old = "    subject: gpu:A100\n    attribute: memory_gb\n    value: [40, 80]\n"
    assert old in text
    path.write_text(text.replace(old, old.replace("[40, 80]", "[40, 96]"), 1), encoding="utf-8")
    with pytest.raises(ValidationError) as e:
        load_kb(dst)
    (issue,) = [i for i in e.value.issues if "R-A100-memory_gb@1" in i.message]
    assert "span" in issue.message and issue.file.endswith("gpus.yaml") and issue.line, issue


@pytest.mark.parametrize("text", ["The V100 delivers 15 TFLOPS of FP32.", "The A100 has 1.8 TB/s of memory bandwidth."])
def test_a_figure_within_ten_percent_of_a_variants_is_not_called_wrong(gpukb, text):
    # a rounded launch figure ("15 TFLOPS" for the V100 SXM2's 15.7) is no error the checker should correct
    claims = [c for c in gpukb.check(text).to_json()["claims"] if c["attribute"] in ("fp32_tflops", "memory_bandwidth")]
    assert claims and all(c["status"] != "incorrect" for c in claims), claims
