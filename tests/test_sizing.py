"""Sizing rules against the papers' figures, published measurements, and bad scenarios.

Figures and their sources:
- ZeRO (Rajbhandari et al., SC20), Sec. III-A: 16 bytes per parameter of model states; a 1.5B GPT-2
  needs 24 GB of model states against 3 GB of fp16 weights. Figure 1: Ψ = 7.5B, K = 12, N_d = 64 gives
  120 GB per device without ZeRO, 31.4 GB with P_os, 16.6 GB with P_os+g, 1.9 GB with P_os+g+p.
- LoRA (Hu et al.), Sec. 4.2: GPT-3 175B's frozen fp16 weights are 350 GB.
- QLoRA (Dettmers et al.): 65B fine-tunes on one 48 GB GPU; 33B on a 24 GB GPU.
- huggingface/peft README, "High performance on consumer hardware" (one A100 80GB): T0_3B full
  fine-tuning 47.14 GB and LoRA 14.4 GB; bloomz-7b1 LoRA 32 GB; mt0-xxl LoRA 56 GB; full fine-tuning
  of the 7B and 12B models out of memory. The table gives no sequence length, batch, precision or rank:
  gpukb assumes FP32 weights (PEFT's examples load models in FP32), LoRA rank 8, seq 512, batch 1.
  Stated tolerance: 10%.
"""
from __future__ import annotations

import math

import pytest

from gpukb.engine.core.errors import BadInput

from ._engine import bundled, sent_to_durable


@pytest.fixture(scope="module")
def kb():
    return bundled()


def q(kb, **body):
    return kb.query(body).to_json()


def test_zero_16_bytes_per_parameter_gpt2_1_5b(kb):
    # the paper's FP16 mixed precision: 16-bit weights (3 GB) beside an FP32 master copy in the optimizer states
    a = q(kb, model="gpt2-1.5b", method="full", gpu="A100-80GB", precision="fp16")
    assert a["memory"]["model_states"] == pytest.approx(24.0, rel=1e-6)
    assert a["memory"]["weights"] == pytest.approx(3.0, rel=1e-6)
    # the default, mixed precision as PyTorch AMP runs it: FP32 weights are the master copy, the same 16 bytes
    amp = q(kb, model="gpt2-1.5b", method="full", gpu="A100-80GB")
    assert amp["scenario"]["precision"] == "mixed"
    assert amp["memory"]["model_states"] == pytest.approx(24.0, rel=1e-6)
    assert amp["memory"]["weights"] == pytest.approx(6.0, rel=1e-6)


@pytest.mark.parametrize("zero,expected", [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.875)])
def test_zero_per_device_figures_of_figure_1(kb, zero, expected):
    # the paper's figures, as a release before DeepSpeed's layouts (2026.12.7) computes them
    a = q(kb, params=7.5e9, method="full", vram_gb=2000, gpus=64, zero=zero, kb_version="2026.12.6")
    assert a["memory"]["per_gpu_model_states"] == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("zero,expected", [(1, 4 * 7.5 + 16 * 7.5 / 64), (2, 2 * 7.5 + 18 * 7.5 / 64), (3, 1.875)])
def test_zero_per_device_figures_as_deepspeed_keeps_them(kb, zero, expected):
    # DeepSpeed's estimators: ZeRO-1 4P + 16P/N, ZeRO-2 2P + 18P/N (an FP32 gradient partition beside K = 12)
    a = q(kb, params=7.5e9, method="full", vram_gb=2000, gpus=64, zero=zero)
    assert a["memory"]["per_gpu_model_states"] == pytest.approx(expected, rel=0.01)


def test_lora_gpt3_175b_frozen_weights_350_gb(kb):
    a = q(kb, model="gpt3-175b", method="lora", precision="fp16", vram_gb=2000, lora_rank=4)
    assert a["memory"]["weights"] == pytest.approx(350.0, rel=0.01)
    assert a["memory"]["gradients"] < 0.1  # adapters only


