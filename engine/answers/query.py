"""Sizing answers: one scenario's verdict, memory, recommendations, why-not and the sources behind them."""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from . import scenario as scen
from . import sizing
from ..errors import BadInput, Issue
from .explain import leaves, tree, why_not
from ..kb.store import ReleaseView
from .calibration import band_of
from .summary import summary
from .audit import AuditResult
from .without import conclusion_without, parse_sources

if TYPE_CHECKING:
    from .service import GpuKB


def query(state: GpuKB, body: dict[str, Any], without: Any = None) -> dict[str, Any]:
    """The sizing answer of the API contract for a query body (flags in snake_case); ``without``:
    source ids whose claims are taken away (the answer's ``without`` block says what that changes)."""
    if not isinstance(body, dict):
        raise BadInput("the query must be a JSON object", [Issue("expected an object")])
    view = state.view(body.get("kb_version"))
    removed = parse_sources(without, state.kb.sources)
    s, notes = scen.normalise({k: v for k, v in body.items() if k != "kb_version"}, state.kb.vocab, view)
    key = ("query", view.name, scen.conclusion_id(s, view.name), tuple(notes), tuple(removed))
    if not removed:
        return state.cached(key, lambda: sizing_answer(state, s, notes, view))

    def answer() -> dict[str, Any]:
        audit, block = state.retracted(view.name, removed)
        base = state.cached(key[:-1] + ((),), lambda: sizing_answer(state, s, notes, view))
        out = sizing_answer(state, s, notes, view, audit)
        r = state.run_scenario(s, notes, view)
        out["without"] = conclusion_without(r.derivation, base, out, block)
        return out
    return state.cached(key, answer)


def sizing_answer(state: GpuKB, s: dict[str, Any], notes: list[str], view: ReleaseView,
                  audit: AuditResult | None = None) -> dict[str, Any]:
    """The sizing answer of one normalised scenario; ``audit``: the audit its sources and disagreeing
    claims are read from (default: the release's). Everything it evaluates (the scenario, its
    recommendations' variants, their pairs, the largest model's search) runs in one staged session."""
    with state.staged(view):
        return _sizing_answer(state, s, notes, view, audit)


def _sizing_answer(state: GpuKB, s: dict[str, Any], notes: list[str], view: ReleaseView,
                   audit: AuditResult | None) -> dict[str, Any]:
    r = state.run_scenario(s, notes, view)
    verdict = r.one("verdict")
    cap = r.one("capacity")
    if verdict is None or cap is None:
        missing = "the GPU's memory" if cap is None else "a memory estimate for this model"
        raise BadInput(f"cannot size this scenario: the KB release {view.name} has no data for {missing}",
                       [Issue(f"no {missing} in release {view.name}", field="gpu" if cap is None else "model")])
    cid = scen.conclusion_id(s, view.name)
    notes = list(notes) + capacity_notes(cap, view)
    corr = corroboration(state, view, audit)
    t = tree(r.derivation, verdict["fk"], view, state.rules, corr)
    mg = r.one("min_gpus")
    comm = [c for c in r.all("comm") if c.get("seconds") is not None] or r.all("comm")
    comp = r.all("compute")
    answer: dict[str, Any] = {
        "kind": "sizing",
        "conclusion_id": cid,
        "kb_version": view.name,
        "scenario": {k: (v.split(":", 1)[1] if isinstance(v, str) and ":" in v and k in ("model", "gpu", "instance", "family") else v)
                     for k, v in s.items()},
        "notes": notes,
        "verdict": verdict["verdict"],
        "memory": sizing.memory_breakdown(r),
        "capacity": {"unit": "GB", "per_gpu": round(cap["gb"], 3), "gpus": cap["gpus"],
                     "gpu": (cap.get("gpu") or "").split(":")[-1] or None, "basis": cap.get("basis")},
        "min_gpus": mg.get("n") if mg else None,
        "min_gpus_zero": mg.get("zero") if mg else None,
        "min_gpus_reason": mg.get("reason") if mg else None,
        "communication": [{k: c.get(k) for k in ("gb_per_step", "link", "gbps", "seconds")} for c in comm],
        "compute": min(({"seconds_per_step": c.get("seconds"), "tflops": c.get("tflops"), "hours": c.get("hours")} for c in comp),
                       key=lambda x: x["seconds_per_step"] or 0, default=None),
        "precision": [{"gpu": p["gpu"].split(":")[-1], "recommended": p["recommended"], "reason": p["reason"]}
                      for p in r.all("precision_note")],
        "recommendations": recommendations(state, r, view),
        "explanation": {"conclusion": verdict["fk"], "tree": t},
    }
    if verdict["verdict"] == "does_not_fit":
        answer["why_not"] = {
            "question": view.kb.vocab.wording.note("why_not_question", view.kb.vocab),
            "candidates": why_not(r.derivation, state.rules, "verdict", {"verdict": "fits"}, r.qid),
            "smallest_changes": [x for x in answer["recommendations"] if x.get("fits")][:3],
            "max_params_that_fit": max_params(state, s, view),
        }
    ctx = r.one("context_note")
    if ctx:
        answer["context_limit"] = {"seq_len": int(ctx["seq_len"]), "max_context": int(ctx["max_context"]), "beyond": True}
        vocab = view.kb.vocab
        answer["notes"].append(vocab.wording.note("context_beyond", vocab, seq_len=int(ctx["seq_len"]),
                                                  max_context=int(ctx["max_context"]), model=s["model"],
                                                  model_key=s["model"].split(":", 1)[1]))
    off = offload_view(r, s, view)
    if off:
        answer["offload"] = off
    sv = r.one("serving")
    if sv:
        answer["serving"] = {"engine": s.get("engine", "transformers"), "gpu_memory_utilization": s.get("gpu_memory_utilization"),
                             "kv_pool_gb": round(sv["kv_pool_gb"], 3),
                             "kv_per_sequence_gb": round(sv["kv_per_sequence_gb"], 4) if sv.get("kv_per_sequence_gb") else None,
                             "max_sequences": sv.get("max_sequences")}
    band = band_of(state, view, s["method"])
    if band:
        need, cap_gb = verdict["need_gb"], verdict["capacity_gb"]
        answer["band"] = {"low_gb": round(need * band["low"], 3), "high_gb": round(need * band["high"], 3),
                          "ratios": [band["low"], band["high"]], "points": band["points"]}
        if band.get("basis"):
            answer["band"]["basis"] = band["basis"]
        answer["borderline"] = need * band["low"] <= cap_gb <= need * band["high"]
    answer["sources"] = sources_of(state, t, view)
    answer["contradictions"] = contradictions(state, t, s, view, audit)
    answer["summary"] = summary(state, answer, t, view)
    return answer


