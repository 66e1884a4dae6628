"""The audit: every claim checked against the reference tier, the other sources and gpukb's own sizing.

All judgements are rules (rules/audit/): findings, and the resolution policy that ranks them. This
module runs them over the records :mod:`.audit_inputs` prepares (claim and reference records, and one
sizing scenario per checkable claim so the rules can compare the claim with a computation for the
claim's own scope), then reads the findings back, words them (:mod:`.audit_wording`, from templates
that are data) and picks each claim's status as its highest-ranked resolution.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..kb import facts as factrec
from ..core.errors import BadInput, Issue
from ..kb.ids import bare, finding_id, source_of
from .blocks import group_pairs, pair_records
from .gaps import reason as unverifiable_reason
from .inputs import (claim_context, claim_records, context_records, effect_record, fact_records, size_records,
                     variant_records)
from .scenarios import CHECKED_ATTRS, CONCEPT_METHOD, check_records, check_scenarios, probe_sizes, task_method
from .wording import explanation, premise_sentence
from ..explain.trees import walk
from ..kb.store import Fact, ReleaseView
from ..reasoning.reasoner import Derivation
from ..core.terms import FINDING_KINDS
from ..models.audit import ClaimReview, ClaimStatus, Finding, FindingList
from ..models.base import OMIT, Items

KINDS = FINDING_KINDS
SEVERITY = {k: i for i, k in enumerate(KINDS)}
RATING = {"supported": 5, "scope_dependent": 4, "unverifiable": 3, "understated": 2, "overstated": 2,
          "contradiction": 2, "inconsistent_with_derivation": 1, "incorrect": 1, "misattributed": 1}


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
            src = source_of(cid)
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
        by_key, conclusions = self._disagreeing()
        candidates = [c for key in refs for c in by_key.get(key, ())] + conclusions
        for c in candidates:
            if c.id in out:
                continue
            st = self.status_of(c.id)
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

    def _disagreeing(self) -> tuple[dict[tuple[str, str], list[Fact]], list[Fact]]:
        """The claims :meth:`disagreeing_with` looks at, computed once per audit: those not supported, by
        (subject, attribute), and those that can bear on an answer's conclusion (memory required, verdicts)."""
        found = self.__dict__.get("_disagreeing_index")
        if found is None:
            by_key: dict[tuple[str, str], list[Fact]] = {}
            conclusions = []
            for c in self.view.claims:
                if self.status_of(c.id)["status"] == "supported":
                    continue
                by_key.setdefault((c.subject, c.attribute), []).append(c)
                if c.attribute in ("memory_required", "memory_verdict", "suitability", "min_gpus"):
                    conclusions.append(c)
            found = self.__dict__["_disagreeing_index"] = (by_key, conclusions)
        return found


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
    records = context_records(view, refs) + groups + pair_records(group_pairs(groups)) + claim_recs
    return audit_records(service, view, view.claims, records, progress, shared=fact_records(view, refs))


def audit_records(service, view: ReleaseView, checked: list[Fact], records: list[dict[str, Any]],
                  progress: Any = None, premises_named: bool = True, shared: list[dict[str, Any]] = ()) -> AuditResult:
    """One engine run over prepared records, with a sizing scenario for each claim of ``checked``
    whose scope can be computed; the findings and statuses read back. ``shared``: the reference facts'
    records (:func:`fact_records`), asserted first and unchanged in every run."""
    d = service.reasoner.run(list(records) + check_records(view, checked), progress=progress, shared=shared)
    return _collect(view, d, premises_named, service.reasoner.ruleset)


