"""Input schemas of the MCP tools, built from the loaded KB so nothing is retyped here.

The scenario keys and ranges come from :mod:`engine.models.scenario`, the closed enums (methods,
precisions, optimizers, finding kinds, languages) from :mod:`engine.core.terms`, entity names and
attributes from the vocabulary, release names from kb/versions.yaml, explain formats from the API's
parameter list. A new GPU in the vocabulary is a new enum value for the bot; a new scenario key
without a schema here fails the tests.
"""
from __future__ import annotations

from typing import Any

from gpukb.engine.models import scenario as scen
from gpukb.engine.ask.parser import MAX_QUESTION_CHARS
from gpukb.engine.service.state import GpuKB
from gpukb.engine.core.terms import FINDING_KINDS, LANGS, METHODS, OPTIMIZERS, PRECISIONS

from .api import MAX_ID_CHARS
from .api.conclusions import FORMATS as EXPLAIN_FORMATS

MAX_CHECK_CHARS = 20_000             # the check contract's text limit
KB_VERSION_HELP = "KB release to answer from (default: the latest)."
LANG_HELP = "answer language: en or zh (default: the question's language)."


def _releases(kb: GpuKB) -> list[str]:
    return [r.name for r in kb.kb.releases]


def _names(kb: GpuKB, *kinds: str) -> list[str]:
    """The catalog names of a vocabulary's entities of some kinds (the engine's own ``allowed`` list)."""
    v = kb.kb.vocab
    return sorted(e.split(":", 1)[1] for e in v.entities if v.kind_of(e) in kinds and v.entities[e].get("catalog", True))


def _string(description: str, enum: list[str] | tuple[str, ...] | None = None, max_len: int | None = None) -> dict:
    d: dict[str, Any] = {"type": "string", "description": description}
    if enum is not None:
        d["enum"] = list(enum)
    if max_len is not None:
        d["maxLength"] = max_len
    return d


def _object(properties: dict[str, dict], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


SCENARIO_ENTITIES = {"model": ("model",), "gpu": ("gpu",), "instance": ("instance", "family"), "family": ("family",)}
SCENARIO_ENUMS = {"method": METHODS, "precision": PRECISIONS, "optimizer": OPTIMIZERS, "compute_precision": PRECISIONS}
SCENARIO_HELP = {
    "model": "a model of the catalog; give model or params, not both",
    "params": "parameter count: a number (13e9) or text with k/M/B/T (\"13B\")",
    "method": "full fine-tuning, LoRA, QLoRA, pre-training or inference (default full)",
    "precision": "weight/training precision (default mixed for full training, bf16 pure for LoRA frozen weights; nf4 for QLoRA; fp16 for inference; bf16 = pure BF16 training)",
    "optimizer": "optimizer of training (default adamw; none for inference)",
    "gpu": "a GPU of the catalog; give exactly one of gpu, instance, family, vram_gb",
    "instance": "a cloud instance type or instance family (e.g. GN7.2XLARGE32)",
    "family": "an instance family",
    "vram_gb": "memory per GPU in GB (10^9 bytes) for a GPU not in the catalog",
    "gpus": "number of GPUs (default 1, or the instance's count)",
    "zero": "DeepSpeed ZeRO stage 0-3 (shards training states over gpus > 1)",
    "seq_len": "sequence length in tokens (default 512)",
    "batch": "micro-batch size per GPU (default 1)",
    "lora_rank": "LoRA/QLoRA adapter rank (default 16, QLoRA 64)",
    "gradient_checkpointing": "recompute activations instead of storing them",
    "flash_attention": "use FlashAttention (no attention-score memory)",
    "tokens": "training tokens, for the compute-time estimate",
    "compute_precision": "QLoRA only: precision of the adapters and the compute",
    "optimizer_in_backward": "fuse the optimizer step into backward (gradients freed layer by layer)",
    "chunked_cross_entropy": "chunked / fused cross-entropy (no full FP32 sequence x vocabulary logits)",
    "engine": "inference: serving engine, transformers (whole card) or vllm (gpu_memory_utilization of each card)",
    "gpu_memory_utilization": "inference: the engine's share of each card's memory (vLLM default 0.9)",
    "max_num_batched_tokens": "inference: the engine's token budget per step, bounding prefill activations",
    "kv_cache_dtype": "inference: auto or fp8 (1 byte per cached value)",
    "kb_version": KB_VERSION_HELP,
}


def query_schema(kb: GpuKB) -> dict[str, Any]:
    """The scenario's keys (:data:`scenario.KEYS`) with their enums, ranges and the catalog's names."""
    props: dict[str, dict] = {}
    for key in scen.KEYS:
        help_ = SCENARIO_HELP.get(key, key)
        if key in SCENARIO_ENTITIES:
            props[key] = _string(help_, _names(kb, *SCENARIO_ENTITIES[key]))
        elif key in SCENARIO_ENUMS:
            props[key] = _string(help_, SCENARIO_ENUMS[key])
        elif key == "kb_version":
            props[key] = _string(help_, _releases(kb))
        elif key in scen.LIMITS:
            lo, hi, integer = scen.LIMITS[key]
            number = {"type": "integer" if integer else "number", "minimum": lo, "maximum": hi}
            props[key] = ({"type": ["number", "string"], "description": f"{help_} ({lo:g}..{hi:g})"}
                          if key == "params" else {**number, "description": help_})
        else:
            props[key] = {"type": "boolean", "description": help_}
    props["without"] = without_schema(kb)
    return _object(props)


def ask_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"question": _string("the question, in English or Chinese, as a user would ask it",
                                        max_len=MAX_QUESTION_CHARS),
                    "lang": _string(LANG_HELP, LANGS), "kb_version": _string(KB_VERSION_HELP, _releases(kb))},
                   ("question",))


