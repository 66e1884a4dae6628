"""The re-audit's work in proportion to the change: the plan and the merged answer of an earlier audit,
redone only where a change reaches.

A full audit (:func:`audit_run.run_audit`) plans units over every claim (records, groups, pairs,
reachable reference facts, keys) and merges every claim's result into one answer. Given the plan of an
earlier audit run under the same rules, vocabulary and reference tier, :func:`replan` redoes the plan
only for the *buckets* (:func:`.units.bucket`) that hold a claim of a changed source: a claim's
record reads only the claim, its source and its source's other claims (the GPU a source gives a family),
and groups, pairs and units never cross a bucket, so every other unit, its reference facts and its
claims' keys are the earlier plan's; in a bucket planned anew, a claim whose claim, group, partners and
premises are as they were keeps its earlier key though its unit now reaches other reference facts
(``earlier`` of :func:`audit_keys.claim_keys`). Given the earlier merged answer, :func:`remerge` completes only the
claims whose merged answer can differ: those whose result changed, the claims they share a finding
with (which of two claims tells a shared finding, and whose list names it) and the claims that name
them as a premise (the premise's status is worded in the finding); everything else is the earlier
answer's, shared and not copied. ``tests/test_audit_run.py`` compares both with a full audit.
"""
from __future__ import annotations

import bisect
import dataclasses
import logging
import operator
from dataclasses import dataclass
from typing import Any, Iterable

from ..kb.store import Fact, ReleaseView
from .result import AuditResult, name_premises
from .blocks import bucket, group_pairs
from .units import Unit, units
from .gaps import reason as unverifiable_reason
from .inputs import claim_records
from .keys import claim_keys, reach
from ..kb import facts as factrec

log = logging.getLogger("gpukb.audit")

#: above this share of changed claims a re-audit merges everything anew (as fast, and simpler)
REMERGE_LIMIT = 0.25


@dataclass
class Plan:
    """What an audit planned: its units, each unit's reachable reference facts, every claim's key and
    record (with its group id), and what every unit reads alike (``base``: rules and vocabulary)."""

    view: ReleaseView
    parts: list[Unit]
    refs: list[list[Fact]]
    keys: dict[str, str]
    claim_recs: dict[str, dict[str, Any]]
    base: str
    #: claim id -> :func:`audit_keys.claim_digests` (what a re-plan need not compute again)
    digests: dict[str, bytes]
    #: sample group id -> the groups its pairs in reverse found something against (:func:`.units.with_reverse`)
    fired: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)
    #: claim id -> what its key reads but the reference facts (``inner`` of :func:`audit_keys.claim_keys`)
    inner: dict[str, bytes] = dataclasses.field(default_factory=dict)


#: a fact as the audit reads it: every field but where it is written (a KB copied elsewhere, or a claim
#: moved in its file, is the same fact; :func:`audit_keys.claim_digests` leaves them out as well)
_content = operator.attrgetter(*(f.name for f in dataclasses.fields(Fact) if f.name not in ("file", "line")))


def _source_sig(s: Any) -> tuple | None:
    """What a claim's audit reads of its source (:func:`audit_keys.claim_digests`)."""
    return (s.published, tuple(s.about)) if s is not None else None


def changed_sources(prev: ReleaseView, view: ReleaseView) -> set[str | None]:
    """The sources whose claims differ between two views: a claim added, removed or changed (any field,
    but its file and line), the source's date or context changed, or a claim resting on (curated
    ``rests_on``) a claim of such a source."""
    old_recs = {c.id: c for c in prev.claims}
    out: set[str | None] = set()
    seen: set[str] = set()
    for c in view.claims:
        seen.add(c.id)
        if c.source in out:
            continue
        o = old_recs.get(c.id)
        if o is None or _content(o) != _content(c):
            out.add(c.source)
    out.update(c.source for c in prev.claims if c.id not in seen)
    olds, news = prev.kb.sources, view.kb.sources
    out.update(s for s in set(olds) | set(news) if _source_sig(olds.get(s)) != _source_sig(news.get(s)))
    while True:                        # a curated premise in a changed source (normally of the same source)
        ids = {c.id for v in (prev, view) for c in v.claims if c.source in out}
        more = {c.source for c in view.claims if c.rests_on and c.rests_on in ids and c.source not in out}
        if not more:
            return out
        out |= more