def test_qlora_65b_fits_one_48_gb_gpu_and_33b_a_24_gb_gpu(kb):
    a = q(kb, model="llama-65b", method="qlora", vram_gb=48, gradient_checkpointing=True)
    assert a["verdict"] == "fits"
    b = q(kb, model="llama-33b", method="qlora", vram_gb=24, gradient_checkpointing=True)
    assert b["verdict"] == "fits"
    # and the 16-bit full fine-tune of 65B needs far more than 780 GB
    c = q(kb, model="llama-65b", method="full", vram_gb=80)
    assert c["memory"]["model_states"] > 780


@pytest.mark.parametrize("body,measured", [
    (dict(params=3e9, method="full"), 47.14),
    (dict(params=3e9, method="lora", lora_rank=8), 14.4),
    (dict(params=7e9, method="lora", lora_rank=8), 32.0),
    (dict(params=12e9, method="lora", lora_rank=8), 56.0),
])
def test_peft_readme_measurements_within_10_percent(kb, body, measured):
    # PEFT's example scripts read their peaks with torch.cuda.max_memory_allocated (TorchTracemalloc): compared with
    # what the allocator holds, without the CUDA context (R-TORCH-allocated)
    a = q(kb, precision="fp32", vram_gb=80, **body)
    assert a["memory"]["per_gpu_allocated"] == pytest.approx(measured, rel=0.10)


@pytest.mark.parametrize("params", [7e9, 12e9])
def test_peft_readme_full_fine_tuning_out_of_memory_on_80_gb(kb, params):
    assert q(kb, params=params, method="full", precision="fp32", gpu="A100-80GB")["verdict"] == "does_not_fit"


def test_13b_full_fine_tuning_on_a_t4(kb):
    a = q(kb, params=13e9, method="full", gpu="T4")
    assert a["verdict"] == "does_not_fit"
    assert a["memory"]["model_states"] == pytest.approx(208.0, abs=0.5)
    assert a["capacity"]["per_gpu"] < 16
    assert a["min_gpus"] >= 14 and a["min_gpus_zero"] == 3
    # the min_gpus figure really fits, and one fewer does not
    fit = q(kb, params=13e9, method="full", gpu="T4", gpus=a["min_gpus"], zero=3)
    assert fit["verdict"] == "fits"
    nofit = q(kb, params=13e9, method="full", gpu="T4", gpus=a["min_gpus"] - 1, zero=3)
    assert nofit["verdict"] == "does_not_fit"


def test_qlora_7b_on_a_t4_fits(kb):
    assert q(kb, model="llama-2-7b", method="qlora", gpu="T4")["verdict"] == "fits"


def test_missing_bf16_changes_the_recommended_precision_on_a_t4(kb):
    t4 = q(kb, model="llama-2-7b", method="qlora", gpu="T4", precision="bf16")
    a10 = q(kb, model="llama-2-7b", method="qlora", gpu="A10", precision="bf16")
    assert any(p["recommended"] == "fp16" for p in t4["precision"])
    assert any(r["action"] == "use_fp16" for r in t4["recommendations"])
    assert not a10["precision"]
    assert not any(r["action"] == "use_fp16" for r in a10["recommendations"])


def test_recommendations_are_ranked_evaluated_and_name_their_cost(kb):
    a = q(kb, model="llama-2-7b", method="full", gpu="T4")
    recs = a["recommendations"]
    assert recs and all(r["cost"] for r in recs)
    assert [r["rank"] for r in recs] == list(range(1, len(recs) + 1))
    fitting = [r for r in recs if r.get("fits")]
    assert fitting and recs[0].get("fits")           # a change that works comes first
    assert {r["action"] for r in fitting} & {"method_qlora", "more_gpus"}


