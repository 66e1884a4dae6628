"""Turn a free-text question (English or Chinese) into a sizing scenario or a fact look-up.

The parser is the front door of ``/v1/ask`` and ``gpukb ask``: it finds entities by their vocabulary
aliases, reads numbers with their units (``13B``, ``130亿``, ``24GB``, ``4 张``), and decides whether the
question asks "does this workload fit on this hardware" (kind ``sizing``) or "what is this spec of this
entity" (kind ``fact``). It only reports what the text says: a value that is not written is left out
and, when the answer needs it, listed in ``missing``. It is pure and deterministic and never raises
for a string, except ``BadInput`` for empty or over-long text, so it can face any HTTP input.
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from ..core.casefold import lower_aligned
from ..core.errors import require_text
from ..kb.vocabulary import Vocabulary
from ..core.terms import METHODS, OPTIMIZERS, PRECISIONS
from .patterns import EXAMPLES, _BATCH_RE, _CJK, _FLASH_RE, _GB, _GB_GPU_AFTER, _GB_GPU_BEFORE, _GB_HOST_AFTER, _GB_HOST_BEFORE, _GC_RE, _GPUS_RES, _MIN_GPUS_RES, _NEGATED_RES, _NOT_PARAMS_AFTER, _OFF_BEFORE, _PARAMS_AFTER, _PARAMS_EN, _PARAMS_NEEDS_CONTEXT, _PARAMS_UNITS, _PARAMS_ZH, _PH, _PH_OTHER, _PRIVATE_USE, _RANK_RES, _SEQ_RES, _SIZING_CUES, _SPACES, _WORD_COUNTS, _ZERO_RE, _ZH_COUNTS
from .facts import asked_fact as _fact, asked_order, asked_values, compared_subjects
from ..kb.lexicon import Match as _Match, cue_patterns as _cues, generic_model as _generic_model, match_entities as _match_entities, resolve_variant as _resolve_variant

MAX_QUESTION_CHARS = 500

#: Keys a parsed scenario may hold: the query-body keys of API contract v1, plus ``family``.
SCENARIO_KEYS: tuple[str, ...] = (
    "model", "params", "method", "precision", "optimizer", "gpu", "instance", "family", "vram_gb",
    "gpus", "zero", "seq_len", "batch", "lora_rank", "gradient_checkpointing", "flash_attention", "engine",
    "kv_cache_dtype",
)

MISSING_WORKLOAD = "a model or parameter count"
MISSING_HARDWARE = "a GPU, instance or memory size"
MISSING_LOOKUP = "what to look up"
MISSING_SUBJECT = "which GPU, instance, model or product"

# --- result -----------------------------------------------------------------------------------------
@dataclass
class ParsedQuestion:
    """What a question asks: its kind, the scenario or fact it names, and what is still missing."""

    kind: str
    lang: str
    scenario: dict[str, Any] = field(default_factory=dict)
    ask_min_gpus: bool = False
    negated: bool = False
    fact: dict[str, str] | None = None
    understood: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    compared: dict[str, list[str]] = field(default_factory=dict)   # comparison: the hardware compared
    target: str | None = None                                      # inverse: what to maximise

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (fresh containers, so callers may mutate it)."""
        extra: dict[str, Any] = {k: list(v) for k, v in self.compared.items()}
        if self.target:
            extra["target"] = self.target
        return {**extra,
            "kind": self.kind,
            "lang": self.lang,
            "scenario": dict(self.scenario),
            "ask_min_gpus": self.ask_min_gpus,
            "negated": self.negated,
            "fact": dict(self.fact) if self.fact else None,
            "understood": {k: (list(v) if isinstance(v, list) else v) for k, v in self.understood.items()},
            "missing": list(self.missing),
            "examples": list(self.examples),
        }


# --- helpers ----------------------------------------------------------------------------------------
def _check_input(text: Any) -> None:
    require_text(text, "question", "q", MAX_QUESTION_CHARS)


