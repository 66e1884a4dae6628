"""Sizing as practitioners run it (issue 16): inference split over GPUs, self-consistent GPU counts,
ZeRO-3 with adapters, the standard tools' defaults, and the KV cache of grouped-query models."""
from __future__ import annotations

import random

import pytest

from ._engine import bundled


@pytest.fixture(scope="module")
def kb():
    return bundled()


MODELS = ["llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "qwen2.5-14b", "qwen2.5-72b", "mixtral-8x7b",
          "gemma-2-27b", "bert-base", "vit-large"]
GPUS = ["T4", "A10", "L4", "A100-40GB", "A100-80GB", "H100-80GB", "V100-32GB", "L20"]


def scenarios(n: int, seed: int = 7):
    rnd = random.Random(seed)
    for _ in range(n):
        method = rnd.choice(["inference", "full", "lora", "qlora"])
        body = {"model": rnd.choice(MODELS), "method": method, "gpu": rnd.choice(GPUS),
                "seq_len": rnd.choice([512, 2048, 8192]), "batch": rnd.choice([1, 4])}
        if method == "inference":
            body["precision"] = rnd.choice(["fp16", "int8", "int4"])
        yield body


def test_min_gpus_is_self_consistent(kb):
    """Asking again with the stated count (and the stated ZeRO stage) fits."""
    checked = 0
    for body in scenarios(300):
        a = kb.query(body)
        n = a["min_gpus"]
        if a["verdict"] == "fits" or n is None:
            continue
        again = {**body, "gpus": n}
        if a.get("min_gpus_zero"):
            again["zero"] = a["min_gpus_zero"]
        b = kb.query(again)
        assert b["verdict"] == "fits", (body, n, a.get("min_gpus_zero"), b["memory"], b["capacity"])
        checked += 1
    assert checked >= 40


def test_inference_is_split_over_the_gpus(kb):
    one = kb.query({"model": "llama-2-70b", "method": "inference", "gpu": "A100-80GB"})
    two = kb.query({"model": "llama-2-70b", "method": "inference", "gpu": "A100-80GB", "gpus": 2})
    assert one["verdict"] == "does_not_fit" and one["min_gpus"] == 2
    assert two["verdict"] == "fits"


def test_zero3_shards_the_frozen_base_of_lora(kb):
    one = kb.query({"model": "llama-2-70b", "method": "lora", "gpu": "A100-80GB"})
    four = kb.query({"model": "llama-2-70b", "method": "lora", "gpu": "A100-80GB", "gpus": 4, "zero": 3})
    assert one["verdict"] == "does_not_fit" and four["verdict"] == "fits"
    assert four["scenario"]["zero"] == 3


@pytest.mark.parametrize("model, vram", [("llama-65b", 48), ("llama-33b", 24)])
def test_qlora_headline_results_fit_with_the_default_flags(kb, model, vram):
    """QLoRA (Dettmers et al., 2023): 65B on one 48 GB GPU, 33B on one 24 GB GPU."""
    a = kb.query({"model": model, "method": "qlora", "vram_gb": vram})
    assert a["verdict"] == "fits"
    assert a["scenario"]["gradient_checkpointing"] is True
    assert any("gradient checkpointing" in n for n in a["notes"])


def test_training_on_a_gpu_without_bf16_defaults_to_fp16(kb):
    t4 = kb.query({"model": "bert-base", "method": "full", "gpu": "T4"})
    a100 = kb.query({"model": "bert-base", "method": "full", "gpu": "A100-80GB"})
    assert t4["scenario"]["precision"] == "fp16" and any("no native BF16" in n for n in t4["notes"])
    assert a100["scenario"]["precision"] == "bf16"


def test_kv_cache_of_a_grouped_query_model_follows_its_config(kb):
    # Llama-3-8B: 32 layers, hidden 4096, 32 heads, 8 KV heads (config.json); fp16 cache
    a = kb.query({"model": "llama-3-8b", "method": "inference", "gpu": "A100-80GB", "seq_len": 8192, "batch": 1})
    expected = 2 * 32 * 8192 * 1 * 4096 * (8 / 32) * 2 / 1e9
    assert a["memory"]["kv_cache"] == pytest.approx(expected, rel=1e-3)
    mha = kb.query({"model": "llama-2-7b", "method": "inference", "gpu": "A100-80GB", "seq_len": 8192, "batch": 1})
    assert mha["memory"]["kv_cache"] == pytest.approx(2 * 32 * 8192 * 4096 * 2 / 1e9, rel=1e-3)


def test_a_generic_gpu_is_the_smaller_card(kb):
    a = kb.query({"params": 7e9, "method": "inference", "gpu": "A100"})
    assert a["scenario"]["gpu"] == "A100-40GB" and any("assumed A100-40GB" in n for n in a["notes"])


def test_the_headline_question_offers_a_change_that_fits_one_t4(kb):
    a = kb.ask("why not T4 for 13B full fine-tune")
    first = next(r for r in a["recommendations"] if r.get("fits"))
    assert first["action"] != "more_gpus" and "gpus" not in first["change"]
    assert first["change"].get("method") == "qlora"
    assert first["need_gb"] <= first["capacity_gb"]
    assert "QLoRA" in a["summary"]["en"] and "QLoRA" in a["summary"]["zh"]


