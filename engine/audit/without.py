"""What still holds when sources are removed: source-level truth maintenance from the ATMS labels.

A finding (or any derived fact) survives the removal of some sources when its ATMS label
(:func:`~gpukb.engine.reasoning.provenance.labels`) has an environment free of them; the others are
withdrawn, each with the removed sources it depended on. Nothing is re-run: the labels come from the
justifications the audit already recorded.

The audit compares claims through records built from them (value groups, the pairs of groups
compared, the sizing checks of a claim), which the engine is given rather than derives. To make
those records depend on their sources, :func:`source_graph` justifies each from the claims it is
built of: a value group by any of its members, a pair by both of its groups, a check by its claim,
a check's scenario by any of its checks; and a finding that names another claim (its partner in a
contradiction) by that claim as well. The reference tier and the inputs are never removed, so they
hang from no assumption and only sources appear in the environments.

Removal can only withdraw. What a re-audit would newly find without the sources is not in any label:
a claim whose named partner was removed while the partner's group still disagrees with it would be
paired with another claim of that group, and a status may change to a lower-ranked resolution that
was already derived (computed here) or to one that only a re-audit derives (not computed). The answer
says which findings are in that situation (``repairable``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import networkx as nx

from ..core.errors import BadInput, Issue
from ..kb import facts as factrec
from ..kb.store import ReleaseView
from ..models.sizing import SizingAnswer
from ..reasoning.provenance import build_graph, labels
from ..reasoning.reasoner import Derivation, Firing
from .result import SEVERITY, AuditResult, corroborations
from .inputs import claim_records
from .gaps import reason as unverifiable_reason

VIRTUAL_RULE = "gpukb.record@0"      # the rule name of the justifications added for built records


def parse_sources(values: str | Iterable[str] | None, known: Iterable[str], field: str = "without") -> list[str]:
    """Source ids from repeated and/or comma-separated values, checked against ``known``.

    Raises BadInput naming every unknown id and the allowed ones; an empty list is no removal.

    Examples
    --------
    >>> parse_sources(["S001,S000", " S001"], ["S000", "S001", "S002"])
    ['S000', 'S001']
    >>> parse_sources(None, ["S000"])
    []
    """
    if values is None:
        return []
    items = [values] if isinstance(values, str) else list(values)
    out: set[str] = set()
    issues: list[Issue] = []
    allowed = sorted(known)
    for item in items:
        for part in str(item).split(","):
            sid = part.strip()
            if not sid:
                issues.append(Issue("an empty source id", field=field, allowed=allowed))
            elif sid not in allowed:
                shown = sid if len(sid) <= 60 else sid[:60] + "..."
                issues.append(Issue(f"unknown source {shown!r}", field=field, allowed=allowed))
            else:
                out.add(sid)
    if issues:
        raise BadInput(f"{field}: " + "; ".join(i.message for i in issues[:3]) + f" (allowed: {', '.join(allowed)})", issues)
    return sorted(out)


def record_justifications(view: ReleaseView, d: Derivation) -> tuple[list[Firing], set[str]]:
    """The justifications of the records the audit builds from claims, and the keys of those records.

    A value group (``cgroup``) is supported by each of its member claims, a pair of groups (``cpair``)
    by both groups, a sizing check (``check``) by its claim, a check's ``scenario`` by each check that
    asks for it.
    """
    recs = claim_records(view, view.claims)
    factrec.group_records(recs)         # sets each record's gid
    members: dict[str, list[str]] = {}
    for r in recs:
        members.setdefault(f"group:{r['gid']}", []).append(r["fk"])
    key_of = {c.id: c.key for c in view.claims}
    out: list[Firing] = []
    built: set[str] = set()
    for k in d.given:
        f = d.facts[k]
        t = f.get("t")
        if t == "cgroup":
            out += [Firing(VIRTUAL_RULE, (m,), k) for m in members.get(k, ()) if m in d.facts]
        elif t == "cpair":
            out.append(Firing(VIRTUAL_RULE, (f"group:{f['a']}", f"group:{f['b']}"), k))
        elif t == "check" and f.get("claim") in key_of:
            out.append(Firing(VIRTUAL_RULE, (key_of[f["claim"]],), k))
            out.append(Firing(VIRTUAL_RULE, (k,), f"scenario:{f['qid']}"))
        else:
            continue
        built.add(k)
    scen_keys = {k for k in d.given if d.facts[k].get("t") == "scenario"}
    out = [x for x in out if x.derived in d.facts]
    built |= {x.derived for x in out if x.derived in scen_keys}
    return out, built


def source_graph(view: ReleaseView, d: Derivation) -> nx.DiGraph:
    """The provenance graph of an audit derivation in which only sources are assumptions.

    The recorded firings, plus :func:`record_justifications`; a finding that names another claim
    also rests on that claim. Given facts other than claims hang from no origin (always hold).

    Examples
    --------
    See ``tests/test_without.py`` (it needs a loaded KB).
    """
    extra, built = record_justifications(view, d)
    key_of = {c.id: c.key for c in view.claims}
    firings: list[Firing] = []
    for f in d.firings:
        fact = d.facts.get(f.derived, {})
        other = key_of.get(fact.get("other") or "") if fact.get("t") == "finding" else None
        if other is not None and other not in f.premises:
            f = Firing(f.rule, f.premises + (other,), f.derived, f.values)
        firings.append(f)
    g = build_graph(d.facts, firings + extra, set(d.given) - built)
    g.remove_nodes_from([n for n, a in list(g.nodes(data=True))
                         if a.get("kind") == "origin" and not str(n).startswith("src:")])
    return g


@dataclass
class SourceLabels:
    """The source-level ATMS labels of one audit: fact key → minimal sets of source ids."""

    release: str
    labels: dict[str, list[frozenset[str]]]

    def holds(self, key: str, removed: set[str]) -> bool:
        """Whether ``key`` still has an environment free of ``removed`` (False for an unknown key)."""
        return any(not (env & removed) for env in self.labels.get(key, ()))

    def depends_on(self, key: str, removed: set[str]) -> list[str]:
        """The removed sources that appear in the environments of ``key``."""
        return sorted({s for env in self.labels.get(key, ()) for s in env} & removed)

    def environments(self, key: str) -> list[list[str]]:
        return [sorted(e) for e in self.labels.get(key, ())]


def derivation_labels(d: Derivation) -> SourceLabels:
    """The source-level labels of a derivation whose given facts are its own (a sizing run): claims
    hang from their sources, everything else from no assumption."""
    g = build_graph(d.facts, d.firings, set(d.given))
    g.remove_nodes_from([n for n, a in list(g.nodes(data=True))
                         if a.get("kind") == "origin" and not str(n).startswith("src:")])
    return SourceLabels("", {k: [frozenset(o[4:] for o in env) for env in envs] for k, envs in labels(g).items()})


def source_labels(res: AuditResult, view: ReleaseView) -> SourceLabels:
    """The labels of every fact of an audit over the sources alone (``src:`` prefixes dropped)."""
    g = source_graph(view, res.full_derivation())
    lab = labels(g)
    return SourceLabels(view.name, {k: [frozenset(o[4:] for o in env) for env in envs] for k, envs in lab.items()})


LIMITS = {
    "en": "Computed from the ATMS labels of the audit as it ran: removing sources can only withdraw findings. "
          "Findings a re-audit would newly derive are not predicted: a claim whose named partner was removed while "
          "the partner's value group still disagrees with it would be paired with another claim of that group "
          "(those withdrawn findings are marked repairable), and a claim's status falls back to its best surviving "
          "resolution.",
    "zh": "根据本次审计的 ATMS 标签计算：移除来源只会撤回结论。重新审计才会新得出的结论不在预测之内："
          "若某说法所对照的另一条说法被移除、而该说法所在值组仍与之不一致，重新审计会改以该组中的另一条说法对照"
          "（这类被撤回的结论标记为 repairable）；说法的状态取其仍成立的最高优先级判定。",
}


def _best(resolutions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The top-ranked resolution, ties broken as the audit breaks them (see ``audit._collect``)."""
    best = None
    for r in sorted(resolutions, key=lambda r: r["fk"]):
        if best is None or (r["rank"], -SEVERITY[r["status"]]) > (best["rank"], -SEVERITY[best["status"]]):
            best = r
    return best


