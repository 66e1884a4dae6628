"""What a release and the hardware decide of a sizing scenario that its query does not say: whether the card
computes BF16 natively, vLLM's default token budget, a model's native input length, and whether a BF16 run keeps
FP32 master weights (DeepSpeed's ZeRO optimizer does, R-DS-bf16-master). Used by :func:`.scenario.normalise`."""
from __future__ import annotations

from typing import Any

from ..core.errors import Issue

#: the reference fact whose release sizes a BF16 run under DeepSpeed ZeRO with FP32 master weights and states
DS_BF16_MASTER = "R-DS-bf16-master"


def _native_bf16(s: dict[str, Any], view: Any) -> bool | None:
    """Whether the scenario's GPU computes BF16 natively (None when the KB does not say)."""
    if view is None:
        return None
    gpu = s.get("gpu")
    if gpu is None and (s.get("instance") or s.get("family")):
        carried = view.ref(s.get("instance") or s.get("family"), "gpu")
        if carried is not None and isinstance(carried.value, list) and len(carried.value) == 1:
            gpu = carried.value[0]
    f = view.ref(gpu, "bf16_native") if gpu else None
    return None if f is None else bool(f.value)


def _vllm_batched_tokens(s: dict[str, Any], view: Any) -> tuple[int, bool]:
    """``vllm serve``'s default token budget per step (R-VLLM-batched-tokens-default): 8192 on a card of at
    least 70 GiB that is not an A100 (H100, H200, H20), else 2048; and whether the card is such a large one."""
    gpu = s.get("gpu")
    if gpu is None and view is not None and (s.get("instance") or s.get("family")):
        carried = view.ref(s.get("instance") or s.get("family"), "gpu")
        if carried is not None and isinstance(carried.value, list) and len(carried.value) == 1:
            gpu = carried.value[0]
    size = s.get("vram_gb")
    if gpu and view is not None:
        f = view.ref(gpu, "memory_gb")
        size = f.norm.point() if f is not None and getattr(f.norm, "point", None) else None
    big = size is not None and size * 1e9 >= 70 * 2 ** 30 and "A100" not in (gpu or "")
    return (8192 if big else 2048), big


def _input_tokens(s: dict[str, Any], view: Any) -> int | None:
    """The sequence length a model sees at its standard input size (a ViT-B/16 at 224 px: 197 tokens),
    when the reference gives it; None otherwise."""
    if view is None or not s.get("model"):
        return None
    f = view.ref(s["model"], "input_tokens")
    return int(f.norm.point()) if f is not None and getattr(f.norm, "point", None) else None


def master_weights(b: dict[str, Any], s: dict[str, Any], view: Any) -> tuple[bool | None, str | None]:
    """Whether a BF16 full training run keeps FP32 master weights, gradient partitions and optimizer states
    beside its BF16 weights, and the note that says why (None: nothing to say).

    Given, it holds for BF16 full training and pre-training (other precisions say it themselves: mixed and fp16
    keep them, fp32 needs none; LoRA's adapters are FP32 anyway). Not given, a run whose query gives a DeepSpeed
    ZeRO stage (zero >= 1, not PyTorch FSDP1) keeps them in a release that has R-DS-bf16-master: DeepSpeed's
    bf16 mode trains through its ZeRO optimizer, whose master weights, gradients and states are FP32 unless
    bf16_master_weights_and_grads and bf16_optimizer_states are set. A sharded run whose strategy the query
    leaves open (zero defaulted for several GPUs) stays pure BF16, as the precision field says."""
    v = b.get("master_weights")
    bf16_full = s.get("method") in ("full", "pretrain") and s.get("precision") == "bf16"
    # a release before 2026.12.17 sizes BF16 training as pure BF16 (its rules count no FP32 master copy in BF16)
    known = view is None or DS_BF16_MASTER in view.facts
    if isinstance(v, bool):
        return (v, None) if bf16_full and known else (None, "master_weights_ignored" if known else "master_weights_release")
    if not bf16_full or "zero" not in b or not s.get("zero") or s.get("fsdp1") or view is None or not known:
        return None, None
    return True, "master_weights_deepspeed"


#: the reference fact whose release sizes a model split layer by layer over GPUs (Accelerate's device_map="auto")
LAYER_SPLIT = "R-ACCEL-layer-split"


def layer_split(b: dict[str, Any], view: Any, one_gpu: bool) -> tuple[bool, str | None]:
    """Whether the model's layers are split over the GPUs in one process (Hugging Face Accelerate's
    device_map="auto", R-ACCEL-layer-split), and the note that says why a split asked for is not sized so.

    Only when the query says so (layer_split true): a run on several GPUs that says nothing is sharded
    (zero). A split needs several GPUs and a release that has the fact; it is one process, so a ZeRO stage
    or CPU offload given with it is what the run does instead."""
    if b.get("layer_split") is not True:
        return False, None
    if view is not None and LAYER_SPLIT not in view.facts:
        return False, "layer_split_release"
    if one_gpu:
        return False, "layer_split_one_gpu"
    if b.get("zero") or b.get("offload", "none") != "none":
        return False, "layer_split_sharded"
    return True, None


#: the reference fact whose release sizes Megatron-style tensor-parallel training (Shoeybi et al. 2019)
TENSOR_PARALLEL = "R-MEGATRON-tp"


