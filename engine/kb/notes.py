"""Assumption notes in English and Chinese: a note is its English text (so English answers are unchanged)
carrying its Chinese rendering, chosen by the answer's language."""
from __future__ import annotations

from typing import Any


#: the notes an answer states (``labels.note`` of kb/vocabulary.yaml has a case for each ``key``)
NOTE_KEYS = ("method_default", "gpu_variant", "precision_default", "qlora_nf4", "qlora_kbit_base", "qlora_optimizer", "default_native",
             "default", "lora_rank_ignored", "zero_default", "zero_one_gpu", "zero_inference", "gc_qlora",
             "inference_no_backward", "oib_sharded", "ao_without_gc", "sac_without_gc", "serving_ignored", "vllm_gmu", "vllm_mnbt", "gc_inference",
             "offload_ignored", "tp_given", "min_gpus_split", "min_gpus_tp", "kernel_flash", "kernel_fp8", "attention_sdpa", "attention_sdpa_math",
             "capacity_engine", "capacity_nvsmi", "capacity_datasheet", "context_beyond", "shape_estimated", "shape_assumed",
             "disagreeing", "why_not_question", "missing_workload", "missing_hardware", "missing_lookup", "missing_subject",
             "price_unpublished", "gpu_price_instances", "cannot_size", "band_measured")


class Note(str):
    """A sentence the engine states in an answer (an assumption, what is missing): its English text, which
    is what the answer carries, and its Chinese text (``zh``), which :func:`in_lang` puts in its place in a
    Chinese answer. Both come from the ``labels.note`` templates of kb/vocabulary.yaml."""

    def __new__(cls, en: str, zh: str | None = None) -> "Note":
        note = super().__new__(cls, en)
        note.zh = zh if zh is not None else en
        return note


def in_lang(value: Any, lang: str) -> Any:
    """``value`` (an answer, or any part of one) with every :class:`Note` in ``lang``: for "zh" a copy in which
    each note is its Chinese text (containers that hold no note are shared, never changed); else ``value``."""
    if lang != "zh":
        return value
    return _zh(value)


_DEEP = (Note, dict, list)
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _deep(v: Any) -> bool:
    """Whether ``v`` may hold a note: a note, a dict, a list or a typed answer model (it has ``mapped``)."""
    return type(v) not in _SCALARS and (isinstance(v, _DEEP) or hasattr(v, "mapped"))


def _zh(value: Any) -> Any:
    """:func:`in_lang` for "zh" (a scalar other than a note is its own translation, so it is not visited;
    a typed answer model is copied with its fields in Chinese by its own ``mapped``)."""
    if isinstance(value, Note):
        return value.zh
    mapped = getattr(value, "mapped", None)
    if mapped is not None:
        return mapped(lambda v: _zh(v) if _deep(v) else v)
    if isinstance(value, dict):
        out, changed = {}, False
        for k, v in value.items():
            w = out[k] = _zh(v) if _deep(v) else v
            changed = changed or w is not v
        return out if changed else value
    if isinstance(value, list):
        items = [_zh(v) if _deep(v) else v for v in value]
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value