def _normalise(text: str) -> tuple[str, str]:
    """NFKC text (full-width digits and letters become ASCII) and a same-length lower-cased copy."""
    norm = unicodedata.normalize("NFKC", text)
    norm = _PRIVATE_USE.sub(" ", norm).replace("\u2019", "'").replace("\u2018", "'")
    low = lower_aligned(norm)
    return norm, low


def _pick_lang(text: str, lang: str | None) -> str:
    if isinstance(lang, str):
        code = lang.strip().lower()
        if code.startswith("zh"):
            return "zh"
        if code.startswith("en"):
            return "en"
    return "zh" if _CJK.search(text) else "en"


def _number(digits: str, scale: str = "1") -> float | None:
    """A finite positive float from matched digits times a decimal scale, computed exactly."""
    try:
        x = float(Decimal(digits) * Decimal(scale))
    except (InvalidOperation, ValueError, OverflowError):
        return None
    return x if math.isfinite(x) and x > 0 else None


def _whole(x: float | None, cap: float) -> int | None:
    if x is None or x != int(x) or not 0 < x <= cap:
        return None
    return int(x)


def _earliest(candidates: list[tuple[int, str]]) -> str | None:
    return min(candidates)[1] if candidates else None


def _switch(low: str, rx: re.Pattern[str], entity_hits: list[_Match]) -> tuple[bool, int] | None:
    """A technique flag: (on, position) from its first mention, off when "without"/"不开" precedes it."""
    spans = [(m.start, m.end) for m in entity_hits] + [(m.start(), m.end()) for m in rx.finditer(low)]
    if not spans:
        return None
    start = min(spans)[0]
    return (not _OFF_BEFORE.search(low[max(0, start - 20):start]), start)