def test_memory_grows_with_sequence_and_shrinks_with_checkpointing_and_flash(kb):
    # eager attention, asked for: its s×s scores make the activations quadratic in s
    base = q(kb, model="llama-2-7b", method="lora", gpu="A100-80GB", seq_len=2048, flash_attention=False)["memory"]["activations"]
    longer = q(kb, model="llama-2-7b", method="lora", gpu="A100-80GB", seq_len=4096, flash_attention=False)["memory"]["activations"]
    ckpt = q(kb, model="llama-2-7b", method="lora", gpu="A100-80GB", seq_len=2048, gradient_checkpointing=True,
             flash_attention=False)["memory"]["activations"]
    flash = q(kb, model="llama-2-7b", method="lora", gpu="A100-80GB", seq_len=2048, flash_attention=True)["memory"]["activations"]
    assert longer > 2 * base  # the attention term is quadratic in s
    assert ckpt < base / 5 and flash < base


def test_korthikanti_formula_by_hand(kb):
    # Llama-2-7B: 32 layers, h = 4096, a = 32; s = 1024, b = 2 → L·s·b·h·(34 + 8 + 5·a·s/h), the 8 being the
    # FP32 upcasts of the two RMSNorms (R-ACT-norm-fp32); eager attention, asked for, keeps the 5·a·s/h term
    a = q(kb, model="llama-2-7b", method="lora", gpu="A100-80GB", seq_len=1024, batch=2, flash_attention=False)
    expected = 32 * 1024 * 2 * 4096 * (34 + 8 + 5 * 32 * 1024 / 4096) / 1e9
    assert a["memory"]["activations"] == pytest.approx(expected, rel=1e-3)


def test_inference_kv_cache_and_overhead(kb):
    a = q(kb, model="llama-2-13b", method="inference", gpu="L4", seq_len=4096, batch=1)
    assert a["memory"]["gradients"] == 0 and a["memory"]["optimizer"] == 0
    assert a["memory"]["kv_cache"] == pytest.approx(2 * 40 * 4096 * 5120 * 2 / 1e9, rel=1e-3)
    # the CUDA context plus the forward pass's buffers, not a flat 20% of the weights: from release 2026.12.11 the
    # gated MLP's three intermediate-wide 16-bit tensors (3 · 2 · b · s · intermediate_size bytes, 13,824 for 13B);
    # before it a 4h-wide MLP's input and output (16 · b · s · h bytes)
    assert a["memory"]["overhead"] == pytest.approx(0.524288 + 3 * 2 * 1 * 4096 * 13824 / 1e9, rel=1e-3)
    old = q(kb, model="llama-2-13b", method="inference", gpu="L4", seq_len=4096, batch=1, kb_version="2026.12.10")
    assert old["memory"]["overhead"] == pytest.approx(0.524288 + 16 * 1 * 4096 * 5120 / 1e9, rel=1e-3)


def test_zero_communication_and_network_time(kb):
    a = q(kb, params=13e9, method="full", instance="GN7.20XLARGE320", gpus=8, zero=3)
    net = [c for c in a["communication"] if c["link"] == "network"]
    assert net and net[0]["gb_per_step"] == pytest.approx(3 * 26.0, rel=1e-6)   # 3Ψ elements × 2 bytes
    assert net[0]["seconds"] == pytest.approx(78.0 * 8 / 25, rel=1e-6)          # over 25 Gbps
    dp = q(kb, params=13e9, method="full", instance="GN7.20XLARGE320", gpus=8, zero=2)
    assert [c for c in dp["communication"] if c["link"] == "network"][0]["gb_per_step"] == pytest.approx(52.0)


def test_compute_time_is_6nd_over_peak(kb):
    a = q(kb, model="llama-2-7b", method="qlora", gpu="T4", seq_len=1024, batch=4)
    assert a["compute"]["seconds_per_step"] == pytest.approx(6 * 6.74e9 * 1024 * 4 / 65e12, rel=1e-3)


def test_instance_brings_gpu_count_and_vgpu_share(kb):
    a = q(kb, model="llama-2-7b", method="qlora", instance="GN7.LARGE20")
    assert a["capacity"]["per_gpu"] < 4   # a quarter T4: 4 GB vGPU minus the CUDA context
    b = q(kb, model="llama-2-7b", method="qlora", instance="GN7.20XLARGE320")
    assert b["capacity"]["gpus"] == 4