def _group_level_holds(sl: SourceLabels, d: Derivation, fact: str, removed: set[str]) -> bool:
    """Whether a claims finding's group-level finding (``gfinding``) survives the removal."""
    for firing in d.supports.get(fact, ()):
        for p in firing.premises:
            if d.facts.get(p, {}).get("t") == "gfinding" and sl.holds(p, removed):
                return True
    return False


def retract(res: AuditResult, view: ReleaseView, sl: SourceLabels, sources: Iterable[str]) -> tuple[AuditResult, dict[str, Any]]:
    """What still holds of an audit without ``sources``, from the labels ``sl`` (nothing re-run).

    Returns the audit as it stands without them (the surviving findings, unchanged; the statuses of the
    other sources' claims recomputed from the surviving resolutions; the corroboration that survives)
    and the ``without`` block: the sources, the withdrawn findings (each with the removed sources it
    depended on, why, its label, and whether a re-audit would pair its claim with another claim of
    the partner's group), the status changes and the limits of the method.
    """
    removed = set(sources)
    d = res.full_derivation()
    findings, withdrawn = [], []
    for f in res.findings:
        if sl.holds(f["fact"], removed):
            findings.append(f)
            continue
        own, partner = f["claims"][0], (f["claims"][1] if len(f["claims"]) > 1 else None)
        reason = ("claim_removed" if own["source"] in removed else
                  "partner_removed" if partner is not None and partner["source"] in removed else "support_removed")
        withdrawn.append({"id": f["id"], "kind": f["kind"], "claims": f["claims"], "reason": reason,
                          "depended_on": sl.depends_on(f["fact"], removed), "environments": sl.environments(f["fact"]),
                          "repairable": reason == "partner_removed" and _group_level_holds(sl, d, f["fact"], removed)})
    kept = {f["id"] for f in findings}
    by_claim = {cid: [f for f in lst if f["id"] in kept] for cid, lst in res.by_claim.items()}
    resolutions: dict[str, list[dict]] = {}
    for r in d.derived("resolution"):
        if sl.holds(r["fk"], removed):
            resolutions.setdefault(r["claim"], []).append(r)
    statuses: dict[str, dict[str, Any]] = {}
    changes = []
    for c in view.claims:
        if c.source in removed or c.id not in res.statuses:
            continue
        old = res.statuses[c.id]
        best = _best(resolutions.get(c.id, []))
        st = {k: v for k, v in old.items() if k != "reason"}
        st.update(status=best["status"] if best else "unverifiable", rank=best["rank"] if best else 0,
                  resolution=best["fk"] if best else None, findings=[x for x in old["findings"] if x in kept])
        if st["status"] == "unverifiable":
            st["reason"] = unverifiable_reason(c, by_claim.get(c.id, []), view)
        if st["status"] != old["status"]:
            changes.append({"claim": c.id, "from": old["status"], "to": st["status"]})
        statuses[c.id] = st
    corroboration = corroborations(d.derived("finding"), view, statuses, lambda f: sl.holds(f["fk"], removed))
    rest = ReleaseView(view.kb, view.release, {k: f for k, f in view.facts.items() if not (f.tier == "claim" and f.source in removed)},
                       set(view.source_ids) - removed)
    out = AuditResult(res.release, res.derivation, findings, statuses, corroboration, by_claim, view=rest,
                      parts=res.parts, run=res.run, recompute=res.recompute)
    block = {"sources": sorted(removed), "method": "atms_labels",
             "removed_claims": sum(1 for c in view.claims if c.source in removed),
             "withdrawn": withdrawn, "status_changes": changes, "limits": LIMITS}
    return out, block