def capacity_notes(cap: dict[str, Any], view: ReleaseView) -> list[str]:
    """The capacity convention the answer assumed, in words (one convention for every card: what nvidia-smi
    reports minus the CUDA context; the datasheet's GB where the KB lacks the nvidia-smi figure)."""
    gpu = cap.get("gpu")
    basis = cap.get("basis") or ""
    if not gpu:
        return []
    name = gpu.split(":")[-1]
    vocab = view.kb.vocab

    def note(key: str, **fields: Any) -> str:          # the wording: labels.note in kb/vocabulary.yaml
        return vocab.wording.note(key, vocab, **fields)
    ctx = view.ref("concept:framework-overhead", "memory_required")
    ctx_gb = ctx.norm.hi if ctx is not None and getattr(ctx.norm, "hi", None) else None
    if "nvidia-smi" in basis:
        u = view.ref(gpu, "usable_memory")
        if u is None:
            return []
        total = u.norm.point()
        if basis.startswith("engine share"):
            return [note("capacity_engine", gpu=name, mib=u.value, total=total, gb=cap["gb"])]
        return [note("capacity_nvsmi", gpu=name, mib=u.value, total=total, ctx=ctx_gb, gb=cap["gb"])]
    if basis.startswith("datasheet") or basis.startswith("engine share of the datasheet"):
        return [note("capacity_datasheet", gpu=name, marketing_gb=cap.get("marketing_gb"), gb=cap["gb"],
                     ctx=ctx_gb if ctx_gb and basis == "datasheet" else None)]
    return []


def step_cost(r: sizing.SizingRun, s: dict[str, Any]) -> dict[str, Any]:
    """A training step's time and GPU time per 1,000 tokens: compute at the tensor peak (6·N·D FLOPs, 8·N·D
    with recomputation), plus gradient exchange over the network and offload traffic over PCIe, neither
    assumed to overlap with compute. Empty for inference or when the KB lacks a throughput figure."""
    comp = r.all("compute")
    if s.get("method") == "inference" or not comp or comp[0].get("seconds") is None:
        return {}
    seconds = comp[0]["seconds"] * (8 / 6 if s.get("gradient_checkpointing") else 1)
    net = [c.get("seconds") for c in r.all("comm") if c.get("link") == "network" and c.get("seconds") is not None]
    seconds += max(net) if net else 0.0
    hn = r.one("host_need")
    cap = r.one("capacity") or {}
    gpus = cap.get("gpus") or 1
    tokens = (s.get("seq_len") or 1) * (s.get("batch") or 1) * gpus
    return {"step_seconds": round(seconds, 3), "gpu_hours_per_step": round(gpus * seconds / 3600, 6),
            "gpu_seconds_per_1k_tokens": round(gpus * seconds / tokens * 1000, 4),
            **({"pcie_gb_per_step": round(hn["pcie_gb_per_step"], 3)} if hn else {})}


