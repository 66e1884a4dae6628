"""Spec-sheet and guide styles the checker must read without calling a true figure wrong: what is left of a card
("with about 10 GB left"), a system's total beside a count of its cards, a datasheet's "dense | sparse*" cell
whose footnote was lost, a sparsity word in brackets with the next figure, hyphenated precision labels
("FP64-Tensor-Core"), and a fit verdict that names no model. Passages written for these tests; figures from the
NVIDIA A10, A30, A100, H100 PCIe, B200/DGX B200 datasheets."""
from __future__ import annotations

from ._engine import checked


def _wrong(gpukb, text):
    return [(c["subject"], c["attribute"], c["value"], c["status"]) for c in checked(gpukb, text)
            if c["status"] in ("incorrect", "overstated", "understated", "misattributed", "inconsistent_with_derivation")]


def test_what_is_left_of_a_card_is_not_its_memory(gpukb):
    assert _wrong(gpukb, "The A10 has 10 GB left over after loading the model.") == []
    assert _wrong(gpukb, "For a 7B model FP16 weights take 14 GB.\nSo they fit on a single L4 or A10 with about 10 GB left.") == []
    # said as the card's memory, the same figure is still wrong (the A10 has 24 GB)
    assert ("gpu:A10", "memory_gb", 10.0, "incorrect") in _wrong(gpukb, "The A10 has 10 GB of memory.")


def test_a_system_total_beside_a_count_of_cards_is_not_one_cards(gpukb):
    text = "## NVIDIA DGX B200\nIt packs eight Blackwell B200 GPUs with 1,440 GB of total GPU memory and 64 TB/s of HBM3e bandwidth."
    assert _wrong(gpukb, text) == []
    # a per-card figure stays judged: the H100 SXM has 3.35 TB/s, not 2.5
    assert ("gpu:H100", "memory_bandwidth", 2.5, "incorrect") in \
        _wrong(gpukb, "A server with eight H100 GPUs, each with 2.5 TB/s of memory bandwidth.")


def test_a_doubled_marked_figure_in_a_cell_is_the_sparse_one(gpukb):
    text = ("NVIDIA A30\nTF32 Tensor Core\t82 TFLOPS | 165 TFLOPS*\nBF16 Tensor Core\t165 TFLOPS | 330 TFLOPS*\n"
            "INT8 Tensor Core\t330 TOPS | 661 TOPS*")
    got = checked(gpukb, text)
    assert got and _wrong(gpukb, text) == []
    assert {(c["attribute"], c["value"]) for c in got if c["status"] == "supported"} >= {("tf32_tensor_tflops", 165.0), ("int8_tops", 661.0)}


def test_a_sparsity_word_in_brackets_goes_with_the_bracketed_figure(gpukb):
    for text in ("A100 80GB SXM의 TF32 Tensor 성능은 156 TFLOPS(희소성 사용 시 312 TFLOPS)입니다.",
                 "NVIDIA A100 40GB PCIe: FP16 Tensor Core 312 TFLOPS (624 TFLOPS với sparsity)."):
        got = checked(gpukb, text)
        assert len(got) == 2 and all(c["status"] == "supported" for c in got), got
    # a closed bracket keeps its words: "(with sparsity)" is the first figure's
    got = checked(gpukb, "The L4 reaches 242 TFLOPS in FP16 (with sparsity) and 485 TFLOPS in FP8 (with sparsity).")
    assert all(c["status"] == "supported" for c in got), got


def test_hyphenated_precision_labels(gpukb):
    got = checked(gpukb, "NVIDIA H100 PCIe – technische Daten\nFP64: 26 TFLOPS\nFP64-Tensor-Core: 51 TFLOPS")
    assert {(c["attribute"], c["value"], c["status"]) for c in got} >= {("fp64_tensor_tflops", 51.0, "supported")}


def test_a_fit_verdict_naming_no_model_depends_on_the_model(gpukb):
    got = checked(gpukb, "FP16 weights fit on a single 24 GB A10.", "memory_verdict")
    assert got and all(c["status"] not in ("inconsistent_with_derivation", "incorrect") for c in got), got
    # a named model that cannot fit at the stated precision is still wrong (70B x 2 bytes = 140 GB)
    got = checked(gpukb, "Llama 2 70B in FP16 fits on one A100 80GB.", "memory_verdict")
    assert [c["status"] for c in got] == ["inconsistent_with_derivation"]


def test_a_superscript_footnote_on_the_figures_noun_marks_it_sparse(gpukb):
    text = ("H100 SXM delivers 1,979 TFLOPS of BF16 Tensor Core compute¹ and 3.35 TB/s of memory bandwidth².\n\n"
            "¹ With sparsity; the dense figure is about half.\n² 80 GB HBM3 configuration.")
    got = checked(gpukb, text)
    assert ("bf16_tensor_tflops", 1979.0, "supported") in {(c["attribute"], c["value"], c["status"]) for c in got}
    assert _wrong(gpukb, text) == []
    # the mark explains nothing about sparsity: the figure is read as dense and judged (H100 SXM dense BF16: 989.5)
    assert _wrong(gpukb, "H100 SXM delivers 1,979 TFLOPS of BF16 Tensor Core compute¹.\n\n¹ Measured on one GPU.")


def test_a_size_two_named_versions_share_is_neither_versions_name(gpukb):
    text = "The H100 PCIe has 80 GB of HBM2e at 2 TB/s, whereas the H100 SXM uses HBM3 at 3.35 TB/s."
    got = {(c["subject"], c["attribute"], c["value"]) for c in checked(gpukb, text)}
    assert ("gpu:H100-PCIe", "memory_type", "HBM2e") in got and ("gpu:H100-80GB", "memory_type", "HBM3") in got
    assert ("gpu:H100-80GB", "memory_type", "HBM2e") not in got
    assert _wrong(gpukb, text) == []