def test_why_not_names_the_failed_condition_with_values(kb):
    a = q(kb, params=13e9, method="full", gpu="T4")
    cands = a["why_not"]["candidates"]
    fits = next(c for c in cands if c["rule"].startswith("sizing.verdict.fits"))
    assert fits["holds"] is False and "<=" in fits["failed_condition"]
    assert fits["values"]["p.total_gb"] > 200 and fits["values"]["c.gb"] < 16
    assert a["why_not"]["max_params_that_fit"] < 1.5e9



@pytest.mark.parametrize("gpu,method,sizes", [("T4", "full", (13e9, 30e9)), ("A10", "lora", (40e9, 72e9)),
                                              ("L4", "inference", (30e9, 70e9))])
def test_largest_model_is_a_property_of_the_configuration(kb, gpu, method, sizes):
    """The largest size that fits does not depend on the size asked about, nor on which question came
    first; it fits, and a size 3% larger does not."""
    def largest(params):
        a = q(kb, params=params, method=method, gpu=gpu)
        return a["why_not"]["max_params_that_fit"]
    kb._cache.clear()
    first = [largest(n) for n in sizes]
    kb._cache.clear()
    again = [largest(n) for n in reversed(sizes)]
    kb._cache.clear()
    assert first[0] == first[1] == again[0] == again[1] and first[0] is not None
    assert q(kb, params=first[0], method=method, gpu=gpu)["verdict"] == "fits"
    assert q(kb, params=first[0] * 1.03, method=method, gpu=gpu)["verdict"] == "does_not_fit"


def test_largest_model_is_searched_once_per_configuration(kb, monkeypatch):
    """A second question about another size of the same configuration evaluates no search point."""
    from gpukb.engine.sizing import inverse as query_mod
    kb._cache.clear()
    q(kb, params=20e9, method="full", gpu="V100-32GB")
    calls = []
    monkeypatch.setattr(query_mod, "_largest_that_fits", lambda *a: calls.append(a) or 0.0)
    b = q(kb, params=25e9, method="full", gpu="V100-32GB")
    c = q(kb, params=25e9, method="full", gpu="V100-32GB", batch=2)
    kb._cache.clear()
    assert b["why_not"]["max_params_that_fit"] > 1e9 and len(calls) == 1       # only the new batch size searched
    assert c["why_not"]["max_params_that_fit"] == 0.0


def test_pairs_left_out_by_their_estimate_would_not_fit(kb, monkeypatch):
    """Pairs of changes whose added savings leave them over the GPU's memory are not evaluated; evaluating
    every pair instead gives the same answers (the oracle), on scenarios that have such pairs."""
    import json
    from gpukb.engine.sizing import recommend as query_mod
    bodies = [{"params": p, "method": m, "gpu": g, "batch": b} for g in ("T4", "A10", "L4", "V100-32GB")
              for m in ("full", "lora") for p in (7e9, 13e9, 20e9, 34e9) for b in (1, 4)]
    calls = []
    real = query_mod.pair_recommendations

    def counted(state, r, view, singles):
        out = real(state, r, view, singles)
        calls.append(len(out))
        return out

    def answers():
        kb._cache.clear()
        out = []
        for b in bodies:
            try:
                out.append(json.dumps(kb.query(dict(b)).to_json(), sort_keys=True))
            except BadInput as exc:
                out.append(exc.message)
        return out
    monkeypatch.setattr(query_mod, "pair_recommendations", counted)
    pruned = answers()
    monkeypatch.setattr(query_mod, "PAIR_MARGIN", float("inf"))
    every = answers()
    kb._cache.clear()
    assert len(bodies) >= 40 and pruned == every
    assert any(calls), "no scenario had a pair that fits: the test checks nothing"

