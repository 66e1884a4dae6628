"""The vocabulary's cue words: the words people use for methods, precisions, intents and scales in
questions, and the claim extractor's word lists (attributes, units, negation, bounds, hedges,
verdicts ...), read from the ``cues`` section of kb/vocabulary.yaml. Each pattern is compiled when the
vocabulary loads, so a broken one is reported with its file and line, and the keys of the groups that
name vocabulary terms are checked against the vocabulary.
"""
from __future__ import annotations

import re
from typing import Any

from ..core.errors import Issue, short
from ..core.terms import ENGINES


CUE_GROUPS = ("method", "precision", "intent", "scale", "generality",
              # the question parser's: a fact question's attribute (specific words, then bare ones) and
              # optimizer words beyond the optimizers' aliases
              "question_fact", "question_fact_fallback", "optimizer",
              # words that keep a question from asking for an attribute its question_fact words name ("cost-effective",
              # "per month" are no hourly price)
              "question_fact_not",
              # the serving engine a question names; the words that make a question a check of a statement; a
              # method named only as what came before or is not used
              "engine", "claim_check", "method_contrast",
              # the KV-cache data type a serving question names ("FP8 KV cache": query field kv_cache_dtype)
              "kv_cache_dtype",
              # the claim extractor's: attribute words, unit spellings, negation, bounds, hedges, verdicts,
              # the verbs that tie a GPU to an instance, of a requirement, of having a feature, of advice
              "attribute", "unit", "negation", "bound", "approx", "per_second", "launch", "verdict", "carries", "require", "possess", "advice",
              # which verdict attribute a verdict is about (by the resource its clause names), and the words
              # that make a verdict an open question ("whether GN7 is enough")
              "verdict_attribute", "open_question",
              # the words that state what hardware is designed or positioned for (its role)
              "role",
              # words for a task beyond its enum labels, a bottleneck and what names it, a technique's effect
              "task", "bottleneck", "bottleneck_cue", "effect",
              # what a quantity is said to depend on: the cue words and the words of each factor
              "depends", "factor",
              # the words that make a general concept what a statement naming no product is about
              "topic",
              # the words that make `check` abstain from calling a claim wrong (engine/text/guard.py)
              "check_guard",
              # the words that make a throughput figure a with-sparsity one (qualifier sparsity: true)
              "sparsity",
              # the words before a product's name that make it what another is compared with ("低于 A100")
              "comparison",
              # the words of each host interface (host_link enum)
              "host_link",
              # pronouns that stand for the products named before, and the words joining a list of products
              "coreference",
              # the technique a precision's words stand for when they are advised ("use mixed precision")
              "advised_as",
              # words whose figure, said of an instance or family, is the instance's own: a bare "memory"
              # (host memory) and a vGPU share of GPU memory
              "instance_words",
              # counts written as words ("four T4 GPUs", "两块 A100", "半张 T4"), keyed by the number
              "number_words",
              # the values of a text attribute by their words (keys attribute:value), unitless figures after
              # their attribute's word, and the nouns a count written before them counts (keys attributes)
              "text_value", "figure_after", "counted",
              # a feature whose count attribute says whether the hardware has it ("supports MIG": at least one)
              "featured",
              # a component's generation as an ordinal ("third-generation"), keyed by the number, and the
              # components it is read before (keys: count attributes such as tensor_core_generation)
              "ordinal", "generation",
              # the words of a fact question comparing products that ask for the higher or the lower value
              "question_order",
              # the words that, written right after a GPU's name, name another card of its line ("RTX 3090 Ti")
              "product_suffix")


