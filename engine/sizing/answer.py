"""Sizing answers: one scenario's verdict, memory, recommendations, why-not and the sources behind them."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..models import scenario as scen
from ..models.base import OMIT
from ..models.sizing import (Band, Capacity, Communication, Compute, Contradiction, OffloadCost, PrecisionAdvice,
                             Proof, Scenario, Serving, SizingAnswer, SourceRef, WhyNot)
from . import run as sizing
from ..core.errors import BadInput, Issue
from ..explain.trees import leaves, tree, why_not
from ..kb.store import ReleaseView
from .calibration import band_of
from .summary import summary
from ..audit.result import AuditResult
from ..audit.without import conclusion_without, parse_sources
from .recommend import recommendations, rule_text
from .inverse import max_params
from .costs import offload_view

if TYPE_CHECKING:
    from ..core.session import Session


def query(state: Session, body: dict[str, Any], without: Any = None) -> SizingAnswer:
    """The sizing answer of the API contract for a query body (flags in snake_case), built as its model;
    ``without``: source ids whose claims are taken away (the answer's ``without`` block says what that changes)."""
    if not isinstance(body, dict):
        raise BadInput("the query must be a JSON object", [Issue("expected an object")])
    view = state.view(body.get("kb_version"))
    removed = parse_sources(without, state.kb.sources)
    s, notes = scen.normalise({k: v for k, v in body.items() if k != "kb_version"}, state.kb.vocab, view)
    key = ("query", view.name, scen.conclusion_id(s, view.name), tuple(notes), tuple(removed))
    if not removed:
        return state.cached(key, lambda: sizing_answer(state, s, notes, view))

    def answer() -> SizingAnswer:
        audit, block = state.retracted(view.name, removed)
        base = state.cached(key[:-1] + ((),), lambda: sizing_answer(state, s, notes, view))
        out = sizing_answer(state, s, notes, view, audit)
        r = state.run_scenario(s, notes, view)
        return out.replace(without=conclusion_without(r.derivation, base, out, block))
    return state.cached(key, answer)


def verdict_of(r: Any, view: ReleaseView) -> tuple[dict[str, Any], dict[str, Any]]:
    """The verdict and capacity facts of a scenario's run; BadInput when the KB cannot size it (no memory
    figure for the hardware, no parameter count for the model)."""
    verdict, cap = r.one("verdict"), r.one("capacity")
    if verdict is None or cap is None:
        missing = "data on the GPU's memory" if cap is None else "data to estimate this model's memory (its parameter count)"
        vocab = view.kb.vocab
        raise BadInput(vocab.wording.note("cannot_size", vocab, release=view.name, missing="memory" if cap is None else "model"),
                       [Issue(f"no {missing} in release {view.name}", field="gpu" if cap is None else "model")])
    return verdict, cap


def verdicts(state: Session, bodies: list[dict[str, Any]], view: ReleaseView) -> list[dict[str, Any]]:
    """Each query body's verdict, memory need and capacity, as its sizing answer gives them, from one engine
    run of every scenario (a search over many candidates needs no proof, recommendations or largest
    model; each keeps the conclusion id whose explanation recomputes them)."""
    todo, out = [], []
    for body in bodies:
        try:
            s, notes = scen.normalise({k: v for k, v in body.items() if k != "kb_version"}, state.kb.vocab, view)
            todo.append((s, notes))
            out.append({})
        except BadInput as exc:
            out.append({"verdict": None, "error": exc.message})
    runs = iter(state.run_scenarios(todo, view, "probe") if todo else [])
    for o, (s, _) in zip((o for o in out if "error" not in o), todo):
        r = next(runs)
        try:
            verdict, cap = verdict_of(r, view)
        except BadInput as exc:
            o.update(verdict=None, error=exc.message)
            continue
        o.update(verdict=verdict["verdict"], need_gb=sizing.memory_breakdown(r).total,
                 usable_gb_per_gpu=round(cap["gb"], 3), gpus=cap["gpus"], conclusion_id=scen.conclusion_id(s, view.name))
    return out


def sizing_answer(state: Session, s: dict[str, Any], notes: list[str], view: ReleaseView,
                  audit: AuditResult | None = None) -> SizingAnswer:
    """The sizing answer of one normalised scenario, built as its model; ``audit``: the audit its sources and disagreeing
    claims are read from (default: the release's). Everything it evaluates (the scenario, its
    recommendations' variants, their pairs, the largest model's search) runs in one staged session."""
    with state.staged(view):
        return _sizing_answer(state, s, notes, view, audit)


def _sizing_answer(state: Session, s: dict[str, Any], notes: list[str], view: ReleaseView,
                   audit: AuditResult | None) -> SizingAnswer:
    r = state.run_scenario(s, notes, view)
    verdict, cap = verdict_of(r, view)
    corr = corroboration(state, view, audit)
    t = tree(r.derivation, verdict["fk"], view, state.rules, corr)
    mg = r.one("min_gpus")
    comm = [c for c in r.all("comm") if c.get("seconds") is not None] or r.all("comm")
    ctx = r.one("context_note")
    notes = list(notes) + capacity_notes(cap, view) + context_notes(ctx, s, view) + \
        parallel_and_kernel_notes(r, mg, view) + shape_notes(r, view)
    recs = recommendations(state, r, view)
    a: dict[str, Any] = {        # the answer's fields as they are made, in the order they are written
        "kind": "sizing",
        "conclusion_id": scen.conclusion_id(s, view.name),
        "kb_version": view.name,
        "scenario": Scenario.of(**{k: (v.split(":", 1)[1] if isinstance(v, str) and ":" in v and k in ("model", "gpu", "instance", "family") else v)
                                   for k, v in s.items()}),
        "notes": notes,
        "verdict": verdict["verdict"],
        "memory": sizing.memory_breakdown(r),
        "capacity": Capacity.of(unit="GB", per_gpu=round(cap["gb"], 3), gpus=cap["gpus"],
                                gpu=(cap.get("gpu") or "").split(":")[-1] or None, basis=cap.get("basis")),
        "min_gpus": mg.get("n") if mg else None,
        "min_gpus_zero": mg.get("zero") if mg else None,
        "min_gpus_reason": rule_text(state, r, mg, "reason") if mg else None,
        "communication": [Communication.of(**{k: c.get(k) for k in ("gb_per_step", "link", "gbps", "seconds")}) for c in comm],
        "compute": min((Compute.of(seconds_per_step=c.get("seconds"), tflops=c.get("tflops"), hours=c.get("hours"))
                        for c in r.all("compute")), key=lambda x: x.seconds_per_step or 0, default=None),
        "precision": [PrecisionAdvice.of(gpu=p["gpu"].split(":")[-1], recommended=p["recommended"],
                                         reason=rule_text(state, r, p, "reason")) for p in r.all("precision_note")],
        "recommendations": recs,
        "explanation": Proof.of(conclusion=verdict["fk"], tree=t),
    }
    if verdict["verdict"] == "does_not_fit":
        a["why_not"] = WhyNot.of(
            question=view.kb.vocab.wording.note("why_not_question", view.kb.vocab),
            candidates=why_not(r.derivation, state.rules, "verdict", {"verdict": "fits"}, r.qid),
            smallest_changes=[x.to_json() for x in [x for x in recs if x.get("fits")][:3]],
            max_params_that_fit=max_params(state, s, view))
    if ctx:
        a["context_limit"] = {"seq_len": int(ctx["seq_len"]), "max_context": int(ctx["max_context"]), "beyond": True}
    off = offload_view(r, s, view)
    if off:
        a["offload"] = OffloadCost.of(**off)
    sv = r.one("serving")
    if sv:
        a["serving"] = Serving.of(engine=s.get("engine", "transformers"), gpu_memory_utilization=s.get("gpu_memory_utilization"),
                                  kv_pool_gb=round(sv["kv_pool_gb"], 3),
                                  kv_per_sequence_gb=round(sv["kv_per_sequence_gb"], 4) if sv.get("kv_per_sequence_gb") else None,
                                  max_sequences=sv.get("max_sequences"))
    band = band_of(state, view, s["method"])
    if band:
        need, cap_gb = verdict["need_gb"], verdict["capacity_gb"]
        a["band"] = Band.of(low_gb=round(need * band["low"], 3), high_gb=round(need * band["high"], 3),
                            ratios=[band["low"], band["high"]], points=band["points"], basis=band.get("basis") or OMIT)
        a["borderline"] = need * band["low"] <= cap_gb <= need * band["high"]
    a["sources"] = sources_of(state, t, view)
    a["contradictions"] = contradictions(state, t, s, view, audit)
    a["summary"] = summary(state, a, t, view)
    return SizingAnswer.of(**a)


def context_notes(ctx: dict[str, Any] | None, s: dict[str, Any], view: ReleaseView) -> list[str]:
    """The note of a sequence longer than the context the model was trained for."""
    if not ctx:
        return []
    vocab = view.kb.vocab
    return [vocab.wording.note("context_beyond", vocab, seq_len=int(ctx["seq_len"]), max_context=int(ctx["max_context"]),
                               model=s["model"], model_key=s["model"].split(":", 1)[1])]


def parallel_and_kernel_notes(r: Any, mg: dict[str, Any] | None, view: ReleaseView) -> list[str]:
    """What the answer says about how inference is split (a given GPU count no tensor-parallel group can
    use; a minimum count that needs pipeline stages), about the smallest tensor-parallel group a Megatron-style
    training question needs, and about kernels the GPU does not run natively."""
    vocab = view.kb.vocab
    out = []
    tp = r.one("tp_note")
    if tp:
        out.append(vocab.wording.note("tp_given", vocab, gpus=int(tp["gpus"]), heads=int(tp["heads"]), tp=int(tp["tp"])))
    plan = r.one("tp_plan")
    if mg and plan and (mg.get("pp") or 1) > 1 and mg.get("n"):
        out.append(vocab.wording.note("min_gpus_split", vocab, n=int(mg["n"]), tp=int(mg["tp"]), pp=int(mg["pp"]),
                                      heads=int(plan["heads"])))
    elif mg and mg.get("n") and mg.get("tp") and r.one("tp_act") and r.one("arch"):
        out.append(vocab.wording.note("min_gpus_tp", vocab, n=int(mg["n"]), heads=int(r.one("arch")["heads"])))
    att = r.one("attention")         # the attention the release assumes when the question does not say
    if att and att.get("basis") == "default":
        key = "default_off" if att["kernel"] == "eager" else "attention_" + att["kernel"]
        out.append(vocab.wording.note(key, vocab, key_field="flash_attention"))
    for k in r.all("kernel_note"):
        key = "kernel_flash" if k["kind"] == "flash_attention" else "kernel_fp8"
        note = vocab.wording.note(key, vocab, gpu=k["gpu"].split(":")[-1], cc=k["cc"])
        if note not in out:
            out.append(note)
    return out


def shape_notes(r: Any, view: ReleaseView) -> list[str]:
    """The shape assumed for a model given only by its parameter count (the rules' approximation), stated
    with the answer's other assumptions so that a reader sees what was sized."""
    arch, voc = r.one("arch"), r.one("vocab")
    if not arch or arch.get("basis") != "approximation":
        return []
    vocab = view.kb.vocab
    return [vocab.wording.note("shape_assumed", vocab, layers=int(arch["layers"]), hidden=int(arch["hidden"]),
                               heads=int(arch["heads"]), kv_heads=int(arch.get("kv_heads") or arch["heads"]),
                               vocab_n=int(voc["n"]) if voc and voc.get("basis") == "approximation" else 0)]


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


def corroboration(state: Session, view: ReleaseView, audit: AuditResult | None = None) -> dict[str, list[dict]]:
    """Reference fact id → the source claims that state the same value (audit status supported)."""
    audit = state.audit_result(view.name) if audit is None else audit
    return audit.corroboration if audit is not None else {}


def contradictions(state: Session, t: dict, s: dict[str, Any], view: ReleaseView,
                   audit: AuditResult | None = None) -> list[Contradiction]:
    """The source claims that disagree with the answer (proof tree ``t``) or its premises, with their audit status."""
    audit = state.audit_result(view.name) if audit is None else audit
    if audit is None:
        return []
    return [Contradiction.build(x) for x in audit.disagreeing_with(t, s)]


def sources_of(state: Session, t: dict, view: ReleaseView) -> list[SourceRef]:
    """The reference documents and quoted claims the proof tree ``t`` rests on, each once."""
    out: list[dict[str, Any]] = []
    seen = set()
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
    return [SourceRef.build(x) for x in out]
