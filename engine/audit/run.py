"""Running the audit of a release: units, batches, worker processes, and reuse of unchanged units.

The claims of a release fall into units (:func:`units.units`): the value groups of one bucket
(or, in a large bucket, of one scope) with, as context, the groups they are compared with and the
claims they rest on. Each unit is audited with the reference facts it can reach, so the work grows
with the number of claims instead of its square and memory with the largest unit. A unit's audit is a
pure function of its claims, their sources' dates and context, its context, the reference facts it
reaches and the rules, and within a unit each claim's audit reads only its own part of that input:
:func:`audit_keys.claim_keys` names it claim by claim, and an audit given a previous result
(``previous=``) reuses every claim whose key is unchanged, auditing the rest of a unit as a part of it
(:func:`audit_keys.sub_unit`): adding a source re-audits its own claims and those whose group or
context it changes as the rules read them; and it plans and merges anew only the buckets and claims a
change reaches (:mod:`audit_delta`), so a re-audit costs in proportion to the change. Batches of units run in this process, on local worker
processes (``workers=N``) or on a Dask cluster (``scheduler="tcp://host:port"``, the optional extra
``gpukb[cluster]``).
"""
from __future__ import annotations

import hashlib
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..kb.store import Fact, ReleaseView
from ..reasoning.reasoner import Derivation
from ..kb import facts as factrec
from .result import AuditResult, name_premises
from .inputs import claim_records
from .blocks import group_pairs
from . import units as audit_units
from .units import Unit, batches, units
from .keys import claim_keys, reach, sub_unit
from .delta import Plan, _fresh, _told, derivations, remerge, replan
from .gaps import reason as unverifiable_reason
from ..core.memory import collector_paused
from .batch import BlockResult, audit_batch
from .workers import _run_pool

if TYPE_CHECKING:
    from ..core.session import Session

log = logging.getLogger("gpukb.audit")


@dataclass
class AuditRun:
    """The claims' results of a run by key, and what was audited or reused (the benchmark reports it):
    units audited (whole or in part) or reused whole, claims audited or reused, units planned anew
    (all of them but in a re-audit that re-planned only what changed)."""

    results: dict[str, BlockResult] = field(default_factory=dict)
    units: int = 0
    audited: int = 0
    reused: int = 0
    claims_audited: int = 0
    claims_reused: int = 0
    batches: int = 0
    workers: int = 1
    planned: int = 0
    #: what the run planned, which a later re-audit re-plans only where it changed (:mod:`audit_delta`)
    plan: Plan | None = None


def base_digest(view: ReleaseView, rules_digest: str) -> str:
    """What every unit's audit reads alike: the rules and the vocabulary (computed once per run)."""
    h = hashlib.sha256(rules_digest.encode())
    vocab_path = Path(view.kb.root) / "vocabulary.yaml"
    if vocab_path.is_file():
        h.update(hashlib.sha256(vocab_path.read_bytes()).digest())
    return h.hexdigest()


def plan(view: ReleaseView) -> tuple[list[Unit], dict[str, dict[str, Any]]]:
    """The units of a release's audit and its claims' records (with their group ids)."""
    claims = view.claims
    recs = claim_records(view, claims)
    groups = factrec.group_records(recs)
    samples: set[str] = set()
    pairs = group_pairs(groups, samples=samples)
    return units(view, claims, recs, groups, pairs, samples=samples), {c.id: r for c, r in zip(claims, recs)}


def run_audit(service: Session, view: ReleaseView, *, workers: int = 1, scheduler: str | None = None,
              previous: AuditResult | None = None, keep_proofs: bool = True,
              progress: Callable[[str, int, int | None], None] | None = None) -> AuditResult:
    """Audit every claim of a release, unit by unit (see the module docstring).

    ``workers`` > 1 audits batches on that many local processes, ``scheduler`` on a Dask cluster;
    ``previous`` (an earlier result, e.g. of the release before a source was added) lends the results
    of its claims whose inputs are unchanged; without ``keep_proofs`` the derivations are dropped once
    read (a large audit's memory) and recomputed for the unit an explanation asks for.
    """
    with collector_paused():
        return _run_audit(service, view, workers=workers, scheduler=scheduler, previous=previous,
                          keep_proofs=keep_proofs, progress=progress)


