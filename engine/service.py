"""gpukb's single entry point: one object that loads a KB and its rules and answers every question.

The CLI and the HTTP API are thin layers over :class:`GpuKB`; both print the dicts it returns.
"""
from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from . import scenario as scen
from . import sizing
from .errors import BadInput, Issue, NotFound
from .explain import leaves, tree, why_not
from .kb import KB, ReleaseView, load_kb
from .labels import gb, params_text
from .reasoner import Reasoner
from .rules import RuleSet, load_rules

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_KB = ROOT / "kb"
DEFAULT_RULES = ROOT / "rules"


class GpuKB:
    """A loaded, validated KB with its compiled rules; thread-safe for concurrent questions."""

    def __init__(self, kb_dir: str | Path = DEFAULT_KB, rules_dir: str | Path = DEFAULT_RULES,
                 cache_size: int = 512):
        self.kb_dir, self.rules_dir = Path(kb_dir), Path(rules_dir)
        self.kb: KB = load_kb(self.kb_dir)
        ref_ids = {f.id for f in self.kb.all_facts if f.tier == "reference"}
        self.rules: RuleSet = load_rules(self.rules_dir, ref_ids)
        self.reasoner = Reasoner(self.rules)
        self._seeds: dict[str, list[dict]] = {}
        self._cache: OrderedDict[tuple, Any] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.RLock()
        self._audits: dict[str, Any] = {}

    # -- releases ------------------------------------------------------------------------------
    def view(self, release: str | None = None) -> ReleaseView:
        return self.kb.release(release)

    def seeds(self, view: ReleaseView) -> list[dict]:
        with self._lock:
            if view.name not in self._seeds:
                self._seeds[view.name] = sizing.seed_records(view)
            return self._seeds[view.name]

    def _cached(self, key: tuple, fn):
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return copy.deepcopy(self._cache[key])
        value = fn()
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return copy.deepcopy(value)

    # -- sizing ----------------------------------------------------------------------------------
    def run_scenario(self, s: dict[str, Any], notes: list[str], view: ReleaseView) -> sizing.SizingRun:
        return sizing.run(self.reasoner, view, self.seeds(view), s, notes)

    def query(self, body: dict[str, Any]) -> dict[str, Any]:
        """The sizing answer of the API contract for a query body (flags in snake_case)."""
        if not isinstance(body, dict):
            raise BadInput("the query must be a JSON object", [Issue("expected an object")])
        view = self.view(body.get("kb_version"))
        s, notes = scen.normalise({k: v for k, v in body.items() if k != "kb_version"}, self.kb.vocab)
        key = ("query", view.name, scen.conclusion_id(s, view.name))
        return self._cached(key, lambda: self._sizing_answer(s, notes, view))

    def _sizing_answer(self, s: dict[str, Any], notes: list[str], view: ReleaseView) -> dict[str, Any]:
        r = self.run_scenario(s, notes, view)
        verdict = r.one("verdict")
        cap = r.one("capacity")
        if verdict is None or cap is None:
            missing = "the GPU's memory" if cap is None else "a memory estimate for this model"
            raise BadInput(f"cannot size this scenario: the KB release {view.name} has no data for {missing}",
                           [Issue(f"no {missing} in release {view.name}", field="gpu" if cap is None else "model")])
        cid = scen.conclusion_id(s, view.name)
        corr = self._corroboration(view)
        t = tree(r.derivation, verdict["fk"], view, self.rules, corr)
        mg = r.one("min_gpus")
        comm = [c for c in r.all("comm") if c.get("seconds") is not None] or r.all("comm")
        comp = r.all("compute")
        answer: dict[str, Any] = {
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
            "recommendations": self._recommendations(r, view),
            "explanation": {"conclusion": verdict["fk"], "tree": t},
        }
        if verdict["verdict"] == "does_not_fit":
            answer["why_not"] = {
                "question": "why does it not fit?",
                "candidates": why_not(r.derivation, self.rules, "verdict", {"verdict": "fits"}, r.qid),
                "smallest_changes": [x for x in answer["recommendations"] if x.get("fits")][:3],
                "max_params_that_fit": self._max_params(s, notes, view),
            }
        answer["sources"] = self._sources_of(t, view)
        answer["contradictions"] = self._contradictions(t, s, view)
        answer["summary"] = self._summary(answer, t, view)
        return answer

    def _recommendations(self, r: sizing.SizingRun, view: ReleaseView) -> list[dict[str, Any]]:
        out = []
        seen = set()
        for rec in sorted(r.all("recommendation"), key=lambda x: (x.get("rank") or 99, str(x.get("detail")))):
            change = self._change_of(rec)
            key = (rec["action"], str(change))
            if key in seen:
                continue
            seen.add(key)
            item: dict[str, Any] = {"action": rec["action"], "change": change, "cost": rec.get("cost"),
                                    "rule_rank": rec.get("rank"), "fact": rec["fk"]}
            if change:
                body = {**r.scenario, **change}
                if "family" in change:
                    body.pop("gpu", None), body.pop("instance", None), body.pop("vram_gb", None)
                if change.get("method") in ("lora", "qlora", "inference"):
                    body["zero"] = 0
                if change.get("method") == "qlora":
                    body["precision"] = "nf4"
                try:
                    s2, n2 = scen.normalise({k: v for k, v in body.items() if v is not None}, self.kb.vocab)
                    r2 = self.run_scenario(s2, n2, view)
                    v2 = r2.one("verdict")
                    if v2:
                        item.update(fits=v2["verdict"] == "fits", need_gb=round(v2["need_gb"], 3),
                                    capacity_gb=round(v2["capacity_gb"], 3))
                except BadInput as exc:
                    item["error"] = exc.message
            out.append(item)
        out.sort(key=lambda x: (0 if x.get("fits") else 1, x.get("rule_rank") or 99))
        for i, x in enumerate(out, 1):
            x["rank"] = i
        return out

    @staticmethod
    def _change_of(rec: dict[str, Any]) -> dict[str, Any]:
        ch = rec.get("change") or ""
        if "=" in ch:
            k, v = ch.split("=", 1)
            return {k: (True if v == "true" else v)}
        if ch in ("gpus", "family"):
            d = rec.get("detail")
            if ch == "gpus":
                return {"gpus": int(d), "zero": 3}
            return {"family": d}
        return {}

    def _max_params(self, s: dict[str, Any], notes: list[str], view: ReleaseView) -> float | None:
        """The largest parameter count that fits, other inputs unchanged (bisection over the rules)."""
        base = {k: v for k, v in s.items() if k != "model"}
        lo, hi = 1e6, s.get("params") or 1e12

        def fits(n):
            body = {**base, "params": n}
            try:
                s2, n2 = scen.normalise({k: v for k, v in body.items() if v is not None}, self.kb.vocab)
            except BadInput:
                return False
            v = self.run_scenario(s2, n2, view).one("verdict")
            return bool(v and v["verdict"] == "fits")
        if not fits(lo):
            return None
        for _ in range(18):
            mid = (lo * hi) ** 0.5
            if fits(mid):
                lo = mid
            else:
                hi = mid
        return float(f"{lo:.3g}")

    # -- supporting material ---------------------------------------------------------------------
    def _corroboration(self, view: ReleaseView) -> dict[str, list[dict]]:
        """Reference fact id → the source claims that state the same value (audit status supported)."""
        audit = self.audit_result(view.name)
        return audit.corroboration if audit is not None else {}

    def _contradictions(self, t: dict, s: dict[str, Any], view: ReleaseView) -> list[dict[str, Any]]:
        audit = self.audit_result(view.name)
        if audit is None:
            return []
        return audit.disagreeing_with(t, s)

    def audit_result(self, release: str):
        """The audit of a release (computed once); None while the audit module is unavailable."""
        try:
            from .audit import run_audit
        except ImportError:
            return None
        with self._lock:
            if release not in self._audits:
                self._audits[release] = run_audit(self, self.view(release))
            return self._audits[release]

    def _sources_of(self, t: dict, view: ReleaseView) -> list[dict[str, Any]]:
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

    def _summary(self, a: dict[str, Any], t: dict, view: ReleaseView) -> dict[str, Any]:
        sc = a["scenario"]
        vocab = self.kb.vocab
        what_en = sc.get("model") or params_text(sc.get("params"))
        what_zh = sc.get("model") or (params_text(sc.get("params"), "zh") + "参数模型")
        hw = sc.get("gpu") or sc.get("instance") or sc.get("family") or f"{sc.get('vram_gb')} GB GPU"
        m = a["memory"]
        cites: list[dict[str, Any]] = []

        def cite(item: dict[str, Any]) -> int:
            for i, c in enumerate(cites, 1):
                if c == item:
                    return i
            cites.append(item)
            return len(cites)
        ref_marks = []
        for leaf in leaves(t):
            if leaf.get("tier") == "reference":
                ref_marks.append(cite({"type": "reference", "fact": leaf["fact"], "citation": leaf.get("citation")}))
                for c in (leaf.get("stated_by") or [])[:2]:
                    ref_marks.append(cite({"type": "quote", "claim": c["id"], "source": c["source"], "quote": c["quote"]}))
        rule_cites = []
        for node in _walk(t):
            for c in node.get("cites", []) or []:
                rule_cites.append(cite({"type": "reference", "fact": c["id"], "citation": c.get("citation")}))
        marks = "".join(f"[{i}]" for i in sorted(set(ref_marks + rule_cites))[:8])
        meth_en = {"full": "full fine-tuning", "lora": "LoRA", "qlora": "QLoRA", "pretrain": "pre-training", "inference": "inference"}[sc["method"]]
        meth_zh = {"full": "全量微调", "lora": "LoRA 微调", "qlora": "QLoRA 微调", "pretrain": "预训练", "inference": "推理"}[sc["method"]]
        fits = a["verdict"] == "fits"
        en = [f"{meth_en.capitalize()} of {what_en} on {hw} {'fits' if fits else 'does not fit'}: it needs about "
              f"{gb(m['per_gpu_total'])} per GPU (model states {gb(m['model_states'])}) against {gb(a['capacity']['per_gpu'])} "
              f"usable per GPU {marks}."]
        zh = [f"在 {hw} 上对 {what_zh} 做{meth_zh}{'放得下' if fits else '放不下'}：每卡约需 {gb(m['per_gpu_total'])}"
              f"（模型状态 {gb(m['model_states'])}），每卡可用 {gb(a['capacity']['per_gpu'])} {marks}。"]
        if not fits and a.get("min_gpus"):
            z = f" with ZeRO-{a['min_gpus_zero']}" if a.get("min_gpus_zero") else ""
            en.append(f"The smallest count of this GPU that fits is {a['min_gpus']}{z}.")
            zh.append(f"放得下的最少卡数为 {a['min_gpus']}{'（ZeRO-' + str(a['min_gpus_zero']) + '）' if z else ''}。")
        fit_recs = [r for r in a["recommendations"] if r.get("fits")]
        if fit_recs:
            r0 = fit_recs[0]
            en.append(f"Cheapest change that fits: {r0['action']} ({r0['cost']}).")
            zh.append(f"能放下的最小改动：{r0['action']}（代价：{r0['cost']}）。")
        for p in a.get("precision", []):
            en.append(f"The {p['gpu']} has no native BF16, so use FP16 mixed precision.")
            zh.append(f"{p['gpu']} 不原生支持 BF16，应使用 FP16 混合精度。")
        caveats_en = list(a.get("notes", []))
        if any(n.get("type") == "arch" and (n.get("data") or {}).get("basis") == "approximation" for n in _walk(t)):
            caveats_en.append("the model's shape was estimated from its parameter count")
        if a.get("contradictions"):
            caveats_en.append(f"{len(a['contradictions'])} source claim(s) disagree with this answer or its premises")
        return {"en": " ".join(en), "zh": "".join(zh), "citations": cites, "caveats": caveats_en}

    # -- claims and sources ------------------------------------------------------------------------
    def sources(self) -> dict[str, Any]:
        return {"sources": [s.as_dict() for s in self.kb.sources.values()]}

    def source(self, sid: str, with_text: bool = True) -> dict[str, Any]:
        s = self.kb.sources.get(sid)
        if s is None:
            raise NotFound(f"no source {sid!r}", [Issue(f"no source {sid!r}", field="id", allowed=sorted(self.kb.sources))])
        return s.as_dict(with_text=with_text)

    def claims(self, source: str | None = None, kb_version: str | None = None) -> dict[str, Any]:
        view = self.view(kb_version)
        if source is not None and source not in self.kb.sources:
            raise NotFound(f"no source {source!r}", [Issue(f"no source {source!r}", field="source", allowed=sorted(self.kb.sources))])
        audit = self.audit_result(view.name)
        out = []
        for f in sorted(view.claims, key=lambda f: f.id):
            if source and f.source != source:
                continue
            d = f.as_dict()
            if audit is not None:
                d["audit"] = audit.status_of(f.id)
            out.append(d)
        return {"kb_version": view.name, "claims": out}

    def claim(self, cid: str, kb_version: str | None = None) -> dict[str, Any]:
        view = self.view(kb_version)
        f = view.facts.get(cid.split("@")[0])
        if f is None or f.tier != "claim":
            raise NotFound(f"no claim {cid!r} in release {view.name}", [Issue(f"no claim {cid!r}", field="id")])
        d = f.as_dict()
        d["kb_version"] = view.name
        audit = self.audit_result(view.name)
        if audit is not None:
            d["audit"] = audit.status_of(f.id)
            d["findings"] = audit.findings_for(f.id)
        d["versions"] = [g.as_dict() for g in self.kb.all_facts if g.id == f.id]
        return d

    def versions(self) -> dict[str, Any]:
        out = []
        for r in self.kb.releases:
            v = self.view(r.name)
            out.append({**r.as_dict(), "counts": {"claims": len(v.claims), "reference": len(v.reference),
                                                   "sources": len(v.source_ids), "rules": len(self.rules.rules)}})
        return {"versions": out, "latest": self.kb.latest}


def _walk(t: dict):
    yield t
    for p in t.get("premises", []) or []:
        yield from _walk(p)
