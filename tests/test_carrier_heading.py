"""A heading that names an instance or family and, in brackets, the GPU it carries ("### 腾讯云 GN8（NVIDIA Tesla
P40）", "## g5.xlarge (NVIDIA A10G)") heads one product's section: the figures of its list are that product's
and judged, and a bare "memory" in it is the instance's RAM, not the card's. Passages written for these tests;
figures from the Amazon EC2 G5 page, Tencent Cloud's GPU instance docs and the NVIDIA datasheets."""
from __future__ import annotations

from ._engine import checked


def _statuses(gpukb, text, attribute=None):
    return {(c["subject"], c["attribute"], c["value"] if not isinstance(c["value"], list) else tuple(c["value"]), c["status"]) for c in checked(gpukb, text, attribute)}


def test_a_wrong_card_figure_under_a_family_heading_is_judged(gpukb):
    # the Tesla P40 has 24 GB of GDDR5 (NVIDIA Tesla P40 datasheet): 16 GB under its family's heading is wrong
    got = _statuses(gpukb, "### 腾讯云 GN8（NVIDIA Tesla P40）\n- 单卡显存 16 GB GDDR5\n- 功耗 250 W", "memory_gb")
    assert ("gpu:P40", "memory_gb", 16.0, "incorrect") in got


def test_true_card_figures_under_a_family_heading_stay_supported(gpukb):
    for text in ("### 阿里云 gn7i（NVIDIA A10）\n- 单卡显存 24 GB\n- 显存带宽 600 GB/s",
                 "### Tencent Cloud GN7 (NVIDIA T4)\n- 16 GB GDDR6 per card\n- 320 GB/s of bandwidth\n- 70 W"):
        got = checked(gpukb, text)
        assert got and all(c["status"] in ("supported", "unclear") for c in got), got


def test_bare_memory_under_an_instance_heading_is_its_ram(gpukb):
    text = "## AWS g5.xlarge (NVIDIA A10G)\n- 4 vCPUs, 16 GiB memory\n- 24 GB GPU memory"
    got = _statuses(gpukb, text)
    assert ("instance:g5.xlarge", "host_memory_gb", 16.0, "supported") in got
    assert not any(s == "incorrect" for *_, s in got), got
    zh = _statuses(gpukb, "### GN7.5XLARGE80（1 × NVIDIA T4）\n- 20 核\n- 内存 80 GB\n- 显存 16 GB")
    assert ("instance:GN7.5XLARGE80", "host_memory_gb", 80.0, "supported") in zh


def test_a_gpu_named_after_the_family_in_prose_keeps_its_memory(gpukb):
    # not in brackets on the family's name: "each" is the GPU, whose 24 GB is its own memory
    got = _statuses(gpukb, "The g5 family uses A10G GPUs. Each has 24 GB of memory.", "memory_gb")
    assert got == {("gpu:A10G", "memory_gb", 24.0, "supported")}
