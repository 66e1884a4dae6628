"""Sizing scenarios: validation and normalisation of query inputs, and their stable conclusion ids.

A scenario is what `gpukb query` flags and the `POST /v1/query` body describe. Bad input raises
:class:`BadInput` listing every problem with what is allowed; defaults and normalisations are stated
in ``notes`` so an answer never silently changes what was asked.
"""
from __future__ import annotations

import base64
import json
import math
import re
from typing import Any

from ..core.errors import BadInput, Issue
from ..kb.vocabulary import Vocabulary
from ..core.terms import METHODS, OFFLOADS, OPTIMIZERS, PRECISIONS
# the query's keys, ranges, vocabularies and defaults are declared once, in .query (FIELDS)
from .query import ENGINES, FIELD, KEYS, KV_CACHE_DTYPES, LIMITS
# what the release and the hardware decide of a scenario (native BF16, vLLM's token budget, DeepSpeed's FP32 master)
from .scenario_defaults import (_input_tokens, _native_bf16, _vllm_batched_tokens, fsdp_no_sync, fsdp_orig_params,
                                galore, layer_split, master_weights, optimizer_in_release, qlora_base, tensor_parallel)
# the record the sizing rules match (their flag names), built from a normalised scenario
from .scenario_record import record  # noqa: F401  (re-exported: scen.record)

