"""True sentences about systems, slices and instance sizes are not called wrong as one card's figures: a card named
inside a system's name ("DGX H100", "HGX B200", "H100 servers"), a MIG profile's name ("1g.10gb"), "adds up to" (a
total, not "up to"), an instance size's total ("g6.12xlarge": unknown to gpukb until release 2026.12.32, now read
against its own 4 x 22,888 MiB), and two cards' total of an
approximately known memory. Sentences written for these tests; the last ones check that wrong ones still are."""
from __future__ import annotations

import pytest

from tests._engine import checked

WRONG = {"incorrect", "overstated", "understated", "misattributed"}


def _statuses(gpukb, text):
    return [(c["subject"], c["attribute"], c["value"], c["status"]) for c in checked(gpukb, text)]


@pytest.mark.parametrize("text", [
    "The DGX H100 delivers 32 PFLOPS of FP8 performance.",
    "An NVIDIA DGX H100 consumes about 10.2 kW.",
    "An HGX B200 board carries 1.4 TB of GPU memory.",
    "The GB200 NVL72 offers 13.5 TB of HBM3e.",
    "H100 servers draw about 10 kW each.",
    "DGX A100 服务器的显存共 640GB。",
    "A 1g.10gb MIG slice of the A100 80GB has 10 GB of memory.",
    "Four L4 GPUs on a g6.12xlarge add up to 96 GB.",
    "A single GB200 superchip combines two B200 GPUs with 384 GB of HBM3e.",
])
def test_a_true_sentence_about_a_system_slice_or_size_is_not_flagged(gpukb, text):
    got = _statuses(gpukb, text)
    assert not [c for c in got if c[3] in WRONG], got


@pytest.mark.parametrize("text, attribute", [
    ("The H100 delivers 32 PFLOPS of FP8 performance.", "fp8_tensor_tflops"),
    ("The B200 has 384 GB of HBM3e.", "memory_gb"),
    ("The T4 offers up to 32 GB of memory.", "memory_gb"),
    ("The A100 80GB has 10 GB of memory per card and a TDP of 900 W.", "tdp_w"),
])
def test_the_same_figures_said_of_one_card_are_still_judged(gpukb, text, attribute):
    got = _statuses(gpukb, text)
    assert any(c[1] == attribute and c[3] in WRONG for c in got), got


def test_a_known_instance_size_is_still_read_whole(gpukb):
    got = _statuses(gpukb, "A g5.12xlarge has four A10G GPUs.")
    assert ("instance:g5.12xlarge", "gpu_count", 4.0, "supported") in got