# --- the parser -------------------------------------------------------------------------------------
def parse_question(text: str, vocab: Vocabulary, lang: str | None = None) -> ParsedQuestion:
    """Parse one question into a sizing scenario or a fact look-up; see the module docstring.

    Raises ``BadInput`` (field ``q``) only when ``text`` is not a string, is empty or blank, or is
    longer than 500 characters.
    """
    _check_input(text)
    out_lang = _pick_lang(text, lang)
    norm, low = _normalise(text)
    matches = _match_entities(low, vocab)
    masked_chars = list(low)
    for m in matches:
        ph = _PH.get(m.kind, _PH_OTHER)
        for i in range(m.start, m.end):
            masked_chars[i] = ph
    masked = "".join(masked_chars)

    def of_kind(kind: str) -> list[_Match]:
        return [m for m in matches if m.kind == kind]

    def name(eid: str) -> str:
        return eid.split(":", 1)[1]

    scenario: dict[str, Any] = {}
    numbers: list[dict[str, Any]] = []
    ignored: list[str] = []

    def note(key: str, span: tuple[int, int], value: Any) -> None:
        numbers.append({"field": key, "text": norm[span[0]:span[1]], "value": value})

    # hardware: an instance beats a family beats a GPU beats a bare memory size
    gpu_hits = of_kind("gpu")
    assumed: list[dict[str, Any]] = []
    gpu_ids = []
    for m in gpu_hits:
        eid = _resolve_variant(m, masked, vocab)
        variants = vocab.sized_variants(eid)
        if variants:             # "A100" alone: take the smaller card, say so, and offer the others
            eid = variants[0]
            if not any(a["field"] == "gpu" and a["value"] == name(eid) for a in assumed):
                assumed.append({"field": "gpu", "text": norm[m.start:m.end], "value": name(eid),
                                "alternatives": [name(v) for v in variants[1:]]})
        gpu_ids.append(eid)
    distinct_gpus = list(dict.fromkeys(gpu_ids))
    if of_kind("instance"):
        scenario["instance"] = name(of_kind("instance")[0].eid)
    elif of_kind("family"):
        scenario["family"] = name(of_kind("family")[0].eid)
    elif gpu_ids:
        scenario["gpu"] = name(gpu_ids[0])
    else:
        vram = _vram(masked)
        if vram:
            scenario["vram_gb"] = vram[0]
            note("vram_gb", vram[1], vram[0])

    # workload: a named model of known size, else a parameter count
    specific = [m for m in of_kind("model") if not _generic_model(m.eid, vocab)]
    params = _params(masked)
    if specific:
        scenario["model"] = specific[0].eid
        if params:
            ignored.append(norm[params[1][0]:params[1][1]])
    elif params:
        scenario["params"] = params[0]
        note("params", params[1], params[0])

    cues = _cues(vocab)
    method_hits = ([(m.start, name(m.eid)) for m in of_kind("method") if name(m.eid) in METHODS]
                   + [(x.start(), v) for v, rx in cues["method"] for x in rx.finditer(low)])
    # an adapter method named anywhere wins ("fine-tune with QLoRA" is QLoRA); then a training verb
    # ("run a full fine-tune" is training); a serving verb only when nothing else is said
    named = {h[1] for h in method_hits}
    method = next((m for m in ("qlora", "lora") if m in named), None) \
        or _earliest([h for h in method_hits if h[1] in ("full", "pretrain")]) or _earliest(method_hits)
    if method:
        scenario["method"] = method
    prec_hits = [(m.start, name(m.eid)) for m in of_kind("precision") if name(m.eid) in PRECISIONS]
    prec_hits += [(m.start, "mixed") for m in matches if m.eid == "technique:mixed_precision"]
    precision = _earliest(prec_hits + [(x.start(), v) for v, rx in cues["precision"] for x in rx.finditer(masked)])
    if precision == "int4" and scenario.get("method") == "qlora":
        precision = None          # QLoRA's 4-bit base is the method itself (nf4 is kept when it is named)
    if precision in ("int4", "int8") and "method" not in scenario:
        scenario["method"] = "inference"   # integer weights with no training named: serving a quantized model
    if precision:
        scenario["precision"] = precision
    # the serving engine named (its share of each card, R-VLLM-gmu) and the KV cache's data type ("FP8 KV cache":
    # 1 byte per key or value, R-VLLM-fp8-kv): settings of a serving question only
    for key in ("engine", "kv_cache_dtype"):
        setting = _earliest([(x.start(), v) for v, rx in cues[key] for x in rx.finditer(low)])
        if setting and scenario.get("method") == "inference":
            scenario[key] = setting
    optimizer = _earliest([(m.start, name(m.eid)) for m in of_kind("optimizer") if name(m.eid) in OPTIMIZERS]
                          + [(x.start(), v) for v, rx in cues["optimizer"] for x in rx.finditer(masked)])
    if optimizer:
        scenario["optimizer"] = optimizer

    gpus = _gpus(masked)
    if gpus:
        scenario["gpus"] = gpus[0]
        note("gpus", gpus[1], gpus[0])
    zm = _ZERO_RE.search(low)
    if zm:
        scenario["zero"] = int(zm.group(1))
        note("zero", zm.span(), scenario["zero"])
    for key, found in (("seq_len", _seq_len(low)), ("batch", _first_int(_BATCH_RE, low, 10_000_000)),
                       ("lora_rank", _first_int(_RANK_RES, low, 100_000))):
        if found:
            scenario[key] = found[0]
            note(key, found[1], found[0])
    for key, eid, rx in (("gradient_checkpointing", "technique:gradient_checkpointing", _GC_RE),
                         ("flash_attention", "technique:flash_attention", _FLASH_RE)):
        flag = _switch(low, rx, [m for m in matches if m.eid == eid])
        if flag is not None:
            scenario[key] = flag[0]

    ask_min = any(rx.search(masked) for rx in _MIN_GPUS_RES)
    negated = any(rx.search(low) for rx in _NEGATED_RES)
    fact_attr, subject, attr_seen = _fact(low, matches, vocab)
    if subject and vocab.sized_variants(subject):
        subject = vocab.sized_variants(subject)[0]

    understood: dict[str, Any] = {
        "entities": [{"id": m.eid, "kind": m.kind, "text": norm[m.start:m.end]} for m in matches],
        "numbers": numbers,
    }
    generic = [m.eid for m in of_kind("model") if _generic_model(m.eid, vocab)]
    if generic:
        understood["model_family"] = generic[0]
    if ignored:
        understood["ignored"] = ignored

    intent_hits = {v for v, rx in cues["intent"] for x in [rx.search(masked)] if x}
    instances = list(dict.fromkeys(name(m.eid) for m in of_kind("instance")))
    families = list(dict.fromkeys(name(m.eid) for m in of_kind("family")))
    if assumed:
        understood["assumed"] = assumed
    has_workload = "model" in scenario or "params" in scenario
    compared = ("gpus_compared", [name(g) for g in distinct_gpus]) if len(distinct_gpus) > 1 else \
               ("instances_compared", instances) if len(instances) > 1 else \
               ("families_compared", families) if len(families) > 1 else None
    if compared and "compare" in intent_hits and (has_workload or "method" in scenario):
        for k in ("gpu", "instance", "family"):
            scenario.pop(k, None)
        pq = ParsedQuestion("comparison", out_lang, scenario, False, negated, None, understood, [], list(EXAMPLES[out_lang]))
        pq.compared = {compared[0]: compared[1]}
        return pq
    inverse = next((t for t, cue in (("params", "max_model"), ("batch", "max_batch"), ("seq_len", "max_seq_len"))
                    if cue in intent_hits), None)
    if inverse and (has_workload or inverse == "params"):
        missing = [] if any(k in scenario for k in ("gpu", "instance", "family", "vram_gb")) else [MISSING_HARDWARE]
        pq = ParsedQuestion("inverse", out_lang, scenario, False, negated, None, understood, missing, list(EXAMPLES[out_lang]))
        pq.target = inverse
        return pq
    if "instance_choice" in intent_hits and (families or instances or "instance" in low or "实例" in low or "规格" in low) \
            and (has_workload or "method" in scenario):
        scenario.pop("instance", None)
        if families:
            scenario["family"] = families[0]
        return ParsedQuestion("instance_choice", out_lang, scenario, False, negated, None, understood,
                              [] if has_workload else [MISSING_WORKLOAD], list(EXAMPLES[out_lang]))
    has_hardware = any(k in scenario for k in ("gpu", "instance", "family", "vram_gb"))
    sizing_cues = has_hardware or ask_min or "method" in scenario or bool(_SIZING_CUES.search(low))
    examples = list(EXAMPLES[out_lang])
    if subject and not (has_workload and sizing_cues):
        understood["fact_keyword"] = fact_attr
        fact, several = {"subject": subject, "attribute": fact_attr}, compared_subjects(matches, fact_attr, masked, vocab)
        if several:            # one attribute of several products: compared, each with its own value
            fact["order"] = asked_order(low, vocab) or "more"
        elif asked_values(low, matches, subject, fact_attr, vocab):    # "Does the H100 support FP8?": yes or no
            fact["asks"] = asked_values(low, matches, subject, fact_attr, vocab)
        pq = ParsedQuestion("fact_comparison" if several else "fact", out_lang, {}, False, negated, fact, understood, [], examples)
        pq.compared = {"subjects_compared": several} if several else {}
        return pq
    if has_workload:
        # no GPU named: what the run needs, and the GPUs that hold it (engine/ask/choice.gpu_choice)
        return ParsedQuestion("sizing" if has_hardware else "gpu_choice", out_lang, scenario, ask_min, negated, None,
                              understood, [], examples)
    if attr_seen:
        understood["fact_keyword"] = attr_seen
    wants_sizing = ask_min or "method" in scenario or bool(_SIZING_CUES.search(low))
    if wants_sizing and has_hardware and not attr_seen:
        return ParsedQuestion("sizing", out_lang, scenario, ask_min, negated, None, understood, [MISSING_WORKLOAD], examples)
    missing = [MISSING_WORKLOAD]
    if wants_sizing and not has_hardware:
        missing.append(MISSING_HARDWARE)
    if not wants_sizing:
        missing.append(MISSING_SUBJECT if attr_seen else MISSING_LOOKUP)
    return ParsedQuestion("unknown", out_lang, scenario, ask_min, negated, None, understood, missing, examples)


