"""A sizing answer (POST /v1/query, a sizing question of /v1/ask): the verdict, the memory breakdown,
the capacity, the recommendations, the proof and the sources behind it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .base import OMIT, Model, spec
from .vocab import FindingKind, Label, Method, Offload, Optimizer, Precision, Span, Verdict


@dataclass(kw_only=True)
class Scenario(Model):
    """The normalised inputs: the query's keys (the CLI's flags in snake_case) with their defaults filled in."""

    method: Method
    precision: Precision
    optimizer: Optimizer | Literal["none"] = spec(description="\"none\" for inference")
    model: str = OMIT
    params: float = OMIT
    gpu: str = OMIT
    instance: str = OMIT
    family: str = OMIT
    vram_gb: float = OMIT
    gpus: int = OMIT
    zero: int = OMIT
    seq_len: int = OMIT
    batch: int = OMIT
    lora_rank: int = OMIT
    tokens: float = OMIT
    gradient_checkpointing: bool = OMIT
    flash_attention: bool = OMIT
    compute_precision: Precision = spec(OMIT, "QLoRA only: the precision of the adapters and the matmuls.")
    offload: Offload = OMIT
    optimizer_in_backward: bool = spec(OMIT, "The optimizer step fused into the backward pass: gradients freed layer by layer.")
    chunked_cross_entropy: bool = spec(OMIT, "Chunked / fused cross-entropy: no full FP32 sequence × vocabulary logits.")
    fused_cross_entropy: bool = spec(OMIT, "The loss fused into the output head (Cut Cross-Entropy, Liger's fused linear cross-entropy): no sequence × vocabulary logits held whole.")
    logits_dtype_loss: bool = spec(OMIT, "Cross-entropy computed on the logits in their own dtype (no FP32 upcast): 16-bit logits, log-probabilities and gradient.")
    kbit_preparation: bool = spec(OMIT, "QLoRA: PEFT's prepare_model_for_kbit_training upcasts the embeddings, the output head and the norms to FP32.")
    fsdp1: bool = spec(OMIT, "Sharded with PyTorch's FullyShardedDataParallel wrapper (FSDP1), not FSDP2 or DeepSpeed: with parameter offload the gradient shards stay on the GPU until the backward pass ends.")
    fsdp_orig_params: bool = spec(OMIT, "LoRA under FSDP1 with use_orig_params=True and the adapters in the same units as the frozen layers (LitGPT): the frozen base gets gradients as if it were not frozen, sharded over the GPUs.")
    fsdp_no_sync: bool = spec(OMIT, "FSDP1 full training accumulating gradients under no_sync: every GPU keeps the whole model's unsharded gradients until the micro-batch that syncs.")
    galore_rank: int = spec(OMIT, "GaLore: the rank the attention and MLP weights' gradients are projected to; the optimizer keeps its states on the projected gradients.")
    q_galore: bool = spec(OMIT, "Q-GaLore: the projected weights in INT8 and the projection matrices in INT4.")
    layer_split: bool = spec(OMIT, "The model's layers split over the GPUs in one process (Accelerate device_map=\"auto\"): each GPU holds about 1/N of the layers, their states, activations and KV cache.")
    tensor_parallel: int = spec(OMIT, "Training: the size of a Megatron-style tensor-parallel group; each GPU holds about 1/t of the weights, states and logits and the activations Korthikanti et al. give for t-way tensor parallelism.")
    sequence_parallel: bool = spec(OMIT, "With tensor_parallel: Megatron's sequence parallelism, which splits every activation of a layer over the group.")
    master_weights: bool = spec(OMIT, "BF16 full training keeps FP32 master weights, gradient partitions and optimizer states beside the BF16 weights (DeepSpeed's bf16 mode with ZeRO); false: pure BF16.")
    torch_compile: bool = spec(OMIT, "The training step is compiled with torch.compile: pointwise activations are recomputed, not saved.")
    activation_offloading: bool = spec(OMIT, "Activation offloading: with checkpointing the per-layer checkpoints are kept in host memory.")
    selective_checkpointing: bool = spec(OMIT, "With gradient checkpointing: torchtitan's op-level selective checkpointing, which keeps every other matmul's output and the attention kernel's beside each layer's input.")
    expandable_segments: bool = spec(OMIT, "Training with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the reserve is sized without the allocator's fragmentation share.")
    fused_optimizer: bool = spec(OMIT, "Training: true, AdamW steps fused or as a for-loop; false, as PyTorch's foreach implementation, whose step holds a tensor of the second moments' size; not given: foreach for an FSDP1 run only.")
    engine: Literal["transformers", "vllm"] = spec(OMIT, "Inference: the serving engine (vllm takes a share of each card, gpu_memory_utilization).")
    gpu_memory_utilization: float = spec(OMIT, "Inference: the engine's share of each card's memory (vLLM default 0.9).")
    max_num_batched_tokens: int = spec(OMIT, "Inference: the engine's token budget per step, which bounds prefill activations.")
    kv_cache_dtype: Literal["auto", "fp8"] = spec(OMIT, "Inference: fp8 stores the KV cache in 1 byte per value.")
    new_tokens: int = spec(OMIT, "Inference: how many of seq_len's tokens are generated after the prompt; the prompt's logits cover the rest.")
    full_prompt_logits: bool = spec(OMIT, "Inference: the prompt's forward pass computes every position's logits and upcasts them to FP32 (Hugging Face transformers before v4.45.0).")


@dataclass(kw_only=True)
class Memory(Model):
    """Memory estimate in GB (10^9 bytes); a part is null when it does not apply (e.g. no activations are
    stored for inference)."""

    unit: Literal["GB"]
    weights: float | None
    gradients: float | None
    optimizer: float | None
    activations: float | None
    overhead: float | None
    model_states: float | None
    total: float
    per_gpu_model_states: float | None
    per_gpu_total: float
    kv_cache: float | None = OMIT
    logits: float | None = spec(OMIT, "Training: the loss's batch × sequence × vocabulary logits (FP32 upcast and gradient).")
    weight_copies: float | None = spec(OMIT, "Training under PyTorch AMP: the 16-bit copies autocast makes of the FP32 weights.")
    per_gpu_allocated: float | None = spec(OMIT, "What torch.cuda.max_memory_allocated would report per GPU: the per-GPU total without the CUDA context and paged optimizer states (nvidia-smi shows the per-GPU total and more).")
    per_gpu_reserved: float | None = spec(OMIT, "Training: what nvidia-smi would show per GPU, the allocated peak with the caching allocator's fragmentation and the CUDA context (it does not decide the verdict: the allocator frees its cache and retries before it fails).")
    comm_buffers: float | None = spec(OMIT, "Data-parallel training: gradient buckets (DDP's copy of the gradients, DeepSpeed's reduce bucket).")


@dataclass(kw_only=True)
class Capacity(Model):
    """Usable GPU memory per GPU, and how many GPUs."""

    unit: Literal["GB"]
    per_gpu: float
    gpus: int = spec(minimum=1)
    gpu: str | None = OMIT
    basis: str | None = OMIT


@dataclass(kw_only=True)
class Citation(Model):
    """A fact the summary cites: a source claim with its quote, or a reference fact with its citation."""

    fact: str = OMIT
    type: str = OMIT
    claim: str = OMIT
    source: str = OMIT
    quote: str = OMIT
    citation: str = OMIT


@dataclass(kw_only=True)
class Summary(Model):
    """A short cited summary in English and Chinese."""

    en: str
    zh: str
    citations: list[Citation] = OMIT
    caveats: list[str] = OMIT


@dataclass(kw_only=True)
class Note(Model):
    """A remark on the question itself, in English and Chinese."""

    en: str
    zh: str


@dataclass(kw_only=True)
class OffloadCost(Model):
    """What CPU offload moves to host memory and over PCIe each step."""

    mode: str = OMIT
    host_gb: float = OMIT
    pcie_gb_per_step: float = OMIT
    host_available_gb: float = OMIT
    host_fits: bool = OMIT
    pcie_seconds_per_step: float = OMIT


@dataclass(kw_only=True)
class Recommendation(Model):
    """A change that would make the scenario fit (or fit better), evaluated by re-running the rules."""

    action: str
    change: dict[str, Any] = OMIT
    cost: str | None = OMIT
    fits: bool = OMIT
    need_gb: float = OMIT
    capacity_gb: float = OMIT
    min_gpus: int = OMIT
    rank: int = OMIT
    rule_rank: int = OMIT
    rank_sum: int = OMIT
    gpus_needed: int = spec(OMIT, "How many GPUs the changed scenario uses (the ranking prefers fewer).")
    pair: list[str] = spec(OMIT, "the two actions of a combined change")
    also: list[Any] = OMIT
    fact: str | list[str] = spec(OMIT, "the recommendation fact(s) in the derivation")
    offload: OffloadCost = OMIT
    step_seconds: float = OMIT
    gpu_hours_per_step: float = OMIT
    gpu_seconds_per_1k_tokens: float = OMIT
    pcie_gb_per_step: float = OMIT
    label: Label = spec(OMIT, "the change in words, from the rule that recommends it")
    error: str = OMIT


@dataclass(kw_only=True)
class Serving(Model):
    """What a serving engine (vLLM) does with its share of each card."""

    engine: str = OMIT
    gpu_memory_utilization: float | None = OMIT
    kv_pool_gb: float = OMIT
    kv_per_sequence_gb: float | None = OMIT
    max_sequences: int | None = OMIT


@dataclass(kw_only=True)
class Band(Model):
    """The error band from published measurements of this method."""

    low_gb: float = OMIT
    high_gb: float = OMIT
    ratios: list[float] = OMIT
    points: int = OMIT
    basis: str = spec(OMIT, "Where the band comes from: the measured runs of the gold set's dev split, when it has enough of this method's.")


@dataclass(kw_only=True)
class Communication(Model):
    """The gradient exchange of one step over one link."""

    link: str | None = OMIT
    gb_per_step: float | None = OMIT
    gbps: float | None = OMIT
    seconds: float | None = OMIT


@dataclass(kw_only=True)
class Compute(Model):
    """Compute time: seconds per step at the GPU's rate, hours for the given tokens."""

    seconds_per_step: float | None = OMIT
    tflops: float | None = OMIT
    hours: float | None = OMIT


