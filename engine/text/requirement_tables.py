"""Tables of what workloads need ("| Model | Full FT (FP16) | LoRA | QLoRA (4-bit) |", one row per model or size,
one column per method): each memory figure of a cell is the requirement of its column's method (and
precision) for its row's model, read as the sentence reader reads "fully fine-tuning 7B needs 120 GB"."""
from __future__ import annotations

import re
from typing import Any

from ..kb.lexicon import Match as _Match
from ..kb.vocabulary import Vocabulary
from .tokens import Row, any_match, quantities, tables
from .workload import requirement, workload_of

__all__ = ["requirement_table"]

#: a cell that speaks of cards ("1–2× 80 GB", "multi-GPU (80 GB class)", "2 张 A100"): its figure is a card's size
_CARDS = re.compile(r"gpu|card|卡|\ue000|[×x]\s*\d|\d\s*[×x](?![a-z])|class|级")


def requirement_table(low: str, masked: str, head: Row, body: list[Row], mentions: list[_Match],
                      vocab: Vocabulary) -> list:
    """The requirement claims of one Markdown table, when its header names at least two methods and its first
    column names a model or a model size in most rows (else none)."""
    if len(head.cells) < 3:
        return []
    every = {j: _workload(low, masked, a, b, mentions, vocab) for j, (a, b) in enumerate(head.cells) if j > 0}
    columns = {j: w for j, w in every.items() if w.get("method") and not w.get("size")}
    if len(columns) < 2:
        # "| Model size | FP16 (weights) | INT8 | INT4 |": one column per precision and none per method, what a
        # model of each size needs at each precision (what it is used for left open, or its weights alone)
        columns = {j: w for j, w in every.items() if w.get("precision") and not w.get("task") and not w.get("size")}
        if len(columns) < 2 or any(w.get("method") for w in every.values()):
            return []
        weights = tables(vocab)["weights"]
        columns = {j: {**w, "component": "weights"} if any_match(weights, low[slice(*head.cells[j])]) else w
                   for j, w in columns.items()}
    sized = [(r, _workload(low, masked, *r.cells[0], mentions, vocab)) for r in body if len(r.cells) == len(head.cells)]
    sized = [(r, w) for r, w in sized if w.get("size")]
    if len(sized) * 2 <= len(body):
        return []
    out: list = []
    for r, w in sized:
        models = [m for m in mentions if r.cells[0][0] <= m.start < r.cells[0][1] and m.kind == "model"]
        for j, col in columns.items():
            a, b = r.cells[j]
            qs = [q for q in quantities(masked, a, b, vocab) if q.dimension == "memory"]
            if not qs or _CARDS.search(low, a, b):
                continue            # "1–2× 80 GB", "multi-GPU (80 GB class)": cards, not what is needed
            work = {**{k: v for k, v in w.items() if k not in ("method", "task")}, **col}
            work["precision"] = col.get("precision") or w.get("precision")
            if not work["precision"]:
                del work["precision"]
            out += requirement(qs[0], work, models if w.get("model") else [], a, b)
    return out


def _workload(low: str, masked: str, a: int, b: int, mentions: list[_Match], vocab: Vocabulary) -> dict[str, Any]:
    ents = [m for m in mentions if a <= m.start and m.end <= b]
    qs = quantities(masked, a, b, vocab)
    w = workload_of(low, masked, a, b, ents, vocab, qs)
    sizes = [q for q in qs if q.dimension == "params" and q.lo == q.hi]
    if not w.get("size") and len(sizes) == 1:     # "Llama 3.2 8B": a family's name and its size
        w = {**{k: v for k, v in w.items() if k != "model"}, "size": True,
             "params": sizes[0].lo * (vocab.unit_factor("params", sizes[0].unit) or 1)}
    return w
