"""gpukb's single entry point: one object that loads a KB and its rules and answers every question.

The CLI and the HTTP API are thin layers over :class:`GpuKB`; both print the dicts it returns.
"""
from __future__ import annotations

import copy
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from . import scenario as scen
from . import sizing
from ..errors import BadInput, Issue, NotFound
from .explain import leaves, tree, walk, why_not
from ..kb.store import KB, ReleaseView, load_kb
from ..kb.labels import gb, params_text
from ..reasoning.reasoner import Reasoner
from ..reasoning.rules import RuleSet, load_rules
from ..paths import DEFAULT_KB, DEFAULT_RULES



ACTION_TEXT = {  # recommendation actions in words (English, Chinese)
    "use_fp16": ("train in FP16 mixed precision", "改用 FP16 混合精度"),
    "gradient_checkpointing": ("turn on gradient checkpointing", "开启梯度检查点"),
    "flash_attention": ("use FlashAttention", "使用 FlashAttention"),
    "method_lora": ("switch to LoRA", "改用 LoRA"),
    "method_qlora": ("switch to QLoRA", "改用 QLoRA"),
    "zero3": ("use ZeRO-3", "使用 ZeRO-3"),
    "more_gpus": ("use more GPUs with ZeRO-3", "增加 GPU 数量并使用 ZeRO-3"),
    "family": ("move to another instance family", "换用其他实例族"),
    "network_bound": ("use fewer, larger instances or NVLink GPUs", "改用更少、更大的实例或带 NVLink 的 GPU"),
}


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
        key = ("query", view.name, scen.conclusion_id(s, view.name), tuple(notes))
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
        family_gpus: dict[str, Any] = {}
        for rec in sorted(r.all("recommendation"), key=lambda x: (x.get("rank") or 99, str(x.get("detail")))):
            change = self._change_of(rec)
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
                                    "rule_rank": rec.get("rank"), "fact": rec["fk"]}
            if change:
                body = {**scen.inputs(r.scenario), **change}
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
            if rec["action"] == "family":
                g = view.ref(change["family"], "gpu")
                family_gpus[tuple(g.value) if g is not None else change["family"]] = item
                if not item.get("fits") and "need_gb" in item:
                    # how many of that family's GPUs would it take
                    try:
                        s3, n3 = scen.normalise({k: v for k, v in body.items() if v is not None}, self.kb.vocab)
                        mg = self.run_scenario(s3, n3, view).one("min_gpus")
                        if mg and mg.get("n"):
                            item["min_gpus"] = mg["n"]
                    except BadInput:
                        pass
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
        """The largest parameter count that fits, other inputs unchanged.

        Memory grows almost linearly with the parameter count, so a few secant steps over the rules'
        own totals find the boundary; the answer is then checked to fit (and stepped down if not).
        """
        base = {k: v for k, v in scen.inputs(s).items() if k != "model"}

        def total(n: float) -> tuple[float, float] | None:
            try:
                s2, n2 = scen.normalise({**base, "params": n}, self.kb.vocab)
            except BadInput:
                return None
            v = self.run_scenario(s2, n2, view).one("verdict")
            return (v["need_gb"], v["capacity_gb"]) if v else None

        n1 = s.get("params")
        if n1 is None:
            pc = view.ref(s["model"], "params") if s.get("model") else None
            n1 = pc.norm.lo if pc is not None else None
        if not n1:
            return None
        t1 = total(n1)
        if t1 is None:
            return None
        cap = t1[1]
        n0, t0 = n1 / 2, total(n1 / 2)
        if t0 is None:
            return None
        for _ in range(6):
            slope = (t1[0] - t0[0]) / (n1 - n0) if n1 != n0 else 0
            if slope <= 0:
                break
            n_new = n1 + (cap - t1[0]) / slope
            if n_new < 1e3:
                return None
            n0, t0 = n1, t1
            n1, t1 = n_new, total(n_new)
            if t1 is None or abs(t1[0] - cap) < cap * 1e-3:
                break
        if t1 is None:
            return None
        for _ in range(20):  # report a rounded size that really fits
            shown = float(f"{n1:.3g}")
            t_shown = total(shown)
            if t_shown is not None and t_shown[0] <= cap:
                return shown
            n1 *= 0.97
        return None

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
        """The audit of a release (computed once per release and engine)."""
        from .audit import run_audit
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
        for node in walk(t):
            for c in node.get("cites", []) or []:
                rule_cites.append(cite({"type": "reference", "fact": c["id"], "citation": c.get("citation")}))
        marks = "".join(f"[{i}]" for i in sorted(set(ref_marks + rule_cites))[:8])
        meth_en = {"full": "Full fine-tuning", "lora": "LoRA fine-tuning", "qlora": "QLoRA fine-tuning", "pretrain": "Pre-training", "inference": "Inference"}[sc["method"]]
        if sc.get("model"):
            what_en = what_zh = vocab.label("model:" + sc["model"])
        meth_zh = {"full": "全量微调", "lora": "LoRA 微调", "qlora": "QLoRA 微调", "pretrain": "预训练", "inference": "推理"}[sc["method"]]
        fits = a["verdict"] == "fits"
        en = [f"{meth_en} of {what_en} on {hw} {'fits' if fits else 'does not fit'}: it needs about "
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
            en.append(f"Cheapest change that fits: {ACTION_TEXT.get(r0['action'], (r0['action'],))[0]} ({r0['cost']}).")
            zh.append(f"能放下的最小改动：{ACTION_TEXT.get(r0['action'], (r0['action'], r0['action']))[1]}。")
        for p in a.get("precision", []):
            en.append(f"The {p['gpu']} has no native BF16, so use FP16 mixed precision.")
            zh.append(f"{p['gpu']} 不原生支持 BF16，应使用 FP16 混合精度。")
        caveats_en = list(a.get("notes", []))
        if any(n.get("type") == "arch" and (n.get("data") or {}).get("basis") == "approximation" for n in walk(t)):
            caveats_en.append("the model's shape was estimated from its parameter count")
        if a.get("contradictions"):
            caveats_en.append(f"{len(a['contradictions'])} source claim(s) disagree with this answer or its premises")
        return {"en": " ".join(en), "zh": "".join(zh), "citations": cites, "caveats": caveats_en}

    # -- labels ------------------------------------------------------------------------------------
    def vocabulary_label(self, what: str, key: str, lang: str = "en") -> str:
        """A display label from the vocabulary, for pages: `what` is "attribute", "entity" or the name
        of an enum (e.g. "component"); an unknown key is returned unchanged."""
        vocab = self.kb.vocab
        if what == "attribute":
            attr = vocab.attributes.get(key)
            return (attr.zh if lang == "zh" else attr.en) if attr else key
        if what == "entity":
            return vocab.label(key) if key in vocab.entities else key
        return vocab.enum_label(what, key, lang)

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

    # -- questions in natural language ---------------------------------------------------------------
    def ask(self, q: str, lang: str | None = None, kb_version: str | None = None) -> dict[str, Any]:
        """Answer an English or Chinese question: a sizing answer, a fact answer, or what is missing."""
        from .ask_parser import parse_question
        if lang is not None and lang not in ("en", "zh"):
            raise BadInput(f"unknown language {lang!r}", [Issue(f"unknown language {lang!r}", field="lang", allowed=["en", "zh"])])
        view = self.view(kb_version)
        parsed = parse_question(q, self.kb.vocab, lang)
        lang = lang or parsed.lang
        base = {"question": q, "lang": lang, "kb_version": view.name, "parsed": parsed.as_dict()}
        if parsed.kind == "sizing" and not parsed.missing:
            body = {k: v for k, v in parsed.scenario.items()}
            try:
                ans = self.query({**body, "kb_version": view.name})
            except BadInput as exc:
                return {**base, "kind": "unknown", "understood": parsed.understood, "missing": [str(i) for i in exc.issues] or [exc.message],
                        "examples": parsed.examples}
            ans = {**base, "kind": "sizing", **ans}
            ans["negated"] = parsed.negated
            if parsed.negated and ans["verdict"] == "fits":
                ans["note"] = {"en": "The question asks why not, but it does fit.", "zh": "问题问为什么不行，但实际上放得下。"}
            ans["answer"] = ans["summary"][lang]
            return ans
        if parsed.kind == "fact" and parsed.fact:
            return {**base, "kind": "fact", **self.fact(parsed.fact["subject"], parsed.fact["attribute"], view, lang)}
        return {**base, "kind": "unknown", "understood": parsed.understood, "missing": parsed.missing or ["what to look up"],
                "examples": parsed.examples,
                "answer": ("我没能理解这个问题。缺少：" if lang == "zh" else "I could not answer this question. Missing: ")
                          + ", ".join(parsed.missing or ["what to look up"])}

    def fact(self, subject: str, attribute: str, view: ReleaseView, lang: str = "en") -> dict[str, Any]:
        """A fact answer: the reference value, its citation, and the source claims for and against it."""
        vocab = self.kb.vocab
        ref = view.ref(subject, attribute)
        audit = self.audit_result(view.name)
        claims = [c for c in view.claims if c.subject == subject and c.attribute == attribute]
        support, disagree = [], []
        for c in claims:
            st = audit.status_of(c.id)["status"] if audit else "unverifiable"
            item = {**_claim_brief(c), "status": st, "value": c.value_text(vocab)}
            (support if st == "supported" else disagree).append(item)
        attr = vocab.attributes.get(attribute)
        if ref is not None:
            value = ref.value if not isinstance(ref.value, list) else [v.split(":")[-1] if isinstance(v, str) else v for v in ref.value]
            fact = {"subject": subject, "attribute": attribute, "value": value, "unit": ref.unit,
                    "text": ref.value_text(vocab), "id": ref.key}
            answer_en = f"{vocab.label(subject)} {attr.en if attr else attribute}: {ref.value_text(vocab)} [1: {ref.citation}, {ref.confidence} confidence]."
            answer_zh = f"{vocab.label(subject)} 的{attr.zh if attr else attribute}：{ref.value_text(vocab)} [1：{ref.citation}，置信度 {ref.confidence}]。"
            if ref.note:
                answer_en += f" Note: {ref.note}"
            support_ref = [{"type": "reference", "id": ref.key, "citation": ref.citation, "confidence": ref.confidence}]
        else:
            fact = {"subject": subject, "attribute": attribute, "value": None, "text": "not in the reference tier"}
            answer_en = f"The reference tier has no {attr.en if attr else attribute} for {vocab.label(subject)}."
            answer_zh = f"参考层中没有 {vocab.label(subject)} 的{attr.zh if attr else attribute}。"
            support_ref = []
        if disagree:
            answer_en += f" {len(disagree)} source claim(s) say otherwise or cannot be confirmed."
            answer_zh += f" 有 {len(disagree)} 条来源说法与此不同或无法确认。"
        return {"conclusion_id": f"{ref.key}" if ref is not None else None, "fact": fact,
                "support": support_ref + [{"type": "claim", **x} for x in support],
                "contradictions": disagree, "answer": answer_en if lang == "en" else answer_zh,
                "summary": {"en": answer_en, "zh": answer_zh}}

    # -- explanations ------------------------------------------------------------------------------
    def explain(self, cid: str, fmt: str = "json", lang: str = "en") -> Any:
        """Why / why-not of a conclusion (Q- sizing id, A- finding id, or a fact id) in one format."""
        from . import export
        if fmt not in ("json", "text", "prov", "dot"):
            raise BadInput(f"unknown format {fmt!r}", [Issue(f"unknown format {fmt!r}", field="format", allowed=["json", "text", "prov", "dot"])])
        if lang not in ("en", "zh"):
            raise BadInput(f"unknown language {lang!r}", [Issue(f"unknown language {lang!r}", field="lang", allowed=["en", "zh"])])
        if not isinstance(cid, str) or not cid or len(cid) > 2000:
            raise BadInput("a conclusion id is required", [Issue("expected a conclusion id", field="id")])
        if cid.startswith("Q-"):
            release, sc = scen.decode_conclusion_id(cid)
            view = self.view(release)
            s, notes = scen.normalise(sc, self.kb.vocab)
            ans = self._cached(("query", view.name, scen.conclusion_id(s, view.name), tuple(notes)), lambda: self._sizing_answer(s, notes, view))
            doc = {"conclusion_id": cid, "kind": "sizing", "kb_version": view.name, "scenario": ans["scenario"],
                   "conclusion": {"verdict": ans["verdict"], "label": ans["explanation"]["tree"]["label"]},
                   "holds": True, "tree": ans["explanation"]["tree"], "why_not": ans.get("why_not"),
                   "summary": ans["summary"], "contradictions": ans["contradictions"], "sources": ans["sources"]}
        elif cid.startswith("A-"):
            view = self.view(None)
            audit = self.audit_result(view.name)
            f = next((x for x in audit.findings if x["id"] == cid), None)
            if f is None:
                raise NotFound(f"no finding {cid!r} in release {view.name}", [Issue(f"no finding {cid!r}", field="id")])
            t = tree(audit.derivation, f["fact"], view, self.rules, audit.corroboration)
            doc = {"conclusion_id": cid, "kind": "finding", "kb_version": view.name, "finding": f, "holds": True, "tree": t,
                   "summary": f["explanation"]}
        else:
            view = self.view(None)
            fact = view.facts.get(cid.split("@")[0])
            if fact is None:
                raise NotFound(f"no conclusion or fact {cid!r}", [Issue(f"no conclusion or fact {cid!r}", field="id")])
            audit = self.audit_result(view.name)
            node = {"fact": fact.key, "type": "claim" if fact.tier == "claim" else "ref", "given": True,
                    "label": {"en": fact.gloss_en or fact.value_text(self.kb.vocab), "zh": fact.quote or fact.value_text(self.kb.vocab)},
                    "tier": "claim" if fact.tier == "claim" else "reference"}
            if fact.tier == "claim":
                node.update(source=fact.source, quote=fact.quote, span=list(fact.span or []))
            else:
                node.update(citation=fact.citation, confidence=fact.confidence, stated_by=audit.corroboration.get(fact.id, []))
            doc = {"conclusion_id": fact.key, "kind": "fact", "kb_version": view.name, "holds": True, "tree": node,
                   "status": audit.status_of(fact.id) if fact.tier == "claim" else None,
                   "findings": audit.findings_for(fact.id) if fact.tier == "claim" else []}
        if fmt == "json":
            return doc
        if fmt == "text":
            return export.to_text(doc["tree"], lang)
        if fmt == "dot":
            return export.to_dot(doc["tree"], lang)
        return export.to_prov(doc["tree"], {k: v.as_dict() for k, v in self.kb.sources.items()})

    # -- audit, releases, validation ----------------------------------------------------------------
    def audit(self, source: str | None = None, kind: str | None = None, kb_version: str | None = None,
              fmt: str | None = None) -> dict[str, Any]:
        from .audit import audit_answer, claimreview
        if fmt not in (None, "json", "claimreview"):
            raise BadInput(f"unknown format {fmt!r}", [Issue(f"unknown format {fmt!r}", field="format", allowed=["json", "claimreview"])])
        view = self.view(kb_version)
        res = self.audit_result(view.name)
        if fmt == "claimreview":
            if source is not None and source not in self.kb.sources:
                raise BadInput(f"unknown source {source!r}", [Issue(f"unknown source {source!r}", field="source", allowed=sorted(self.kb.sources))])
            return claimreview(res, view, source)
        return audit_answer(res, view, source, kind)

    def diff(self, a: str, b: str) -> dict[str, Any]:
        from .diff import diff
        return self._cached(("diff", a, b), lambda: diff(self, a, b))

    def watchlist(self) -> list[dict[str, Any]]:
        from .diff import load_watchlist
        return load_watchlist(self.kb_dir / "watchlist.yaml")

    def validate(self, fill_spans: bool = False) -> dict[str, Any]:
        """Counts of what loaded (loading already validated everything); see :func:`validate_dirs`."""
        if fill_spans:
            return validate_dirs(self.kb_dir, self.rules_dir, fill_spans=True)
        return {"ok": True, "claims": sum(1 for f in self.kb.all_facts if f.tier == "claim"),
                "reference": sum(1 for f in self.kb.all_facts if f.tier == "reference"),
                "rules": len(self.rules.rules), "releases": len(self.kb.releases), "sources": len(self.kb.sources)}

    def versions(self) -> dict[str, Any]:
        out = []
        for r in self.kb.releases:
            v = self.view(r.name)
            out.append({**r.as_dict(), "counts": {"claims": len(v.claims), "reference": len(v.reference),
                                                   "sources": len(v.source_ids), "rules": len(self.rules.rules)}})
        return {"versions": out, "latest": self.kb.latest}


def validate_dirs(kb_dir: str | Path = DEFAULT_KB, rules_dir: str | Path = DEFAULT_RULES,
                  fill_spans: bool = False) -> dict[str, Any]:
    """Validate a KB and rules directory without building an engine; with ``fill_spans`` write the
    spans of claims that have only a quote. Raises ValidationError listing every problem."""
    kb = load_kb(kb_dir, fill_spans=fill_spans)
    rules = load_rules(rules_dir, {f.id for f in kb.all_facts if f.tier == "reference"})
    return {"ok": True, "claims": sum(1 for f in kb.all_facts if f.tier == "claim"),
            "reference": sum(1 for f in kb.all_facts if f.tier == "reference"), "rules": len(rules.rules),
            "releases": len(kb.releases), "sources": len(kb.sources)}


def _claim_brief(c) -> dict[str, Any]:
    return {"id": c.id, "source": c.source, "quote": c.quote, "span": list(c.span or [])}