def offload_view(r: sizing.SizingRun, s: dict[str, Any], view: ReleaseView) -> dict[str, Any] | None:
    """What CPU offload needs outside the GPU: host memory (checked against the instance size's host RAM
    when the scenario names an instance) and PCIe traffic per step (timed with the GPU's host link)."""
    hn = r.one("host_need")
    if hn is None:
        return None
    out: dict[str, Any] = {"mode": s.get("offload"), "host_gb": round(hn["gb"], 3),
                           "pcie_gb_per_step": round(hn["pcie_gb_per_step"], 3)}
    inst = s.get("instance")
    if inst:
        host = view.ref(inst, "host_memory_gb")
        if host is not None:
            out["host_available_gb"] = host.norm.point()
            out["host_fits"] = hn["gb"] <= host.norm.point()
    cap = r.one("capacity")
    link = view.ref(cap["gpu"], "host_link_bandwidth") if cap and cap.get("gpu") else None
    if link is not None and link.norm.point():
        out["pcie_seconds_per_step"] = round(hn["pcie_gb_per_step"] / link.norm.point(), 3)
    return out


def recommendations(state: GpuKB, r: sizing.SizingRun, view: ReleaseView) -> list[dict[str, Any]]:
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
        item: dict[str, Any] = {"action": rec["action"], "change": change, "cost": rec.get("cost"),
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
    return out


#: the ranking when the rules declare none (the same as rules/sizing/recommend.yaml's)
DEFAULT_RANKING = {"keys": [{"key": "fits", "order": "desc"}, {"key": "gpus_needed", "order": "asc"},
                            {"key": "gpu_seconds_per_1k_tokens", "order": "asc"}, {"key": "rule_rank", "order": "asc"},
                            {"key": "rank_sum", "order": "asc"}], "max_not_fitting": 3}


def ranking(state: GpuKB) -> dict[str, Any]:
    """The declared ranking strategy of recommendations (``ranking`` in rules/sizing/recommend.yaml)."""
    def load() -> dict[str, Any]:
        from pathlib import Path

        from ..yamlio import load_file
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
    if change.get("method") == "qlora":
        body["precision"] = "nf4"
    elif change.get("method") == "lora" and body.get("precision") == "mixed":
        # mixed precision keeps FP32 master weights for training them; frozen base weights are kept in 16 bits
        # as PEFT runs LoRA (the method's default precision; FP16 on a GPU without BF16)
        body.pop("precision")
    return {k: v for k, v in body.items() if v is not None}


def rule_label(state: GpuKB, r: sizing.SizingRun, rec: dict[str, Any]) -> dict[str, str]:
    """A recommendation in words, from the rule that derived it (the rule's ``label``); its action name
    when the rule has none."""
    for firing in r.derivation.supports.get(rec["fk"], ()):
        rule = state.rules.by_key.get(firing.rule)
        if rule is not None and rule.label:
            return dict(rule.label)
    words = str(rec["action"]).replace("_", " ")
    return {"en": words, "zh": words}


PAIRABLE = ("use_fp16", "gradient_checkpointing", "flash_attention", "method_lora", "method_qlora", "offload")

#: a pair is not evaluated when the two changes' savings added together leave it this much over the GPU's
#: memory (see :func:`pair_recommendations`)
PAIR_MARGIN = 0.10


def pair_recommendations(state: GpuKB, r: sizing.SizingRun, view: ReleaseView,
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
                                    "cost": f"{a['cost']}; {b['cost']}", "rule_rank": max(a["rule_rank"] or 0, b["rule_rank"] or 0),
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
    if ch in ("gpus", "family"):
        d = rec.get("detail")
        if ch == "gpus":
            return {"gpus": int(d), "zero": 3}
        return {"family": d}
    return {}


def max_params(state: GpuKB, s: dict[str, Any], view: ReleaseView) -> float | None:
    """The largest parameter count that fits, the scenario's other inputs unchanged.

    The answer depends on the configuration only (hardware, method, precision, batch ...), not on the
    size the question asked about: the search starts from the same points whatever that size, so it is
    computed once per release and configuration and remembered (least recently used out first with the
    search points, :meth:`GpuKB.probe_totals`), and a question about another size of the same
    configuration reads it back.
    """
    base = {k: v for k, v in scen.inputs(s).items() if k not in ("model", "params")}
    key = ("max_params", view.name, json.dumps(base, sort_keys=True, default=str))
    found = state.probe_totals(key)
    if found is sizing.MISSING:
        found = state.probe_totals(key, _largest_that_fits(state, base, view))
    return found


#: where the search for the largest model starts (any size works; a fixed one makes the result a function
#: of the configuration alone)
SEARCH_START = 1e9


def _largest_that_fits(state: GpuKB, base: dict[str, Any], view: ReleaseView) -> float | None:
    """Memory grows almost linearly with the parameter count, so a few secant steps over the rules' own
    totals find the boundary (the first step assumes the total proportional to the size; one more
    corrects for activations, which grow slower); the size reported is rounded to three significant
    figures and checked to fit (if not, the next lower three-figure sizes are tried, then 3% steps).
    Each point is one scenario added to the answer's staged session, evaluated only when the search reaches it."""
    known: dict[float, tuple[float, float] | None] = {}

    def totals(ns: list[float]) -> list[tuple[float, float] | None]:
        todo = []
        for n in dict.fromkeys(n for n in ns if n not in known):
            try:
                s2, n2 = scen.normalise({**base, "params": n}, state.kb.vocab, view)
            except BadInput:
                known[n] = None
                continue
            # a point another search already evaluated (the rules' totals depend on the release and the
            # normalised scenario only): the rounded sizes checked last recur across configurations' searches
            key = (view.name, json.dumps(s2, sort_keys=True, default=str))
            hit = state.probe_totals(key)
            if hit is not sizing.MISSING:
                known[n] = hit
            else:
                todo.append((n, s2, n2, key))
        for (n, _, _, key), r in zip(todo, state.run_scenarios([(s2, n2) for _, s2, n2, _ in todo], view, "probe")):
            v = r.one("verdict")
            known[n] = (v["need_gb"], v["capacity_gb"]) if v else None
            state.probe_totals(key, known[n])
        return [known[n] for n in ns]

    n0 = SEARCH_START
    t0 = totals([n0])[0]
    if t0 is None or t0[0] <= 0:
        return None
    cap = t0[1]
    n1 = n0 * cap / t0[0]
    if n1 < 1e3:
        return None
    t1 = totals([n1])[0]
    for _ in range(6):
        if t1 is None or abs(t1[0] - cap) < cap * 1e-3:
            break
        slope = (t1[0] - t0[0]) / (n1 - n0) if n1 != n0 else 0
        if slope <= 0:
            break
        n_new = n1 + (cap - t1[0]) / slope
        if n_new < 1e3:
            return None
        n0, t0 = n1, t1
        n1, t1 = n_new, totals([n_new])[0]
    if t1 is None:
        return None
    for i in range(20):  # report a rounded size that really fits: the next lower ones first, then 3% steps
        shown = float(f"{n1:.3g}")
        t_shown = totals([shown])[0]
        if t_shown is not None and t_shown[0] <= cap:
            return shown
        n1 = shown - 10 ** (math.floor(math.log10(shown)) - 2) if i < 3 else n1 * 0.97
    return None


def corroboration(state: GpuKB, view: ReleaseView, audit: AuditResult | None = None) -> dict[str, list[dict]]:
    """Reference fact id → the source claims that state the same value (audit status supported)."""
    audit = state.audit_result(view.name) if audit is None else audit
    return audit.corroboration if audit is not None else {}


def contradictions(state: GpuKB, t: dict, s: dict[str, Any], view: ReleaseView,
                   audit: AuditResult | None = None) -> list[dict[str, Any]]:
    audit = state.audit_result(view.name) if audit is None else audit
    if audit is None:
        return []
    return audit.disagreeing_with(t, s)


def sources_of(state: GpuKB, t: dict, view: ReleaseView) -> list[dict[str, Any]]:
    out, seen = [], set()
    for leaf in leaves(t):
        if leaf.get("tier") == "reference":
            key = ("ref", leaf.get("citation"))
            if key not in seen:
                seen.add(key)
                out.append({"type": "reference", "citation": leaf.get("citation"), "confidence": leaf.get("confidence"),
                            "facts": [leaf["fact"]]})
            else:
                next(o for o in out if o.get("citation") == leaf.get("citation"))["facts"].append(leaf["fact"])
            for c in leaf.get("stated_by", []):
                if ("claim", c["id"]) not in seen:
                    seen.add(("claim", c["id"]))
                    out.append({"type": "claim", **c})
        elif leaf.get("tier") == "claim":
            out.append({"type": "claim", "id": leaf["fact"], "source": leaf.get("source"), "quote": leaf.get("quote"),
                        "span": leaf.get("span")})
    return out