def load_cues(raw: Any, path: str, issues: list[Issue]) -> dict[str, dict[str, tuple[str, ...]]]:
    """The question parser's cue words: group -> value -> regular expressions over lower-cased text.

    They are data (the words people use for a method, a precision or a kind of question, in English and
    Chinese); each pattern is compiled here so a broken one is reported with its file and line.
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {g: {} for g in CUE_GROUPS}
    if raw is None:
        return out
    if not isinstance(raw, dict):
        issues.append(Issue("cues must be a mapping of groups", path, 1, "cues", CUE_GROUPS))
        return out
    for group, values in raw.items():
        line = raw.line_of(group) if hasattr(raw, "line_of") else None
        if group not in CUE_GROUPS:
            issues.append(Issue(f"unknown cue group {short(group)}", path, line, "cues", CUE_GROUPS))
            continue
        if not isinstance(values, dict):
            issues.append(Issue(f"cues.{group} must map values to lists of patterns", path, line, f"cues.{group}"))
            continue
        for value, patterns in values.items():
            vline = values.line_of(value) if hasattr(values, "line_of") else line
            if not isinstance(patterns, list) or not all(isinstance(x, str) and x for x in patterns):
                issues.append(Issue(f"cues.{group}.{value} must be a list of patterns (text)", path, vline, f"cues.{group}.{value}"))
                continue
            for pat in patterns:
                try:
                    re.compile(pat)
                except re.error as exc:
                    issues.append(Issue(f"cues.{group}.{value}: bad pattern {short(pat)}: {exc}", path, vline, f"cues.{group}.{value}"))
            out[group][str(value)] = tuple(patterns)
    return out


def check_cue_keys(vocab: Any, raw: Any, issues: list[Issue]) -> None:
    """The extractor's cue groups are keyed by names the vocabulary defines: attributes, units
    ("dimension:unit"), verdicts and bound operators."""
    allowed = {
        "attribute": set(vocab.attributes),
        "question_fact": set(vocab.attributes), "question_fact_fallback": set(vocab.attributes),
        "question_fact_not": set(vocab.attributes),
        "optimizer": {eid.split(":", 1)[1] for eid, spec in vocab.entities.items() if spec.get("kind") == "optimizer"},
        "unit": {f"{d}:{u}" for d, us in vocab.units.items() for u in us},
        "verdict": set(vocab.enums.get("verdict") or {}),
        "bound": {">=", "<=", ">", "<"},
        "engine": set(ENGINES), "kv_cache_dtype": {"fp8"}, "claim_check": {"lead", "reported", "tail"}, "question_order": {"more", "less"},
        "negation": {"before", "after", "not"}, "method_contrast": {"before", "after"},
        "verdict_attribute": {a for a, spec in vocab.attributes.items() if spec.enum == "verdict"},
        "open_question": {"cue", "presupposed"}, "role": {"verb"}, "generality": set(vocab.enums.get("generality") or {}),
        "approx": {"hedge"}, "per_second": {"before"}, "launch": {"verb", "not_by"}, "carries": {"verb"}, "require": {"verb", "usage", "load", "weights", "weights_part", "other_part"}, "possess": {"verb"},
        "advice": {"verb", "use", "not_before", "not_after", "upgrade"},
        "comparison": {"before", "metric", "other_metric", "ratio", "behind", "ahead", "condition", "more_memory", "speedup", "multiple", "bracket"},
        "coreference": {"plural", "singular", "joiner"},
        "instance_words": {"host_memory", "gpu_share", "per_gpu_after", "per_gpu_before", "storage_after", "partition_before"},
        "text_value": {f"{a}:{v}" for a, spec in vocab.attributes.items() if spec.type == "text"
                       for v in [k.split(":", 1)[1] for k in (vocab.cues.get("text_value") or {}) if ":" in k]}
        | {f"{a}:{v}" for a, spec in vocab.attributes.items() if spec.type == "enum"
           for v in (vocab.enums.get(spec.enum) or {})},
        "figure_after": {a for a, spec in vocab.attributes.items() if spec.type == "quantity"},
        "counted": {a for a, spec in vocab.attributes.items() if spec.type == "quantity" and spec.dimension == "count"},
        "featured": {a for a, spec in vocab.attributes.items() if spec.type == "quantity" and spec.dimension == "count"},
        "generation": {a for a, spec in vocab.attributes.items() if spec.type == "quantity" and spec.dimension == "count"},
        "host_link": set(vocab.enums.get("host_link") or {}),
        "task": set(vocab.enums.get("task") or {}), "bottleneck": set(vocab.enums.get("bottleneck") or {}),
        "bottleneck_cue": {"cue", "table_header", "hypothetical"}, "effect": set(vocab.enums.get("effect") or {}),
        "depends": {"cue", "memory", "activations"}, "factor": set(vocab.enums.get("factor") or {}),
        "topic": {eid for eid, spec in vocab.entities.items() if spec.get("kind") == "concept"},
        "advised_as": {eid for eid, spec in vocab.entities.items() if spec.get("kind") == "technique"},
    }
    for group, names in allowed.items():
        for key in vocab.cues.get(group) or {}:
            if key not in names:
                line = None
                if isinstance(raw, dict) and hasattr(raw.get(group), "line_of"):
                    line = raw[group].line_of(key)
                issues.append(Issue(f"cues.{group}: unknown key {short(key)}", vocab.path, line,
                                    f"cues.{group}", sorted(names)))
    for group in ("number_words", "ordinal"):
        _positive_keys(vocab, raw, group, issues)


def _positive_keys(vocab: Any, raw: Any, group: str, issues: list[Issue]) -> None:
    """A cue group keyed by the number its words stand for: each key a positive number."""
    for key in vocab.cues.get(group) or {}:
        try:
            ok = float(key) > 0
        except ValueError:
            ok = False
        if not ok:
            line = raw[group].line_of(key) if isinstance(raw, dict) and hasattr(raw.get(group), "line_of") else None
            issues.append(Issue(f"cues.{group}: the key {short(key)} is not a positive number (the number its "
                                "words stand for; in YAML quote it, e.g. \"2\")", vocab.path, line, f"cues.{group}"))
