"""How far gpukb's memory estimates are from published measurements, and the error band that follows.

The measured points are reference facts (``memory_measured`` and the papers' ``training_memory`` of a
whole run, with the method as a qualifier). Each is sized with the defaults a question would get; the
ratio measured / estimated of the point measurements gives the band: a total T is reported as
[T·min ratio, T·max ratio], and a verdict whose capacity falls inside the band is *borderline*.
Bounds ("> 80 GB") are checked for consistency only.
"""
from __future__ import annotations

import math
import re
import statistics
from typing import TYPE_CHECKING, Any

from ..core.errors import BadInput, Issue, ValidationError
from ..kb.names import QUANTIZED_WORDS, TUNED_WORDS, catalogued_model
from ..kb.store import ReleaseView
from ..kb.vocabulary import Interval
from ..models import scenario as scen
from . import frameworks

if TYPE_CHECKING:
    from ..core.session import Session

MEASURED = ("memory_measured", "training_memory")


def points(view: ReleaseView) -> list[Any]:
    """The measured points of a release: whole-run memory of a named model under a named method."""
    out = []
    for f in view.reference:
        method = f.qualifiers.get("method") if isinstance(f.qualifiers.get("method"), str) else None
        if f.attribute in MEASURED and method and f.subject.startswith("model:") and isinstance(f.norm, Interval) \
                and not f.qualifiers.get("component") and view.ref(f.subject, "params") is not None:
            out.append(f)
    return sorted(out, key=lambda f: f.id)


def calibrate(state: Session, view: ReleaseView) -> dict[str, Any]:
    """Every measured point with gpukb's estimate and their ratio; the band from the point ratios."""
    rows = []
    for f in points(view):
        body = {"model": f.subject, "method": f.qualifiers["method"].split(":")[1]}
        gpu = f.qualifiers.get("gpu")
        body["gpu" if gpu else "vram_gb"] = gpu.split(":")[1] if gpu else 80
        try:
            s, notes = scen.normalise(body, state.kb.vocab, view)
            r = state.run_scenario(s, notes, view)
        except BadInput as exc:
            rows.append({"fact": f.key, "error": exc.message})
            continue
        ms, rt = r.one("model_states"), r.one("runtime_mem")
        if ms is None or rt is None:
            rows.append({"fact": f.key, "error": "no estimate for this model"})
            continue
        est = round(ms["gb"] + rt["gb"], 3)
        row = {"fact": f.key, "model": f.subject.split(":")[1], "method": body["method"], "measured": f.norm.as_dict(),
               "estimate_gb": est, "citation": f.citation}
        if f.norm.kind == "number":
            row["ratio"] = round(f.norm.lo / est, 3) if est else None
        else:
            lo, hi = f.norm.lo, f.norm.hi
            row["consistent"] = (lo is None or est >= lo * 0.8) and (hi is None or est <= hi * 1.25)
        rows.append(row)
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    band = {"low": min(ratios), "high": max(ratios), "points": len(ratios)} if ratios else None
    by_method: dict[str, dict[str, Any]] = {}
    for m in sorted({r["method"] for r in rows if r.get("ratio")}):
        rs = [r["ratio"] for r in rows if r.get("ratio") and r["method"] == m]
        if len(rs) >= MIN_POINTS:
            by_method[m] = {"low": min(rs), "high": max(rs), "points": len(rs)}
    return {"kb_version": view.name, "points": rows, "band": band, "by_method": by_method}

MIN_POINTS = 2      # a band from fewer measured points than this is not given


def band_of(state: Session, view: ReleaseView, method: str) -> dict[str, Any] | None:
    """The error band of a method's estimates in a release (None without enough measured points): the band
    that covers 90% of the measured runs of the gold set's dev split when it has enough of the method's runs,
    else the band of the reference tier's measured points."""
    def bands() -> dict[str, Any]:
        out = dict(state.cached(("calibration", view.name), lambda: calibrate(state, view))["by_method"])
        dev = measured_runs(state, view, splits=("dev",))["splits"].get("dev") or {}
        for m, b in (dev.get("by_method") or {}).items():
            out[m] = {"low": b["low"], "high": b["high"], "points": b["points"],
                      "basis": state.kb.vocab.wording.note("band_measured", state.kb.vocab)}
        return out
    band = state.memo(("calibration-bands", view.name), bands).get(method)
    return dict(band) if band is not None else None


