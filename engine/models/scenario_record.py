"""The scenario record the sizing rules match: a normalised scenario (:func:`.scenario.normalise`) as the flags the
rules' conditions name (``rules/types.yaml``, type ``scenario``): nulls dropped, booleans as 0/1, and what the
precision and sharding imply (AMP's FP32 weights, an FP32 master copy)."""
from __future__ import annotations

from typing import Any


def record(s: dict[str, Any], qid: str, purpose: str = "answer") -> dict[str, Any]:
    """The reasoner's scenario record (nulls dropped, booleans as 0/1); ``purpose`` "audit" marks a
    scenario the audit computes to check a claim, which needs no recommendations."""
    r = {"t": "scenario", "fk": f"scenario:{qid}", "qid": qid, "purpose": purpose, "method": s["method"],
         "precision": s["precision"], "compute": s.get("compute_precision", s["precision"]), "optimizer": s["optimizer"],
         "optimizer_id": f"optimizer:{s['optimizer']}",
         "optimizer_base": "optimizer:adamw8bit" if s["optimizer"] == "paged_adamw8bit" else f"optimizer:{s['optimizer']}", "zero": s.get("zero", 0),
         "seq_len": s["seq_len"], "batch": s["batch"], "gc": int(s["gradient_checkpointing"]),
         "fa": int(bool(s.get("flash_attention"))),
         "att": "default" if s.get("flash_attention") is None else ("flash" if s["flash_attention"] else "eager"),
         "trainable": 0 if s["method"] == "inference" else 1,
         "offload": s.get("offload", "none"), "oib": int(bool(s.get("optimizer_in_backward"))),
         "cce": int(bool(s.get("chunked_cross_entropy"))), "ao": int(bool(s.get("activation_offloading"))),
         "fce": int(bool(s.get("fused_cross_entropy"))),
         "tc": int(bool(s.get("torch_compile"))), "ldl": int(bool(s.get("logits_dtype_loss"))),
         "fsdp1": int(bool(s.get("fsdp1"))), "split": int(bool(s.get("layer_split"))), "sac": int(bool(s.get("selective_checkpointing"))),
         "tp": int(s.get("tensor_parallel") or 1), "sp": int(bool(s.get("sequence_parallel"))),
         "fop": int(bool(s.get("fsdp_orig_params"))), "galore": int(s.get("galore_rank") or 0), "qg": int(bool(s.get("q_galore"))),
         "nosync": int(bool(s.get("fsdp_no_sync"))), "es": int(bool(s.get("expandable_segments"))),
         # PyTorch's foreach AdamW step: asked (fused_optimizer false) or, not said, an FSDP1 run's own optimizer
         "foreach": int(not s["fused_optimizer"]) if s.get("fused_optimizer") is not None else int(bool(s.get("fsdp1"))),
         "kbp": int(s["method"] == "qlora" and bool(s.get("kbit_preparation"))),
         "paged": int(s["optimizer"].startswith("paged_")),
         "state8": int(s["optimizer"] in ("adamw8bit", "paged_adamw8bit")), "state4": int(s["optimizer"] == "adamw4bit"),
         "gmu": s.get("gpu_memory_utilization") or 0, "mnbt": s.get("max_num_batched_tokens") or 0,
         "kv8": int(s.get("kv_cache_dtype") == "fp8"), "vllm": int(s.get("engine") == "vllm"),
         "apl": int(bool(s.get("full_prompt_logits"))),
         "ntok": min(s.get("new_tokens") or 0, max(s["seq_len"] - 1, 0)),
         "amp": int(s["method"] in ("full", "pretrain") and (s["precision"] in ("fp16", "mixed") or bool(s.get("master_weights")))),
         "master": int(s["method"] in ("full", "pretrain") and (s["precision"] == "fp16" or bool(s.get("master_weights")) or (
             s["precision"] == "mixed" and (s.get("zero", 0) > 0 or s.get("offload", "none") != "none"))))}
    for k in ("params", "model", "gpu", "instance", "family", "vram_gb", "gpus", "lora_rank", "tokens"):
        if s.get(k) is not None:
            r[k] = s[k]
    return r