def _collect(view: ReleaseView, d: Derivation, premises_named: bool = True, rules: Any = None) -> AuditResult:
    """The findings and statuses of an audit run read back; ``rules``: the rule set, whose ``explain``
    templates word the findings of the rules that carry one (the vocabulary's ``findings`` word the rest)."""
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
    ref_keys = view.reference_keys
    premises: dict[str, list[dict]] = defaultdict(list)
    crefs: dict[str, dict[str, Any]] = {}     # a claim's reference, one object for all the findings naming it

    def cref(x: Fact) -> dict[str, Any]:
        r = crefs.get(x.id)
        if r is None:
            r = crefs[x.id] = claim_ref(x)
        return r
    for p in sorted(d.derived("premise"), key=lambda p: (p["claim"], p["prem"])):
        if all(x["id"] != p["prem"] for x in premises[p["claim"]]):
            premises[p["claim"]].append({"id": p["prem"], "how": p.get("how")})
    for f in sorted(raw, key=lambda f: (f["claim"], SEVERITY[f["fkind"]], str(f.get("other")), f["fk"])):
        c = view.facts.get(f["claim"])
        if c is None:
            continue
        other = view.facts.get(f.get("other") or "")
        if other is None and f["basis"] == "reference" and f.get("evidence"):
            other = view.facts.get(bare(f["evidence"]))
        if f["basis"] == "claims" and isinstance(f.get("detail"), list) and not f["detail"]:
            f = {**f, "detail": None}
        pair = None
        if f["basis"] == "claims" and other is not None:
            pair = (f["fkind"],) + tuple(sorted((c.id, other.id)))
        item = seen_pairs.get(pair) if pair else None
        if item is None:
            fid = finding_id(c.id, f["fkind"], other.id if other is not None else None, f.get("detail"))
            item = {
                "id": fid,
                "kind": f["fkind"],
                "basis": f["basis"],
                "claims": [cref(c)] + ([cref(other)] if other is not None and other.tier == "claim" else []),
                "evidence": [x for x in [f.get("evidence")] if x] + ([other.key] if other is not None and other.tier == "reference" and other.key != f.get("evidence") else []),
                "explanation": explanation(templates.get(_rule_of(d, f["fk"]) or ""), f, c, other, d, view),
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
    res = AuditResult(view.name, d, findings, statuses, corroborations(raw, view, statuses), dict(by_claim))
    res.view = view
    if premises_named:
        name_premises(res.findings, res.statuses, view)
    return res


def corroborations(raw: list[dict[str, Any]], view: ReleaseView, statuses: dict[str, dict[str, Any]],
                   holds: Any = None) -> dict[str, list[dict[str, Any]]]:
    """Reference fact key -> the supported claims that a ``supported`` finding against it names, each
    claim once, in one order in every process; ``holds``: keep only the findings it accepts."""
    out: dict[str, list[dict[str, Any]]] = {}
    for f in sorted(raw, key=lambda f: (f["claim"], f["fk"])):
        if f["fkind"] != "supported" or f["basis"] != "reference" or not f.get("other"):
            continue
        c = view.facts.get(f["claim"])
        if c is None or statuses.get(c.id, {}).get("status") != "supported" or (holds is not None and not holds(f)):
            continue
        lst = out.setdefault(f["other"], [])
        if all(x["id"] != c.id for x in lst):
            lst.append(claim_ref(c))
    return out


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
            more = premise_sentence(view, prem, p["status"])
            item["explanation"] = {lang: item["explanation"][lang] + more[lang] for lang in ("en", "zh")}


def grounds(d: Derivation, fk: str, ref_keys: "set[str] | frozenset[str]") -> list[str]:
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


# ---------------------------------------------------------------------------------------------
# presentation

def audit_answer(res: AuditResult, view: ReleaseView, source: str | None = None, kind: str | None = None,
                 without: dict[str, Any] | None = None) -> FindingList:
    """The audit's answer, its findings and statuses of one source or kind when asked (``without``: the
    sources taken away and what that changes). The findings are the audit's own objects, each built as
    its model when it is read (:class:`Items`): a 100k-claim audit is written item by item."""
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
    return FindingList.of(kb_version=view.name, findings=Items(Finding, out), statuses=Items(ClaimStatus, statuses),
                          summary=res.summary(), counts={k: sum(1 for f in out if f["kind"] == k) for k in KINDS},
                          without=OMIT if without is None else without)


def claimreview(res: AuditResult, view: ReleaseView, source: str | None = None) -> ClaimReview:
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
    return ClaimReview.of(**{"@context": "https://schema.org", "@graph": reviews})
