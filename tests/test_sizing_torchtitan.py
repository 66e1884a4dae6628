"""Training as torchtitan runs it (issue 33, release 2026.12.30): its op-level selective activation checkpointing
keeps each layer's input, every other matmul's output and the attention kernel's (R-ACT-sac-op), and its launch
script's expandable segments leave the reserve without GMLake's fragmentation share (R-TORCH-expandable-segments);
torchtitan's presets (seq_len 8192, selective op checkpointing, expandable segments) are cited framework data."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.core.errors import ValidationError
from gpukb.engine.sizing import frameworks
from gpukb.engine.sizing.calibration import run_body

# a case of our own: Llama 3.1 8B (h 4096, 32 layers, 32 heads, 8 KV heads, MLP 14336 in the catalog), 2 x 4096
# tokens per GPU on 4 H100s
RUN = {"model": "llama-3.1-8b", "method": "pretrain", "gpu": "H100-80GB", "gpus": 4, "zero": 3, "seq_len": 4096,
       "batch": 2, "gradient_checkpointing": True, "flash_attention": True}
TOKENS = 4096 * 2


def _mem(kb, **kw):
    return kb.query({**RUN, **kw}).to_json()


def test_selective_op_checkpointing_keeps_every_other_matmul(kb):
    full, sac = _mem(kb), _mem(kb, selective_checkpointing=True)
    # per token and layer, 16-bit: input h, wq h, wv 8·128, SDPA out h, w1 14336, w2 h; + 4 bytes per head (logsumexp)
    kept = 2 * (4 * 4096 + 8 * 128 + 14336) + 4 * 32
    # full recomputation keeps the input only (2 bytes per value); both add the one layer being recomputed
    assert sac["memory"]["activations"] - full["memory"]["activations"] == pytest.approx(
        32 * TOKENS * (kept - 2 * 4096) / 1e9, rel=1e-3)
    # it keeps less than no checkpointing at all (Korthikanti's 34 + 8 bytes per s·b·h per layer)
    assert sac["memory"]["activations"] < _mem(kb, gradient_checkpointing=False)["memory"]["activations"]
    assert sac["scenario"]["selective_checkpointing"] is True
    assert "R-ACT-sac-op" in json.dumps(sac["explanation"])
    for k in ("weights", "gradients", "optimizer", "logits"):
        assert sac["memory"][k] == full["memory"][k]


def test_a_model_without_its_mlp_width_gets_a_4h_wide_mlp(kb):
    base = {k: v for k, v in RUN.items() if k != "model"} | {"params": 7e9}
    full = kb.query(base).to_json()
    sac = kb.query({**base, "selective_checkpointing": True}).to_json()
    diff_per_token = (sac["memory"]["activations"] - full["memory"]["activations"]) * 1e9 / TOKENS
    # 2·(8h + kv·d) + 4·heads - 2h per layer: with the Llama-shaped approximation h = 128·L, heads = L, kv = min(8, L)
    layers = round((128 * 7e9 / 12) ** (1 / 3) / 128)
    h = round((128 * 7e9 / 12) ** (1 / 3))
    kv = min(8, layers) * h / layers
    assert diff_per_token == pytest.approx(layers * (2 * (8 * h + kv) + 4 * layers - 2 * h), rel=2e-3)


def test_selective_without_checkpointing_is_ignored_with_a_note(kb):
    plain = _mem(kb, gradient_checkpointing=False)
    asked = _mem(kb, gradient_checkpointing=False, selective_checkpointing=True)
    assert asked["memory"]["activations"] == plain["memory"]["activations"]
    assert any("selective_checkpointing ignored" in n for n in asked["notes"])


def test_expandable_segments_leave_no_fragmentation_share(kb):
    frag, exp = _mem(kb), _mem(kb, expandable_segments=True)
    # same tensors; the reserve is the allocated peak plus the CUDA context, not allocated / 0.85 + context
    assert exp["memory"]["per_gpu_allocated"] == frag["memory"]["per_gpu_allocated"]
    assert exp["memory"]["per_gpu_reserved"] == pytest.approx(exp["memory"]["per_gpu_total"], abs=1e-3)
    ctx = frag["memory"]["per_gpu_total"] - frag["memory"]["per_gpu_allocated"]
    assert frag["memory"]["per_gpu_reserved"] == pytest.approx(frag["memory"]["per_gpu_allocated"] / 0.85 + ctx, rel=1e-3)
    # the verdict is not decided by the reserve
    assert exp["verdict"] == frag["verdict"]


def test_a_release_before_sizes_them_as_before(kb):
    old = {"kb_version": "2026.12.29"}
    full, sac = _mem(kb, **old), _mem(kb, selective_checkpointing=True, expandable_segments=True, **old)
    assert sac["memory"]["activations"] == full["memory"]["activations"]
    assert sac["memory"]["per_gpu_reserved"] == full["memory"]["per_gpu_reserved"]


def test_torchtitans_presets_are_cited_framework_data(kb):
    root = kb.kb.root
    assert frameworks.defaults(root, "torchtitan (FSDP2)", True) == {
        "seq_len": 8192, "selective_checkpointing": True, "expandable_segments": True}
    assert frameworks.defaults(root, "torchtitan", False) == {}
    view, vocab = kb.view(None), kb.kb.vocab
    row = {"method": "pretrain", "model": "model:llama-3.1-8b", "framework": "torchtitan (FSDP2)", "gpu": "gpu:H100",
           "gpus": 16, "sharding": "fsdp", "batch": 4, "gradient_checkpointing": True}
    body = run_body(row, vocab, view)
    assert body["seq_len"] == 8192 and body["selective_checkpointing"] is True and body["expandable_segments"] is True
    # a run that states its length keeps it; one that says it checkpoints whole layers is not selective
    assert run_body({**row, "seq_len": 2048}, vocab, view)["seq_len"] == 2048
    said = run_body({**row, "note": "Llama 3.1 70B, full activation checkpointing"}, vocab, view)
    assert said["selective_checkpointing"] is False and said["expandable_segments"] is True


def test_framework_defaults_take_whole_numbers_but_not_text(tmp_path):
    (tmp_path / "frameworks.yaml").write_text(
        "frameworks:\n  - {words: [x], phase: training, sets: {seq_len: 4096}, citation: c}\n", encoding="utf-8")
    assert frameworks.defaults(tmp_path, "x", True) == {"seq_len": 4096}
    for bad in ("'4096'", "4096.5", "true"):
        d = tmp_path / bad.strip("'").replace(".", "_")
        d.mkdir()
        (d / "frameworks.yaml").write_text(
            f"frameworks:\n  - {{words: [x], phase: training, sets: {{seq_len: {bad}}}, citation: c}}\n", encoding="utf-8")
        with pytest.raises(ValidationError):
            frameworks.defaults(d, "x", True)


def test_the_cli_takes_both_flags(cli):
    out = cli.json("query", "--model", "llama-3.1-8b", "--method", "pretrain", "--gpu", "H100-80GB", "--gpus", "8",
                   "--zero", "3", "--seq-len", "8192", "--gradient-checkpointing", "--selective-checkpointing",
                   "--expandable-segments", "--json")
    assert out["scenario"]["selective_checkpointing"] is True and out["scenario"]["expandable_segments"] is True


def test_a_plain_loop_on_its_own_bf16_logits_keeps_them_16_bit(kb):
    # rasbt/LLMs-from-scratch's training-speed scripts apply F.cross_entropy to a bf16 model's own logits
    root = kb.kb.root
    for fw in ("plain PyTorch training loop (book code, 01_opt_single_gpu.py)", "PyTorch DDP (02_opt_multi_gpu_dpp.py)"):
        assert frameworks.defaults(root, fw, True) == {"logits_dtype_loss": True}
    assert frameworks.defaults(root, "plain PyTorch training loop (own script)", True) == {}
    q = {"params": 3e8, "method": "pretrain", "precision": "bf16", "gpu": "A100-80GB", "seq_len": 1024, "batch": 4}
    own, upcast = kb.query({**q, "logits_dtype_loss": True}).to_json(), kb.query(q).to_json()
    assert own["memory"]["logits"] < upcast["memory"]["logits"]
