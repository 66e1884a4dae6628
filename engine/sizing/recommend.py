"""Recommendations of a sizing answer: the changes that would make a scenario fit, each tried as its own
scenario, ranked by the declared strategy (rules/sizing/recommend.yaml) and paired where one alone does not
fit."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from ..models import scenario as scen
from ..models.sizing import Recommendation
from . import run as sizing
from ..core.errors import BadInput
from ..kb.notes import Note
from ..kb.store import ReleaseView
if TYPE_CHECKING:
    from ..core.session import Session

from .costs import offload_view, step_cost

#: the ranking when the rules declare none (the same as rules/sizing/recommend.yaml's)
DEFAULT_RANKING = {"keys": [{"key": "fits", "order": "desc"}, {"key": "gpus_needed", "order": "asc"},
                            {"key": "gpu_seconds_per_1k_tokens", "order": "asc"}, {"key": "rule_rank", "order": "asc"},
                            {"key": "rank_sum", "order": "asc"}], "max_not_fitting": 3}


PAIRABLE = ("use_fp16", "gradient_checkpointing", "flash_attention", "method_lora", "method_qlora", "offload")

#: a pair is not evaluated when the two changes' savings added together leave it this much over the GPU's
#: memory (see :func:`pair_recommendations`)
PAIR_MARGIN = 0.10


def recommendations(state: Session, r: sizing.SizingRun, view: ReleaseView) -> list[Recommendation]:
    """The recommended changes of a run, each evaluated on its own scenario, paired and ranked."""
    out = []
    seen = set()
    family_gpus: dict[str, Any] = {}
    todo: list[tuple[dict[str, Any], dict[str, Any], list[str], dict[str, Any]]] = []   # item, s2, n2, change
    for rec in sorted(r.all("recommendation"), key=lambda x: (x.get("rank") or 99, str(x.get("detail")))):
        change = change_of(rec)
        key = (rec["action"], str(change))
        if key in seen:
            continue
        seen.add(key)
        if rec["action"] == "family":
            # families with the same GPU give the same answer: evaluate one, list the others with it
            g = view.ref(change["family"], "gpu")
            gkey = tuple(g.value) if g is not None else change["family"]
            if gkey in family_gpus:
                family_gpus[gkey].setdefault("also", []).append(change["family"].split(":")[-1])
                continue
        item: dict[str, Any] = {"action": rec["action"], "change": change, "cost": rule_text(state, r, rec, "cost"),
                                "rule_rank": rec.get("rank"), "fact": rec["fk"], "label": rule_label(state, r, rec)}
        if rec["action"] == "family":
            family_gpus[gkey] = item
        if change:
            try:
                s2, n2 = scen.normalise(variant_body(r.scenario, change), state.kb.vocab, view)
                todo.append((item, s2, n2, change))
            except BadInput as exc:
                item["error"] = exc.message
        out.append(item)
    # every variant in one engine run
    for (item, s2, _, change), r2 in zip(todo, state.run_scenarios([(s2, n2) for _, s2, n2, _ in todo], view, "probe")):
        v2 = r2.one("verdict")
        if v2:
            item.update(fits=v2["verdict"] == "fits", need_gb=round(v2["need_gb"], 3),
                        capacity_gb=round(v2["capacity_gb"], 3))
            item.update(step_cost(r2, s2))
        off = offload_view(r2, s2, view) if "offload" in change else None
        if off:
            item["offload"] = off
            if off.get("host_fits") is False:
                item["fits"] = False          # the GPU would hold it, the instance's host RAM would not
        if item["action"] == "family" and not item.get("fits") and "need_gb" in item:
            mg = r2.one("min_gpus")           # how many of that family's GPUs it would take
            if mg and mg.get("n"):
                item["min_gpus"] = mg["n"]
    out += pair_recommendations(state, r, view, out)
    here = (r.one("capacity") or {}).get("gpus") or 1
    for x in out:
        x["gpus_needed"] = int((x.get("change") or {}).get("gpus") or x.get("min_gpus") or here)
    strategy = ranking(state)
    out.sort(key=lambda x: rank_key(x, strategy))
    keep = strategy.get("max_not_fitting")
    if isinstance(keep, int):
        fitting = [x for x in out if x.get("fits")]
        out = fitting + [x for x in out if not x.get("fits")][:keep]
    for i, x in enumerate(out, 1):
        x["rank"] = i
    return [Recommendation.build(x) for x in out]


def ranking(state: Session) -> dict[str, Any]:
    """The declared ranking strategy of recommendations (``ranking`` in rules/sizing/recommend.yaml)."""
    def load() -> dict[str, Any]:
        from pathlib import Path

        from ..core.yamlio import load_file
        p = Path(state.rules_dir) / "sizing" / "recommend.yaml"
        data = load_file(p) if p.exists() else {}
        found = data.get("ranking") if isinstance(data, dict) else None
        return found if isinstance(found, dict) and isinstance(found.get("keys"), list) else DEFAULT_RANKING
    return state.memo(("recommendation-ranking", str(state.rules_dir)), load)


def rank_key(x: dict[str, Any], strategy: dict[str, Any]) -> tuple:
    """A recommendation's sort key under the strategy: each key in order (``desc`` negates); keys other than
    ``fits`` count only among the changes that fit (what does not fit keeps the rules' order)."""
    out: list[Any] = []
    fits = bool(x.get("fits"))
    for k in strategy["keys"]:
        name, desc = k["key"], k.get("order") == "desc"
        if name == "fits":
            v: Any = 1 if fits else 0
        elif name in ("gpus_needed", "gpu_seconds_per_1k_tokens") and not fits:
            v = 0
        else:
            v = x.get(name)
            v = (99 if name == "rule_rank" else 0) if v is None else v
        out.append(-v if desc else v)
    return tuple(out)


def variant_body(scenario: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """The query body of a scenario with one recommended change (or a pair of them) applied."""
    body = {**scen.inputs(scenario), **change}
    if "family" in change:
        body.pop("gpu", None), body.pop("instance", None), body.pop("vram_gb", None)
    if change.get("method") in ("lora", "qlora", "inference"):
        body["zero"] = 0
    elif "zero" in change and "master_weights" not in body and body.get("precision") == "bf16":
        body["master_weights"] = False      # a pure-BF16 run sharded stays pure BF16 (FSDP over the bf16 model)
    if change.get("method") == "qlora":
        body["precision"] = "nf4"
    elif change.get("method") == "lora" and body.get("precision") == "mixed":
        # mixed precision keeps FP32 master weights for training them; frozen base weights are kept in 16 bits
        # as PEFT runs LoRA (the method's default precision; FP16 on a GPU without BF16)
        body.pop("precision")
    return {k: v for k, v in body.items() if v is not None}


def rule_label(state: Session, r: sizing.SizingRun, rec: dict[str, Any]) -> dict[str, str]:
    """A recommendation in words, from the rule that derived it (the rule's ``label``); its action name
    when the rule has none."""
    for firing in r.derivation.supports.get(rec["fk"], ()):
        rule = state.rules.by_key.get(firing.rule)
        if rule is not None and rule.label:
            return dict(rule.label)
    words = str(rec["action"]).replace("_", " ")
    return {"en": words, "zh": words}


def rule_text(state: Session, r: sizing.SizingRun, rec: dict[str, Any], field: str) -> Any:
    """A derived record's text field (a recommendation's ``cost``, a note's ``reason``) as a :class:`Note`
    whose Chinese is the deriving rule's ``explain.zh``, when its ``explain.en`` is that text; else the text."""
    text = rec.get(field)
    if not isinstance(text, str):
        return text
    for firing in r.derivation.supports.get(rec["fk"], ()):
        rule = state.rules.by_key.get(firing.rule)
        if rule is not None and rule.explain and rule.explain.get("en") == text:
            return Note(text, rule.explain["zh"])
    return text


def _zh(text: Any) -> str:
    return getattr(text, "zh", text) if text is not None else ""


def pair_recommendations(state: Session, r: sizing.SizingRun, view: ReleaseView,
                         singles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Two software or method changes together, for the pairs where neither fits alone (QLoRA with
    gradient checkpointing fits a 13B fine-tune on one T4 when neither does by itself). Ranked like the
    costlier of the two; changes of hardware are never paired.

    Only a pair that fits is listed, and most do not: a pair is evaluated only when the memory the two
    changes save, added, could bring the scenario within PAIR_MARGIN of the GPU's memory. The memory
    parts are sums, so savings add up (on 3,439 pairs of 1,200 questions the evaluated need was within
    0.01% of that estimate, and no pair the estimate put over the capacity fitted); the margin keeps
    room for changes whose savings overlap. ``tests/test_sizing.py`` checks the answers against
    evaluating every pair."""
    cands = [x for x in singles if x["action"] in PAIRABLE and x.get("change") and not x.get("fits") and "error" not in x]
    base = r.one("verdict")
    todo = []
    for i, a in enumerate(cands):
        for b in cands[i + 1:]:
            if {a["action"], b["action"]} == {"method_lora", "method_qlora"} or \
                    ("offload" in (a["action"], b["action"]) and {a["action"], b["action"]} & {"method_lora", "method_qlora"}):
                continue           # one method at a time; offload is for full training
            if base is not None and "need_gb" in a and "need_gb" in b and \
                    a["need_gb"] + b["need_gb"] - base["need_gb"] > base["capacity_gb"] * (1 + PAIR_MARGIN):
                continue           # both savings together still leave it well over the GPU's memory
            change = {**a["change"], **b["change"]}
            item: dict[str, Any] = {"action": f"{a['action']}+{b['action']}", "change": change,
                                    "cost": Note(f"{a['cost']}; {b['cost']}", f"{_zh(a['cost'])}；{_zh(b['cost'])}"), "rule_rank": max(a["rule_rank"] or 0, b["rule_rank"] or 0),
                                    "fact": [a["fact"], b["fact"]], "pair": [a["action"], b["action"]],
                                    "rank_sum": (a["rule_rank"] or 0) + (b["rule_rank"] or 0),
                                    "label": {"en": f"{a['label']['en']} and {b['label']['en']}",
                                              "zh": f"{a['label']['zh']}并{b['label']['zh']}"}}
            try:
                s2, n2 = scen.normalise(variant_body(r.scenario, change), state.kb.vocab, view)
            except BadInput:
                continue
            todo.append((item, s2, n2, change))
    out = []
    for (item, s2, _, change), r2 in zip(todo, state.run_scenarios([(s2, n2) for _, s2, n2, _ in todo], view, "probe")):
        v2 = r2.one("verdict")
        item.update(step_cost(r2, s2))
        off = offload_view(r2, s2, view) if "offload" in change else None
        if v2 and v2["verdict"] == "fits" and not (off and off.get("host_fits") is False):
            item.update(fits=True, need_gb=round(v2["need_gb"], 3), capacity_gb=round(v2["capacity_gb"], 3))
            if off:
                item["offload"] = off
            out.append(item)
    return out


def change_of(rec: dict[str, Any]) -> dict[str, Any]:
    ch = rec.get("change") or ""
    if "=" in ch:
        k, v = ch.split("=", 1)
        try:
            value = json.loads(v)          # true, 1, 0.5 ... ; anything else stays text (fp16, qlora)
        except ValueError:
            value = v
        return {k: value}
    d = rec.get("detail")
    if ch == "gpus":
        return {"gpus": int(d), "zero": 3}
    if ch == "split_gpus":                # serving: the model split over the cards, no ZeRO stage
        return {"gpus": int(d)}
    return {"family": d} if ch == "family" else {}