BAD = [
    (dict(params=-5, method="full", gpu="T4"), "params"),
    (dict(params=1e15, method="full", gpu="T4"), "params"),
    (dict(params=float("nan"), method="full", gpu="T4"), "params"),
    (dict(params=13e9, method="full", gpu="T5000"), "gpu"),
    (dict(params=13e9, method="full"), "gpu"),
    (dict(method="full", gpu="T4"), "model"),
    (dict(params=13e9, model="llama-2-7b", gpu="T4"), "params"),
    (dict(params=13e9, method="inference", optimizer="adamw", gpu="T4"), "optimizer"),
    (dict(params=13e9, method="full", precision="nf4", gpu="T4"), "precision"),
    (dict(params=13e9, method="jogging", gpu="T4"), "method"),
    (dict(params=13e9, gpu="T4", batch=0), "batch"),
    (dict(params=13e9, gpu="T4", zero=4), "zero"),
    (dict(params=13e9, gpu="T4", gpus=1.5), "gpus"),
    (dict(params=13e9, gpu="T4", gradient_checkpointing="yes"), "gradient_checkpointing"),
    (dict(params=13e9, gpu="T4", colour="red"), "colour"),
    (dict(params=True, gpu="T4"), "params"),
]


@pytest.mark.parametrize("body,field", BAD)
def test_bad_scenarios_get_a_clear_error(kb, body, field):
    with pytest.raises(BadInput) as e:
        kb.query(body).to_json()
    assert any(i.field == field for i in e.value.issues), [str(i) for i in e.value.issues]


def test_zero_on_one_gpu_is_a_stated_normalisation(kb):
    a = q(kb, params=13e9, method="full", gpu="T4", zero=3)
    assert a["scenario"]["zero"] == 0
    assert any("ZeRO stage 3 on one GPU" in n for n in a["notes"])


def test_every_number_in_the_breakdown_is_in_the_proof_tree(kb):
    a = q(kb, params=13e9, method="full", gpu="T4")
    from gpukb.engine.explain.trees import walk
    nodes = list(walk(a["explanation"]["tree"]))
    rules = {n.get("rule", "").split("@")[0] for n in nodes}
    for r in ("sizing.full.weights", "sizing.full.gradients", "sizing.full.optimizer", "sizing.model_states",
              "sizing.capacity.nvsmi", "sizing.verdict.does_not_fit"):
        assert r in rules
    cited = {c["id"].split("@")[0] for n in nodes for c in n.get("cites", [])}
    assert {"R-ZERO-model_states_bpp", "R-ZERO-K", "R-CAPACITY-nvsmi", "R-CUDA-context"} <= cited
    leaves = [n for n in nodes if n.get("given")]
    assert any(n.get("tier") == "reference" and n["fact"].startswith("R-T4-usable_memory") for n in leaves)


def test_a_probe_scenario_is_sized_like_an_answer_but_gets_no_recommendations(kb):
    view = kb.view(None)
    from gpukb.engine.models import scenario as scen
    s, notes = scen.normalise({"params": 13e9, "method": "full", "gpu": "T4"}, kb.kb.vocab, view)
    [answer] = kb.run_scenarios([(s, notes)], view)
    [probe] = kb.run_scenarios([(s, notes)], view, "probe")
    assert answer.all("recommendation") and not probe.all("recommendation")
    for t in ("verdict", "model_states", "runtime_mem", "per_gpu", "capacity", "min_gpus", "compute"):
        assert probe.one(t) == answer.one(t), t


def test_an_answer_in_one_staged_session_equals_the_answer_from_fresh_runs(kb, monkeypatch):
    """Everything an answer evaluates runs in one staged session; with a fresh session per engine run
    (as before) every answer is the same, byte for byte."""
    import contextlib
    import json
    bodies = [{"params": 13e9, "method": "full", "gpu": "T4"}, {"model": "llama-2-7b", "method": "lora", "gpu": "A10"},
              {"params": 70e9, "method": "inference", "gpu": "A100-40GB"}, {"params": 34e9, "method": "qlora", "gpu": "L4"},
              {"params": 7e9, "method": "full", "instance": "GN7.2XLARGE32"}, {"params": 20e9, "method": "full", "gpu": "V100-32GB", "gpus": 2}]
    staged = [json.dumps(kb.query(dict(b)).to_json(), sort_keys=True) for b in bodies]
    kb._cache.clear()
    monkeypatch.setattr(type(kb), "staged", lambda self, view: contextlib.nullcontext())
    fresh = [json.dumps(kb.query(dict(b)).to_json(), sort_keys=True) for b in bodies]
    kb._cache.clear()
    assert staged == fresh
    assert any('"max_params_that_fit"' in a for a in staged) and any('"fits": true' in a for a in staged)


