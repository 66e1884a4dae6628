"""Guards on requirements, counts and verdicts as practitioners state them: a requirement within what common setups
of its method need (the band of bytes per parameter they hold, and what activations, cache and runtime add), a
usual or setup GPU count, a bound, a count that only places a memory figure, a family whose sizes carry several GPUs."""
from __future__ import annotations

import re
from typing import Any

from ..kb.vocabulary import Interval
from .guard_base import Context, carried_gpus, cue_in_unit, last_figure, memory_facts, point_of


#: bytes per parameter that common setups hold, lowest and highest (see kb/reference/formulas.yaml):
#: full training from pure BF16 with AdamW in BF16 (8; torchtune's default) to mixed precision AdamW
#: (16; Rajbhandari et al. 2020, ZeRO §3); LoRA from 4-bit base weights (QLoRA, Dettmers et al. 2023)
#: to 16-bit ones; inference from 4-bit to 16-bit weights
PRACTICE_BYTES = {"method:full": (8, 16), "method:pretrain": (8, 16), "method:lora": (2, 2),
                  "method:qlora": (0.5, 0.7), "method:inference": (0.5, 2)}
#: what activations, cache and runtime add on top of the weights and states, at most (a band, not a fit)
PRACTICE_SLACK = (0.8, 1.6)
#: the optimizer the practice band is of (AdamW in pure BF16 to mixed precision), stated or not; another one
#: (8-bit, SGD, Adafactor) changes the bytes per parameter, so the band does not speak for it
PRACTICE_OPTIMIZERS = (None, "optimizer:adamw")
#: the same for LoRA and QLoRA, whose memory activations dominate: without recomputation a 7B model at
#: sequence 2048 and batch 1 keeps s·b·h·L·34 bytes ≈ 9 GB of activations even with memory-efficient
#: attention (Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", 2022,
#: section 4), twice LoRA's 16-bit weights and several times QLoRA's 4-bit ones; a figure the text gives
#: without its sequence length and batch can be any of these setups'
PEFT_SLACK = (0.8, 4.0)
PEFT_METHODS = ("method:lora", "method:qlora")
#: a 16-bit precision said of full training fits both ends of its band: Hugging Face Trainer's ``bf16=True``
#: is mixed precision with FP32 weights (its TrainingArguments docs), torchtune's ``dtype: bf16`` pure BF16
SIXTEEN_BIT = frozenset({"precision:fp16", "precision:bf16"})
FULL_TRAINING = ("method:full", "method:pretrain")
#: the precisions each method's band above already assumes: a text that states one of them states nothing new
#: (inference's band spans 4- to 16-bit weights: a stated precision narrows it, so it is not listed)
USUAL_PRECISIONS = {**{m: SIXTEEN_BIT for m in FULL_TRAINING + ("method:lora",)},
                    "method:qlora": frozenset({"precision:nf4", "precision:int4"})}


def _stated_precisions(c: Any) -> set[str]:
    """The precisions a claim's qualifiers state (one or a list)."""
    precision = c.qualifiers.get("precision")
    return set(precision if isinstance(precision, list) else [precision] if precision else [])