#: the shape defaults every scenario states in its notes (seq_len 512, batch 1)
DEFAULTS = {k: FIELD[k].default for k in ("seq_len", "batch")}
#: the precision each method defaults to, as the common tooling runs it (override with ``precision``):
#: full training and pre-training in mixed precision (FP32 weights and AdamW states, 16-bit compute:
#: PyTorch AMP, the Hugging Face Trainer's bf16=True, DeepSpeed); ``bf16`` is pure BF16 (torchtune's
#: default: weights, gradients and AdamW states all in BF16)
DEFAULT_PRECISION = {"full": "mixed", "pretrain": "mixed", "lora": "bf16", "qlora": "nf4", "inference": "fp16"}
_PARAMS_TEXT = re.compile(r"^\s*(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*([kKmMbBtT]?)\s*$")
_SCALE = {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def _number(key: str, v: Any, issues: list[Issue]) -> float | None:
    lo, hi, integer = LIMITS[key]
    if isinstance(v, bool):
        issues.append(Issue("expected a number, got a boolean", field=key, allowed=f"{lo:g}..{hi:g}"))
        return None
    if isinstance(v, str):
        m = _PARAMS_TEXT.match(v)
        if not m or (m.group(2) and key != "params"):
            issues.append(Issue(f"expected a number, got {v!r}", field=key, allowed=f"{lo:g}..{hi:g}"))
            return None
        v = float(m.group(1)) * _SCALE[m.group(2).lower()]
    if not isinstance(v, (int, float)):
        issues.append(Issue(f"expected a number, got {type(v).__name__}", field=key, allowed=f"{lo:g}..{hi:g}"))
        return None
    if not math.isfinite(v):
        issues.append(Issue("NaN and infinity are not allowed", field=key, allowed=f"{lo:g}..{hi:g}"))
        return None
    if integer and v != int(v):
        issues.append(Issue(f"expected a whole number, got {v}", field=key, allowed=f"{lo:g}..{hi:g}"))
        return None
    if not lo <= v <= hi:
        issues.append(Issue(f"{v:g} is out of range", field=key, allowed=f"{lo:g}..{hi:g}"))
        return None
    return int(v) if integer else float(v)


def _entity(vocab: Vocabulary, key: str, v: Any, kinds: tuple[str, ...], issues: list[Issue]) -> str | None:
    if not isinstance(v, str) or not v.strip():
        issues.append(Issue(f"expected a name, got {v!r}", field=key))
        return None
    text = v.strip()
    eid = text if text in vocab.entities else vocab.aliases().get(text.lower())
    if eid is None:
        for k in kinds:
            if f"{k}:{text}" in vocab.entities:
                eid = f"{k}:{text}"
            else:
                for e in vocab.entities:
                    if e.lower() == f"{k}:{text}".lower():
                        eid = e
    if eid is None and "model" in kinds:
        from ..kb.names import catalogued_model       # "Llama-2-7b-chat-hf": the catalogued model it tunes
        eid = catalogued_model(text, vocab)
    named_only = vocab.named_only(eid)
    if eid is None or vocab.kind_of(eid) not in kinds or named_only:
        from ..kb.names import unknown_issue          # "gpukb knows no GPU called X; known ones are ..."
        # an accelerator the vocabulary names only to keep its figures apart (AMD Instinct, Gaudi): said by its name
        issues.append(unknown_issue(vocab, kinds[0], vocab.label(eid) if named_only else text, key))
        return None
    return eid


def normalise(body: Any, vocab: Vocabulary, view: Any = None) -> tuple[dict[str, Any], list[str]]:
    """Validate a query body; return the normalised scenario and the notes on what was assumed.

    With the release ``view`` the defaults follow the hardware: training on a GPU without native BF16
    (a T4, a V100) defaults to FP16 mixed precision, as PyTorch AMP and the Hugging Face Trainer do there."""
    if not isinstance(body, dict):
        raise BadInput("the query must be a JSON object", [Issue(f"expected an object, got {type(body).__name__}")])
    issues: list[Issue] = []
    notes: list[str] = []          # each a Note: English, with its Chinese (kb/vocabulary.yaml, labels.note)

    def note(key: str, **fields: Any) -> str:
        return vocab.wording.note(key, vocab, **fields)
    unknown = [k for k in body if k not in KEYS]
    for k in unknown:
        issues.append(Issue(f"unknown field {k!r}", field=str(k), allowed=list(KEYS)))
    b = {k: v for k, v in body.items() if k in KEYS and v is not None}
    s: dict[str, Any] = {}
    # what is trained
    if "model" in b and "params" in b:
        issues.append(Issue("give a model or a parameter count, not both", field="params"))
    if "model" in b:
        s["model"] = _entity(vocab, "model", b["model"], ("model",), issues)
    elif "params" in b:
        s["params"] = _number("params", b["params"], issues)
    else:
        issues.append(Issue("name a model or give a parameter count", field="model",
                            allowed=["--model NAME", "--params N (e.g. 13e9 or 13B)"]))
    method = b.get("method", "full")
    if method not in METHODS:
        issues.append(Issue(f"unknown method {method!r}", field="method", allowed=list(METHODS)))
        method = "full"
    if "method" not in b:
        notes.append(note("method_default"))
    s["method"] = method
    # hardware
    hw = [k for k in ("gpu", "instance", "family", "vram_gb") if k in b]
    if len(hw) > 1:
        issues.append(Issue(f"give one of gpu, instance, vram_gb (got {', '.join(hw)})", field=hw[1]))
    if "gpu" in b:
        g = _entity(vocab, "gpu", b["gpu"], ("gpu",), issues)
        if g and vocab.entities[g].get("variants"):
            variants = vocab.sized_variants(g)
            chosen = variants[0]          # the smaller card: a verdict that holds there holds on the larger one
            names = [v.split(':')[1] for v in variants]
            notes.append(note("gpu_variant", gpu=vocab.label(g), variants=", ".join(names), variants_zh="、".join(names),
                              chosen=chosen.split(':')[1]))
            g = chosen
        s["gpu"] = g
    elif "instance" in b:
        e = _entity(vocab, "instance", b["instance"], ("instance", "family"), issues)
        if e and vocab.kind_of(e) == "family":
            s["family"] = e
        else:
            s["instance"] = e
    elif "family" in b:
        s["family"] = _entity(vocab, "family", b["family"], ("family",), issues)
    elif "vram_gb" in b:
        s["vram_gb"] = _number("vram_gb", b["vram_gb"], issues)
    else:
        issues.append(Issue("name a GPU, an instance or a memory size", field="gpu",
                            allowed=["--gpu NAME", "--instance TYPE", "--vram-gb X"]))
    # precision and optimizer
    default_prec = DEFAULT_PRECISION[method]
    no_bf16 = _native_bf16(s, view) is False
    if no_bf16 and default_prec in ("bf16", "mixed"):
        default_prec = "fp16"
    prec = b.get("precision", default_prec)
    if prec not in PRECISIONS:
        issues.append(Issue(f"unknown precision {prec!r}", field="precision", allowed=list(PRECISIONS)))
        prec = default_prec
    if "precision" not in b:
        notes.append(note("precision_default", prec=prec, method=method,
                          no_bf16=no_bf16 and DEFAULT_PRECISION[method] in ("bf16", "mixed")))
    compute = prec
    if method == "qlora":
        compute = prec if prec in ("fp32", "fp16", "bf16", "mixed") else "bf16"
        if b.get("compute_precision") in ("fp32", "fp16", "bf16", "mixed"):
            compute = b["compute_precision"]
        elif "compute_precision" in b:
            issues.append(Issue(f"unknown compute precision {b['compute_precision']!r}", field="compute_precision",
                                allowed=["fp32", "fp16", "bf16", "mixed"]))
        base = qlora_base(prec, view)
        if prec != "nf4":
            notes.append(note("qlora_nf4" if base == "nf4" else "qlora_kbit_base", prec=prec))
        prec = base
    if method in ("full", "pretrain") and prec in ("int8", "int4", "nf4"):
        issues.append(Issue(f"full training cannot keep weights in {prec}", field="precision",
                            allowed=["fp32", "fp16", "bf16", "mixed"]))
    s["precision"] = prec
    if compute != prec:
        s["compute_precision"] = compute
    if method == "inference":
        if b.get("optimizer", "none") != "none":       # "none" is what a normalised scenario (and its id) says
            issues.append(Issue("inference keeps no optimizer state; drop the optimizer", field="optimizer"))
        s["optimizer"] = "none"
    else:
        default_opt = "paged_adamw8bit" if method == "qlora" else "adamw"
        opt = b.get("optimizer", default_opt)
        if opt not in OPTIMIZERS:
            issues.append(Issue(f"unknown optimizer {opt!r}", field="optimizer", allowed=list(OPTIMIZERS)))
            opt = default_opt
        elif not optimizer_in_release(opt, view):
            issues.append(Issue(f"optimizer {opt!r} comes with a later release", field="optimizer"))
        if "optimizer" not in b and method == "qlora":
            notes.append(note("qlora_optimizer"))
        s["optimizer"] = opt
    # counts and shapes
    for key in ("gpus", "zero", "seq_len", "batch", "lora_rank", "tokens", "tensor_parallel", "galore_rank"):
        if key in b:
            s[key] = _number(key, b[key], issues)
    for key, val in DEFAULTS.items():
        if key not in s:
            native = _input_tokens(s, view) if key == "seq_len" else None
            s[key] = native or val
            notes.append(note("default_native" if native else "default", key_field=key, value=native or val))
    if method in ("lora", "qlora"):
        if "lora_rank" not in s:
            s["lora_rank"] = 64 if method == "qlora" else 16
            notes.append(note("default", key_field="lora_rank", value=s["lora_rank"]))
    elif "lora_rank" in s:
        notes.append(note("lora_rank_ignored", method=method))
        del s["lora_rank"]
    one_gpu = s.get("gpus") == 1 or ("gpus" not in s and "instance" not in s)
    for key in ("layer_split", "sequence_parallel", "fsdp_orig_params"):
        if key in b and not isinstance(b[key], bool):
            issues.append(Issue(f"expected true or false, got {b[key]!r}", field=key, allowed=["true", "false"]))
    split, why = layer_split(b, view, one_gpu)
    if why:
        notes.append(note(why))
    if split:
        s["layer_split"] = True     # one process, no data parallelism: no ZeRO stage to assume
    tp, why = tensor_parallel(b, s, view, split)
    s.pop("tensor_parallel", None)
    if why:
        notes.append(note(why))
    if tp > 1:
        s["tensor_parallel"] = tp   # Megatron: tensor-parallel groups, plain data parallelism over them
        if b.get("sequence_parallel") is True:
            s["sequence_parallel"] = True
    elif b.get("sequence_parallel") is True:
        notes.append(note("sequence_parallel_ignored"))
    if "zero" not in s and method != "inference" and not one_gpu and (s.get("gpus") or 0) > 1 and not split \
            and tp == 1:
        s["zero"] = 3
        notes.append(note("zero_default"))
    if s.get("zero") and method in ("full", "pretrain") and one_gpu:
        notes.append(note("zero_one_gpu", zero=s["zero"]))
        s["zero"] = 0
    if s.get("zero") and method == "inference":
        notes.append(note("zero_inference", zero=s["zero"]))
        s["zero"] = 0
    for key in ("gradient_checkpointing", "flash_attention"):
        if key == "gradient_checkpointing" and key not in b and method == "qlora":
            # QLoRA's paper and PEFT's prepare_model_for_kbit_training turn it on: what practitioners run
            s[key] = True
            notes.append(note("gc_qlora"))
            continue
        v = b.get(key, False)
        if not isinstance(v, bool):
            issues.append(Issue(f"expected true or false, got {v!r}", field=key, allowed=["true", "false"]))
            v = False
        elif key == "flash_attention" and key not in b:
            continue        # not given: the release's default attention, a sizing rule's (its note: the answer's)
        elif key not in b and method != "inference":
            notes.append(note("default_off", key_field=key))
        s[key] = v
    for key in ("optimizer_in_backward", "chunked_cross_entropy", "fused_cross_entropy", "activation_offloading",
                "torch_compile", "logits_dtype_loss", "fsdp1", "selective_checkpointing", "expandable_segments"):
        if key in b:
            v = b[key]
            if not isinstance(v, bool):
                issues.append(Issue(f"expected true or false, got {v!r}", field=key, allowed=["true", "false"]))
            elif v and method == "inference":
                notes.append(note("inference_no_backward", key_field=key))
            elif v:
                s[key] = True
    if "fused_optimizer" in b:      # said either way: false asks for PyTorch's foreach step, not the default
        v = b["fused_optimizer"]
        if not isinstance(v, bool):
            issues.append(Issue(f"expected true or false, got {v!r}", field="fused_optimizer", allowed=["true", "false"]))
        elif method != "inference":
            s["fused_optimizer"] = v
    if "kbit_preparation" in b:
        v = b["kbit_preparation"]
        if not isinstance(v, bool):
            issues.append(Issue(f"expected true or false, got {v!r}", field="kbit_preparation", allowed=["true", "false"]))
        elif v and method == "qlora":
            s["kbit_preparation"] = True
    for key, why in (("activation_offloading", "ao_without_gc"), ("selective_checkpointing", "sac_without_gc")):
        notes.extend([note(why)] if s.get(key) and not s.get("gradient_checkpointing") else [])
    if s.get("optimizer_in_backward") and s.get("zero"):
        notes.append(note("oib_sharded"))
        del s["optimizer_in_backward"]
    serving = [k for k in ("engine", "gpu_memory_utilization", "max_num_batched_tokens", "kv_cache_dtype",
                           "full_prompt_logits", "new_tokens") if k in b]
    if serving and method != "inference":
        notes.append(note("serving_ignored", fields=", ".join(serving), fields_zh="、".join(serving)))
    elif method == "inference":
        eng = b.get("engine", "transformers")
        if eng not in ENGINES:
            issues.append(Issue(f"unknown engine {eng!r}", field="engine", allowed=list(ENGINES)))
        elif eng != "transformers":
            s["engine"] = eng
        for key in ("gpu_memory_utilization", "max_num_batched_tokens", "new_tokens"):
            if key in b:
                s[key] = _number(key, b[key], issues)
        if s.get("engine") == "vllm" and "gpu_memory_utilization" not in s:
            s["gpu_memory_utilization"] = 0.9
            notes.append(note("vllm_gmu"))
        if s.get("engine") == "vllm" and "max_num_batched_tokens" not in s:
            s["max_num_batched_tokens"], big = _vllm_batched_tokens(s, view)
            notes.append(note("vllm_mnbt", value=s["max_num_batched_tokens"], big=big))
        apl = b.get("full_prompt_logits", False)
        if not isinstance(apl, bool):
            issues.append(Issue(f"expected true or false, got {apl!r}", field="full_prompt_logits", allowed=["true", "false"]))
        elif apl and s.get("engine") == "vllm":
            notes.append(note("serving_ignored", fields="full_prompt_logits", fields_zh="full_prompt_logits"))
        elif apl:
            s["full_prompt_logits"] = True
        kvd = b.get("kv_cache_dtype", "auto")
        if kvd not in KV_CACHE_DTYPES:
            issues.append(Issue(f"unknown kv_cache_dtype {kvd!r}", field="kv_cache_dtype", allowed=list(KV_CACHE_DTYPES)))
        elif kvd != "auto":
            s["kv_cache_dtype"] = kvd
    if method == "inference" and s["gradient_checkpointing"]:
        notes.append(note("gc_inference"))
        s["gradient_checkpointing"] = False
    off = b.get("offload", "none")
    if off not in OFFLOADS:
        issues.append(Issue(f"unknown offload {off!r}", field="offload", allowed=list(OFFLOADS)))
        off = "none"
    if off == "params" and method in ("lora", "qlora"):
        pass            # the frozen base streamed from host memory layer by layer (FSDP / ZeRO-3 parameter offload)
    elif off != "none" and method not in ("full", "pretrain"):
        notes.append(note("offload_ignored", method=method))
        off = "none"
    if off != "none":
        s["offload"] = off
    if off == "params" and "fsdp1" not in b:
        notes.append(note("fsdp1_not_given"))
    if "master_weights" in b and not isinstance(b["master_weights"], bool):
        issues.append(Issue(f"expected true or false, got {b['master_weights']!r}", field="master_weights",
                            allowed=["true", "false"]))
    mw, why = master_weights(b, s, view)
    if mw is not None:
        s["master_weights"] = mw
    if why:
        notes.append(note(why, zero=s.get("zero", 0)))
    fop, why = fsdp_orig_params(b, s, view)
    s.update({"fsdp_orig_params": True} if fop else {})
    notes.extend([note(why)] if why else [])
    notes.extend(note(why) for why in galore(b, s, view, issues) + fsdp_no_sync(b, s, view, issues))
    if "kb_version" in b and not isinstance(b["kb_version"], str):
        issues.append(Issue("expected a release name", field="kb_version"))
    if issues:
        raise BadInput("the scenario is not valid: " + "; ".join(str(i) for i in issues[:3]), issues)
    s.setdefault("zero", 0)
    return s, notes


def conclusion_id(s: dict[str, Any], release: str) -> str:
    """A stable, self-describing id: the release and the normalised scenario, url-safe encoded."""
    # an explicit flash_attention=false (eager attention) or fused_optimizer=false (PyTorch's foreach step) differs
    # from not giving it (the release's or the setup's default)
    compact = {k: v for k, v in s.items() if v is not None and (v is not False or k in ("flash_attention", "fused_optimizer"))}
    blob = json.dumps([release, compact], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "Q-" + base64.urlsafe_b64encode(blob.encode("utf-8")).decode("ascii").rstrip("=")


def inputs(s: dict[str, Any]) -> dict[str, Any]:
    """The query body that reproduces a normalised scenario (derived keys removed)."""
    return {k: v for k, v in s.items() if k in KEYS and v is not None}


def decode_conclusion_id(cid: str) -> tuple[str, dict[str, Any]]:
    """Inverse of :func:`conclusion_id`; raises BadInput for anything that is not one."""
    if not isinstance(cid, str) or not cid.startswith("Q-") or len(cid) > 2000:
        raise BadInput(f"not a sizing conclusion id: {cid!r}", [Issue("expected an id starting with Q-", field="id")])
    try:
        raw = cid[2:] + "=" * (-len(cid[2:]) % 4)
        release, s = json.loads(base64.urlsafe_b64decode(raw.encode("ascii")).decode("utf-8"))
        if not isinstance(release, str) or not isinstance(s, dict):
            raise ValueError("bad shape")
        s = inputs(s)
    except Exception:
        raise BadInput(f"malformed conclusion id {cid[:40]!r}", [Issue("the id does not decode", field="id")]) from None
    return release, s