def _run_audit(service, view: ReleaseView, *, workers: int, scheduler: str | None, previous: AuditResult | None,
               keep_proofs: bool, progress: Callable[[str, int, int | None], None] | None) -> AuditResult:
    progress = progress if progress is not None else getattr(service, "progress", None)
    base = base_digest(view, service.rules.digest)
    earlier: Plan | None = previous.run.plan if previous is not None and previous.run is not None else None
    again = replan(earlier, view, base) if earlier is not None else None
    if again is not None:             # only the buckets a change reaches are planned anew
        p, planned = again
        parts, refs, keys, claim_recs = p.parts, p.refs, p.keys, p.claim_recs
    else:
        parts, claim_recs = plan(view)
        refs = [reach(view, u.claims + u.context_claims) for u in parts]
        digests: dict[str, bytes] = {}
        inner: dict[str, bytes] = {}
        keys = claim_keys(view, parts, refs, base, claim_recs, digests, inner)
        p, planned = Plan(view, parts, refs, keys, claim_recs, base, digests, inner=inner), None
    known = previous.run.results if previous is not None and previous.run else {}
    done: dict[str, BlockResult] = {}
    workers = max(1, int(workers or 1))
    # first the units of groups, which also compare the large buckets' sample groups in reverse; then the
    # sample units, given the reverse pairs that found something (units.with_reverse)
    first = [(u, r) for u, r in zip(parts, refs) if not u.sampled and (planned is None or id(u) in planned)]
    audited, n_fresh, n_batches = _audit_units(service, view, first, keys, known, claim_recs, done, workers,
                                               scheduler, keep_proofs, progress)
    fired: dict[str, set[str]] = {}
    for u in parts:
        for c in u.claims if not u.sampled else ():
            for g in (done.get(keys[c.id]) or known[keys[c.id]]).fired:
                fired.setdefault(g, set()).add(claim_recs[c.id]["gid"])
    p.fired = {g: frozenset(hs) for g, hs in fired.items()}
    by_gid = {g["gid"]: g for u in parts for g in u.groups}
    complete = {id(u): audit_units.with_reverse(u, fired, by_gid) for u in parts if u.sampled}
    if complete:
        second = [(complete[id(u)], r) for u, r in zip(parts, refs) if u.sampled]
        # keyed anew unless its groups found what they found before and its claims keep their earlier keys
        before = earlier.fired if again is not None else {}
        anew = [(u, r) for u, r in second
                if any(fired.get(g["gid"], set()) != before.get(g["gid"], frozenset()) for g in u.groups)
                or any(keys[c.id] not in known for c in u.claims)]
        keys.update(claim_keys(view, [u for u, _ in anew], [r for _, r in anew], base, claim_recs, p.digests, p.inner,
                               earlier=(earlier.inner, earlier.keys) if again is not None else None))
        more = _audit_units(service, view, second, keys, known, claim_recs, done, workers, scheduler, keep_proofs, progress)
        audited, n_fresh, n_batches = audited + more[0], n_fresh + more[1], n_batches + more[2]
    results = {}
    by_claim: dict[str, BlockResult] = {}
    for u in parts:
        for c in u.claims:
            k = keys[c.id]
            b = results[k] = done.get(k) or known[k]
            by_claim[c.id] = b
    out = None
    if again is not None and previous is not None:     # the earlier answer, completed anew where it changed
        before = {cid: known[k] for cid, k in earlier.keys.items() if k in known}
        out = remerge(previous, before, view, by_claim)
        if out is not None:
            out.view = view
            out.parts = derivations(results.values())
            out.derivation = out.parts[0] if len(out.parts) == 1 else None
    if out is None:
        out = merge(view, list(results.values()))
    out.run = AuditRun(results, units=len(parts), audited=audited, reused=len(parts) - audited,
                       claims_audited=n_fresh, claims_reused=len(results) - n_fresh, batches=n_batches, workers=workers,
                       planned=len(parts) if planned is None else len(planned), plan=p)
    whole = [complete.get(id(u), u) for u in parts]
    out.recompute = lambda cid: _recompute(service, view, whole, refs, keys, claim_recs, cid)
    return out