def within_practice(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    method = str(c.qualifiers.get("method") or "")
    stated = _stated_precisions(c)
    if c.attribute != "memory_required" or c.qualifiers.get("optimizer") not in PRACTICE_OPTIMIZERS or \
            (stated and not stated <= USUAL_PRECISIONS.get(method, frozenset())):
        return None
    params = c.qualifiers.get("params")
    models = [c.subject] if c.subject.startswith("model:") else list(c.qualifiers.get("model") or [])
    if params is None and len(models) == 1:        # "Llama 2 7B needs …", a table row's model: its own size
        ref = ctx.view.ref(models[0], "params")
        params = ref.norm if ref is not None else None
    n = params.point() if isinstance(params, Interval) else None
    band = PRACTICE_BYTES.get(method)
    x = point_of(c) if point_of(c) is not None else (c.norm.point() if isinstance(c.norm, Interval) else None)
    if not n or not band or x is None:
        return None
    slack = PEFT_SLACK if method in PEFT_METHODS and not (c.qualifiers.get("seq_len") or c.qualifiers.get("batch")) \
        else PRACTICE_SLACK
    lo, hi = n * band[0] / 1e9 * slack[0], n * band[1] / 1e9 * slack[1]
    if lo <= x <= hi:
        return {"lo": f"{lo:.0f}", "hi": f"{hi:.0f}"}
    return None


#: count-like claims whose GPU count common full-training setups bracket
COUNT_CLAIMS = ("min_gpus", "memory_verdict")


def count_within_practice(ctx: Context) -> dict[str, str] | None:
    """A full-training GPU count ("13B needs at least two A100 80GB", "8 张 A100 80GB 可以全量微调 70B") that
    lies between what pure BF16 (8 bytes per parameter, sharded) and mixed-precision AdamW (16) need on
    cards of the claim's memory, when the text states no optimizer and no precision but a 16-bit one; or a
    serving count with no precision stated ("双卡 4090 部署 70B") between what 4-bit and 16-bit weights need."""
    c = ctx.claim
    method = str(c.qualifiers.get("method") or "")
    stated = _stated_precisions(c)
    serving = method == "method:inference" and not stated     # "双卡 4090 部署 70B": 4-bit weights fit, 16-bit not
    if c.attribute not in COUNT_CLAIMS or not (serving or method in FULL_TRAINING) or \
            c.qualifiers.get("optimizer") not in PRACTICE_OPTIMIZERS or not stated <= SIXTEEN_BIT:
        return None
    params, gpus = c.qualifiers.get("params"), c.qualifiers.get("gpus")
    n = params.point() if isinstance(params, Interval) else None
    # a verdict that names no count is said of one card, as the audit sizes it ("7B can be fully fine-tuned on an A100")
    count = point_of(c) if c.attribute == "min_gpus" else (gpus.point() if isinstance(gpus, Interval) else 1)
    if c.attribute == "memory_verdict" and c.value != "sufficient":
        return None
    vocab = ctx.vocab
    sizes = [x for r in memory_facts(ctx.view, (c.subject, *(vocab.entities.get(c.subject, {}).get("variants") or ()))) if (x := point_of(r))]
    if not n or not count or not sizes or vocab.kind_of(c.subject) != "gpu":
        return None
    lo_b, hi_b = PRACTICE_BYTES[method]
    fewest = -(-n * lo_b * PRACTICE_SLACK[0] / 1e9 // max(sizes))
    most = -(-n * hi_b * PRACTICE_SLACK[1] / 1e9 // min(sizes))
    if fewest <= count <= most:
        return {"n": f"{count:g}", "lo": f"{fewest:.0f}", "hi": f"{most:.0f}",
                **(SETUPS["serving"] if serving else SETUPS["training"])}
    return None


#: the common setups a count's band spans, in both languages, for the guard's reason
SETUPS = {"training": {"setups": "pure 16-bit and mixed-precision training", "setups_zh": "纯 16 位训练与混合精度训练"},
          "serving": {"setups": "4-bit and 16-bit weights", "setups_zh": "4 位与 16 位权重"}}


def usual_count(ctx: Context) -> dict[str, str] | None:
    """"全量微调 7B 通常需要 4 张 A100 80GB": a GPU count the text gives as what is usually used or recommended
    (cues ``usual``), not as the fewest that fit; that it is more than the fewest overstates nothing."""
    if ctx.claim.attribute != "min_gpus" or ctx.status != "overstated":
        return None
    return cue_in_unit(ctx, "usual")


#: requirements a text may state as a bound ("needs more than 16 GB", "fits in under 24 GB")
BOUNDED_NEEDS = ("memory_required", "training_memory")


def loose_bound(ctx: Context) -> dict[str, str] | None:
    """"Full fine-tuning 13B needs far more than a T4's 16 GB": a requirement stated as a strict lower bound that
    gpukb's estimate exceeds (or a strict upper bound it stays under) is true as stated, however far the estimate
    is from it: the bound says what is not enough (or enough), not how much is needed. "At least 16 GB" and "≥ 16 GB"
    are not such bounds: a minimum requirement written so says that 16 GB is enough, which the estimate judges."""
    c = ctx.claim
    norm = c.norm if isinstance(c.norm, Interval) else None
    if c.attribute not in BOUNDED_NEEDS or norm is None or norm.kind != "bound":
        return None
    if (norm.lo is not None and norm.lo_strict and ctx.status == "understated") or \
            (norm.hi is not None and norm.hi_strict and ctx.status == "overstated"):
        return {"bound": norm.text(c.unit or "")}
    return None


#: a memory figure and the words that place it on GPUs, right before a count ("the 640 GB on one 8x H100 node",
#: "80 GB across 8", "640GB 的 8 卡"): the count says where that memory is
_PLACED = re.compile(r"\d\s*(?:gb|gib|tb|g)\s*(?:of\s+(?:gpu\s+)?memory\s+|of\s+hbm\w*\s+|显存\s*)?"
                     r"(?:on|in|across|from|of|over|spread\s+over|的|在|分布在)\s+(?:(?:one|a|an|the|single)\s+)?[^\d,;.]{0,8}$")


def capacity_place(ctx: Context) -> dict[str, str] | None:
    """"810 GB for the weights, more than the 640 GB on one 8x H100 node": a GPU count that only says where a
    memory figure sits (a server's or node's cards) is no count of GPUs the workload needs."""
    c = ctx.claim
    fig = last_figure(ctx.low, c.span) if c.attribute in ("min_gpus", "gpu_count") else None
    if fig is None:
        return None
    m = _PLACED.search(ctx.low, max(ctx.unit[0], fig.start() - 40), fig.start())
    return {"words": ctx.text[m.start() + 1:fig.start()].strip()} if m else None


def family_sizes(ctx: Context) -> dict[str, str] | None:
    """"A 70B model in FP16 fits on an ND H100 v5 VM": a claim that a run fits a family whose sizes carry several GPUs
    (eight H100s in Standard_ND96isr_H100_v5) may be about its largest size; gpukb sized one card, so only a claim
    that it does not fit is judged."""
    c, vocab, view = ctx.claim, ctx.vocab, ctx.view
    if vocab.kind_of(c.subject) != "family" or not (c.attribute in ("suitability", "memory_verdict")
                                                   and vocab.polarity(str(c.value)) > 0 and ctx.status == "inconsistent_with_derivation"):
        return None
    counts = sorted({n for eid, spec in vocab.entities.items() if spec.get("family") == c.subject
                     for r in [view.ref(eid, "gpu_count")] if r is not None and (n := point_of(r))})
    sizes = [x for r in memory_facts(view, tuple(carried_gpus(view, c.subject))) if (x := point_of(r))]
    need = (ctx.verdict or {}).get("need_gb")
    if not counts or counts[-1] < 2 or (need is not None and sizes and need > counts[-1] * max(sizes)):
        return None                 # even the largest size's cards together hold less than the run needs
    return {"family": vocab.label(c.subject), "counts": " / ".join(f"{n:g}" for n in counts)}