def tensor_parallel(b: dict[str, Any], s: dict[str, Any], view: Any, split: bool) -> tuple[int, str | None]:
    """The size of a training run's Megatron-style tensor-parallel group (R-MEGATRON-tp), and the note that says
    why a group asked for is not sized so.

    Only when the query gives tensor_parallel > 1, for training, in a release that has the fact, with gpus given
    as a multiple of it; the groups are plain data parallel, so a ZeRO stage, CPU offload or a layer split given
    with it is what the run does instead."""
    t = s.get("tensor_parallel")
    if not t or t <= 1:
        return 1, None
    if s["method"] == "inference":
        return 1, "tensor_parallel_inference"
    if view is not None and TENSOR_PARALLEL not in view.facts:
        return 1, "tensor_parallel_release"
    gpus = s.get("gpus")
    if not gpus or int(gpus) % int(t):
        return 1, "tensor_parallel_gpus"
    if b.get("zero") or b.get("offload", "none") != "none" or split:
        return 1, "tensor_parallel_sharded"
    return int(t), None


#: the reference fact whose release sizes LoRA under FSDP1 with use_orig_params and mixed frozen/trained units
FSDP_FROZEN_GRADS = "R-FSDP-frozen-grads"


def fsdp_orig_params(b: dict[str, Any], s: dict[str, Any], view: Any) -> tuple[bool, str | None]:
    """Whether a LoRA run's frozen base gets gradients because FSDP1 (use_orig_params=True) wraps its adapters in
    the same units as the frozen layers (R-FSDP-frozen-grads), and the note that says why one asked for is not sized
    so. Only when the query says so (fsdp_orig_params true), for LoRA sharded with FSDP1's full shard (zero 3 with
    fsdp1), in a release that has the fact."""
    if b.get("fsdp_orig_params") is not True:
        return False, None
    if view is not None and FSDP_FROZEN_GRADS not in view.facts:
        return False, "fsdp_orig_params_release"
    if s.get("method") != "lora" or s.get("zero") != 3 or not s.get("fsdp1"):
        return False, "fsdp_orig_params_ignored"
    return True, None


#: the reference fact whose release sizes GaLore's projected optimizer states (and Q-GaLore's INT8 weights)
GALORE_STATES = "R-GALORE-states"


def galore(b: dict[str, Any], s: dict[str, Any], view: Any, issues: list[Issue]) -> list[str]:
    """Keep a GaLore rank (and Q-GaLore) in the scenario where it is sized, and say why not elsewhere: full
    training or pre-training on replicas (no ZeRO stage: GaLore's optimizer steps each whole weight), in a release
    that has R-GALORE-states. ``galore_rank`` was read as a number already; returns the keys of the notes to add."""
    rank, q = s.pop("galore_rank", None), b.get("q_galore")
    if "q_galore" in b and not isinstance(q, bool):
        issues.append(Issue(f"expected true or false, got {q!r}", field="q_galore", allowed=["true", "false"]))
        return []
    if rank is None:
        return ["q_galore_without_rank"] if q else []
    if view is not None and GALORE_STATES not in view.facts:
        return ["galore_release"]
    if s.get("method") not in ("full", "pretrain") or s.get("zero"):
        return ["galore_ignored"]
    s["galore_rank"] = int(rank)
    if q:
        s["q_galore"] = True
    return []


#: the reference fact whose release sizes FSDP1's unsharded gradients under no_sync
FSDP_NO_SYNC = "R-FSDP-no-sync-grads"


def fsdp_no_sync(b: dict[str, Any], s: dict[str, Any], view: Any, issues: list[Issue]) -> list[str]:
    """Keep fsdp_no_sync where it is sized: full training or pre-training sharded with FSDP1's full shard (zero 3
    with fsdp1), parameters on the GPU, in a release that has R-FSDP-no-sync-grads; returns the notes' keys."""
    v = b.get("fsdp_no_sync")
    if "fsdp_no_sync" in b and not isinstance(v, bool):
        issues.append(Issue(f"expected true or false, got {v!r}", field="fsdp_no_sync", allowed=["true", "false"]))
        return []
    if v is not True:
        return []
    if view is not None and FSDP_NO_SYNC not in view.facts:
        return ["fsdp_no_sync_release"]
    if s.get("method") not in ("full", "pretrain") or s.get("zero") != 3 or not s.get("fsdp1") \
            or s.get("offload", "none") != "none":
        return ["fsdp_no_sync_ignored"]
    s["fsdp_no_sync"] = True
    return []


#: optimizers added after the first releases, with the reference fact whose release brings each
OPTIMIZER_SINCE = {"adamw4bit": "R-OPT-adamw4bit-states"}


def optimizer_in_release(opt: str, view: Any) -> bool:
    """Whether a release can size an optimizer (one added later needs the release of its state fact)."""
    return view is None or opt not in OPTIMIZER_SINCE or OPTIMIZER_SINCE[opt] in view.facts


def qlora_base(prec: str, view: Any) -> str:
    """The precision a QLoRA question's frozen linear layers keep: the quantized base's own, INT8 over a bitsandbytes
    8-bit base or INT4 over a GPTQ / AWQ checkpoint, in a release that knows LoRA over such a base
    (R-LORA-kbit-base, 2026.12.27); NF4 otherwise, the other precisions naming the adapters' and compute's."""
    return prec if prec in ("int8", "int4") and (view is None or "R-LORA-kbit-base" in view.facts) else "nf4"
