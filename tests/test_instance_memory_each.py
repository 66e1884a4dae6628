"""An instance's GPU memory said of each of its cards ("8 H100 GPUs with 640 GB of HBM3 each", "con 640 GB de
HBM3 cada una", "per GPU") is a per-card figure, judged against one card's memory: the instance's own GPU is
no rival owner of it, and no total of its cards. Said without "each", the same figure is the instance's total.
Sentences written for these tests; figures from the Amazon EC2 P4 and P5 instance pages (8 x A100 40 GB;
8 x H100 80 GB)."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text,status", [
    ("The p5.48xlarge offers 8 H100 GPUs with 640 GB of HBM3 each.", "incorrect"),
    ("La instancia p5.48xlarge de AWS ofrece 8 GPU H100 con 640 GB de HBM3 cada una y 192 vCPU.", "incorrect"),
    ("AWS p4d.24xlarge: 8 × NVIDIA A100 with 320 GB of HBM2 per GPU, 96 vCPUs.", "incorrect"),
    ("The p5.48xlarge offers 8 H100 GPUs with 80 GB of HBM3 each.", "supported"),
    ("AWS p4d.24xlarge: 8 × NVIDIA A100 with 40 GB of HBM2 per GPU, 96 vCPUs.", "supported"),
])
def test_memory_said_of_each_card(gpukb, text, status):
    assert [c["status"] for c in checked(gpukb, text, "memory_gb")] == [status]


def test_without_each_it_is_the_total(gpukb):
    got = checked(gpukb, "The p5.48xlarge offers 8 H100 GPUs with 640 GB of HBM3.", "memory_gb")
    assert got and all(c["status"] not in ("incorrect", "overstated") for c in got)
