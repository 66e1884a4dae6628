"""gpukb's closed vocabularies in one place: the enums, their English and Chinese labels, and number
formatting, used by the scenario validation, the question parser, the audit, the CLI's choices, the API,
the OpenAPI schemas and the pages' Jinja filters.

(Open vocabularies, the entities with their aliases and the attributes with their units, are data in
``kb/vocabulary.yaml``.)

>>> gb(208)
'208.0 GB'
>>> gb(0.5)
'0.50 GB'
>>> label("method", "qlora", "zh")
'QLoRA 微调'
"""
from __future__ import annotations

from typing import Any

LANGS: tuple[str, ...] = ("en", "zh")

#: Training and serving methods, as scenarios name them.
METHODS: tuple[str, ...] = ("full", "lora", "qlora", "pretrain", "inference")
PRECISIONS: tuple[str, ...] = ("fp32", "fp16", "bf16", "mixed", "int8", "int4", "nf4")
#: adamw8bit / paged_adamw8bit: bitsandbytes 8-bit states (paged: spill to host memory under pressure);
#: sgd keeps momentum, sgd_nomomentum none; adafactor factors the second moment; adamw4bit: torchao's 4-bit states.
OPTIMIZERS: tuple[str, ...] = ("adamw", "adamw8bit", "paged_adamw8bit", "adafactor", "sgd", "sgd_nomomentum", "adamw4bit")
ZERO_STAGES: tuple[int, ...] = (0, 1, 2, 3)
#: CPU offload of full training: none, ZeRO-Offload (optimizer states and gradients), or parameters too.
OFFLOADS: tuple[str, ...] = ("none", "optimizer", "params")
#: serving engines: plain PyTorch / transformers (the whole card), or vLLM (a share of it, R-VLLM-gmu)
ENGINES: tuple[str, ...] = ("transformers", "vllm")
#: What an inverse question (``gpukb query --solve``, POST /v1/solve) looks for.
SOLVE_TARGETS: tuple[str, ...] = ("params", "batch", "seq_len")

#: The audit's nine kinds of finding, in the resolution policy's tie-break order (most severe first).
FINDING_KINDS: tuple[str, ...] = ("misattributed", "incorrect", "inconsistent_with_derivation", "overstated",
                                  "understated", "contradiction", "unverifiable", "scope_dependent", "supported")

#: What a finding's wording may name (a rule's ``explain`` template, the vocabulary's ``findings``
#: templates): the claim judged (its subject, attribute, value as labelled (``claim``) and as written
#: (``claim_text``), source and scope), the fact the finding cites as its own evidence (``own_*``), the
#: other fact it names (``other_*``), the fact that links them (``via_*``; ``via_note`` is `` [citation]``
#: or nothing), the context the claim is judged in, the computed value (``computed``, ``sizing``: the
#: sizing verdict in words, ``pick``: the scope computed), the differing scope keys (``differences``),
#: the claim's verdict in words (``verdict``), the effects the claim says a technique is for (``purpose``),
#: the other fact's vendor, the template's ``word`` for the finding's kind, and the figures of the claim's
#: generic product's variants in its scope, each with its citation (``variant_figures``).
FINDING_FIELDS: tuple[str, ...] = (
    "subject", "attribute", "claim", "claim_text", "source", "scope", "context",
    "own", "own_subject", "own_attribute", "own_cite",
    "other", "other_text", "other_subject", "other_attribute", "other_cite", "other_source", "other_scope",
    "via_subject", "via_cite", "via_note", "vendor",
    "computed", "sizing", "pick", "differences", "verdict", "purpose", "word", "na_reason", "na_cite",
    "variant_figures")

#: Why a claim is unverifiable.
UNVERIFIABLE_REASONS: tuple[str, ...] = ("advice", "workload", "no_reference", "not_expressible", "open_world",
                                         "not_in_catalog")

#: Memory components of a sizing answer, in display order.
MEMORY_COMPONENTS: tuple[str, ...] = ("weights", "gradients", "optimizer", "activations", "logits", "overhead",
                                      "kv_cache", "adapters")

LABELS: dict[str, dict[str, tuple[str, str]]] = {
    "method": {
        "full": ("full fine-tuning", "全量微调"), "lora": ("LoRA fine-tuning", "LoRA 微调"),
        "qlora": ("QLoRA fine-tuning", "QLoRA 微调"), "pretrain": ("pre-training", "预训练"),
        "inference": ("inference", "推理"),
    },
    "component": {
        "weights": ("weights", "权重"), "gradients": ("gradients", "梯度"),
        "optimizer": ("optimizer states", "优化器状态"), "activations": ("activations", "激活值"),
        "logits": ("logits of the loss", "损失的 logits"),
        "overhead": ("overhead", "开销"), "kv_cache": ("KV cache", "KV 缓存"), "adapters": ("adapters", "适配器"),
    },
    "finding": {
        "misattributed": ("misattributed", "归属错误"), "incorrect": ("incorrect", "错误"),
        "inconsistent_with_derivation": ("inconsistent with computation", "与计算不符"),
        "overstated": ("overstated", "夸大"), "understated": ("understated", "低估"),
        "contradiction": ("contradicted by another source", "来源间矛盾"),
        "unverifiable": ("unverifiable", "无法核实"), "scope_dependent": ("depends on scope", "视范围而定"),
        "supported": ("supported", "有据可依"),
    },
    "reason": {
        "advice": ("advice or opinion: no fact decides it", "建议或观点：没有事实可以判定"),
        "workload": ("depends on the user's workload: the claim names no model, method or size to compute",
                     "取决于用户的工作负载：说法未给出可计算的模型、方法或规模"),
        "no_reference": ("the reference tier has no fact for this attribute of this subject", "参考层没有该对象这一属性的事实"),
        "not_expressible": ("free text the vocabulary cannot express as a checkable value", "词表无法把这段自由文本表达为可核对的值"),
        "open_world": ("the reference list does not mention it, and the list is not complete", "参考列表未提及，而该列表并不完整"),
        "not_in_catalog": ("the name is not in the vendor's catalog: absence of evidence", "名称不在厂商目录中：只是查无证据"),
    },
    "verdict": {"fits": ("fits", "放得下"), "does_not_fit": ("does not fit", "放不下")},
    "confidence": {"high": ("high", "高"), "medium": ("medium", "中"), "low": ("low", "低")},
    # a yes/no value as a sentence shows it ("native BF16 support is no, not yes"; "原生支持 BF16为 否，而非 是")
    "boolean": {"true": ("yes", "是"), "false": ("no", "否")},
}


def label(kind: str, key: Any, lang: str = "en") -> str:
    """The label of ``key`` in vocabulary ``kind`` (the key itself when it has none)."""
    pair = LABELS.get(kind, {}).get(key)
    if pair is None:
        return str(key)
    return pair[1] if lang == "zh" else pair[0]


def gb(x: Any) -> str:
    """Gigabytes (10^9 bytes) as every answer, page and summary shows them."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return "–"
    return f"{x:,.1f} GB" if abs(x) >= 10 else f"{x:.2f} GB"


def params_text(n: Any, lang: str = "en") -> str:
    """A parameter count in words: 6.74B / 67.4 亿."""
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        return "?"
    if lang == "zh":
        return f"{n / 1e8:g} 亿" if n >= 1e8 else f"{n / 1e4:g} 万"
    return f"{n / 1e9:.3g}B" if n >= 1e9 else f"{n / 1e6:.3g}M"