def test_questions_run_only_the_rules_they_need(kb):
    """A question's sessions compile the sizing rules and whatever derives a type they read; no rule left
    out derives such a type, so every sizing fact is what the whole rule set derives."""
    from gpukb.engine.sizing.run import question_rules
    sub = question_rules(kb.rules)
    kept = {r.key for r in sub.rules}
    assert {r.key for r in kb.rules.rules if r.group == "sizing"} <= kept < {r.key for r in kb.rules.rules}
    read = {p.type for r in sub.rules for p in r.patterns}
    assert not [r.key for r in kb.rules.rules if r.key not in kept and r.derive_type in read]
    view = kb.view(None)
    from gpukb.engine.models import scenario as scen
    s, notes = scen.normalise({"params": 13e9, "method": "full", "gpu": "T4"}, kb.kb.vocab, view)
    from gpukb.engine.sizing import run as sizing
    whole = sizing.run(kb.reasoner, view, kb.seeds(view), s, notes).derivation
    part = sizing.run(kb.question_reasoner, view, kb.seeds(view), s, notes).derivation
    assert {k: f for k, f in whole.facts.items() if "qid" in f} == {k: f for k, f in part.facts.items() if "qid" in f}
    assert len(part.facts) < len(whole.facts)        # the audit's inherited properties are not derived


def test_the_answer_that_filled_the_cache_is_the_cached_one_and_cannot_change_it(kb):
    """The caller that computed an answer gets it without a second copy; changing it leaves the cache's."""
    import json
    body = {"params": 9.5e9, "method": "lora", "gpu": "T4"}
    kb._cache.clear()
    first = kb.query(dict(body)).to_json()
    shown = json.dumps(first, sort_keys=True)
    first["verdict"] = "changed"
    first["recommendations"].clear()
    again = kb.query(dict(body)).to_json()
    assert json.dumps(again, sort_keys=True) == shown
    assert again is not first


def test_facts_no_rule_can_match_stay_out_of_durable_and_change_no_answer(kb, monkeypatch):
    """A probe scenario's verdict, GPU count and compute time are read only by the recommendation rules,
    which need an answer's scenario: they are derived and kept but not sent to durable_rules. Answers
    (recommendations' variants and pairs, the largest-model search, alternatives) are the same without
    that, with fewer facts sent."""
    import json
    from gpukb.engine.sizing import run as sizing
    rules = kb.question_reasoner.ruleset
    muted = sizing.answer_only_types(rules)
    assert {"verdict", "min_gpus"} <= muted
    assert not muted & {"capacity", "per_gpu", "model_states", "mem_part", "scenario"}, "read by sizing rules"
    bodies = [{"params": 13e9, "method": "full", "gpu": "T4"}, {"params": 34e9, "method": "qlora", "gpu": "L4"},
              {"model": "llama-2-7b", "method": "lora", "gpu": "A10"}, {"params": 70e9, "method": "inference", "gpu": "A100-40GB"}]
    sent = sent_to_durable(monkeypatch, "t")
    kb._cache.clear()
    quiet = [json.dumps(kb.query(dict(b)).to_json(), sort_keys=True) for b in bodies] + \
        [json.dumps(kb.ask("why not T4 for 13B").to_json(), sort_keys=True)]
    n_quiet = len(sent)
    kb._cache.clear()
    sent.clear()
    monkeypatch.setattr(kb.question_reasoner, "mute", None)
    loud = [json.dumps(kb.query(dict(b)).to_json(), sort_keys=True) for b in bodies] + \
        [json.dumps(kb.ask("why not T4 for 13B").to_json(), sort_keys=True)]
    kb._cache.clear()
    assert quiet == loud
    assert n_quiet < len(sent) and "verdict" in sent