@dataclass(kw_only=True)
class PrecisionAdvice(Model):
    """A precision the GPU supports better than the one asked for."""

    gpu: str = OMIT
    recommended: str = OMIT
    reason: str = OMIT


@dataclass(kw_only=True)
class QuotedClaim(Model):
    """A source claim as quoted: id, version, source, the sentence and where it stands."""

    id: str
    source: str = OMIT
    quote: str = OMIT
    span: Span = OMIT
    version: int = OMIT
    gloss_en: str | None = OMIT


@dataclass(kw_only=True)
class Contradiction(Model):
    """A source claim that disagrees with the answer or one of its premises, with its audit status."""

    claim: QuotedClaim = OMIT
    relates_to: str = OMIT
    status: FindingKind = OMIT
    findings: list[Any] = OMIT
    id: str = OMIT
    source: str = OMIT
    quote: str = OMIT
    span: Span = OMIT
    value: Any = OMIT


@dataclass(kw_only=True)
class SourceRef(Model):
    """A source the answer rests on: a quoted claim, or a reference document with its citation, its
    confidence and the facts taken from it."""

    type: str = OMIT
    id: str = OMIT
    version: int = OMIT
    source: str = OMIT
    quote: str = OMIT
    span: Span = OMIT
    gloss_en: str | None = OMIT
    citation: str = OMIT
    confidence: str = OMIT
    facts: list[str] = OMIT


