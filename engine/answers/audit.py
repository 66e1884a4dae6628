"""The audit: every claim checked against the reference tier, the other sources and gpukb's own sizing.

All judgements are rules (rules/audit/): findings, and the resolution policy that ranks them. This
module prepares the run (claim records, and one sizing scenario per checkable claim so the rules can
compare the claim with a computation for the claim's own scope), then reads the findings back,
writes their explanations and picks each claim's status as its highest-ranked resolution.
"""
from __future__ import annotations

import hashlib
import re
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..kb import facts as factrec
from . import scenario as scen
from ..errors import BadInput, Issue
from .audit_blocks import catalog_models, group_pairs
from .audit_gaps import reason as unverifiable_reason
from .explain import walk
from ..kb.store import Fact, ReleaseView
from ..kb.labels import fact_label, gb
from ..reasoning.reasoner import Derivation
from ..kb.vocabulary import Interval
from ..terms import FINDING_KINDS, label as term_label

KINDS = FINDING_KINDS
SEVERITY = {k: i for i, k in enumerate(KINDS)}
CHECKED_ATTRS = {"memory_verdict", "suitability", "memory_required", "min_gpus", "max_params"}
CONCEPT_METHOD = {"concept:llm-full-finetune": "full", "concept:llm-peft": "lora", "concept:llm-pretrain": "pretrain"}
RATING = {"supported": 5, "scope_dependent": 4, "unverifiable": 3, "understated": 2, "overstated": 2,
          "contradiction": 2, "inconsistent_with_derivation": 1, "incorrect": 1, "misattributed": 1}


# ---------------------------------------------------------------------------------------------
# checkable claims → scenarios

def check_scenarios(view: ReleaseView, claims: list[Fact] | None = None) -> list[tuple[Fact, str, dict[str, Any]]]:
    """For each claim whose scope names a method, a model size and (for verdicts) hardware, the
    query bodies that reproduce that scope: (claim, pick, body). A range of sizes is checked at the
    end that would refute the claim (the largest size for "it fits", the smallest for "it does not")."""
    vocab = view.kb.vocab
    out = []
    for c in view.claims if claims is None else claims:
        if c.attribute not in CHECKED_ATTRS:
            continue
        q = c.qualifiers
        method = (q.get("method") or "").split(":")[-1] or CONCEPT_METHOD.get(c.subject) or task_method(q.get("task"), vocab)
        techniques = set(q.get("techniques") or [])
        open_bits = False
        if method == "lora" and ({"technique:quantization", "software:bitsandbytes"} & techniques):
            method = "qlora"
            # quantized, but to how many bits? bitsandbytes loads a base in 8 or in 4 bits
            open_bits = not q.get("precision")
        if method not in scen.METHODS:
            continue
        polarity = vocab.polarity(str(c.value)) if c.attribute in ("memory_verdict", "suitability") else 0
        sizes: list[tuple[str, dict]] = []
        for m in q.get("model") or []:
            if view.ref(m, "params") is not None:
                sizes.append((m.split(":")[1], {"model": m}))
        if c.subject.startswith("model:") and view.ref(c.subject, "params") is not None and not sizes:
            sizes.append((c.subject.split(":")[1], {"model": c.subject}))
        top = None
        if c.attribute == "max_params" and isinstance(c.norm, Interval) and (c.norm.hi or c.norm.lo):
            # "it trains models up to X": X must fit
            top = c.norm.hi or c.norm.lo
            sizes = [(f"{top / 1e9:g}B", {"params": top})]
        p = q.get("params")
        if not sizes and isinstance(p, Interval):
            if polarity > 0 and p.hi is not None:
                sizes.append((f"{p.hi / 1e9:g}B", {"params": p.hi}))
            elif p.lo is not None:
                sizes.append((f"{p.lo / 1e9:g}B", {"params": p.lo}))
        if not sizes and polarity != 0:
            # the claim leaves the model open: probe the smallest and the largest model of the catalog;
            # if the verdict differs between them the claim depends on a scope it does not state
            sizes = probe_sizes(view, [m for m in q.get("model") or [] if view.ref(m, "params") is None],
                                sequence=isinstance(q.get("seq_len"), Interval))
        if not sizes:
            continue
        hw: dict[str, Any] = {}
        if q.get("gpu"):
            hw = {"gpu": q["gpu"]}
        elif c.subject.startswith("gpu:"):
            hw = {"gpu": c.subject}
        elif c.subject.startswith("family:") and view.ref(c.subject, "gpu") is not None:
            hw = {"family": c.subject}
        elif q.get("instance"):
            hw = {"instance": q["instance"]}
        if not hw:
            if c.attribute in ("memory_verdict", "suitability", "min_gpus", "max_params"):
                continue
            hw = {"vram_gb": 80}  # memory needs do not depend on the card; any capacity will do
        body: dict[str, Any] = {"method": method, **hw}
        if q.get("optimizer") and method != "inference":
            body["optimizer"] = q["optimizer"].split(":")[1]
        precs = [x.split(":")[1] for x in q.get("precision") or []]
        if precs and method not in ("qlora",) and precs[0] in scen.PRECISIONS:
            body["precision"] = precs[0]
        if "technique:gradient_checkpointing" in techniques and method != "inference":
            body["gradient_checkpointing"] = True
        if method == "qlora":
            # what practitioners run: QLoRA's paper and PEFT's prepare_model_for_kbit_training turn
            # gradient checkpointing on for k-bit training
            body["gradient_checkpointing"] = True
        if "technique:flash_attention" in techniques:
            body["flash_attention"] = True
        b = q.get("batch")
        if isinstance(b, Interval) and (b.hi or b.lo):
            body["batch"] = int(b.hi or b.lo)
        g = q.get("gpus")
        if isinstance(g, Interval) and (g.lo or g.hi):
            body["gpus"] = int(g.lo or g.hi)
        s = q.get("seq_len")
        if isinstance(s, Interval) and (s.lo or s.hi):
            # checked at the end that would refute the claim: the longest for "it fits", the shortest
            # for "it does not"
            n = s.hi if polarity > 0 and s.hi else (s.lo or s.hi)
            body["seq_len"] = int(min(max(n, 1), 1_048_576))
        if c.attribute == "memory_required" and open_bits:
            # a need for a quantized base that leaves the bit width open: sized at 8 bits and at 4
            for pick, size in sizes:
                eight = {k: v for k, v in body.items() if k != "gradient_checkpointing"}
                out.append((c, f"probe:most {pick} int8", {**eight, **size, "method": "lora", "precision": "int8"}))
                out.append((c, f"probe:least {pick} nf4", {**body, **size}))
            continue
        if c.attribute == "max_params" and not q.get("method") and method in ("full", "lora", "qlora"):
            # a largest trainable model with no method stated: it depends on the method when full
            # training and QLoRA (the most and the least demanding) disagree
            least = {k: v for k, v in body.items() if k not in ("precision", "optimizer")}
            for pick, size in sizes:
                out.append((c, f"probe:most {pick} full", {**body, **size, "method": "full"}))
                out.append((c, f"probe:least {pick} qlora", {**least, **size, "method": "qlora", "gradient_checkpointing": True}))
            if c.modality == "recommendation" and top:
                # a recommended cap is too cautious when a clearly larger model (25% more) fits the least
                # demanding method
                above = top * 1.25
                out.append((c, f"probe:above {above / 1e9:g}B qlora",
                            {**least, "params": above, "method": "qlora", "gradient_checkpointing": True}))
            continue
        for pick, size in sizes:
            out.append((c, pick, {**body, **size}))
    return out