def test_eval_sizing_prints_every_measured_point_and_the_bands(kb, cli):
    rep = cli.json("eval", "sizing", "--json")
    assert len(rep["points"]) >= 6 and all("estimate_gb" in p or "error" in p for p in rep["points"])
    ratios = [p["ratio"] for p in rep["points"] if p.get("method") == "lora" and p.get("ratio")]
    assert rep["by_method"]["lora"] == {"low": min(ratios), "high": max(ratios), "points": len(ratios)}
    assert all(p["consistent"] for p in rep["points"] if "consistent" in p)     # the "> 80 GB" bounds hold


def test_a_verdict_inside_the_band_is_borderline_and_says_why(kb):
    a = kb.query({"model": "llama-2-7b", "method": "lora", "gpu": "A10"})
    assert a["band"]["low_gb"] <= a["capacity"]["per_gpu"] <= a["band"]["high_gb"] and a["borderline"] is True
    assert "Borderline" in a["summary"]["en"] and "临界" in a["summary"]["zh"]
    far = kb.query({"model": "llama-2-7b", "method": "lora", "gpu": "A100-80GB"})
    assert far["borderline"] is False


def test_solve_in_the_cli_and_the_api(cli, client):
    out = cli.json("query", "--model", "llama-2-7b", "--method", "inference", "--gpu", "T4", "--solve", "seq_len", "--json")
    assert out["kind"] == "inverse" and out["fits"]["verdict"] == "fits"
    assert out["first_not_fitting"]["value"] == out["largest"] + 1
    r = client.post("/v1/solve", json={"model": "llama-2-7b", "method": "inference", "gpu": "T4", "target": "seq_len"})
    assert r.status_code == 200 and r.get_json()["largest"] == out["largest"]
    bad = client.post("/v1/solve", json={"model": "llama-2-7b", "gpu": "T4", "target": "speed"})
    assert bad.status_code == 400 and bad.get_json()["ok"] is False


@pytest.mark.parametrize("gpu", ["T4", "A10", "L4", "L20", "H20", "V100-16GB", "V100-32GB", "A100-40GB", "A100-80GB",
                                 "A800-80GB", "H100-80GB", "H100-PCIe"])
def test_one_capacity_convention_for_every_gpu(kb, gpu):
    """Datasheet GB as 10^9 bytes minus the CUDA context, for every card in the catalog."""
    a = kb.query({"params": 1e9, "method": "inference", "gpu": gpu})
    cap = a["capacity"]
    datasheet = kb.view().ref(f"gpu:{gpu}", "memory_gb").norm.lo
    ctx = kb.view().ref("concept:framework-overhead", "memory_required").norm.hi
    assert cap["basis"] == "datasheet"
    assert cap["per_gpu"] == pytest.approx(datasheet - ctx, abs=1e-3)


def test_offload_fits_when_the_host_has_the_memory_and_says_what_it_costs(kb):
    body = {"params": 3e9, "method": "full", "instance": "GN7.8XLARGE128"}
    plain = kb.query(body)
    assert plain["verdict"] == "does_not_fit"
    rec = next(r for r in plain["recommendations"] if r["action"] == "offload")
    assert rec["fits"] is True and rec["offload"]["host_fits"] is True
    off = kb.query({**body, "offload": "optimizer"})
    assert off["verdict"] == "fits"
    o = off["offload"]
    assert o["host_gb"] == pytest.approx(3e9 * 14 / 1e9, rel=0.02)         # 2Ψ gradients + 12Ψ Adam states
    assert o["pcie_gb_per_step"] == pytest.approx(3e9 * 4 / 1e9, rel=0.02)  # 16-bit gradients down, parameters up
    assert o["host_available_gb"] == 128 and o["pcie_seconds_per_step"] > 0
    small = kb.query({"params": 3e9, "method": "full", "instance": "GN7.2XLARGE32"})
    rec_small = next(r for r in small["recommendations"] if r["action"] == "offload")
    assert rec_small["fits"] is False and rec_small["offload"]["host_fits"] is False     # 42 GB > 32 GB of RAM


def test_offload_is_refused_for_adapters_and_checked(kb):
    a = kb.query({"params": 7e9, "method": "lora", "gpu": "T4", "offload": "optimizer"})
    assert "offload" not in a["scenario"] and any("offload ignored" in n for n in a["notes"])
    with pytest.raises(Exception, match="offload"):
        kb.query({"params": 7e9, "method": "full", "gpu": "T4", "offload": "disk"})


def test_recommendations_weigh_cards_against_time(kb):
    a = kb.query({"params": 13e9, "method": "full", "instance": "GN7.20XLARGE320"})
    fitting = [r for r in a["recommendations"] if r.get("fits")]
    more = next(r for r in fitting if r["action"] == "more_gpus")
    assert more["step_seconds"] > 10          # ~25 s of gradient exchange over 25 Gbps per step
    assert fitting[0]["gpu_seconds_per_1k_tokens"] < more["gpu_seconds_per_1k_tokens"]
    assert fitting.index(more) > 0
    costs = [r["gpu_seconds_per_1k_tokens"] for r in fitting if r.get("gpu_seconds_per_1k_tokens") is not None]
    assert costs == sorted(costs)