@dataclass(kw_only=True)
class ProofNode(Model):
    """A node of a proof tree: a derived fact with the rule that derived it and its premises, down to
    given facts (quoted claims, reference facts, inputs). Nodes carry the rule's data; the tree is open."""

    OPEN = True
    fact: str
    type: str = OMIT
    label: Label = OMIT
    rule: str = OMIT
    given: bool = OMIT
    tier: Literal["claim", "reference", "input"] = OMIT
    premises: list["ProofNode"] = OMIT


@dataclass(kw_only=True)
class Proof(Model):
    """The proof tree of a sizing conclusion."""

    conclusion: str
    tree: ProofNode


@dataclass(kw_only=True)
class WhyNot(Model):
    """Why a scenario does not fit: the candidate rules, the first condition of each that failed with the
    actual values, and the smallest changes that would make it hold."""

    OPEN = True
    question: str = OMIT
    candidates: list[dict[str, Any]] = OMIT
    smallest_changes: list[dict[str, Any]] = OMIT
    max_params_that_fit: float | None = OMIT


@dataclass(kw_only=True)
class Alternative(Model):
    """Another reading of an ambiguous question, sized."""

    field: str = OMIT
    value: Any = OMIT
    verdict: Verdict = OMIT
    conclusion_id: str = OMIT


