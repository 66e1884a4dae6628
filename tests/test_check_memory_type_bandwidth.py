"""A bandwidth written right after a memory technology's name ("HBM3 at 3.35 TB/s", "GDDR6（300 GB/s）", "HBM2 mit
900 GB/s") is the memory's bandwidth, even when the sentence names NVLink elsewhere. Sentences written for these tests."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text, product, value", [
    ("The H100 SXM has 80 GB HBM3 at 3.35 TB/s and NVLink at 900 GB/s.", "gpu:H100-80GB", 3.35),
    ("The H100 SXM uses NVLink 4 and HBM3 at 3.35 TB/s.", "gpu:H100-80GB", 3.35),
    ("Die Tesla V100 bietet 32 GB HBM2 mit 900 GB/s und NVLink.", "gpu:V100", 900.0),
])
def test_a_bandwidth_after_a_memory_type_is_the_memory_bandwidth(gpukb, text, product, value):
    got = [c for c in checked(gpukb, text) if c["value"] == value]
    assert [(c["subject"], c["attribute"], c["status"]) for c in got] == [(product, "memory_bandwidth", "supported")], got


def test_a_wrong_memory_bandwidth_so_written_is_judged(gpukb):
    # the T4's memory bandwidth is 320 GB/s (NVIDIA T4 datasheet)
    got = checked(gpukb, "The T4 pairs 16 GB of GDDR6 at 600 GB/s with a 70 W TDP.", "memory_bandwidth")
    assert got and got[0]["value"] == 600.0 and got[0]["status"] != "supported", got
