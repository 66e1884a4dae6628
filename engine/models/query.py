"""The sizing query's fields, declared once: the ``POST /v1/query`` body, the ``gpukb query`` flags (in
snake_case), the MCP ``query`` tool's input and the OpenAPI request bodies are all read from
:data:`FIELDS`.

Each :class:`Field` says its JSON type, its range or vocabulary, its default, the API's description and
a one-line help. :func:`property_schema` renders a field as JSON Schema 2020-12; :class:`Body` groups
fields into a request body that :mod:`.schema` turns into a component schema (QueryBody, SolveBody,
CheapestBody, CheckBody). The scenario's validator (:mod:`.scenario`) takes its keys and ranges from
here too, so a new field is one line here, and a field the validator does not read fails its tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.terms import ENGINES, LANGS, METHODS, OFFLOADS, OPTIMIZERS, PRECISIONS, ZERO_STAGES

#: the longest string a name field (model, GPU, instance, release) accepts
MAX_NAME_CHARS = 200
KV_CACHE_DTYPES = ("auto", "fp8")
#: the precisions of QLoRA's adapters and matmuls
COMPUTE_PRECISIONS = ("fp32", "fp16", "bf16", "mixed")
#: a parameter count written as text: "13B", "13e9", "7.5 b"
PARAMS_PATTERN = r"^\s*\d+(\.\d+)?([eE][-+]?\d+)?\s*[kKmMbBtT]?\s*$"


@dataclass(frozen=True)
class Field:
    """One field of a request body (and, for the query, one CLI flag and one MCP tool argument)."""

    name: str
    type: str                                  # string | number | integer | boolean
    description: str | None = None             # the API's description (OpenAPI)
    help: str = ""                             # one line for a tool or a flag
    enum: tuple[Any, ...] | None = None
    limits: tuple[float, float] | None = None  # minimum, maximum (numbers); minLength, maxLength (strings)
    default: Any = None
    entity: tuple[str, ...] = ()               # vocabulary kinds whose names it takes
    text: bool = False                         # a number that may also be written as text ("13B")
    nullable: bool = False
    cli: bool = True                           # a flag of `gpukb query` (query fields only)
    schema: dict[str, Any] | None = None       # a schema no keyword above says (e.g. a list or a string)


def _name(name: str, description: str | None, help: str, entity: tuple[str, ...] = (), cli: bool = True) -> Field:
    return Field(name, "string", description, help, limits=(1, MAX_NAME_CHARS), entity=entity, cli=cli)


KB_VERSION_HELP = "KB release to answer from (default: the latest)."

#: The query's fields, in the order the validator lists them (the ``allowed`` of an unknown-key error).
FIELDS: tuple[Field, ...] = (
    _name("model", "A model name, e.g. llama-2-7b.", "a model of the catalog; give model or params, not both",
          ("model",)),
    Field("params", "number", "Parameter count: a number, or text such as \"13B\" or \"13e9\".",
          "parameter count: a number (13e9) or text with k/M/B/T (\"13B\")", limits=(1_000, 10_000_000_000_000), text=True),
    Field("method", "string", None, "full fine-tuning, LoRA, QLoRA, pre-training or inference (default full)",
          METHODS, default="full"),
    Field("precision", "string", None,
          "weight/training precision (default mixed for full training, bf16 pure for LoRA frozen weights; nf4 "
          "for QLoRA; fp16 for inference; bf16 = pure BF16 training)", PRECISIONS),
    Field("optimizer", "string", None, "optimizer of training (default adamw; none for inference)", OPTIMIZERS,
          default="adamw"),
    _name("gpu", "T4, A10, A100-40GB, A100-80GB, A800-80GB, V100-32GB, H100-80GB, L4 ...",
          "a GPU of the catalog; give exactly one of gpu, instance, family, vram_gb", ("gpu",)),
    _name("instance", "An instance type (e.g. GN7.2XLARGE32) or family.",
          "a cloud instance type or instance family (e.g. GN7.2XLARGE32)", ("instance", "family")),
    Field("vram_gb", "number", None, "memory per GPU in GB (10^9 bytes) for a GPU not in the catalog",
          limits=(0.5, 4096)),
    Field("gpus", "integer", None, "number of GPUs (default 1, or the instance's count)", limits=(1, 65536)),
    Field("zero", "integer", None, "DeepSpeed ZeRO stage 0-3 (shards training states over gpus > 1)",
          ZERO_STAGES, limits=(0, 3)),
    Field("seq_len", "integer", None, "sequence length in tokens (default 512)", limits=(1, 1_048_576), default=512),
    Field("batch", "integer", None, "micro-batch size per GPU (default 1)", limits=(1, 65_536), default=1),
    Field("lora_rank", "integer", None, "LoRA/QLoRA adapter rank (default 16, QLoRA 64)", limits=(1, 8192)),
    Field("gradient_checkpointing", "boolean", None, "recompute activations instead of storing them", default=False),
    Field("flash_attention", "boolean", None, "attention kernel: true = FlashAttention (no attention-score memory), "
          "false = eager attention (keeps the sequence x sequence scores); not given = the release's default (PyTorch "
          "SDPA, what Hugging Face transformers runs, from release 2026.12.10)"),
    _name("kb_version", None, KB_VERSION_HELP),
    _name("family", "An instance family (e.g. GN7).", "an instance family", ("family",), cli=False),
    Field("tokens", "number", "Training tokens, for a compute-time estimate.",
          "training tokens, for the compute-time estimate", limits=(1, 10**15), cli=False),
    Field("compute_precision", "string",
          "QLoRA only: the precision of the adapters and the matmuls (default bf16, or the given precision when "
          "it is fp32/fp16/bf16/mixed). Echoed in a QLoRA answer's scenario, so an answer's scenario can be sent "
          "back as a query.", "QLoRA only: precision of the adapters and the compute", COMPUTE_PRECISIONS, cli=False),
    Field("offload", "string", "CPU offload of full training: ZeRO-Offload (optimizer states and gradients) or "
          "parameters too", "CPU offload of full training: optimizer states and gradients (ZeRO-Offload) or "
          "parameters too", OFFLOADS),
    Field("optimizer_in_backward", "boolean", "fuse the optimizer step into the backward pass (torchtune "
          "optimizer_in_bwd): gradients freed layer by layer",
          "fuse the optimizer step into backward (gradients freed layer by layer)"),
    Field("activation_offloading", "boolean", "activation offloading (torchtune enable_activation_offloading): "
          "with activation checkpointing the per-layer checkpoints are kept in host memory",
          "offload activations to host memory (with checkpointing: only the recomputed layer stays)"),
    Field("chunked_cross_entropy", "boolean", "chunked / fused cross-entropy: no full FP32 sequence x vocabulary "
          "logits", "chunked / fused cross-entropy (no full FP32 sequence x vocabulary logits)"),
    Field("fused_cross_entropy", "boolean", "the loss fused into the output head (Cut Cross-Entropy, Liger's "
          "fused linear cross-entropy): no sequence x vocabulary logits held whole",
          "loss fused into the output head (Cut Cross-Entropy, Liger): no logits held whole"),
    Field("logits_dtype_loss", "boolean", "cross-entropy computed on the logits in their own dtype (a training "
          "loop's nn.CrossEntropyLoss on 16-bit logits outside autocast): no FP32 upcast of sequence x vocabulary "
          "logits", "loss on the logits as they are (no FP32 upcast of the logits)"),
    Field("kbit_preparation", "boolean", "QLoRA: the quantized model goes through PEFT's "
          "prepare_model_for_kbit_training, which upcasts the embeddings, the output head and the norms to FP32 "
          "(not assumed unless given)", "QLoRA: PEFT's k-bit preparation (FP32 embeddings, head and hidden states)"),
    Field("fsdp1", "boolean", "the sharded run uses PyTorch's FullyShardedDataParallel wrapper (FSDP1, full shard = "
          "ZeRO-3), not FSDP2's fully_shard nor DeepSpeed: with offload=params its CPU offload keeps every gradient "
          "shard on the GPU until the backward pass ends", "sharded with PyTorch FSDP1 (FullyShardedDataParallel), "
          "whose CPU offload keeps the gradient shards on the GPU during the backward pass"),
    Field("fsdp_orig_params", "boolean", "LoRA sharded with FSDP1 (zero 3, fsdp1) with use_orig_params=True and the "
          "adapters wrapped in the same FSDP units as the frozen layers they adapt (Lightning Fabric's FSDPStrategy and "
          "LitGPT, which wraps each transformer block): the frozen base gets gradients as if it were not frozen, as "
          "large as the weights and sharded over the GPUs (PyTorch's FSDP documentation). PEFT through Accelerate or the "
          "Trainer wraps the adapters apart: leave it unset (from release 2026.12.22)", "LoRA under FSDP1 "
          "use_orig_params with the adapters in the frozen layers' units (LitGPT): the frozen base gets gradients"),
    Field("fsdp_no_sync", "boolean", "full training sharded with FSDP1 (zero 3, fsdp1) that accumulates gradients over "
          "several micro-batches under no_sync (the Hugging Face Trainer and Accelerate's accumulate, Lightning's "
          "no_backward_sync): every GPU keeps the whole model's unsharded gradients until the micro-batch that syncs "
          "(PyTorch's FSDP documentation; from release 2026.12.23)", "FSDP1 full training accumulating gradients under "
          "no_sync: the whole model's unsharded gradients on every GPU"),
    Field("galore_rank", "integer", "full training or pre-training with GaLore (Zhao et al. 2024): the gradients of the "
          "blocks' attention and MLP weights are projected to this rank, and the optimizer keeps its states on the "
          "projected gradients beside one projection matrix per weight (GaLore's mr + 2nr for Adam); the embeddings, "
          "the output head and the norms keep the plain optimizer. Not with a ZeRO stage (from release 2026.12.23)",
          "full training: GaLore's projection rank (optimizer states on rank-r projected gradients)", limits=(1, 65536)),
    Field("q_galore", "boolean", "with galore_rank: Q-GaLore (Zhang et al. 2024) stores the projected weights in INT8 "
          "and the projection matrices in INT4 (from release 2026.12.23)",
          "with galore_rank: Q-GaLore (INT8 projected weights, INT4 projection matrices)"),
    Field("layer_split", "boolean", "the model's layers are split over the gpus in one process (Hugging Face "
          "Accelerate / transformers device_map=\"auto\", naive pipeline): each GPU holds about 1/N of the weights, "
          "of the trained layers' gradients and optimizer states, of the activations and of the KV cache, the last one "
          "also the loss's logits; no data parallelism, no ZeRO (from release 2026.12.18)", "layers split over the GPUs "
          "in one process (Accelerate device_map=\"auto\"): each GPU holds about 1/N of the model"),
    Field("tensor_parallel", "integer", "training: the size t of a Megatron-style tensor-parallel group (Megatron-LM / "
          "Megatron-Core --tensor-model-parallel-size); gpus must be a multiple of t, plain data parallelism over the "
          "rest. Each GPU holds about 1/t of the weights, gradients and optimizer states, of the vocabulary-parallel "
          "logits, and the activations s·b·h·(10 + 24/t + 5·a·s/(h·t)) bytes per layer (Korthikanti et al. 2022). "
          "Default 1: several training GPUs are sized as ZeRO data parallelism (from release 2026.12.20)",
          "training: Megatron-style tensor-parallel group size t (gpus a multiple of t)", limits=(1, 1024)),
    Field("sequence_parallel", "boolean", "with tensor_parallel > 1: Megatron's sequence parallelism also splits the "
          "norms' and dropouts' activations along the sequence, so a layer keeps s·b·h/t·(34 + 5·a·s/h) bytes "
          "(Korthikanti et al. 2022; from release 2026.12.20)", "with tensor_parallel: Megatron sequence parallelism"),
    Field("master_weights", "boolean", "BF16 full training: FP32 master weights, gradient partitions and optimizer "
          "states beside the BF16 weights (DeepSpeed's bf16 mode: its ZeRO optimizer keeps them in FP32, about 16 bytes "
          "per parameter over the shards); false = pure BF16 (8 bytes: torchtune, FSDP over a bf16 model, DeepSpeed's "
          "bf16_master_weights_and_grads with bf16_optimizer_states). Not given: true when a ZeRO stage >= 1 is given "
          "without fsdp1 (from release 2026.12.17), else false", "BF16 training: FP32 master weights and optimizer "
          "states (DeepSpeed's bf16 mode) or pure BF16 (false)"),
    Field("torch_compile", "boolean", "training step compiled with torch.compile: pointwise activations are "
          "recomputed in the backward pass instead of saved", "compiled with torch.compile (pointwise activations "
          "recomputed, not saved)"),
    Field("selective_checkpointing", "boolean", "with gradient_checkpointing: torchtitan's op-level selective "
          "activation checkpointing (activation_checkpoint mode selective, selective_ac_option op, its Llama 3 8B "
          "preset): each layer keeps its input, every other matmul's output (wq, wv, w1, w2) and the attention "
          "kernel's output instead of its input only (from release 2026.12.30)", "with gradient_checkpointing: "
          "torchtitan's op-level selective checkpointing (every other matmul's output kept)"),
    Field("expandable_segments", "boolean", "training: PyTorch's caching allocator runs with "
          "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (torchtitan's launch script sets it): segments grow in "
          "place through CUDA's virtual memory API, so the reserve nvidia-smi shows is sized without the fragmentation "
          "share (from release 2026.12.30)", "training: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (no "
          "fragmentation share in the reserve)"),
    Field("fused_optimizer", "boolean", "training: true, AdamW steps in a fused kernel (fused=True, DeepSpeed's "
          "FusedAdam) or a for-loop (foreach=False, transformers' own AdamW); false, in PyTorch's foreach "
          "implementation, whose step holds one more tensor of the second moments' size; not given: foreach for an "
          "FSDP1 run, none otherwise (from release 2027.1)", "training: AdamW steps fused or as a for-loop (true) "
          "or as PyTorch's foreach, with a tensor of the second moments' size at the step (false)"),
    Field("engine", "string", "inference: the serving engine (vllm takes gpu_memory_utilization of each card, "
          "0.9 by default)", "inference: serving engine, transformers (whole card) or vllm "
          "(gpu_memory_utilization of each card)", ENGINES),
    Field("gpu_memory_utilization", "number", "inference: the engine's share of each card's memory",
          "inference: the engine's share of each card's memory (vLLM default 0.9)", limits=(0.05, 1.0)),
    Field("max_num_batched_tokens", "integer", "inference: the engine's token budget per step (bounds prefill "
          "activations)", "inference: the engine's token budget per step, bounding prefill activations",
          limits=(1, 100_000_000)),
    Field("full_prompt_logits", "boolean", "inference: the prompt's forward pass computes every position's logits "
          "and upcasts them to FP32, as Hugging Face transformers did before v4.45.0", "inference: logits of every "
          "prompt position, 16-bit and FP32 (transformers before 4.45)"),
    Field("new_tokens", "integer", "inference: how many of seq_len's tokens are generated after the prompt (the "
          "prompt's logits cover the rest)", "inference: tokens generated after the prompt, counted in seq_len",
          limits=(0, 100_000_000)),
    Field("kv_cache_dtype", "string", "inference: fp8 halves the KV cache",
          "inference: auto or fp8 (1 byte per cached value)", KV_CACHE_DTYPES),
)
FIELD = {f.name: f for f in FIELDS}
#: the query's keys (the body's and, in snake_case, the CLI's flags)
KEYS = tuple(FIELD)
#: key: (minimum, maximum, integer?) of every numeric field
LIMITS = {f.name: (f.limits[0], f.limits[1], f.type == "integer") for f in FIELDS
          if f.type in ("number", "integer") and f.limits}
#: the keys that are `gpukb query` flags
CLI_KEYS = tuple(f.name for f in FIELDS if f.cli)
#: the fields that name the hardware (a cheapest-instance search chooses it)
HARDWARE = ("gpu", "instance", "family", "vram_gb", "gpus")


def property_schema(f: Field, described: bool = True) -> dict[str, Any]:
    """The JSON Schema of one field (with the API's description when ``described``)."""
    if f.schema is not None:
        out: dict[str, Any] = dict(f.schema)
    elif f.text:
        lo, hi = f.limits or (None, None)
        out = {"oneOf": [{"type": f.type, "minimum": lo, "maximum": hi},
                                         {"type": "string", "pattern": PARAMS_PATTERN, "maxLength": 40}]}
    else:
        out = {"type": [f.type, "null"] if f.nullable else f.type}
        if f.enum is not None:
            out["enum"] = [*f.enum, None] if f.nullable else list(f.enum)
        elif f.limits and f.type == "string":
            out["minLength"], out["maxLength"] = f.limits
        elif f.limits:
            out["minimum"], out["maximum"] = f.limits
        if f.default is not None:
            out["default"] = f.default
    if described and f.description:
        out["description"] = f.description
    return out


@dataclass(frozen=True)
class Body:
    """A JSON request body: its fields, which of them are required; closed (unknown keys are a 400)."""

    name: str
    description: str | None
    fields: tuple[Field, ...]
    required: tuple[str, ...] = ()

    def keys(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def schema(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"type": "object"}
        if self.description:
            doc["description"] = self.description
        doc["additionalProperties"] = False
        if self.required:
            doc["required"] = list(self.required)
        doc["properties"] = {f.name: property_schema(f) for f in self.fields}
        return doc


QUERY_DESCRIPTION = "The CLI's query flags in snake_case. Give model or params, and one of gpu, instance, vram_gb."
SOLVE_TARGETS = ("batch", "seq_len", "params")

QUERY_BODY = Body("QueryBody", QUERY_DESCRIPTION, FIELDS)
SOLVE_BODY = Body("SolveBody", QUERY_DESCRIPTION, FIELDS + (
    Field("target", "string", None, "the value to maximise", SOLVE_TARGETS),
    Field("lang", "string", None, "the language of the answer (default en)", LANGS)), required=("target",))
CHEAPEST_BODY = Body(
    "CheapestBody", "A query body without hardware (the search chooses it), plus the providers to search.",
    tuple(f for f in FIELDS if f.name not in HARDWARE) + (
        Field("providers", "array", "Cloud providers to search (default: all): a list of names or a "
              "comma-separated string.", "cloud providers to search (default: all)", schema={"oneOf": [
                  {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
                   "maxItems": 10},
                  {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS}]}),
        Field("lang", "string", "The language of the answer (default en).", "the language of the answer", LANGS)))