@dataclass(kw_only=True)
class Assumed(Model):
    """What the parser assumed (a generic GPU name taken as its smaller card) and the alternatives."""

    field: str = OMIT
    text: str = OMIT
    value: str = OMIT
    alternatives: list[str] = OMIT


@dataclass(kw_only=True)
class Asked(Model):
    """The fields /v1/ask adds to every answer: the question, its language and how it was parsed."""

    question: str = OMIT
    lang: str = OMIT
    parsed: dict[str, Any] = OMIT
    answer: str = OMIT
    unknown_names: list[dict[str, Any]] = spec(OMIT, "Names in the question the KB does not know (a GPU, instance "
                                                     "or model), each with the closest known names.")


@dataclass(kw_only=True)
class SizingAnswer(Asked):
    """Whether the scenario fits: the memory it needs, the capacity, the smallest GPU count that fits, what
    to change, why (the proof) and which sources say what."""

    conclusion_id: str = spec()
    kb_version: str = spec()
    scenario: Scenario = spec()
    verdict: Verdict = spec()
    memory: Memory = spec()
    capacity: Capacity = spec()
    min_gpus: int | None = spec(minimum=1)
    recommendations: list[Recommendation] = spec()
    explanation: Proof = spec()
    sources: list[SourceRef] = spec()
    contradictions: list[Contradiction] = spec()
    summary: Summary = spec()
    kind: Literal["sizing"] = OMIT
    notes: list[str] = OMIT
    min_gpus_zero: int | None = OMIT
    min_gpus_reason: str | None = OMIT
    communication: list[Communication] = OMIT
    compute: Compute | None = OMIT
    precision: list[PrecisionAdvice] = OMIT
    why_not: WhyNot = OMIT
    band: Band = spec(OMIT, "the error band from published measurements of this method")
    borderline: bool = spec(OMIT, "the usable memory lies inside the error band")
    offload: OffloadCost = OMIT
    context_limit: dict[str, Any] = spec(OMIT, "the sequence is longer than the context the model was trained for "
                                         "(max_position_embeddings): {seq_len, max_context, beyond}")
    serving: Serving = spec(OMIT, "inference with a serving engine that takes a share of each card: its KV-cache pool and how many sequences it serves at once")
    negated: bool = OMIT
    note: Note = spec(OMIT, "a why-not question whose scenario fits: says that it does")
    alternatives: list[Alternative] = spec(OMIT, "other readings of an ambiguous question, each sized")
    assumed: list[Assumed] = spec(OMIT, "what the parser assumed (a generic GPU name taken as its smaller card) "
                                  "and the alternatives")
    without: dict[str, Any] = spec(OMIT, "with ?without=: whether the conclusion still holds when those sources "
                                   "are taken away, and which disagreeing claims go")