def probe_sizes(view: ReleaseView, families: list[str] | None = None,
                sequence: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """The smallest and the largest model of the catalog (by parameter count), as probe picks; within
    the named model families ("ResNet" = resnet-50, resnet-101) when the catalog has members of them,
    and among sequence models (those with a hidden size: transformers) when the claim names a
    sequence length."""
    models = catalog_models(view, families, sequence=sequence)
    if len(models) == 1 and families:
        models = models * 2
    if len(models) < 2:
        return []
    return [(f"probe:smallest {models[0][1].split(':')[1]}", {"model": models[0][1]}),
            (f"probe:largest {models[-1][1].split(':')[1]}", {"model": models[-1][1]})]


def task_method(tasks: Any, vocab) -> str | None:
    """The method a claim means when it names only a task: inference for serving, full training for a
    kind of training (what a claim of "training" a named model means unless it names LoRA or QLoRA)."""
    names = [str(t) for t in (tasks or [])]
    roles = lambda t: set((vocab.enums.get("task", {}).get(t) or {}).get("roles") or ())   # noqa: E731
    if names and all(t == "inference" or roles(t) == {"inference"} for t in names):
        return "inference"      # serving, or a task whose only role is inference (RAG application work)
    if any("training" in vocab.enum_chain("task", t) and t != "pretraining" for t in names):
        return "full"
    return None


# ---------------------------------------------------------------------------------------------
# the run

@dataclass
class AuditResult:
    release: str
    derivation: Derivation
    findings: list[dict[str, Any]]
    statuses: dict[str, dict[str, Any]]
    corroboration: dict[str, list[dict]]
    by_claim: dict[str, list[dict]] = field(default_factory=dict)
    view: Any = None
    parts: list[Derivation] = field(default_factory=list)   # the batches' derivations (a blocked run)
    run: Any = None                 # the blocks of a blocked run (audit_run.AuditRun)
    recompute: Any = None           # claim id -> the derivation of its block, when proofs were dropped

    def proof(self, cid: str) -> Derivation:
        """The derivation that holds the findings of claim ``cid`` (recomputed for its block when a
        large audit dropped its proofs)."""
        if self.derivation is not None:
            return self.derivation
        for d in self.parts:
            if any(f.get("claim") == cid for f in d.derived("finding")):
                return d
        if self.recompute is not None:
            d = self.recompute(cid)
            if d is not None:
                return d
        return Derivation({}, [], set())

    def full_derivation(self) -> Derivation:
        """Every fact and firing of the audit in one derivation (a blocked run's batches merged)."""
        if self.derivation is not None:
            return self.derivation
        facts: dict[str, dict[str, Any]] = {}
        given: set[str] = set()
        firings, seen = [], set()
        for d in self.parts:
            facts.update(d.facts)
            given |= d.given
            for f in d.firings:
                k = (f.rule, f.premises, f.derived)
                if k not in seen:
                    seen.add(k)
                    firings.append(f)
        return Derivation(facts, firings, given)

    def status_of(self, cid: str) -> dict[str, Any]:
        return self.statuses.get(cid, {"status": "unverifiable", "rank": 0, "findings": []})

    def findings_for(self, cid: str) -> list[dict[str, Any]]:
        return self.by_claim.get(cid, [])

    def summary(self) -> dict[str, Any]:
        out: dict[str, dict[str, int]] = {}
        for cid, st in self.statuses.items():
            src = cid.split("-")[0]
            out.setdefault(src, {k: 0 for k in KINDS})[st["status"]] += 1
        return {s: {"claims": sum(v.values()), "by_status": v} for s, v in sorted(out.items())}

    def disagreeing_with(self, tree: dict, s: dict[str, Any]) -> list[dict[str, Any]]:
        """Source claims that disagree with an answer's premises or its conclusion, with their status."""
        view = self.view
        out: dict[str, dict] = {}
        refs = set()
        for node in walk(tree):
            if node.get("tier") == "reference":
                f = view.facts.get((node.get("data") or {}).get("fid", ""))
                if f is not None:
                    refs.add((f.subject, f.attribute))
        for c in view.claims:
            st = self.status_of(c.id)
            if st["status"] == "supported":
                continue
            why = None
            if (c.subject, c.attribute) in refs:
                why = "premise"
            elif c.attribute == "memory_required" and (c.qualifiers.get("method") == f"method:{s['method']}"
                                                       or CONCEPT_METHOD.get(c.subject) == s["method"]):
                why = "conclusion"
            elif c.attribute in ("memory_verdict", "suitability", "min_gpus") and c.qualifiers.get("method") == f"method:{s['method']}":
                hw = {s.get("gpu"), s.get("family"), s.get("instance")}
                if c.subject in hw or c.qualifiers.get("gpu") in hw:
                    why = "conclusion"
            if why:
                out[c.id] = {"claim": claim_ref(c), "relates_to": why, "status": st["status"],
                             "findings": [f["id"] for f in self.findings_for(c.id)][:5]}
        return sorted(out.values(), key=lambda x: (x["relates_to"] != "conclusion", x["claim"]["id"]))


def claim_ref(c: Fact) -> dict[str, Any]:
    return {"id": c.id, "version": c.version, "source": c.source, "quote": c.quote, "span": list(c.span or []),
            "gloss_en": c.gloss_en}


def audit_block(service, view: ReleaseView, reference: list[Fact] | None = None,
                progress: Any = None) -> AuditResult:
    """Audit every claim of ``view`` in one engine run (the service supplies the reasoner).
    ``reference`` limits the reference facts given to the rules (default: the whole tier; see
    :mod:`audit_blocks`)."""
    refs = view.reference if reference is None else reference
    claim_recs = claim_records(view, view.claims)
    groups = factrec.group_records(claim_recs)
    records = reference_records(view, refs) + groups + group_pairs(groups) + claim_recs
    return audit_records(service, view, view.claims, records, progress)


def claim_records(view: ReleaseView, claims: list[Fact]) -> list[dict[str, Any]]:
    """The engine records of claims: the fact, its source's date and the context it is judged in."""
    vocab = view.kb.vocab
    out = []
    for f in claims:
        r = factrec.record(f, vocab)
        src = view.kb.sources.get(f.source or "")
        r["pub"] = (src.published or "") if src else ""
        r.update(claim_context(view, f))
        out.append(r)
    return out


def reference_records(view: ReleaseView, refs: list[Fact]) -> list[dict[str, Any]]:
    """The engine records of reference facts, with the sizes, variants and effects the rules read."""
    vocab = view.kb.vocab
    return [factrec.record(f, vocab) for f in refs] + size_records(view, refs) + variant_records(refs) + [effect_record(view)]


def audit_records(service, view: ReleaseView, checked: list[Fact], records: list[dict[str, Any]],
                  progress: Any = None, premises_named: bool = True) -> AuditResult:
    """One engine run over prepared records, with a sizing scenario for each claim of ``checked``
    whose scope can be computed; the findings and statuses read back."""
    vocab = view.kb.vocab
    records = list(records)
    scenarios: dict[str, dict] = {}
    for c, pick, body in check_scenarios(view, checked):
        try:
            s, _ = scen.normalise(body, vocab, view)
        except BadInput:
            continue
        qid = "chk-" + hashlib.sha1(json.dumps(s, sort_keys=True, default=str).encode()).hexdigest()[:12]
        if qid not in scenarios:
            rec = scen.record(s, qid, purpose="audit")
            rec["has_arch"] = int(all(view.ref(s.get("model"), a) is not None for a in ("layers", "hidden_size", "heads"))) if s.get("model") else 0
            scenarios[qid] = rec
        probe = {"probe:smallest": 1, "probe:largest": 2, "probe:most": 3, "probe:least": 4, "probe:above": 5}.get(" ".join(pick.split()[:1]), 0)
        records.append({"t": "check", "fk": f"check:{c.id}:{pick}", "claim": c.id, "qid": qid, "pick": pick, "probe": probe})
    records += list(scenarios.values())
    d = service.reasoner.run(records, progress=progress)
    return _collect(view, d, premises_named, service.reasoner.ruleset)


def _holds(claim: Interval, v: float, tol: float = 0.1) -> bool:
    """Does the value ``v`` satisfy the claimed interval? Within 10% of an inclusive end; a strict end
    (\"more than 16\") excludes the value itself."""
    if claim.lo is not None:
        if claim.lo_strict and v <= claim.lo:
            return False
        if not claim.lo_strict and v < claim.lo - abs(claim.lo) * tol:
            return False
    if claim.hi is not None:
        if claim.hi_strict and v >= claim.hi:
            return False
        if not claim.hi_strict and v > claim.hi + abs(claim.hi) * tol:
            return False
    return True


def _source_gpu(view: ReleaseView, source: str | None, family: str) -> Fact | None:
    """The claim of ``source`` that gives ``family`` its GPU (the latest of them), if any."""
    idx = view.__dict__.get("_source_gpus")
    if idx is None:
        idx = {}
        for f in sorted(view.claims, key=lambda f: f.id):
            if f.attribute == "gpu" and f.subject.startswith("family:"):
                idx[(f.source, f.subject)] = f
        view.__dict__["_source_gpus"] = idx
    return idx.get((source, family))


def claim_context(view: ReleaseView, c: Fact) -> dict[str, Any]:
    """The family a claim speaks in the context of (its subject, its family qualifier, else what its
    source is about) and that family's vendor, for the rules that compare products with their context."""
    src = view.kb.sources.get(c.source or "")
    about = [a for a in (src.about if src else ()) if a.startswith("family:")]
    named = [f for f in (c.subject if c.subject.startswith("family:") else None,
                         c.qualifiers.get("family") if isinstance(c.qualifiers.get("family"), str) else None) if f]
    fam = (named or about or [None])[0]
    out: dict[str, Any] = {}
    if fam:
        out["ctx_family"] = fam
    for f in named + about:                 # the vendor of the first family the catalog knows
        vendor, listed = view.ref(f, "vendor"), view.ref(f, "in_catalog")
        if vendor is not None and listed is not None and listed.value:
            out["ctx_vendor"] = vendor.value
            break
    # the GPU the claim is about, and whether the claim itself names it (1) or only its source's subject does (0)
    gpu, stated = None, 1
    if c.subject.startswith("gpu:"):
        gpu = c.subject
    elif isinstance(c.qualifiers.get("gpu"), str):
        gpu = c.qualifiers["gpu"]
    elif fam:
        carried = view.ref(fam, "gpu")
        if carried is None and view.ref(fam, "in_catalog") is not None:
            # a name the catalog does not list: judged on the hardware its own source gives it
            carried = _source_gpu(view, c.source, fam)
            if carried is not None:
                out["ctx_gpu_by"] = carried.id
        if carried is not None and isinstance(carried.value, list) and len(carried.value) == 1:
            gpu = carried.value[0]
        stated = 1 if (c.subject == fam or c.qualifiers.get("family") == fam) else 0
    if gpu:
        out["ctx_gpu"], out["ctx_stated"] = gpu, stated
    else:
        out.pop("ctx_gpu_by", None)
    variants = view.kb.vocab.entities.get(c.subject, {}).get("variants") if c.subject.startswith("gpu:") else None
    if variants:
        out["gpu_variants"] = [str(v) for v in variants]
        # a figure claimed for a generic GPU: which of its variants have it (the V100's 16 GB card is not
        # "more than 16 GB", its 32 GB card is)
        if isinstance(c.norm, Interval):
            held, missed = [], []
            for v in variants:
                ref = view.ref(str(v), c.attribute)
                if ref is None or ref.qualifiers or not isinstance(ref.norm, Interval) or ref.norm.point() is None:
                    held = missed = []
                    break
                (held if _holds(c.norm, ref.norm.point()) else missed).append(ref.key)
            if held or missed:
                out["var_n"], out["var_held"] = len(held) + len(missed), len(held)
                out["var_key"] = (missed or held)[0]
    cmp = [str(x) for x in c.qualifiers.get("compared_to") or []]
    if len(cmp) == 1:
        other = view.ref(cmp[0], "gpu") if cmp[0].startswith("family:") else None
        if cmp[0].startswith("gpu:"):
            out["cmp_gpu"] = cmp[0]
        elif other is not None and isinstance(other.value, list) and len(other.value) == 1:
            out["cmp_gpu"] = other.value[0]
    if out.get("ctx_gpu") and out.get("cmp_gpu"):
        # how many times the claim's GPU has the other's figure, for each figure that bounds training speed
        ratios, keys, others = [], [], []
        for m in view.kb.vocab.speed_figures():
            a, b = view.ref(out["ctx_gpu"], m), view.ref(out["cmp_gpu"], m)
            if a is None or b is None or a.qualifiers or b.qualifiers:
                continue
            lo_a, lo_b = getattr(a.norm, "lo", None), getattr(b.norm, "lo", None)
            if lo_a and lo_b:
                ratios.append(lo_a / lo_b)
                keys.append(a.key)
                others.append(b.id)
        if ratios:
            out["cmp_ratios"], out["cmp_keys"], out["cmp_others"] = ratios, keys, others
    # the GPU figures that measure the resources a claim names (a bottleneck of GPU memory -> memory_gb)
    views = view.kb.vocab.verdict_views(c.attribute, c.value)
    if views:
        out["as_verdicts"] = views
    measures, unmeasured = view.kb.vocab.measures(c.attribute, c.value)
    if measures:
        out["measures"], out["unmeasured"] = measures, unmeasured
    # the instance roles each task of the claim calls for; a cluster or multi-machine scale makes training large-scale
    vocab = view.kb.vocab
    large = c.qualifiers.get("scale") in ("cluster", "multi_node")
    condition = str(c.qualifiers.get("condition") or "").lower()
    said = {role for role, patterns in (vocab.cues.get("scale") or {}).items()
            if condition and any(re.search(p, condition) for p in patterns)}
    sets = []
    for t in c.qualifiers.get("task") or []:
        roles = vocab.task_roles(str(t))
        if large and "large_scale_training" in roles:
            roles = ("large_scale_training",)
        elif len(said) == 1 and set(roles) > said:      # the condition says which scale of training
            roles = tuple(said)
        if roles:
            sets.append("|".join(sorted(roles)))
    if sets:
        out["task_roles"] = sets
    # the hardware capabilities the techniques a claim relies on need (NVLink needs nvlink, RDMA rdma)
    mentioned = [c.subject] + [str(x) for x in c.qualifiers.get("techniques") or []]
    if isinstance(c.value, list):
        mentioned += [str(x) for x in c.value]
    needs = sorted({vocab.entities[e]["requires"] for e in mentioned if e in vocab.entities and vocab.entities[e].get("requires")})
    if needs:
        out["needs_hw"] = needs
    return out


def effect_record(view: ReleaseView) -> dict[str, Any]:
    """What the reference tier says each technique, method or tool does: the entities with a documented
    effect (and the key of that fact), and those whose effect is limited on a single GPU."""
    subjects, keys, single = [], [], []
    for f in sorted(view.reference, key=lambda f: f.id):
        if f.attribute == "effect" and not f.qualifiers and f.subject not in subjects:
            subjects.append(f.subject)
            keys.append(f.key)
            if "limited_on_single_gpu" in (f.value or []):
                single.append(f.subject)
    return {"t": "effects", "fk": "effects", "subjects": subjects, "keys": keys, "single_gpu_limited": single}


def variant_records(refs: list[Fact]) -> list[dict[str, Any]]:
    """One ``variants`` record per subject and quantity attribute that the reference gives only per
    variant (every fact qualified, e.g. by form factor): a claim that names no variant holds when every
    variant agrees, depends on the variant when some do."""
    by: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    plain: set[tuple[str, str]] = set()
    for f in refs:
        if not isinstance(f.norm, Interval):
            continue
        if f.qualifiers:
            by[(f.subject, f.attribute)].append(f)
        else:
            plain.add((f.subject, f.attribute))
    out = []
    for (subj, attr), facts in sorted(by.items()):
        if (subj, attr) in plain or len(facts) < 2:
            continue
        facts.sort(key=lambda f: f.id)
        out.append({"t": "variants", "fk": f"variants:{subj}:{attr}", "subject": subj, "attribute": attr,
                    "values": [f.norm.point() for f in facts], "keys": [f.key for f in facts],
                    "scopes": [";".join(f"{k}={v}" for k, v in sorted(f.qualifiers.items())) for f in facts],
                    "n": len(facts)})
    return out


def size_records(view: ReleaseView, reference: list[Fact] | None = None) -> list[dict[str, Any]]:
    """One ``sizes`` record per family and quantity attribute of its sizes: the values over every size
    (from the reference tier, or the part of it given), so the rules can say whether a family-level
    figure holds for all, some or none of them."""
    refs = view.reference if reference is None else reference
    members: dict[str, list[str]] = defaultdict(list)
    for f in refs:
        if f.attribute == "family" and isinstance(f.value, str) and not f.qualifiers:
            members[f.value].append(f.subject)
    by_size: dict[tuple[str, str], Fact] = {}
    for f in refs:
        if f.subject.startswith("instance:") and isinstance(f.norm, Interval) and not f.qualifiers:
            by_size.setdefault((f.subject, f.attribute), f)
    out = []
    for fam, sizes in sorted(members.items()):
        attrs = sorted({a for (s, a) in by_size if s in sizes})
        for a in attrs:
            facts = [(s, by_size[(s, a)]) for s in sorted(sizes) if (s, a) in by_size]
            out.append({"t": "sizes", "fk": f"sizes:{fam}:{a}", "subject": fam, "attribute": a,
                        "values": [f.norm.point() for _, f in facts], "keys": [f.key for _, f in facts],
                        "sizes": [s for s, _ in facts], "n": len(facts)})
    return out


def _collect(view: ReleaseView, d: Derivation, premises_named: bool = True, rules: Any = None) -> AuditResult:
    """The findings and statuses of an audit run read back; ``rules``: the rule set, whose ``explain``
    templates word the findings of the rules that carry one."""
    vocab = view.kb.vocab
    templates = {r.key: r.explain for r in rules.rules if r.explain} if rules is not None else {}
    raw = d.derived("finding")
    resolutions = d.derived("resolution")
    best: dict[str, dict] = {}
    for r in sorted(resolutions, key=lambda r: r["fk"]):     # ties go to the same resolution in every process
        cur = best.get(r["claim"])
        if cur is None or (r["rank"], -SEVERITY[r["status"]]) > (cur["rank"], -SEVERITY[cur["status"]]):
            best[r["claim"]] = r
    findings: list[dict[str, Any]] = []
    by_claim: dict[str, list[dict]] = defaultdict(list)
    seen_pairs: dict[tuple, dict] = {}
    res_by_finding = {r.get("by"): r for r in resolutions if r.get("by")}
    ref_keys = {f.key for f in view.reference}
    premises: dict[str, list[dict]] = defaultdict(list)
    for p in sorted(d.derived("premise"), key=lambda p: (p["claim"], p["prem"])):
        if all(x["id"] != p["prem"] for x in premises[p["claim"]]):
            premises[p["claim"]].append({"id": p["prem"], "how": p.get("how")})
    for f in sorted(raw, key=lambda f: (f["claim"], SEVERITY[f["fkind"]], str(f.get("other")), f["fk"])):
        c = view.facts.get(f["claim"])
        if c is None:
            continue
        other = view.facts.get(f.get("other") or "")
        if other is None and f["basis"] == "reference" and f.get("evidence"):
            other = view.facts.get(str(f["evidence"]).split("@")[0])
        if f["basis"] == "claims" and isinstance(f.get("detail"), list) and not f["detail"]:
            f = {**f, "detail": None}
        pair = None
        if f["basis"] == "claims" and other is not None:
            pair = (f["fkind"],) + tuple(sorted((c.id, other.id)))
        item = seen_pairs.get(pair) if pair else None
        if item is None:
            fid = f"A-{c.id}-{f['fkind']}" + (f"-{other.id}" if other is not None else "") + \
                  (f"-{f['detail']}" if isinstance(f.get("detail"), str) else "")
            item = {
                "id": fid,
                "kind": f["fkind"],
                "basis": f["basis"],
                "claims": [claim_ref(c)] + ([claim_ref(other)] if other is not None and other.tier == "claim" else []),
                "evidence": [x for x in [f.get("evidence")] if x] + ([other.key] if other is not None and other.tier == "reference" and other.key != f.get("evidence") else []),
                "explanation": _templated(templates.get(_rule_of(d, f["fk"]) or ""), f, c, other, view)
                               or _explain(f, c, other, d, view),
                "rule": _rule_of(d, f["fk"]),
                "fact": f["fk"],
                "rank": (res_by_finding.get(f["fk"]) or {}).get("rank"),
            }
            if isinstance(f.get("detail"), list) and f["detail"] and f["basis"] == "claims":
                item["scope_differences"] = f["detail"]
            if f.get("via"):
                item["via"] = f["via"]
                if f["via"] not in item["evidence"]:
                    item["evidence"].append(f["via"])
            if premises.get(c.id):
                item["premises"] = premises[c.id]
            if f["basis"] == "derivation" and f.get("evidence"):
                item["grounds"] = grounds(d, str(f["evidence"]), ref_keys)
            findings.append(item)
            if pair:
                seen_pairs[pair] = item
        for cid in [c.id] + ([other.id] if pair and other is not None else []):
            lst = by_claim.setdefault(cid, [])
            if all(x["id"] != item["id"] for x in lst):
                lst.append(item)
    statuses: dict[str, dict[str, Any]] = {}
    for c in view.claims:
        r = best.get(c.id)
        status = r["status"] if r else "unverifiable"
        statuses[c.id] = {"status": status, "rank": r["rank"] if r else 0, "resolution": r["fk"] if r else None,
                          "findings": [x["id"] for x in by_claim.get(c.id, [])]}
        if status == "unverifiable":
            statuses[c.id]["reason"] = unverifiable_reason(c, by_claim.get(c.id, []), view)
        if premises.get(c.id):
            statuses[c.id]["premises"] = premises[c.id]
    corroboration: dict[str, list[dict]] = defaultdict(list)
    for f in sorted(raw, key=lambda f: (f["claim"], f["fk"])):     # one order in every process
        if f["fkind"] == "supported" and f["basis"] == "reference" and f.get("other"):
            c = view.facts.get(f["claim"])
            if c is not None and statuses[c.id]["status"] == "supported" and \
                    all(x["id"] != c.id for x in corroboration[f["other"]]):     # a claim corroborates a fact once
                corroboration[f["other"]].append(claim_ref(c))
    res = AuditResult(view.name, d, findings, statuses, dict(corroboration), dict(by_claim))
    res.view = view
    if premises_named:
        name_premises(res.findings, res.statuses, view)
    return res


def name_premises(findings: list[dict[str, Any]], statuses: dict[str, dict[str, Any]], view: ReleaseView) -> None:
    """A claim judged in its source's context names its premise, with the premise's status, in its
    findings' explanations (after every status is known: the premise may be audited in another block)."""
    for item in findings:
        for p in item.get("premises") or []:
            prem = view.facts.get(p["id"])
            if prem is None:
                continue
            p["status"] = statuses.get(p["id"], {}).get("status", "unverifiable")
            p["quote"] = prem.quote
            item["explanation"] = {
                "en": item["explanation"]["en"] + f" The claim rests on {p['id']} (“{prem.quote}”), which the audit finds {p['status']}.",
                "zh": item["explanation"]["zh"] + f" 该说法以 {p['id']}（“{prem.quote}”）为前提，审计结论为：{term_label('finding', p['status'], 'zh')}。"}


def grounds(d: Derivation, fk: str, ref_keys: set[str]) -> list[str]:
    """The reference facts a derived fact finally rests on (the leaves of its proof), sorted."""
    seen, stack, out = {fk}, [fk], set()
    while stack:
        k = stack.pop()
        if k in ref_keys:
            out.add(k)
            continue
        for firing in d.supports.get(k, ())[:1]:        # the first proof suffices
            for p in firing.premises:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
    return sorted(out)


def _rule_of(d: Derivation, fk: str) -> str | None:
    sup = d.supports.get(fk)
    return sup[0].rule if sup else None


def _val(f: Fact, vocab) -> str:
    return f.value_text(vocab)


def _scope(f: Fact) -> str:
    parts = []
    for k, v in f.qualifiers.items():
        if isinstance(v, Interval):
            v = v.text()
        elif isinstance(v, list):
            v = ", ".join(str(x).split(":")[-1] for x in v)
        parts.append(f"{k}={str(v).split(':')[-1] if isinstance(v, str) and k != 'condition' else v}")
    return "; ".join(parts) or "no stated scope"


def _templated(template: dict[str, str] | None, f: dict, c: Fact, other: Fact | None,
               view: ReleaseView) -> dict[str, str] | None:
    """A finding worded by its rule's ``explain`` template (rules/…yaml), in English and Chinese."""
    if not template:
        return None
    vocab = view.kb.vocab
    own = view.facts.get(str(f.get("evidence") or "").split("@")[0])
    via = view.facts.get(str(f.get("via") or "").split("@")[0])
    out = {}
    for lang in ("en", "zh"):
        def val(x: Fact | None) -> str:
            if x is None:
                return "?"
            a = vocab.attributes.get(x.attribute)
            if a is not None and a.enum and isinstance(x.value, list):
                return (", " if lang == "en" else "、").join(vocab.enum_label(a.enum, str(v), lang) for v in x.value)
            return _val(x, vocab)

        def attr(x: Fact | None) -> str:
            a = vocab.attributes.get(x.attribute) if x is not None else None
            return (a.en if lang == "en" else a.zh) if a is not None else "?"

        cite = lambda x: f"{x.citation} ({x.confidence} confidence)" if x is not None and x.citation else "?"   # noqa: E731
        ctx = {"subject": vocab.label(c.subject), "attribute": attr(c), "claim": val(c),
               "own": val(own), "own_subject": vocab.label(own.subject) if own else "?", "own_attribute": attr(own),
               "own_cite": cite(own), "other": val(other), "other_subject": vocab.label(other.subject) if other else "?",
               "other_cite": cite(other), "via_subject": vocab.label(via.subject) if via else "?", "via_cite": cite(via),
               "purpose": (", " if lang == "en" else "、").join(
                   vocab.enum_label("effect", str(x), lang) for x in c.qualifiers.get("purpose") or []) or "?"}
        out[lang] = template[lang].format(**ctx)
    return out


def _explain(f: dict, c: Fact, other: Fact | None, d: Derivation, view: ReleaseView) -> dict[str, str]:
    vocab = view.kb.vocab
    kind, basis = f["fkind"], f["basis"]
    attr = vocab.attributes[c.attribute]
    subj = vocab.label(c.subject)
    cv = _val(c, vocab)
    if basis == "reference" and other is not None and f.get("via"):
        via = view.facts.get(str(f["via"]).split("@")[0])
        ctx = vocab.label(f.get("context") or c.subject)
        gpu = vocab.label(other.subject)
        ov, cv = _val(other, vocab), _val(c, vocab)
        cite = f"{other.citation} ({other.confidence} confidence)"
        vcite = f" [{via.citation}]" if via is not None else ""
        word = {"supported": ("agrees with", "一致"), "incorrect": ("contradicts", "不符")}.get(kind, (kind, kind))
        return {"en": f"{ctx} carries the {gpu}{vcite}, so it has the {gpu}'s {attr.en}: {ov} [{cite}]. The claim ({cv}) {word[0]} it.",
                "zh": f"{ctx} 搭载的是 {gpu}{vcite}，因此其{attr.zh}即 {gpu} 的：{ov} [{cite}]。该说法（{cv}）与之{word[1]}。"}
    if basis == "reference" and other is not None:
        ov = _val(other, vocab)
        cite = f"{other.citation} ({other.confidence} confidence)"
        if kind == "misattributed" and c.attribute == "gpu":
            vendor = view.ref(other.subject, "vendor")
            vname = vocab.label(vendor.value) if vendor is not None else "its vendor"
            return {"en": f"{subj} is not in the vendor's catalog; the GPU it is given ({cv}) is what {vocab.label(other.subject)} "
                          f"carries, a {vname} family [{cite}].",
                    "zh": f"{subj} 不在厂商目录中；它被配上的 GPU（{cv}）属于 {vocab.label(other.subject)}（{vname} 的实例族）[{cite}]。"}
        if kind == "misattributed":
            return {"en": f"The claim places {subj} with {cv}; the reference says {attr.en} is {ov} [{cite}].",
                    "zh": f"该说法把 {subj} 归于 {cv}；参考资料显示其{attr.zh}为 {ov} [{cite}]。"}
        if kind == "unverifiable":
            return {"en": f"{subj} is not listed in the vendor's catalog as searched; that is absence of evidence, so the claim cannot be verified [{cite}].",
                    "zh": f"在所查的厂商目录中找不到 {subj}；这只是查无证据，因此该说法无法核实 [{cite}]。"}
        if f.get("value") is not None:
            return {"en": f"The claim gives {attr.en} of {cv} relative to {vocab.label(other.subject)}; the reference figures give {f['value']:.3g} [{cite}].",
                    "zh": f"该说法给出相对 {vocab.label(other.subject)} 的{attr.zh}为 {cv}；按参考数值计算为 {f['value']:.3g} [{cite}]。"}
        verdict = {"supported": ("agrees with", "与参考一致"), "incorrect": ("contradicts", "与参考不符")}.get(kind, (kind, kind))
        return {"en": f"The claim says {subj} {attr.en} is {cv}; this {verdict[0]} the reference, which says {ov} [{cite}].",
                "zh": f"该说法称 {subj} 的{attr.zh}为 {cv}，{verdict[1]}；参考资料为 {ov} [{cite}]。"}
    if basis == "claims" and other is not None:
        ov = _val(other, vocab)
        if kind == "scope_dependent":
            diffs = f.get("detail") or []
            what = ", ".join(diffs) or "scope"
            return {"en": f"{c.source} says {subj} {attr.en} is {cv} ({_scope(c)}); {other.source} says "
                          f"{vocab.attributes[other.attribute].en} is {ov} ({_scope(other)}). They speak of different scopes, "
                          f"so they do not contradict each other: they differ in {what}.",
                    "zh": f"{c.source} 称 {subj} 的{attr.zh}为 {cv}（{_scope(c)}）；{other.source} 称其"
                          f"{vocab.attributes[other.attribute].zh}为 {ov}（{_scope(other)}）。两者范围不同（差别在 {what}），并不矛盾。"}
        if kind == "contradiction":
            return {"en": f"{c.source} says {subj} {attr.en} is {cv}; {other.source} says {ov}, for overlapping scopes "
                          f"({_scope(c)} / {_scope(other)}). Both are kept; the claim's status follows the evidence ranking.",
                    "zh": f"{c.source} 称 {subj} 的{attr.zh}为 {cv}；{other.source} 称为 {ov}，两者范围重叠。两条都保留，结论按证据排序。"}
        return {"en": f"{other.source} states the same ({ov}) for a compatible scope.",
                "zh": f"{other.source} 在相容范围内给出相同说法（{ov}）。"}
    # derivation
    ev = d.facts.get(f.get("evidence") or "", {})
    pick = f.get("detail")
    computed = f.get("value")
    if c.attribute in ("memory_verdict", "suitability"):
        lab = fact_label(ev, view, vocab) if ev else {"en": "?", "zh": "?"}
        return {"en": f"The claim says {subj} is {cv} for this scope ({_scope(c)}); gpukb's sizing for {pick} says it {lab['en']}.",
                "zh": f"该说法称 {subj} 在此范围（{_scope(c)}）内{vocab.enum_label('verdict', str(c.value), 'zh')}；gpukb 对 {pick} 的计算结果为{lab['zh']}。"}
    if c.attribute == "max_params" and kind == "understated":
        return {"en": f"The claim recommends keeping {subj} to models of at most {cv} ({_scope(c)}); gpukb's sizing for "
                      f"{pick} finds that a model 25% larger still fits with QLoRA, so the cap is too cautious.",
                "zh": f"该说法建议 {subj} 只用至多 {cv} 的模型（{_scope(c)}）；gpukb 对 {pick} 的计算表明，用 QLoRA "
                      f"时再大 25% 的模型仍放得下，这一上限过于保守。"}
    if c.attribute == "max_params":
        lab = fact_label(ev, view, vocab) if ev else {"en": "?", "zh": "?"}
        return {"en": f"The claim says {subj} trains models of up to {cv} ({_scope(c)}); gpukb's sizing for {pick} says "
                      f"such a model {lab['en']}.",
                "zh": f"该说法称 {subj} 可训练至多 {cv} 的模型（{_scope(c)}）；gpukb 对 {pick} 的计算结果为{lab['zh']}。"}
    unit = "GPUs" if c.attribute == "min_gpus" else "GB"
    comp = f"{computed:.3g} {unit}" if isinstance(computed, (int, float)) else "?"
    word = {"overstated": ("overstates", "高估了"), "understated": ("understates", "低估了"), "supported": ("matches", "符合")}.get(kind, (kind, kind))
    if kind == "scope_dependent":
        return {"en": f"The claim says {cv} ({_scope(c)}); gpukb computes {comp} for the last of {pick}, and the claim "
                      "matches only some of these settings, which it leaves open.",
                "zh": f"该说法为 {cv}（{_scope(c)}）；gpukb 对 {pick} 中最后一种计算得 {comp}，该说法只符合其中部分设置，而它并未指明是哪一种。"}
    return {"en": f"The claim says {cv} ({_scope(c)}); gpukb computes {comp} for {pick}, so the claim {word[0]} it.",
            "zh": f"该说法为 {cv}（{_scope(c)}）；gpukb 对 {pick} 计算得 {comp}，该说法{word[1]}。"}


# ---------------------------------------------------------------------------------------------
# presentation

def audit_answer(res: AuditResult, view: ReleaseView, source: str | None = None, kind: str | None = None) -> dict[str, Any]:
    if kind is not None and kind not in KINDS:
        raise BadInput(f"unknown finding kind {kind!r}", [Issue(f"unknown finding kind {kind!r}", field="kind", allowed=list(KINDS))])
    if source is not None and source not in view.kb.sources:
        raise BadInput(f"unknown source {source!r}", [Issue(f"unknown source {source!r}", field="source", allowed=sorted(view.kb.sources))])
    out = []
    for f in res.findings:
        if kind and f["kind"] != kind:
            continue
        if source and not any(c["source"] == source for c in f["claims"]):
            continue
        out.append(f)
    statuses = [{"claim": cid, **{k: v for k, v in st.items() if k != "resolution"}}
                for cid, st in sorted(res.statuses.items()) if not source or cid.startswith(source + "-")]
    return {"kb_version": view.name, "findings": out, "statuses": statuses, "summary": res.summary(),
            "counts": {k: sum(1 for f in out if f["kind"] == k) for k in KINDS}}


def claimreview(res: AuditResult, view: ReleaseView, source: str | None = None) -> dict[str, Any]:
    """schema.org ClaimReview JSON-LD: one review per claim whose status is not ``supported``."""
    reviews = []
    for cid, st in sorted(res.statuses.items()):
        if st["status"] == "supported" or (source and not cid.startswith(source + "-")):
            continue
        c = view.facts[cid]
        src = view.kb.sources[c.source]
        top = next((f for f in res.findings_for(cid) if f["kind"] == st["status"]), None)
        body = top["explanation"]["en"] if top else "No reference, computation or other source speaks to this claim."
        reviews.append({
            "@type": "ClaimReview",
            "@id": f"urn:gpukb:{view.name}:review:{cid}",
            "claimReviewed": c.quote,
            "itemReviewed": {
                "@type": "Claim",
                "text": c.quote,
                "description": c.gloss_en,
                "author": {"@type": "Organization", "name": src.publisher or "unknown"},
                "appearance": {"@type": "CreativeWork", "name": src.title, "inLanguage": src.language,
                               **({"datePublished": src.published} if src.published else {})},
            },
            "reviewRating": {"@type": "Rating", "ratingValue": RATING[st["status"]], "bestRating": 5, "worstRating": 1,
                             "alternateName": st["status"]},
            "author": {"@type": "Organization", "name": "gpukb"},
            "reviewBody": body,
            "datePublished": view.release.date,
        })
    return {"@context": "https://schema.org", "@graph": reviews}
