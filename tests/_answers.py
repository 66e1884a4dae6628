"""Real answers of every endpoint of the API, errors included, for the tests that check them against
the answer models and the generated OpenAPI schemas (tests/test_models.py, tests/test_openapi.py).

Each sample is (model name in gpukb.engine.models.ANSWERS, request, status, JSON body). The questions
are a spread of the gold corpus (kb/gold/questions.yaml) so that every kind of answer and every
optional field the engine produces is seen.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import yaml

ROOT = Path(__file__).resolve().parents[1]


class Sample(NamedTuple):
    name: str
    request: str
    status: int
    body: Any


QUERIES = [
    {"params": 13e9, "method": "full", "gpu": "T4"},
    {"model": "llama-2-7b", "method": "qlora", "gpu": "T4"},
    {"params": "70B", "method": "inference", "precision": "int4", "vram_gb": 80, "gpus": 2},
    {"params": 7e9, "method": "full", "gpu": "A100-80GB", "gpus": 8, "zero": 3, "gradient_checkpointing": True},
    {"params": 3e9, "method": "full", "instance": "GN7.8XLARGE128", "offload": "optimizer"},
    {"model": "llama-2-7b", "method": "qlora", "instance": "GN7.2XLARGE32", "tokens": 1e9},
    {"model": "llama-2-7b", "method": "lora", "family": "GN7"},
    {"model": "llama-3.1-8b", "method": "full", "precision": "bf16", "optimizer": "paged_adamw8bit", "gpu": "A100-80GB",
     "seq_len": 2048, "batch": 2, "gradient_checkpointing": True, "optimizer_in_backward": True,
     "chunked_cross_entropy": True},
    {"model": "llama-3.1-8b", "method": "qlora", "gpu": "L4", "seq_len": 2048, "batch": 2, "fused_cross_entropy": True},
    {"model": "llama-3-8b", "method": "inference", "gpu": "H100-80GB", "engine": "vllm", "seq_len": 8192, "batch": 4,
     "max_num_batched_tokens": 8192, "kv_cache_dtype": "fp8"},
    # torchtune's activation offloading on top of checkpointing (issue 33)
    {"model": "llama-3.2-3b", "method": "lora", "gpu": "L4", "seq_len": 4096, "batch": 2,
     "gradient_checkpointing": True, "activation_offloading": True, "torch_compile": True},
    # plain data parallelism (gradient buckets) at a context beyond the model's trained one (issue 33)
    {"model": "llama-2-7b", "method": "lora", "gpu": "A100-80GB", "gpus": 2, "zero": 0, "seq_len": 8192},
    # a long prompt served by transformers before v4.45: every prompt position's logits (issue 33)
    {"model": "qwen2-7b", "method": "inference", "gpu": "A100-80GB", "seq_len": 32768, "full_prompt_logits": True},
    # a generation benchmark whose sequence counts the generated tokens: the prompt's logits cover the rest (issue 33)
    {"model": "qwen2-7b", "method": "inference", "gpu": "A100-80GB", "seq_len": 8192, "full_prompt_logits": True,
     "new_tokens": 2048},
    # eager attention asked for (not given, the release's default SDPA is sized and the scenario omits the key)
    {"model": "llama-2-7b", "method": "lora", "gpu": "T4", "seq_len": 2048, "flash_attention": False},
    # a training loop's own cross-entropy on the 16-bit logits; QLoRA through PEFT's k-bit preparation (issue 33)
    {"model": "llama-3.1-8b", "method": "lora", "precision": "bf16", "gpu": "H100-80GB", "seq_len": 8192, "batch": 2,
     "gradient_checkpointing": True, "logits_dtype_loss": True},
    {"model": "llama-3.1-8b", "method": "qlora", "gpu": "RTX-4090", "seq_len": 4096, "kbit_preparation": True},
    # torchtitan's op-level selective checkpointing under PyTorch's expandable segments (issue 33, release 2026.12.30)
    {"model": "llama-3.1-8b", "method": "pretrain", "gpu": "H100-80GB", "gpus": 8, "zero": 3, "seq_len": 8192, "batch": 1,
     "gradient_checkpointing": True, "selective_checkpointing": True, "expandable_segments": True},
    # PyTorch's foreach AdamW step asked for: one more tensor of the second moments' size (release 2027.1)
    {"model": "llama-7b", "method": "full", "gpu": "A100-40GB", "gpus": 4, "zero": 3, "fsdp1": True,
     "fused_optimizer": False, "seq_len": 2048, "batch": 1, "gradient_checkpointing": True},
    # FSDP1's CPU offload keeps the gradient shards; Gemma 2's final logit soft-capping keeps one more logit tensor
    {"model": "gemma-2-9b", "method": "full", "precision": "bf16", "gpu": "H100-80GB", "gpus": 2, "zero": 3,
     "offload": "params", "fsdp1": True, "seq_len": 4096, "batch": 1, "gradient_checkpointing": True},
    # DeepSpeed's bf16 mode with ZeRO keeps FP32 master weights and optimizer states (release 2026.12.17)
    {"model": "qwen2.5-7b", "method": "full", "precision": "bf16", "gpu": "A100-80GB", "gpus": 4, "zero": 2,
     "seq_len": 2048, "batch": 1, "gradient_checkpointing": True},
    # the layers split over the GPUs in one process (Accelerate's device_map="auto", release 2026.12.18)
    {"model": "llama-2-70b", "method": "lora", "precision": "bf16", "gpu": "A100-80GB", "gpus": 4, "layer_split": True,
     "seq_len": 2048, "batch": 1, "gradient_checkpointing": True},
    # GaLore with Q-GaLore's INT8 weights and INT4 projections, the step fused into backward (release 2026.12.23)
    {"model": "llama-7b", "method": "pretrain", "precision": "bf16", "optimizer": "adamw8bit", "gpu": "RTX-4090",
     "galore_rank": 1024, "q_galore": True, "optimizer_in_backward": True, "seq_len": 256, "batch": 1},
    # FSDP1 full training accumulating gradients under no_sync (release 2026.12.23)
    {"model": "llama-2-7b", "method": "full", "precision": "mixed", "gpu": "A100-80GB", "gpus": 8, "zero": 3,
     "fsdp1": True, "fsdp_no_sync": True, "seq_len": 2048, "batch": 1, "gradient_checkpointing": True},
    # LoRA under FSDP1 use_orig_params with the adapters in the frozen layers' units (release 2026.12.22)
    {"model": "llama-2-13b", "method": "lora", "precision": "bf16", "gpu": "A100-40GB", "gpus": 4, "zero": 3, "fsdp1": True,
     "fsdp_orig_params": True, "seq_len": 1024, "batch": 1},
    # Megatron-style tensor-parallel training with sequence parallelism (release 2026.12.20)
    {"model": "llama-2-13b", "method": "pretrain", "precision": "bf16", "gpu": "H100-80GB", "gpus": 8, "tensor_parallel": 4,
     "sequence_parallel": True, "seq_len": 4096, "batch": 1},
]
SOLVES = [
    {"model": "llama-2-7b", "method": "inference", "gpu": "T4", "target": "seq_len"},
    {"method": "qlora", "gpu": "T4", "target": "params"},
    {"model": "llama-2-7b", "gpu": "T4", "target": "batch"},
]
TEXTS = [
    "The T4 has 32 GB of memory and NVLink.",
    "GN7 instances carry A100 GPUs and support BF16.",
    "单张 T4 可以全量微调 Llama-2-13B。",
    "The T4 has 16 GB GDDR6 memory. A T4 cannot fully fine-tune a 13B model. GN7 suits large-scale training.",
    "hello world",
    "NVIDIA's H20 carries 141 GB of memory and draws 400 W.",       # an unverifiable claim, with its reason
]
#: Questions beyond the gold spread that reach answers it may miss.
QUESTIONS = [
    "hello", "Does the T4 support BF16?", "T4 or A10 for 7B LoRA?",
    "Does GN7 support BF16?",                                          # a family's fact via its GPU
    "what's the lowest-cost Tencent instance that runs Mistral 7B inference in fp16",   # a size that fails
    "why not H100-80GB for 1B LoRA",                                   # why not, but it fits: a note says so
    "the cheapest instance that serves a 70B model in int4 on AWS or Tencent",   # ranked by hourly price
    "can a B300 serve llama 70B in int4",                              # a GPU the KB does not know
    "run llama-9-70b on a T4 in int4",                                 # sized by its size; the model is unknown
    "有人说 A10 的显存带宽是 900GB/s，对吗？",                              # a statement to verify: a claim check
    "Compare the memory bandwidth of the H100 and the H800",          # a spec compared, stated per form factor
    "Which has more memory, the GN7, the GN8 or the B300?",           # a leader, and a GPU the KB does not know
    "Does the H100 support FP8?",                                      # yes or no from the cited list
    "How much does ecs.gn7i-c8g1.2xlarge cost per hour?",              # a price the KB does not have, and why
    "Which is cheaper, GN7.2XLARGE32 or GN8.LARGE56?",                 # prices compared: the lower leads
    "How much does a T4 cost per hour?",                               # a GPU's price: the instances that carry it
    "How much VRAM does Llama 3 8B need for inference?",               # no GPU named: the smallest cards that hold it
    "How much GPU memory does it take to fully fine-tune Llama 2 70B?",  # none holds it: the fewest cards
    "how fast is the Z9000 GPU",                                       # not understood, and a name gpukb does not know
]
#: Bad inputs: (method, path, keyword arguments of the test client's open()).
BAD = [
    ("GET", "/v1/audit?kind=nope", {}),
    ("GET", "/v1/claims?zz=1", {}),
    ("GET", "/v1/claims/S999-C999", {}),
    ("GET", "/v1/sources/S999", {}),
    ("GET", "/v1/conclusions/nope/explain", {}),
    ("GET", "/v1/diff?from=2026.09", {}),
    ("GET", "/v1/ask", {}),
    ("POST", "/v1/query", {"json": {"params": 1e9, "gpu": "T4", "colour": "red"}}),
    ("POST", "/v1/query", {"data": b'{"params": 1e9,', "content_type": "application/json"}),
    ("POST", "/v1/query", {"data": b"\x1f\x8b\x08\x00", "content_type": "application/json",
                           "headers": {"Content-Encoding": "gzip"}}),
    ("POST", "/v1/query", {"data": '{"model": "' + "x" * 300000 + '"}', "content_type": "application/json"}),   # over the 256 KiB body limit
    ("POST", "/v1/solve", {"json": {"target": "zz"}}),
    ("POST", "/v1/check", {"json": {"txt": 1}}),
    ("DELETE", "/v1/claims", {}),
    ("GET", "/v1/nope", {}),
    ("GET", "/v1/gpus/B300", {}),
    ("GET", "/v1/instances?provider=oracle", {}),
    ("POST", "/v1/cheapest", {"json": {"params": "70B", "gpu": "T4"}}),
]


def gold_questions(every: int = 4) -> list[str]:
    """Every ``every``-th question of the gold corpus (read as text: the corpus is a list of entries)."""
    text = (ROOT / "kb" / "gold" / "questions.yaml").read_text(encoding="utf-8")
    found = [yaml.safe_load(q) for q in re.findall(r"^\s*- q: (.*)$", text, re.M)]
    return [q for q in found if isinstance(q, str)][::every]


def _json(r) -> Any:
    return json.loads(r.get_data(as_text=True))


@lru_cache(maxsize=1)
def _collect(app) -> tuple[Sample, ...]:
    c = app.test_client()
    out: list[Sample] = []

    def get(name: str, url: str, **kw: Any) -> Any:
        r = c.get(url, **kw)
        out.append(Sample(name if r.status_code < 400 else "error", "GET " + url, r.status_code, _json(r)))
        return out[-1].body

    def post(name: str, url: str, body: Any) -> Any:
        r = c.post(url, json=body)
        out.append(Sample(name if r.status_code < 400 else "error", f"POST {url} {body}", r.status_code, _json(r)))
        return out[-1].body

    get("health", "/health")
    for q in gold_questions() + QUESTIONS:
        get("ask", "/v1/ask", query_string={"q": q})
    conclusions = [post("query", "/v1/query", b).get("conclusion_id") for b in QUERIES]
    post("query", "/v1/query?without=S002", QUERIES[0])
    for b in SOLVES:
        post("solve", "/v1/solve", b)
    for t in TEXTS:
        post("check", "/v1/check", {"text": t})
    audit = get("audit", "/v1/audit")
    get("audit", "/v1/audit?source=S001&kind=incorrect")
    get("claimreview", "/v1/audit?format=claimreview")
    get("audit", "/v1/audit?without=S001&kind=contradiction")
    get("gaps", "/v1/audit/gaps")
    claims = get("claims", "/v1/claims")
    get("claims", "/v1/claims?source=S001&kb_version=2026.10")
    for cl in claims["claims"][::10]:
        get("claim", f"/v1/claims/{cl['id']}")
    ids = [x for x in conclusions if x] + [f["id"] for f in audit["findings"][::25]] + ["S000-C005", "R-T4-bf16_native"]
    for cid in ids:
        get("explain", f"/v1/conclusions/{cid}/explain")
        get("explain", f"/v1/conclusions/{cid}?lang=zh")
        get("prov", f"/v1/conclusions/{cid}/explain?format=prov")
    get("sources", "/v1/sources")
    for s in ("S000", "S002"):
        get("source", f"/v1/sources/{s}")
    releases = [v["name"] for v in get("versions", "/v1/versions")["versions"]]
    for a, b in zip(releases, releases[1:]):
        get("diff", f"/v1/diff?from={a}&to={b}")
    get("diff", f"/v1/diff?from={releases[-1]}&to={releases[0]}")
    get("gpus", "/v1/gpus")
    for g in ("T4", "A100-40GB", "A100", "H100-80GB"):
        get("gpu", f"/v1/gpus/{g}")
    get("instances", "/v1/instances")
    get("instances", "/v1/instances?provider=aws&gpu=A100")
    for i in ("GN7.2XLARGE32", "p4d.24xlarge", "ecs.gn7i-c8g1.2xlarge"):
        get("instance", f"/v1/instances/{i}")
    get("models", "/v1/models")
    get("model", "/v1/models/llama-2-7b")
    post("cheapest", "/v1/cheapest", {"params": "70B", "method": "inference", "precision": "int4",
                                      "providers": ["aws", "tencent"]})
    post("cheapest", "/v1/cheapest", {"model": "llama-2-7b", "method": "qlora", "providers": "tencent", "lang": "zh"})
    for method, url, kw in BAD:
        r = c.open(url, method=method, **kw)
        out.append(Sample("error", f"{method} {url}", r.status_code, _json(r)))
    return tuple(out)


def samples(app) -> tuple[Sample, ...]:
    """The real answers of the app (collected once per app)."""
    return _collect(app)