# ---- measured runs (kb/gold/measured_runs.yaml): per split, how close the estimates are -----------------

WITHIN = 0.15          # an estimate "within 15%" of the measured peak
COVER = 0.90           # the error band covers at least this share of a split's runs
#: the gold's sharding words as a scenario's ZeRO stage (FSDP full shard = ZeRO-3) and offload
SHARDING = {"none": 0, "ddp": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp": 3, "zero3_offload": 3}
OFFLOAD = {"none": None, "optimizer": "optimizer", "optimizer_and_params": "params"}
OPTIMIZER = {"fused_backward_adamw": ("adamw", True)}
#: an FSDP run is PyTorch's FullyShardedDataParallel wrapper (FSDP1: Accelerate, Lightning, the HF Trainer, scripts)
#: unless its framework shards with FSDP2's fully_shard: torchtune's recipes (torchtune/training/_distributed.py,
#: shard_model) and torchtitan, or a row that says FSDP2
FSDP2_WORDS = ("torchtune", "torchtitan", "fsdp2")
#: an FSDP1 LoRA run whose framework wraps each transformer block, adapters and frozen weights together, with
#: use_orig_params=True: LitGPT's finetune/lora.py (FSDPStrategy(auto_wrap_policy={Block}); Lightning Fabric's
#: FSDPStrategy sets use_orig_params=True), so the frozen base gets gradients (R-FSDP-frozen-grads)
ORIG_PARAMS_WORDS = ("litgpt",)
#: a training row's optimizer "none" (forward and backward only, no optimizer step) keeps no optimizer state: sized
#: with plain SGD without momentum, whose update is in place and which keeps none (R-OPT-sgd_nomomentum-states)
NO_STEP = "sgd_nomomentum"
#: a tensor-parallel training row's group size as its framework says it (Megatron's TP=8, --tensor-model-parallel-size 8)
TP_SIZE = re.compile(r"\b(?:tp|tensor[-_ ]model[-_ ]parallel[-_ ]size|tensor[-_ ]parallel(?:[-_ ]size)?)\s*[=:]?\s*(\d+)")
#: a run on several GPUs that shards nothing but whose framework or note says the model's layers were split over them
#: (Accelerate's device_map="auto", naive model parallelism in one process: R-ACCEL-layer-split)
LAYER_SPLIT_WORDS = ("device_map", "naive model parallel", "layer split", "split across gpus")
#: techniques a gold row may state (true / false), as the query field each one sets (it wins over a framework default)
TECHNIQUES = {"chunked_cross_entropy": "chunked_cross_entropy", "fused_cross_entropy": "fused_cross_entropy",
              "optimizer_in_backward": "optimizer_in_backward", "activation_offloading": "activation_offloading",
              "compile": "torch_compile"}
#: FSDP1 frameworks that accumulate under the model's no_sync (the HF Trainer through Accelerate's accumulate,
#: Lightning's no_backward_sync; not llama-recipes' own loop), and the accumulation steps a row states
NO_SYNC_WORDS = ("accelerate", "trainer", "lightning")
ADAMW4BIT = re.compile(r"\b(?:ao 4-bit|adamw?4bit)\b")     # torchao's AdamW4bit, as a row's quote names it
ACCUMULATION = re.compile(r"gradient[_ ]accumulation(?:[_ ]steps)?[ =:]+(\d+)")
FULL_AC = re.compile(r"\bfull (?:ac|activation checkpointing|activation recomputation)\b")  #: whole layers recomputed
NEW_TOKENS = re.compile(r"\bgenerat(?:e|es|ed|ing)\s+(\d+)\s+(?:new\s+|output\s+)?tokens")    # a benchmark's output length
#: GaLore's --optimizer names (_per_layer: each weight stepped in its grad hook, in backward) and its --rank
GALORE_OPT = re.compile(r"\b(q_)?galore_(?:adamw8bit|adamw|adafactor)(_per_layer)?\b")
GALORE_RANK = re.compile(r"(?:--rank|\brank)[ =:]+(\d+)")
#: a peak read from PyTorch's caching allocator (max_memory_allocated / active / reserved, as torchtune and litgpt
#: print them) counts tensors only: it is compared with the estimate of what the allocator holds (sizing.allocated:
#: no CUDA context, no paged optimizer states in unified memory; R-TORCH-allocated); nvidia-smi and unstated tools
#: with the per-GPU total
ALLOCATOR_WORDS = ("allocated", "memory active", "max gpu ram", "torchtune memory stats", "memory_reserved")
#: published benchmarks whose table does not name its tool but whose measuring script, which the document points
#: to, reads the allocator: the Qwen2.5 speed benchmark's transformers runs report torch.cuda.max_memory_allocated
#: summed over the GPUs, divided by 1024**3 (QwenLM/Qwen2.5 examples/speed-benchmark/speed_benchmark_transformers.py,
#: SpeedBenchmarkTransformers.run)
ALLOCATOR_SOURCES = ("qwenlm/qwen2.5/blob/main/docs/source/benchmark/speed_benchmark",)


def compared_as(row: dict[str, Any]) -> str:
    """How a measured run's peak was read: "allocated" (a PyTorch allocator statistic) or "total" (nvidia-smi,
    a screenshot, or a tool the source does not name)."""
    kind = str(row.get("memory_kind") or "").lower()
    url = str(row.get("url") or "").lower()
    allocator = any(w in kind for w in ALLOCATOR_WORDS) or any(u in url for u in ALLOCATOR_SOURCES)
    return "allocated" if allocator else "total"


def _gpu_body(row: dict[str, Any], vocab: Any, view: ReleaseView) -> dict[str, Any]:
    """The card of a measured run: a catalogued GPU with a memory fact (a generic name, whose memory size
    the source does not state, is read as its largest variant: published runs use the large cards), else
    the memory size its name states ("unknown:40GB-GPU"), else none (the outcome cannot be judged)."""
    gpu = str(row.get("gpu") or "")
    name = gpu.split(":", 1)[1] if ":" in gpu else gpu
    eid = gpu if gpu in vocab.entities else vocab.aliases().get(name.lower().replace("-", " ")) or \
        (f"gpu:{name}" if f"gpu:{name}" in vocab.entities else None)
    if eid and vocab.entities[eid].get("variants"):
        eid = vocab.sized_variants(eid)[-1]
    if eid and view.ref(eid, "memory_gb") is not None:
        return {"gpu": eid.split(":", 1)[1]}
    m = re.search(r"(\d+)\s*GB", name, re.I)
    return {"vram_gb": float(m.group(1))} if m else {}


#: a stated parameter count this many times its named model's (or less than its inverse) is another size of that
#: architecture: sizes of a family step by about 2x (GPT-2 124M/355M/774M/1.5B, Llama 7B/13B), while rounding and
#: an untied output head counted apart add at most about a third (GPT-2 124M holds 163M with its head)
ANOTHER_SIZE = 1.5


def _another_size(row: dict[str, Any], ref: Any) -> bool:
    """Whether the run states a parameter count of another size than its named model ("gpt2 (18B shape)")."""
    n, said = ref.norm.point() if hasattr(ref.norm, "point") else None, float(row.get("params_b") or 0) * 1e9
    return bool(n and said) and max(said / n, n / said) > ANOTHER_SIZE


def run_body(row: dict[str, Any], vocab: Any, view: ReleaseView) -> dict[str, Any]:
    """The query body that describes a measured run as gpukb's flags do."""
    body: dict[str, Any] = {"method": row["method"]}
    model = row.get("model") or ""
    if model.startswith("hf:"):
        # a Hugging Face repository the gold names as such: the catalogued model that has it as an alias, or the
        # catalogued model whose architecture the gold's remark gives it ("galore/llama_7b (LLaMA-7B architecture)")
        repo, _, remark = model[3:].partition(" (")
        said_model = re.split(r",| architecture|\)", remark, maxsplit=1)[0].strip()
        model = catalogued_model(repo, vocab, TUNED_WORDS | QUANTIZED_WORDS) or \
            (said_model and catalogued_model(said_model, vocab, TUNED_WORDS | QUANTIZED_WORDS)) or model
    ref = view.ref(model, "params") if model in vocab.entities else None
    if ref is not None and not _another_size(row, ref):
        body["model"] = model.split(":", 1)[1]
    elif row.get("params_b"):
        body["params"] = float(row["params_b"]) * 1e9
    if row.get("precision"):
        body["precision"] = row["precision"]
    opt = row.get("optimizer") or ("adamw4bit" if ADAMW4BIT.search(str(row.get("quote") or "").lower()) else None)
    if opt == "none" and row["method"] != "inference":
        body["optimizer"] = NO_STEP     # a benchmark without an optimizer step holds no optimizer state
    elif opt and opt != "none" and row["method"] != "inference":
        name, in_bwd = OPTIMIZER.get(opt, (opt, False))
        body["optimizer"] = name
        if in_bwd:
            body["optimizer_in_backward"] = True
    for k in ("batch", "seq_len", "lora_rank"):
        if row.get(k):
            body[k] = int(row[k])
    text = " ".join(str(row.get(k) or "") for k in ("framework", "quote", "note")).lower()
    galore, rank = GALORE_OPT.search(text), GALORE_RANK.search(text)
    if galore and rank and row["method"] in ("full", "pretrain"):
        # GaLore's projected states (R-GALORE-states); Q-GaLore's INT8 weights; _per_layer: the step in backward
        body.update({"galore_rank": int(rank.group(1)), "q_galore": bool(galore.group(1)),
                     "optimizer_in_backward": bool(galore.group(2)) or body.get("optimizer_in_backward", False)})
    if row.get("gradient_checkpointing") is not None and row["method"] != "inference":
        body["gradient_checkpointing"] = bool(row["gradient_checkpointing"])
        body.update({"selective_checkpointing": False} if FULL_AC.search(text) else {})     # full, not selective
    att = row.get("attention")
    if att:
        body["flash_attention"] = att in ("flash_attention_2", "sdpa", "flash")
    shard = row.get("sharding") or "none"
    fw = str(row.get("framework") or "").lower()
    if row.get("gpus"):
        body["gpus"] = int(row["gpus"])
    said = f"{fw} {row.get('note') or ''}".lower()
    if shard == "none" and int(row.get("gpus") or 1) > 1 and any(w in said for w in LAYER_SPLIT_WORDS):
        body["layer_split"] = True
    if shard == "tensor_parallel" and row["method"] != "inference" and row.get("gpus"):
        m = TP_SIZE.search(fw)      # Megatron's group size as the row's framework states it, else all its GPUs
        body["tensor_parallel"] = int(m.group(1)) if m else int(row["gpus"])
    if shard in SHARDING and row["method"] != "inference":
        body["zero"] = SHARDING[shard]
        if shard == "fsdp" and not any(w in fw for w in FSDP2_WORDS):
            body["fsdp1"] = True    # the FullyShardedDataParallel wrapper: its CPU offload keeps gradient shards
            if row["method"] == "lora" and any(w in fw.replace("-", "") for w in ORIG_PARAMS_WORDS):
                body["fsdp_orig_params"] = True     # adapters in the frozen blocks' units (R-FSDP-frozen-grads)
            steps = ACCUMULATION.search(text)
            if row["method"] in ("full", "pretrain") and steps and int(steps.group(1)) > 1 and \
                    any(w in fw for w in NO_SYNC_WORDS):
                body["fsdp_no_sync"] = True         # unsharded gradients between syncs (R-FSDP-no-sync-grads)
        if shard == "fsdp" and row.get("precision") == "bf16" and row["method"] in ("full", "pretrain"):
            # FSDP shards the module's own parameters and the optimizer builds its states on them: a BF16 model
            # trains in pure BF16 (R-TORCHTUNE-pure-bf16), not with DeepSpeed's FP32 master copy (R-DS-bf16-master)
            body["master_weights"] = False
    off = OFFLOAD.get(row.get("offload") or "none")
    if off and (row["method"] in ("full", "pretrain") or off == "params"):
        body["offload"] = off
    for k, field in TECHNIQUES.items():
        if isinstance(row.get(k), bool) and row["method"] != "inference":
            body[field] = row[k]
    # what the run's framework does unless told otherwise (kb/frameworks.yaml, each with its citation)
    usual = frameworks.defaults(view.kb.root, row.get("framework"), row["method"] != "inference")
    body.update({f: x for f, x in usual.items() if f not in body})
    if any("optimizer_in_bwd=true" in str(x).replace(" ", "").lower() for x in row.get("inferred_from_config") or []) \
            and row["method"] in ("full", "pretrain"):
        body["optimizer_in_backward"] = True
    if row["method"] == "inference" and _transformers_before(row.get("framework"), (4, 45)):
        body["full_prompt_logits"] = True       # generate computed every prompt position's logits (R-HF-logits-all)
        if (gen := NEW_TOKENS.search(text)) and int(gen.group(1)) < int(row.get("seq_len") or 0):
            body["new_tokens"] = int(gen.group(1))      # of the sequence, the tokens generated after the prompt
    body.update(_gpu_body(row, vocab, view) or {"vram_gb": 4096})
    return body


def _transformers_before(framework: Any, version: tuple[int, int]) -> bool:
    """Whether a run's framework is Hugging Face transformers of a release before ``version``.

    >>> _transformers_before("transformers 4.38.2 (PyTorch 2.1.2)", (4, 45))
    True
    >>> _transformers_before("transformers 4.46.1", (4, 45)), _transformers_before("vllm 0.6", (4, 45))
    (False, False)
    """
    m = re.search(r"(?<![a-z])transformers\s*(?:==|v)?\s*(\d+)\.(\d+)", str(framework or "").lower())
    return m is not None and (int(m.group(1)), int(m.group(2))) < version


def _band(ratios: list[float]) -> dict[str, Any] | None:
    """The narrowest [low, high] of ratios measured / estimated that holds at least COVER of them, narrowest as a
    factor (high / low): a ratio is multiplicative, 0.5 is as far off as 2, so a width measured in plain units
    would always prefer to take in the low outliers (0.07 is "near" 0.7) and leave out the high ones."""
    rs = sorted(x for x in ratios if x > 0)
    if not rs:
        return None
    k = max(1, math.ceil(COVER * len(rs)))
    best = min(range(len(rs) - k + 1), key=lambda i: (rs[i + k - 1] / rs[i], i))
    return {"low": round(rs[best], 3), "high": round(rs[best + k - 1], 3), "points": len(rs), "covers": k}


def _check_runs_shape(data: Any, fname: str) -> None:
    """The gold file is a mapping whose ``runs`` is a list of mappings; anything else is named with its line."""
    def kind(x: Any) -> str:
        return "a list" if isinstance(x, list) else "a string" if isinstance(x, str) else "a number" \
            if isinstance(x, (int, float)) else "nothing" if x is None else f"a {type(x).__name__}"
    if not isinstance(data, dict):
        raise ValidationError(f"{fname}: expected a mapping with a 'runs' list, got {kind(data)}",
                              [Issue("expected a mapping with a 'runs' list", fname, getattr(data, "line", None))])
    runs = data.get("runs") or []
    bad = next((r for r in ([runs] if not isinstance(runs, list) else runs) if not isinstance(r, dict)), None)
    if bad is not None:
        raise ValidationError(f"{fname}: 'runs' must be a list of mappings (one per run), got {kind(bad)}",
                              [Issue("'runs' must be a list of mappings", fname, data.line_of("runs"))])


def measured_runs(state: Session, view: ReleaseView, path: Any = None, splits: tuple[str, ...] | None = None
                  ) -> dict[str, Any]:
    """Every measured run of the gold set sized as its flags say; per split: the share within 15% of the
    measured peak, the share of outcomes (ran / OOM) right, the signed median error and the error band
    (ratios measured / estimated) that covers 90% of the runs. Rows are only listed for the dev split."""
    from pathlib import Path

    from ..core.yamlio import load_file
    p = Path(path) if path else Path(state.kb_dir) / "gold" / "measured_runs.yaml"
    if not p.exists():
        return {"file": str(p), "splits": {}}
    data = load_file(p) or {}
    _check_runs_shape(data, str(p))
    vocab = state.kb.vocab
    per: dict[str, list[dict[str, Any]]] = {}
    for row in data.get("runs") or []:
        split = row.get("split") or "dev"
        if splits is not None and split not in splits:
            continue
        out: dict[str, Any] = {"id": row.get("id"), "method": row.get("method"), "measured_gb": row.get("measured_peak_gb"),
                               "outcome": row.get("outcome")}
        try:
            body = run_body(row, vocab, view)
            s, notes = scen.normalise(body, vocab, view)
            r = state.run_scenario(s, notes, view)
            v = r.one("verdict")
            pg = r.one("per_gpu")
        except BadInput as exc:
            out["error"] = exc.message
            per.setdefault(split, []).append(out)
            continue
        if v is None or pg is None:
            out["error"] = "no estimate"
            per.setdefault(split, []).append(out)
            continue
        al = r.one("allocated")
        out["compared"] = compared_as(row) if al is not None else "total"
        out["estimate_total_gb"] = round(pg["total_gb"], 3)
        rs = r.one("reserved")
        if out["compared"] == "total" and rs is not None:
            out["compared"] = "reserved"
        out["estimate_gb"] = round(al["gb"] if out["compared"] == "allocated" else
                                   rs["gb"] if out["compared"] == "reserved" else pg["total_gb"], 3)
        out["body"] = body
        if "gpu" in body or body.get("vram_gb") != 4096:
            out["predicted"] = "ran" if v["verdict"] == "fits" else "oom"
        if out["measured_gb"]:
            out["error_pct"] = round(100 * (out["estimate_gb"] - out["measured_gb"]) / out["measured_gb"], 1)
            out["ratio"] = round(out["measured_gb"] / out["estimate_gb"], 3) if out["estimate_gb"] else None
        per.setdefault(split, []).append(out)
    splits: dict[str, Any] = {}
    for split, rows in sorted(per.items()):
        sized = [r for r in rows if r.get("error_pct") is not None]
        judged = [r for r in rows if r.get("predicted") and r.get("outcome") in ("ran", "oom")]
        by_method: dict[str, Any] = {}
        for m in sorted({r["method"] for r in sized}):
            b = _band([r["ratio"] for r in sized if r["method"] == m and r.get("ratio")])
            if b and b["points"] >= MIN_POINTS:
                by_method[m] = b
        splits[split] = {
            "runs": len(rows), "sized": len(sized), "errors": sum(1 for r in rows if "error" in r),
            "within_15pct": round(sum(1 for r in sized if abs(r["error_pct"]) <= 100 * WITHIN) / len(sized), 3) if sized else None,
            "outcomes_judged": len(judged),
            "outcome_right": round(sum(1 for r in judged if r["predicted"] == r["outcome"]) / len(judged), 3) if judged else None,
            "median_error_pct": statistics.median([r["error_pct"] for r in sized]) if sized else None,
            "band": _band([r["ratio"] for r in sized if r.get("ratio")]),
            "by_method": by_method,
        }
        if split == "dev":
            splits[split]["rows"] = rows
    dev_band = (splits.get("dev") or {}).get("band")
    for split, st in splits.items():
        ratios = [r["ratio"] for r in per[split] if r.get("ratio")]
        if dev_band and ratios:
            # the band answers carry comes from dev: the share of this split's runs it covers
            st["dev_band_covers"] = round(sum(1 for x in ratios if dev_band["low"] <= x <= dev_band["high"]) / len(ratios), 3)
    return {"file": str(p), "splits": splits}