def _params(masked: str) -> tuple[float, tuple[int, int]] | None:
    """The parameter count: "13B", "1.5B", "350M", "7 billion", "130亿", "70亿参数" (not "1T tokens")."""
    found: list[tuple[int, int, float, tuple[int, int]]] = []
    for rx in (_PARAMS_EN, _PARAMS_ZH):
        for m in rx.finditer(masked):
            rest = masked[m.end():m.end() + 12]
            if _NOT_PARAMS_AFTER.match(rest):
                continue
            strong = bool(_PARAMS_AFTER.match(rest))
            if m.group(2) in _PARAMS_NEEDS_CONTEXT and not strong:
                continue
            x = _number(m.group(1), _PARAMS_UNITS[m.group(2)])
            if x is not None and x <= 1e15:
                found.append((0 if strong else 1, m.start(), x, m.span()))
    if not found:
        return None
    best = min(found)
    return best[2], best[3]


def _vram(masked: str) -> tuple[float, tuple[int, int]] | None:
    """A GPU memory size such as "24GB GPU", "24G 显存", "单张 48GB 显卡" (host RAM and disks are skipped)."""
    found: list[tuple[int, int, float, tuple[int, int]]] = []
    for m in _GB.finditer(masked):
        before, after = masked[max(0, m.start() - 14):m.start()], masked[m.end():m.end() + 16]
        gpu_context = bool(_GB_GPU_AFTER.match(after) or _GB_GPU_BEFORE.search(before))
        if not gpu_context and (_GB_HOST_AFTER.match(after) or _GB_HOST_BEFORE.search(before)):
            continue
        x = _number(m.group(1))
        if x is not None and x <= 100_000:
            found.append((0 if gpu_context else 1, m.start(), x, m.span()))
    if not found:
        return None
    best = min(found)
    return best[2], best[3]