def same_environment(prev: Plan, view: ReleaseView, base: str) -> bool:
    """Whether what every unit reads alike is unchanged: rules and vocabulary, and the reference tier
    fact by fact (its order too: reachable facts are given in its order)."""
    a, b = prev.view.reference, view.reference
    return prev.base == base and len(a) == len(b) and all(_content(x) == _content(y) for x, y in zip(a, b))


def replan(prev: Plan, view: ReleaseView, base: str) -> tuple[Plan, set[int]] | None:
    """The plan of ``view`` from an earlier plan, and the ids of its units planned anew (the others are
    the earlier plan's, with their claims' keys); None when the environment changed (plan everything)."""
    if not same_environment(prev, view, base):
        return None
    touched = changed_sources(prev.view, view)
    old_touched = [c for c in prev.view.claims if c.source in touched]
    new_touched = [c for c in view.claims if c.source in touched]
    recs = dict(prev.claim_recs)
    for c in old_touched:
        del recs[c.id]
    fresh_recs = claim_records(view, new_touched)
    recs.update((c.id, r) for c, r in zip(new_touched, fresh_recs))
    dirty = {bucket(prev.claim_recs[c.id]) for c in old_touched} | {bucket(r) for r in fresh_recs}
    clean: list[tuple[Unit, list[Fact]]] = []
    members: set[str] = {c.id for c in new_touched}
    for u, r in zip(prev.parts, prev.refs):
        if bucket(u.groups[0]) in dirty:
            members.update(c.id for c in u.claims if c.source not in touched)
        else:
            clean.append((u, r))
    pos = {c.id: i for i, c in enumerate(view.claims)}
    claims = [view.facts[i] for i in sorted(members, key=pos.__getitem__)]
    sub_recs = [recs[c.id] for c in claims]
    groups = factrec.group_records(sub_recs)
    samples: set[str] = set()
    pairs_of = group_pairs(groups, samples=samples)
    made = units(view, claims, sub_recs, groups, pairs_of, everything=view.claims, samples=samples)
    # a unit of the same claims and context as before, none of them changed, reaches what it reached
    reached = {(tuple(c.id for c in u.claims), tuple(c.id for c in u.context_claims)): r
               for u, r in zip(prev.parts, prev.refs) if bucket(u.groups[0]) in dirty}
    made_refs = []
    for u in made:
        sig = (tuple(c.id for c in u.claims), tuple(c.id for c in u.context_claims))
        r = reached.get(sig)
        if r is None or any(c.source in touched for c in u.claims + u.context_claims):
            r = reach(view, u.claims + u.context_claims)
        made_refs.append(r)
    keys, digests, inner = dict(prev.keys), dict(prev.digests), dict(prev.inner)
    for c in old_touched:
        del keys[c.id]
        digests.pop(c.id, None)
        inner.pop(c.id, None)
    # a unit made again as it was (same claims, groups, pairs and context, nothing of a changed source
    # read) keeps its claims' keys: only the others are keyed anew
    was = {_unit_sig(u): u for u in prev.parts if bucket(u.groups[0]) in dirty}
    changed_ids = {c.id for c in old_touched} | {c.id for c in new_touched}
    anew = [(u, r) for u, r in zip(made, made_refs) if not _same_unit(was.get(_unit_sig(u)), u, changed_ids)]
    keys.update(claim_keys(view, [u for u, _ in anew], [r for _, r in anew], base, recs, digests, inner,
                           earlier=(prev.inner, prev.keys)))
    pairs = clean + list(zip(made, made_refs))
    pairs.sort(key=lambda ur: min(c.id for c in ur[0].claims))
    log.info("re-plan of %s: %d sources changed, %d claims in %d buckets planned anew, %d units kept",
             view.name, len(touched), len(claims), len(dirty), len(clean))
    plan = Plan(view, [u for u, _ in pairs], [r for _, r in pairs], keys, recs, base, digests, inner=inner)
    return plan, {id(u) for u in made}


def _unit_sig(u: Unit) -> tuple:
    return tuple(c.id for c in u.claims), tuple(c.id for c in u.context_claims)


