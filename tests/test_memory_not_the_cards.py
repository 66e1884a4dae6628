"""Memory figures that are not a card's own size, in the forms real pages write them: a share of the card (a vGPU
profile, "8 GB of a T4's memory"), a need said with the card it runs on between verb and figure ("benötigt auf
der RTX 4090 etwa 20 GB"), an instance's memory said with a bare word in other languages, a size written onto
the GPU's name inside an instance's sentence. Sentences written for these tests."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text", [
    "A vGPU profile can give a VM 8 GB of a T4's memory.",
    "The model used 14 GB of the card's 16 GB.",
    "Das Modell benötigt auf der RTX 4090 etwa 20 GB VRAM.",
    "Le modèle nécessite sur une A100 environ 30 Go de mémoire.",
    "El modelo necesita en una RTX 4090 unos 20 GB de VRAM.",
])
def test_no_share_or_need_is_called_the_cards_wrong_size(gpukb, text):
    assert all(c["status"] != "incorrect" for c in checked(gpukb, text, "memory_gb"))


@pytest.mark.parametrize("text", [
    "The T4 has 8 GB of memory.",
    "Die RTX 4090 hat 20 GB VRAM.",
])
def test_the_cards_own_size_is_still_judged(gpukb, text):
    assert [c["status"] for c in checked(gpukb, text, "memory_gb")] == ["incorrect"]


@pytest.mark.parametrize("text, host", [
    ("GCP g2-standard-8은 L4 1개, vCPU 8개, 메모리 32GB로 구성됩니다.", 32.0),
    ("g2-standard-8 は L4 を 1 基、vCPU 8 個、メモリ 32 GB を備えます。", 32.0),
    ("Die g5.xlarge bietet eine A10G, 4 vCPUs und 16 GiB Arbeitsspeicher.", 16.0),
])
def test_a_bare_memory_word_of_an_instance_is_its_host_memory(gpukb, text, host):
    claims = checked(gpukb, text)
    assert not [c for c in claims if c["attribute"] == "memory_gb"], claims
    assert host in [c["value"] for c in claims if c["attribute"] == "host_memory_gb"], claims


def test_a_size_written_onto_the_gpus_name_is_the_gpus(gpukb):
    text = "Azure's Standard_NC24ads_A100_v4 gives you a single 80 GB A100 PCIe with 24 vCPUs and 220 GiB of RAM."
    claims = checked(gpukb, text)
    assert ("gpu:A100-80GB", "memory_gb", 80.0) in [(c["subject"], c["attribute"], c["value"]) for c in claims]
    assert all(c["status"] != "incorrect" for c in claims), claims


@pytest.mark.parametrize("header", ["GPU メモリ合計", "GPU 메모리 합계", "GPU-Speicher gesamt", "Mémoire GPU totale", "Memoria GPU total"])
def test_a_total_gpu_memory_column_is_the_instances_total(gpukb, header):
    text = f"| Instance | GPU | {header} |\n|---|---|---|\n| p4de.24xlarge | A100 80GB × 8 | 640 GB |"
    got = checked(gpukb, text)
    assert ("instance:p4de.24xlarge", "gpu_memory_total_gb", 640.0) in [(c["subject"], c["attribute"], c["value"]) for c in got]
    assert all(c["status"] != "incorrect" for c in got), got


@pytest.mark.parametrize("text, status", [
    ("The p4de.24xlarge has 640 GB of GPU memory.", "unclear"),       # eight A100 80GB: the instance's total
    ("The ND H100 v5 series has 640 GB of GPU memory.", "unclear"),   # a size of eight H100s
    ("The p4d.24xlarge has 640 GB of GPU memory.", "incorrect"),      # eight A100 40GB hold 320 GB
])
def test_an_instances_total_gpu_memory_is_not_called_a_wrong_card_size(gpukb, text, status):
    assert [c["status"] for c in checked(gpukb, text, "memory_gb")] == [status]


def test_each_memory_type_goes_with_the_size_written_before_it(gpukb):
    text = "NVIDIA A100 有两种显存版本：40 GB HBM2（带宽约 1,555 GB/s）和 80 GB HBM2e（SXM 版带宽 2,039 GB/s）。"
    got = {(c["subject"], c["value"], c["status"]) for c in checked(gpukb, text, "memory_type")}
    assert got == {("gpu:A100-40GB", "HBM2", "supported"), ("gpu:A100-80GB", "HBM2e", "supported")}, got
