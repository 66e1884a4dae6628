"""KB releases compared: facts added, revised and retired, rules affected, and conclusions that changed.

Conclusions are the audit statuses of claims and the verdicts of the KB's watch list (kb/watchlist.yaml),
a fixed set of reference questions. Every change names the fact changes behind it: the facts of the
earlier and later proofs that were added, revised or retired between the two releases.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import Issue, ValidationError
from ..kb.ids import bare
from .trees import leaves
from ..core.yamlio import load_file
from ..models.knowledge import Diff


def load_watchlist(path: Path) -> list[dict[str, Any]]:
    """The watch list: ``questions: [{id, body}]`` with query bodies (validated when run)."""
    if not path.is_file():
        return []
    data = load_file(path)
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValidationError(f"{path}: expected a 'questions' list", [Issue("expected a 'questions' list", str(path), 1)])
    out = []
    for q in items:
        if not isinstance(q, dict) or not isinstance(q.get("id"), str) or not isinstance(q.get("body"), dict):
            raise ValidationError(f"{path}: each question needs an id and a body",
                                  [Issue("each question needs an id and a body", str(path), getattr(q, "line", 0))])
        out.append({"id": q["id"], "title": q.get("title", q["id"]), "body": dict(q["body"])})
    return out


def fact_changes(kb, a: str, b: str) -> dict[str, Any]:
    va, vb = kb.release(a), kb.release(b)
    vocab = kb.vocab
    added = [f for k, f in vb.facts.items() if k not in va.facts]
    retired = [f for k, f in va.facts.items() if k not in vb.facts]
    revised = [(va.facts[k], f) for k, f in vb.facts.items() if k in va.facts and va.facts[k].version != f.version]

    def brief(f):
        d = {"id": f.id, "version": f.version, "key": f.key, "tier": f.tier, "subject": f.subject,
             "attribute": f.attribute, "value": f.value_text(vocab)}
        if f.tier == "claim":
            d["source"] = f.source
        else:
            d["citation"] = f.citation
        return d
    return {
        "added": [brief(f) for f in sorted(added, key=lambda f: f.id)],
        "revised": [{"id": new.id, "old": brief(old), "new": brief(new)} for old, new in sorted(revised, key=lambda p: p[1].id)],
        "retired": [brief(f) for f in sorted(retired, key=lambda f: f.id)],
    }


def diff(service: Any, a: str, b: str) -> Diff:
    """Everything that changed between releases ``a`` and ``b`` (either order), as its typed model;
    ``service`` is the loaded state (a Session that also answers queries and has the watch list)."""
    kb = service.kb
    ra, rb = kb.get_release(a), kb.get_release(b)
    facts = fact_changes(kb, ra.name, rb.name)
    changed_ids = {x["id"] for x in facts["added"]} | {x["id"] for x in facts["retired"]} | {x["id"] for x in facts["revised"]}
    rules = []
    for r in service.rules.rules:
        hit = sorted({bare(c) for c in r.cites} & changed_ids)
        if hit:
            rules.append({"rule": r.key, "change": "cites a fact that changed", "facts": hit})
    conclusions: list[dict[str, Any]] = []
    # audit statuses
    aa, ab = service.audit_result(ra.name), service.audit_result(rb.name)
    new_sources = set(kb.release(rb.name).source_ids) - set(kb.release(ra.name).source_ids)
    for cid in sorted(set(aa.statuses) | set(ab.statuses)):
        sa, sb = aa.statuses.get(cid), ab.statuses.get(cid)
        if sa and sb and sa["status"] == sb["status"]:
            continue
        if sa is None or sb is None:
            continue  # the claim itself was added or retired: listed under facts
        fa, fb = set(sa["findings"]), set(sb["findings"])
        causes = []
        for fid in sorted(fb - fa):
            f = next((x for x in ab.findings if x["id"] == fid), None)
            if f:
                because = [c["id"] for c in f["claims"] if c["source"] in new_sources]
                because += [bare(e) for e in f["evidence"] if bare(e) in changed_ids and bare(e) not in because]
                causes.append({"finding_added": fid, "kind": f["kind"], "because": because})
        for fid in sorted(fa - fb):
            causes.append({"finding_removed": fid})
        conclusions.append({"type": "audit_status", "claim": cid, "from": sa["status"], "to": sb["status"], "causes": causes[:10]})
    # watch list
    for q in service.watchlist():
        before = _watch(service, q, ra.name)
        after = _watch(service, q, rb.name)
        keys = ("verdict", "min_gpus", "per_gpu_total", "capacity_gb", "compute_seconds")
        if before.get("error") or after.get("error"):
            if before.get("error") != after.get("error"):
                conclusions.append({"type": "watch", "question": q["id"], "title": q["title"], "from": before, "to": after,
                                    "causes": []})
            continue
        if any(before.get(k) != after.get(k) for k in keys):
            used = set(before["facts"]) | set(after["facts"])
            causes = sorted({bare(u) for u in used} & changed_ids)
            conclusions.append({"type": "watch", "question": q["id"], "title": q["title"],
                                "from": {k: before.get(k) for k in keys}, "to": {k: after.get(k) for k in keys},
                                "flipped": before.get("verdict") != after.get("verdict"),
                                "causes": [{"fact": c} for c in causes]})
    return Diff.of(from_=ra.name, to=rb.name, **facts, rules=rules, conclusions=conclusions,
                   counts={"added": len(facts["added"]), "revised": len(facts["revised"]), "retired": len(facts["retired"]),
                           "rules": len(rules), "conclusions": len(conclusions)})


def _watch(service, q: dict, release: str) -> dict[str, Any]:
    try:
        ans = service.query({**q["body"], "kb_version": release})
    except Exception as exc:  # a watch-list question the release cannot answer is itself a result
        return {"error": str(exc)}
    facts = [n["fact"] for n in leaves(ans.explanation.tree.to_json())]
    return {"verdict": ans.verdict.value, "min_gpus": ans.min_gpus, "per_gpu_total": ans.memory.per_gpu_total,
            "capacity_gb": ans.capacity.per_gpu, "compute_seconds": ans.compute.get("seconds_per_step") if ans.compute else None,
            "facts": facts + [x["fact"] for x in _compute_facts(service, q, release)]}


def _compute_facts(service, q, release):
    """The reference facts behind the compute estimate (not in the verdict's tree)."""
    from ..models import scenario as scen
    view = service.view(release)
    s, notes = scen.normalise(q["body"], service.kb.vocab)
    r = service.run_scenario(s, notes, view)
    out = []
    for c in r.all("compute"):
        for firing in r.derivation.supports.get(c["fk"], []):
            out += [{"fact": p} for p in firing.premises]
    return out
