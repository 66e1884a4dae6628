"""An instance's GPU memory said as a sum ("320 GB of GPU memory across its eight GPUs", "8 张 H100 共 640GB 显存",
"合计 640GB 显存") is the instance's total GPU memory, not one GPU's; host memory in TiB and memory in MiB are
read with their units. Sentences written for these tests."""
from __future__ import annotations

import pytest


def _claims(gpukb, text):
    return {(c["subject"], c["attribute"]): (c["value"], c["status"]) for c in gpukb.check(text).to_json()["claims"]}


@pytest.mark.parametrize("text, instance, total", [
    ("The p4d.24xlarge has 320 GB of GPU memory across its eight A100 GPUs.", "instance:p4d.24xlarge", 320.0),
    ("p5.48xlarge 配备 8 张 H100，共 640GB 显存。", "instance:p5.48xlarge", 640.0),
])
def test_a_sum_over_an_instances_gpus_is_its_total(gpukb, text, instance, total):
    got = _claims(gpukb, text)
    assert got[(instance, "gpu_memory_total_gb")] == (total, "supported"), got
    assert not [k for k in got if k[1] == "memory_gb"], got       # no GPU is said to have the sum


def test_a_wrong_total_is_flagged(gpukb):
    got = _claims(gpukb, "The p4d.24xlarge has 640 GB of GPU memory across its eight A100 GPUs.")
    assert got[("instance:p4d.24xlarge", "gpu_memory_total_gb")][1] == "incorrect", got


def test_tib_and_mib_are_memory_units(gpukb):
    got = _claims(gpukb, "p5.48xlarge：192 vCPU、2 TiB 内存。")
    assert got[("instance:p5.48xlarge", "host_memory_gb")] == (2.0, "supported"), got
    got = _claims(gpukb, "nvidia-smi shows 81920MiB on the A100 80GB.")
    assert got[("gpu:A100-80GB", "usable_memory")][1] == "supported", got
