"""The audit measured against its gold set (kb/gold/audit.yaml).

A gold entry gives the status an expert assigns to a claim and the ids that decide it (any one of them
counts). As in FEVER, a label counts as right *with evidence* only when the audit's finding of that
status cites one of the gold ids, or a reference fact that ``restates`` one (the same statement of the
same source under another subject, checked when the KB loads). Gold entries with no evidence
(unverifiable claims, or claims whose deciding fact is missing from the reference tier) count on the
label alone. A *harmful* call is one that rates a gold-supported claim incorrect, overstated or
understated: the error a reader would act on.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..core.errors import BadInput, Issue
from ..kb.ids import bare
from ..core.terms import FINDING_KINDS
from ..core.yamlio import load_file

HARMFUL = frozenset({"incorrect", "overstated", "understated"})


def load_gold(path: str | Path) -> list[dict[str, Any]]:
    """The gold entries (claim, status, evidence), checked: known statuses, one entry per claim."""
    data = load_file(path)
    entries = (data or {}).get("claims") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BadInput(f"{path}: expected a mapping with a 'claims' list")
    seen: set[str] = set()
    out = []
    for i, e in enumerate(entries):
        where = f"{path}: claims[{i}]"
        if not isinstance(e, dict) or not isinstance(e.get("claim"), str):
            raise BadInput(f"{where}: expected a mapping with a 'claim' id")
        if e.get("status") not in FINDING_KINDS:
            raise BadInput(f"{where}: unknown status {e.get('status')!r}",
                           [Issue("unknown status", field="status", allowed=list(FINDING_KINDS))])
        if e["claim"] in seen:
            raise BadInput(f"{where}: claim {e['claim']} is labelled twice")
        seen.add(e["claim"])
        out.append({"claim": e["claim"], "status": e["status"], "evidence": [str(x) for x in e.get("evidence") or []],
                    "premise": e.get("premise")})
    return out


def _cited(finding: dict[str, Any]) -> set[str]:
    """Every id a finding rests on: its reference evidence and the claims it names."""
    ids = {str(x) for x in finding.get("evidence") or []}
    ids |= {c["id"] for c in finding.get("claims") or []}
    ids |= {str(x) for x in finding.get("grounds") or []}
    for p in finding.get("premises") or []:
        ids.add(p.get("id") if isinstance(p, dict) else str(p))
    return {bare(i) for i in ids}      # a reference id cited at a version: R-T4-memory_gb@1


def evaluate(audit: Any, gold: list[dict[str, Any]]) -> dict[str, Any]:
    """Compare an :class:`AuditResult` with the gold entries; a JSON-ready report."""
    rows = []
    per_kind: dict[str, Counter] = defaultdict(Counter)
    # a reference fact that restates another (the same statement of the same source under another
    # subject) cites it too
    view = getattr(audit, "view", None)
    restated = {f.id: f.restates for f in getattr(view, "reference", ()) if f.restates}
    for g in gold:
        st = audit.statuses.get(g["claim"])
        if st is None:
            rows.append({**g, "predicted": None, "label_ok": False, "evidence_ok": False, "cited": []})
            per_kind[g["status"]]["n"] += 1
            continue
        predicted = st["status"]
        cited: set[str] = set()
        for f in audit.findings_for(g["claim"]):
            if f["kind"] == predicted:
                cited |= _cited(f)
        cited |= {r for c in cited for r in restated.get(c, ())}
        cited.discard(g["claim"])
        label_ok = predicted == g["status"]
        evidence_ok = label_ok and (not g["evidence"] or bool(cited & set(g["evidence"])))
        rows.append({**g, "predicted": predicted, "label_ok": label_ok, "evidence_ok": evidence_ok,
                     "cited": sorted(cited)})
        k = per_kind[g["status"]]
        k["n"] += 1
        k["label"] += label_ok
        k["evidence"] += evidence_ok
    n = len(rows)
    label = sum(r["label_ok"] for r in rows)
    evidence = sum(r["evidence_ok"] for r in rows)
    harmful = [r for r in rows if r["status"] == "supported" and r["predicted"] in HARMFUL]
    unverifiable = sum(1 for s in audit.statuses.values() if s["status"] == "unverifiable")
    return {
        "gold_claims": n,
        "label_accuracy": label / n if n else 0.0,
        "evidence_accuracy": evidence / n if n else 0.0,
        "label_correct": label,
        "evidence_correct": evidence,
        "harmful": [{"claim": r["claim"], "gold": r["status"], "predicted": r["predicted"]} for r in harmful],
        "per_kind": {k: {"n": c["n"], "label": c["label"], "evidence": c["evidence"]}
                     for k, c in sorted(per_kind.items(), key=lambda kv: FINDING_KINDS.index(kv[0]))},
        "confusion": dict(sorted(Counter(f"{r['status']} -> {r['predicted']}" for r in rows if not r["label_ok"]).items())),
        "unverifiable": {"claims": len(audit.statuses), "unverifiable": unverifiable,
                         "share": unverifiable / len(audit.statuses) if audit.statuses else 0.0},
        "errors": [{"claim": r["claim"], "gold": r["status"], "predicted": r["predicted"],
                    "gold_evidence": r["evidence"], "cited": r["cited"]}
                   for r in rows if not r["evidence_ok"]],
    }


def report_text(rep: dict[str, Any], verbose: bool = False) -> str:
    """The report as a readable table."""
    pct = lambda a, b: f"{100 * a / b:5.1f}%" if b else "    -"
    lines = [f"audit gold set: {rep['gold_claims']} claims",
             f"  label accuracy     {pct(rep['label_correct'], rep['gold_claims'])}  ({rep['label_correct']}/{rep['gold_claims']})",
             f"  evidence accuracy  {pct(rep['evidence_correct'], rep['gold_claims'])}  ({rep['evidence_correct']}/{rep['gold_claims']})",
             f"  harmful calls on gold-supported claims: {len(rep['harmful'])}",
             f"  unverifiable: {rep['unverifiable']['unverifiable']}/{rep['unverifiable']['claims']} bundled claims "
             f"({100 * rep['unverifiable']['share']:.1f}%)",
             "", f"  {'gold status':30} {'n':>4} {'label':>7} {'evidence':>9}"]
    for k, c in rep["per_kind"].items():
        lines.append(f"  {k:30} {c['n']:4} {pct(c['label'], c['n']):>7} {pct(c['evidence'], c['n']):>9}")
    if rep["confusion"]:
        lines += ["", "  confusions (gold -> audit):"] + [f"    {k}: {v}" for k, v in rep["confusion"].items()]
    if verbose:
        lines += ["", "  errors:"] + [f"    {e['claim']}: gold {e['gold']} {e['gold_evidence']}, audit {e['predicted']} {e['cited'][:6]}"
                                      for e in rep["errors"]]
    return "\n".join(lines)