def check_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"text": _string("the draft text to check (English or Chinese)", max_len=MAX_CHECK_CHARS),
                    "lang": _string(LANG_HELP, LANGS), "kb_version": _string(KB_VERSION_HELP, _releases(kb))},
                   ("text",))


def explain_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"conclusion_id": _string("a conclusion id from an answer: Q-... (sizing), A-... (audit "
                                             "finding) or a claim or reference fact id", max_len=MAX_ID_CHARS),
                    "format": _string("json (proof tree, default), text (indented), prov (W3C PROV-JSON) "
                                      "or dot (Graphviz)", EXPLAIN_FORMATS),
                    "lang": _string("label language (default en)", LANGS)}, ("conclusion_id",))


def without_schema(kb: GpuKB) -> dict[str, Any]:
    """Sources to answer as if removed (the API's ``?without=``)."""
    return _string("source ids to answer as if they were removed (comma-separated, e.g. "
                   f"{','.join(sorted(kb.kb.sources)[:2])}): what still holds without their claims", max_len=MAX_ID_CHARS)


def audit_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"source": _string("only findings about this source's claims", sorted(kb.kb.sources)),
                    "kind": _string("only findings of this kind", FINDING_KINDS),
                    "status": _string("only claims whose audit status (top-ranked finding) is this", FINDING_KINDS),
                    "without": without_schema(kb),
                    "kb_version": _string(KB_VERSION_HELP, _releases(kb))})


def claim_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"id": _string("a claim id, e.g. S001-C009 (optionally @version)", max_len=MAX_ID_CHARS),
                    "kb_version": _string(KB_VERSION_HELP, _releases(kb))}, ("id",))


def fact_schema(kb: GpuKB) -> dict[str, Any]:
    v = kb.kb.vocab
    return _object({"subject": _string("an entity id of the vocabulary (kind:name, e.g. gpu:T4); a name or "
                                       "alias is resolved too", sorted(v.entities)),
                    "attribute": _string("an attribute of the vocabulary, e.g. memory_gb, bf16_native",
                                         sorted(v.attributes)),
                    "lang": _string("answer language (default en)", LANGS),
                    "kb_version": _string(KB_VERSION_HELP, _releases(kb))}, ("subject", "attribute"))