def _gpus(masked: str) -> tuple[int, tuple[int, int]] | None:
    """A GPU count: "4 张 A100", "4x A100", "A100 x 8", "two T4s", "8 卡", "单卡", "one L4"."""
    found: list[tuple[int, int, tuple[int, int]]] = []
    for rx in _GPUS_RES:
        for m in rx.finditer(masked):
            word = _SPACES.sub(" ", m.group(1))
            n = _ZH_COUNTS.get(word) or _WORD_COUNTS.get(word) or _whole(_number(word), 100_000)
            if n:
                found.append((m.start(), n, m.span()))
    if not found:
        return None
    best = min(found)
    return best[1], best[2]


def _seq_len(low: str) -> tuple[int, tuple[int, int]] | None:
    """A sequence length: "seq 4096", "sequence length 4k", "4K context", "上下文 8k" (k = 1024)."""
    for rx in _SEQ_RES:
        m = rx.search(low)
        if m:
            x = _number(m.group(1), "1024" if m.group(2) else "1")
            n = _whole(float(round(x)) if x is not None and m.group(2) else x, 100_000_000)
            if n:
                return n, m.span()
    return None


def _first_int(rxs: re.Pattern[str] | tuple[re.Pattern[str], ...], low: str, cap: int) -> tuple[int, tuple[int, int]] | None:
    """The first whole, positive number captured by one of the patterns."""
    for rx in (rxs if isinstance(rxs, tuple) else (rxs,)):
        for m in rx.finditer(low):
            n = _whole(_number(m.group(1)), cap)
            if n:
                return n, m.span()
    return None