def _same_unit(old: Unit | None, u: Unit, changed: set[str]) -> bool:
    """Whether unit ``u`` of a re-plan is the earlier plan's ``old`` as its claims' keys read it: the same
    claims (none changed), groups, pairs, context and premises, and no group naming a changed claim
    (``changed``: the claims of the changed sources, before and after)."""
    if old is None or u.sampled != old.sampled or u.rests != old.rests:
        return False
    if any(c.id in changed for c in u.claims + u.context_claims):
        return False
    if u.pairs != old.pairs or u.reverse != old.reverse:
        return False
    if any(g.get(k) in changed for g in u.groups + u.context_groups for k in ("rep", "rep2")):
        return False
    return u.groups == old.groups and u.context_groups == old.context_groups


# -- the merged answer --------------------------------------------------------------------------

def _pair(f: dict[str, Any]) -> bool:
    return f["basis"] == "claims" and len(f["claims"]) == 2


def _named(f: dict[str, Any]) -> list[dict[str, Any]]:
    """The claims whose list of findings holds ``f`` (both of a shared finding, else its own)."""
    return f["claims"] if _pair(f) else f["claims"][:1]


def _pair_key(f: dict[str, Any]) -> tuple:
    return (f["kind"],) + tuple(sorted(c["id"] for c in f["claims"]))