def _audit_units(service, view: ReleaseView, units_refs: list[tuple[Unit, list[Fact]]], keys: dict[str, str],
                 known: dict[str, BlockResult], claim_recs: dict[str, dict[str, Any]], done: dict[str, BlockResult],
                 workers: int, scheduler: str | None, keep_proofs: bool, progress) -> tuple[int, int, int]:
    """Audit the claims of these units whose keys no earlier result has, in batches (in this process,
    on worker processes or on a Dask cluster), into ``done``; the units, claims and batches audited."""
    fresh: list[tuple[Unit, list[Fact]]] = []
    for u, r in units_refs:
        ids = {c.id for c in u.claims if keys[c.id] not in known}
        if ids:
            fresh.append((u if len(ids) == len(u.claims) else sub_unit(u, ids, view.facts, claim_recs), r))
    n_units = len(fresh)
    fresh = [(piece, r) for u, r in fresh for piece in _pieces(u, view.facts, claim_recs)]
    todo = []
    size = None
    n_fresh = sum(len(u.claims) for u, _ in fresh)
    if workers > 1 or scheduler:      # several batches per worker, so the last ones even out the load
        size = max(200, min(audit_units.BATCH_CLAIMS, n_fresh // (4 * max(workers, 2))))
    ref_of = {id(u): r for u, r in fresh}
    for batch in batches(audit_units.by_subject([u for u, _ in fresh]), size):
        todo.append((batch, {c.id: keys[c.id] for u in batch for c in u.claims}, [ref_of[id(u)] for u in batch]))
    log.info("audit of %s: %d claims of %d units to audit in %d batches", view.name, n_fresh, len(fresh), len(todo))
    if (workers > 1 or scheduler) and len(todo) > 1:
        for part in _run_pool(service, view, todo, claim_recs, keep_proofs, workers, scheduler, progress):
            done.update((b.key, b) for b in part)
    else:
        for n, (us, ks, rs) in enumerate(todo, 1):
            # one run: the reasoner's own progress (facts asserted) is the finer measure
            done.update((b.key, b) for b in audit_batch(service, view, us, ks, rs, claim_recs, keep_proofs,
                                                        progress if len(todo) == 1 else None))
            if progress and len(todo) > 1:
                progress("auditing blocks", n, len(todo))
    return n_units, n_fresh, len(todo)


def _pieces(u: Unit, facts: dict[str, Fact], claim_recs: dict[str, dict[str, Any]]) -> list[Unit]:
    """A unit of more pairs than a batch holds (:data:`.units.BATCH_PAIRS`; a large bucket's sample unit
    with every pair that found something) in parts of whole groups, each of about that many pairs and
    audited as a part of the unit (:func:`audit_keys.sub_unit`: the same results), so one engine run
    holds no more than a batch; else the unit."""
    limit = audit_units.BATCH_PAIRS
    if len(u.pairs) + len(u.reverse) <= limit or len(u.groups) < 2:
        return [u]
    weight = Counter(a for a, _ in u.pairs)
    weight.update(b for _, b in u.reverse)
    members: dict[str, list[str]] = {}
    for c in u.claims:
        members.setdefault(claim_recs[c.id]["gid"], []).append(c.id)
    out: list[Unit] = []
    ids: set[str] = set()
    n = 0
    for g in u.groups:
        if ids and n + weight[g["gid"]] > limit:
            out.append(sub_unit(u, ids, facts, claim_recs))
            ids, n = set(), 0
        ids.update(members.get(g["gid"], ()))
        n += weight[g["gid"]]
    if ids:
        out.append(sub_unit(u, ids, facts, claim_recs))
    return out


def merge(view: ReleaseView, parts: list[BlockResult]) -> AuditResult:
    """The result of a release from its units' results, as one run gives it: findings by claim id, a
    finding two claims share told once (under the claim with the lower id), premises named. The parts
    are not changed (a part may be reused by a later audit): what is completed here is a copy (a finding
    naming no premise is not completed, so it is the part's own: :func:`.delta._told`)."""
    copies: dict[int, dict[str, Any]] = {}     # a premise (shared by a claim's findings and status) -> its copy
    items = sorted((_told(f, copies) for p in parts for f in p.findings), key=lambda f: f["claims"][0]["id"])
    findings, shared = [], set()
    for f in items:
        if f["basis"] == "claims" and len(f["claims"]) == 2:
            key = (f["kind"],) + tuple(sorted(c["id"] for c in f["claims"]))
            if key in shared:
                continue
            shared.add(key)
        findings.append(f)
    by_claim: dict[str, list[dict]] = {}
    listed: set[tuple[str, str]] = set()
    for f in findings:
        pair = f["basis"] == "claims" and len(f["claims"]) == 2
        for c in f["claims"] if pair else f["claims"][:1]:
            if (c["id"], f["id"]) not in listed:
                listed.add((c["id"], f["id"]))
                by_claim.setdefault(c["id"], []).append(f)
    statuses: dict[str, dict[str, Any]] = {}
    corroboration: dict[str, list[dict]] = {}
    for p in parts:
        statuses.update((cid, _fresh(st, copies)) for cid, st in p.statuses.items())
        for ref, lst in p.corroboration.items():
            corroboration.setdefault(ref, []).extend(lst)
    for lst in corroboration.values():
        lst.sort(key=lambda c: c["id"])
    out: dict[str, dict[str, Any]] = {}
    for c in view.claims:
        st = statuses.get(c.id)
        if st is None:
            continue
        st["findings"] = [x["id"] for x in by_claim.get(c.id, [])]
        if st["status"] == "unverifiable":
            st["reason"] = unverifiable_reason(c, by_claim.get(c.id, []), view)
        out[c.id] = st
    name_premises(findings, out, view)
    derivs = derivations(parts)
    res = AuditResult(view.name, derivs[0] if len(derivs) == 1 else None, findings, out, corroboration, by_claim)
    res.view = view
    res.parts = derivs
    return res


def _recompute(service, view, parts, refs, keys, claim_recs, cid: str) -> Derivation | None:
    for u, r in zip(parts, refs):
        if any(c.id == cid for c in u.claims):
            return audit_batch(service, view, [u], keys, [r], claim_recs, keep_proofs=True)[0].derivation
    return None


