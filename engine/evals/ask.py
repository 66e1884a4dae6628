"""The question parser measured against its gold corpus (kb/gold/questions.yaml).

A question counts as parsed right when its intent and every field the gold entry expects come out as
labelled (fields the question leaves open are not scored: parser defaults are never gold). The gold
corpus names a few attributes and precisions more briefly than the vocabulary; ``GOLD_ATTRIBUTES`` maps
them.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..core.errors import BadInput
from ..core.yamlio import load_file
from ..ask.parser import parse_question

INTENTS = ("sizing", "compare", "instance_choice", "min_gpus", "max_model", "max_batch", "max_seq_len", "fact", "unknown")
GOLD_ATTRIBUTES = {"bf16": "bf16_native", "pcie": "host_link"}
GOLD_MODELS = {"gpt-3": "gpt3-175b"}
INVERSE_INTENT = {"params": "max_model", "batch": "max_batch", "seq_len": "max_seq_len"}
FIELDS = ("method", "model", "params", "gpu", "gpus", "precision", "seq_len", "batch", "zero", "lora_rank",
          "vram_gb", "instance", "family", "optimizer", "gpus_compared", "instances_compared", "families_compared",
          "subject", "attribute")


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    """The gold questions, checked: a question, a language and a known intent each."""
    data = load_file(path)
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise BadInput(f"{path}: expected a mapping with a 'questions' list")
    out = []
    for i, e in enumerate(items):
        if not isinstance(e, dict) or not isinstance(e.get("q"), str) or e.get("lang") not in ("en", "zh"):
            raise BadInput(f"{path}: questions[{i}]: expected q (text) and lang (en or zh)")
        if e.get("intent") not in INTENTS:
            raise BadInput(f"{path}: questions[{i}]: unknown intent {e.get('intent')!r} (allowed: {', '.join(INTENTS)})")
        out.append({"q": e["q"], "lang": e["lang"], "intent": e["intent"], "expect": dict(e.get("expect") or {})})
    return out


def observed(parsed: dict[str, Any]) -> dict[str, Any]:
    """The parse in the gold corpus's terms: its intent and fields."""
    kind = parsed.get("kind")
    if kind in ("sizing", "gpu_choice") and parsed.get("ask_min_gpus"):
        intent = "min_gpus"
    elif kind == "gpu_choice":           # a sizing question that names no GPU, answered over the catalog
        intent = "sizing"
    elif kind == "comparison":
        intent = "compare"
    elif kind == "inverse":
        intent = INVERSE_INTENT.get(str(parsed.get("target")), "unknown")
    else:
        intent = kind if kind in INTENTS else "unknown"
    s = dict(parsed.get("scenario") or {})
    out: dict[str, Any] = {"intent": intent}
    for k, v in s.items():
        if k == "model" and isinstance(v, str):
            v = v.split(":", 1)[-1]
        elif k == "params" and isinstance(v, (int, float)):
            v = round(v / 1e9, 4)
        out[k] = v
    for k in ("gpus_compared", "instances_compared", "families_compared"):
        if parsed.get(k):
            out[k] = list(parsed[k])
    if parsed.get("fact"):
        out["subject"] = parsed["fact"].get("subject")
        out["attribute"] = parsed["fact"].get("attribute")
    return out


def _same(field: str, want: Any, got: Any) -> bool:
    if field == "attribute":
        want = GOLD_ATTRIBUTES.get(str(want), want)
    if field == "model":
        want = GOLD_MODELS.get(str(want), want)
    if isinstance(want, (int, float)) and isinstance(got, (int, float)) and not isinstance(want, bool):
        return abs(float(want) - float(got)) <= 1e-6 * max(1.0, abs(float(want)))
    if isinstance(want, list) and isinstance(got, list):
        return [str(x) for x in want] == [str(x) for x in got]
    return str(want) == str(got) if want is not None and got is not None else want == got


def evaluate(vocab: Any, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """Parse every question; accuracy overall, by intent and by language, and the misses."""
    by_intent: dict[str, Counter] = defaultdict(Counter)
    by_lang: dict[str, Counter] = defaultdict(Counter)
    misses = []
    for g in questions:
        got = observed(parse_question(g["q"], vocab, g["lang"]).as_dict())
        wrong = [] if got["intent"] == g["intent"] else ["intent"]
        wrong += [k for k, v in g["expect"].items() if not _same(k, v, got.get(k))]
        ok = not wrong
        for c in (by_intent[g["intent"]], by_lang[g["lang"]]):
            c["n"] += 1
            c["ok"] += ok
        if not ok:
            misses.append({"q": g["q"], "intent": g["intent"], "expect": g["expect"], "got": got, "wrong": wrong})
    n = len(questions)
    right = n - len(misses)
    return {"questions": n, "correct": right, "accuracy": right / n if n else 0.0,
            "by_intent": {k: dict(by_intent[k]) for k in INTENTS if k in by_intent},
            "by_lang": {k: dict(v) for k, v in sorted(by_lang.items())},
            "misses": misses}


def report_text(rep: dict[str, Any], verbose: bool = False) -> str:
    """The report as a readable table."""
    pct = lambda c: f"{100 * c['ok'] / c['n']:5.1f}%" if c["n"] else "    -"
    lines = [f"question gold set: {rep['correct']}/{rep['questions']} parsed right ({100 * rep['accuracy']:.1f}%)", "",
             f"  {'intent':16} {'n':>4} {'right':>7}"]
    lines += [f"  {k:16} {c['n']:4} {pct(c):>7}" for k, c in rep["by_intent"].items()]
    lines += ["", f"  {'language':16} {'n':>4} {'right':>7}"]
    lines += [f"  {k:16} {c['n']:4} {pct(c):>7}" for k, c in rep["by_lang"].items()]
    if verbose:
        lines += ["", "  misses:"]
        for m in rep["misses"]:
            shown = {k: m["got"].get(k) for k in m["wrong"] if k != "intent"}
            lines.append(f"    [{m['intent']} -> {m['got']['intent']}] {m['q']}")
            if shown:
                want = ", ".join(f"{k}: {m['expect'].get(k)}" for k in shown)
                lines.append(f"        want {{{want}}} got {shown}")
    return "\n".join(lines)