def remerge(prev: AuditResult, prev_parts: dict[str, Any], view: ReleaseView, parts: dict[str, Any]) -> AuditResult | None:
    """The merged answer of ``view`` (as :func:`audit_run.merge` gives it) from the earlier merged answer
    ``prev``; ``prev_parts`` and ``parts``: claim id -> its result (:class:`.batch.BlockResult`) in the
    earlier and this audit. None when too much changed (merge everything)."""
    changed = {cid for cid, p in parts.items() if prev_parts.get(cid) is not p}
    changed.update(cid for cid in prev_parts if cid not in parts)
    if len(changed) > REMERGE_LIMIT * max(1, len(parts)):
        return None
    links: dict[str, set[str]] = {}

    def link(a: str, b: str) -> None:
        if a != b:
            links.setdefault(a, set()).add(b)
            links.setdefault(b, set()).add(a)
    for cid in changed:               # shared findings, before and after
        for p in (prev_parts.get(cid), parts.get(cid)):
            for f in p.findings if p is not None else ():
                if _pair(f):
                    link(f["claims"][0]["id"], f["claims"][1]["id"])

    def partners(cid: str) -> set[str]:
        out = set(links.get(cid, ()))
        for f in prev.by_claim.get(cid, ()):
            if _pair(f):
                out.update(c["id"] for c in f["claims"])
        out.discard(cid)
        return out
    resting: dict[str, list[str]] = {}
    for cid, st in prev.statuses.items():
        for p in st.get("premises") or ():
            resting.setdefault(p["id"], []).append(cid)
    resting_changed = {r for cid in changed for r in resting.get(cid, ())}
    own_changed = set(changed) | resting_changed   # claims whose own findings change (told once, premises worded)
    relisted = set(own_changed)                    # claims whose list of findings (and status) change
    for cid in changed:
        own_changed |= partners(cid)
    # a partner of a changed claim tells anew only the findings it shares with that claim (both listed
    # here); a claim resting on a changed one words all its findings anew, so its partners list them anew
    for cid in changed | resting_changed:
        relisted |= partners(cid)
    relisted |= own_changed
    relisted &= set(parts)
    own_changed &= set(parts)
    facts = view.facts

    # own findings of the claims whose findings change, told once (the lower claim id tells a shared one)
    part_keys: dict[str, set[tuple]] = {}

    def keys_of(cid: str) -> set[tuple]:
        ks = part_keys.get(cid)
        if ks is None:
            p = parts.get(cid)
            ks = part_keys[cid] = {_pair_key(f) for f in p.findings if _pair(f)} if p is not None else set()
        return ks
    own: dict[str, list[dict[str, Any]]] = {}
    new_status: dict[str, dict[str, Any]] = {}
    for cid in sorted(own_changed):
        p = parts[cid]
        copies: dict[int, dict[str, Any]] = {}
        items = [_told(f, copies) for f in p.findings]
        kept, told = [], set()
        for f in items:
            if _pair(f):
                k = _pair_key(f)
                other = f["claims"][1]["id"]
                if k in told or (other < cid and k in keys_of(other)):
                    continue
                told.add(k)
            kept.append(f)
        own[cid] = kept
        new_status.update((c, _fresh(st, copies)) for c, st in p.statuses.items())
    premises = {x["id"] for fs in own.values() for f in fs for x in f.get("premises") or ()}
    name_premises([f for fs in own.values() for f in fs],
                  {pid: parts[pid].statuses[pid] for pid in premises if pid in parts and pid in parts[pid].statuses},
                  view)

    # the findings list: the earlier one, each changed claim's run of findings replaced
    old = prev.findings
    first = (lambda f: f["claims"][0]["id"])
    findings: list[dict[str, Any]] = []
    at = 0
    gone = own_changed | {cid for cid in changed if cid not in parts}
    for cid in sorted(gone):
        lo = bisect.bisect_left(old, cid, lo=at, key=first)
        hi = bisect.bisect_right(old, cid, lo=lo, key=first)
        findings.extend(old[at:lo])
        findings.extend(own.get(cid, ()))
        at = hi
    findings.extend(old[at:])

    by_claim = dict(prev.by_claim)
    for cid in changed:
        by_claim.pop(cid, None)
    status_of: dict[str, dict[str, Any]] = {}
    told_anew: dict[str, list[dict[str, Any]]] = {}     # claim id -> the findings told anew that list it
    for z in sorted(own):
        for f in own[z]:
            for c in _named(f):
                told_anew.setdefault(c["id"], []).append(f)
    for cid in relisted:
        # its earlier list without what the claims telling anew told, with what they tell now, in the
        # findings' order (by the claim that tells them: a finding's id names that claim, so ids repeat
        # only within one claim's findings)
        lst = [f for f in prev.by_claim.get(cid, ()) if f["claims"][0]["id"] not in gone] + told_anew.get(cid, [])
        lst.sort(key=first)
        listed: set[str] = set()
        lst = [f for f in lst if not (f["id"] in listed or listed.add(f["id"]))]
        if lst:
            by_claim[cid] = lst
        else:
            by_claim.pop(cid, None)
        st = new_status.get(cid)
        if st is None:
            st = dict(prev.statuses[cid])
        c = facts[cid]
        st["findings"] = [x["id"] for x in lst]
        if st["status"] == "unverifiable":
            st["reason"] = unverifiable_reason(c, lst, view)
        status_of[cid] = st
    old_st = prev.statuses
    statuses = {c.id: status_of.get(c.id) or old_st[c.id] for c in view.claims if c.id in status_of or c.id in old_st}

    corroboration = dict(prev.corroboration)
    refs = {ref for cid in changed for p in (prev_parts.get(cid), parts.get(cid)) if p is not None for ref in p.corroboration}
    now: dict[str, list[dict]] = {}
    for cid in changed:
        p = parts.get(cid)
        for ref, got in p.corroboration.items() if p is not None else ():
            now.setdefault(ref, []).extend(got)
    for ref in refs:
        lst = [x for x in prev.corroboration.get(ref, ()) if x["id"] not in changed] + now.get(ref, [])
        lst.sort(key=lambda x: x["id"])
        if lst:
            corroboration[ref] = lst
        else:
            corroboration.pop(ref, None)
    log.info("re-merge of %s: %d claims' results changed, %d claims' findings and %d claims' lists completed anew",
             view.name, len(changed), len(own_changed), len(relisted))
    return AuditResult(view.name, None, findings, statuses, corroboration, by_claim)


def _fresh(item: dict[str, Any], copies: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """A copy of a finding or status that a merge completes (premises named, findings listed), so the
    part it came from stays as audited; a premise shared by a claim's findings and status is copied
    once (``copies``) and stays shared."""
    out = dict(item)
    if item.get("premises"):
        out["premises"] = [copies.setdefault(id(p), dict(p)) for p in item["premises"]]
    return out


def _told(item: dict[str, Any], copies: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """A finding as a merge tells it: a copy (:func:`_fresh`) when it names premises (the merge words
    their status into it), else the part's own, shared (nothing of it is completed: a 100,000-claim
    audit's findings are not held twice)."""
    return _fresh(item, copies) if item.get("premises") else item


def derivations(parts: Iterable[Any]) -> list[Any]:
    """The distinct derivations of the claims' results (each batch's, once)."""
    return list({id(p.derivation): p.derivation for p in parts if p.derivation is not None}.values())