def filtered(block: dict[str, Any], source: str | None = None, kind: str | None = None) -> dict[str, Any]:
    """A ``without`` block with its withdrawn findings and status changes narrowed as the audit's
    findings are (``?source=``, ``?kind=``)."""
    wd = [w for w in block["withdrawn"] if (not kind or w["kind"] == kind)
          and (not source or any(c["source"] == source for c in w["claims"]))]
    ch = [c for c in block["status_changes"] if not source or c["claim"].startswith(source + "-")]
    return {**block, "withdrawn": wd, "status_changes": ch}


def conclusion_without(d: Derivation, base: SizingAnswer, answer: SizingAnswer, block: dict[str, Any]) -> dict[str, Any]:
    """The ``without`` block of a sizing answer: whether its conclusion still holds without the sources
    of ``block`` (from the labels of its run ``d``), the disagreeing claims withdrawn with them (from
    the answer as it was, ``base``), and the disagreeing claims whose status changed."""
    removed = set(block["sources"])
    sl = derivation_labels(d)
    key = answer.explanation.conclusion
    now = {x.claim.id: x.status.value for x in answer.contradictions}
    return {"sources": sorted(removed), "method": "atms_labels", "conclusion_holds": sl.holds(key, removed),
            "depended_on": sl.depends_on(key, removed), "environments": sl.environments(key),
            "withdrawn": [x for x in base.contradictions if x.claim.source in removed],
            "status_changes": [{"claim": x.claim.id, "from": x.status.value, "to": now.get(x.claim.id, "supported")}
                               for x in base.contradictions
                               if x.claim.source not in removed and now.get(x.claim.id, "supported") != x.status.value],
            "limits": block["limits"]}
