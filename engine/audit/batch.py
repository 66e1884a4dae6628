"""One batch of the audit: some units audited in one engine run, and its result cut claim by claim."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable
from ..kb.store import Fact, ReleaseView
from ..reasoning.reasoner import Derivation
from .result import AuditResult, audit_records
from .inputs import claim_records, context_records, fact_records
from .blocks import pair_records
from .pairs import pair_filter
from .units import Unit


@dataclass
class BlockResult:
    """What the audit says of one claim (``key``: its :func:`audit_keys.claim_keys` key): its findings,
    status and corroboration, and the derivation of the batch it was audited in (None when proofs are
    not kept)."""

    key: str
    findings: list[dict[str, Any]]
    statuses: dict[str, dict[str, Any]]
    corroboration: dict[str, list[dict]]
    derivation: Derivation | None = None
    #: the sample groups whose pair in reverse with this claim's group found something (:attr:`Unit.reverse`)
    fired: tuple[str, ...] = ()


def _union_reference(view: ReleaseView, parts: Iterable[list[Fact]]) -> list[Fact]:
    keep = {f.key for part in parts for f in part}
    return [f for f in view.reference if f.key in keep]


def fired(res: AuditResult, parts: list[Unit]) -> dict[str, tuple[str, ...]]:
    """Group id -> the sample groups whose pair in reverse with it (:attr:`Unit.reverse`) derived a
    group finding in this batch."""
    rev = {p for u in parts for p in u.reverse}
    out: dict[str, set[str]] = {}
    if rev and res.derivation is not None:
        for f in res.derivation.derived("gfinding"):
            if (f.get("g"), f.get("h")) in rev:
                out.setdefault(f["h"], set()).add(f["g"])
    return {h: tuple(sorted(rs)) for h, rs in out.items()}


def _split(res: AuditResult, parts: list[Unit], keys: dict[str, str], keep_proofs: bool,
           claim_recs: dict[str, dict[str, Any]]) -> list[BlockResult]:
    """One batch's result cut claim by claim (what the batch says of context claims is dropped)."""
    d = res.derivation if keep_proofs else None
    by_group = fired(res, parts)
    own = {c.id: BlockResult(keys[c.id], [], {}, {}, d, by_group.get(claim_recs[c.id]["gid"], ()))
           for u in parts for c in u.claims}
    for item in res.findings:
        b = own.get(item["claims"][0]["id"])
        if b is not None:
            b.findings.append(item)
    for cid, st in res.statuses.items():
        if cid in own:
            own[cid].statuses[cid] = st
    for ref, lst in res.corroboration.items():
        for cref in lst:
            if cref["id"] in own:
                own[cref["id"]].corroboration.setdefault(ref, []).append(cref)
    return list(own.values())


def audit_batch(service, view: ReleaseView, parts: list[Unit], keys: dict[str, str], references: list[list[Fact]],
                claim_recs: dict[str, dict[str, Any]], keep_proofs: bool = True, progress: Any = None) -> list[BlockResult]:
    """Audit some units in one engine run; their results, one per claim. ``keys``: the claims' keys,
    ``claim_recs``: the claims' records with their group ids."""
    owned = [c for u in parts for c in u.claims]
    mine = {c.id for c in owned}
    context = list({c.id: c for u in parts for c in u.context_claims if c.id not in mine}.values())
    gids = {g["gid"] for u in parts for g in u.groups}
    ctx_groups = list({g["gid"]: g for u in parts for g in u.context_groups if g["gid"] not in gids}.values())
    refs = _union_reference(view, references)
    named = {c.id: c for c in owned + context}
    # the claims a finding names for a group: of another unit, or of a part of this unit audited alone
    # (:func:`audit_keys.sub_unit`), whose representatives may be claims the part does not hold
    for g in ctx_groups + [g for u in parts for g in u.groups]:
        for rid in (g.get("rep"), g.get("rep2")):
            if rid and rid not in named and rid in view.facts:
                named[rid] = view.facts[rid]
    sub = view.with_claims(list(named.values()), set(view.source_ids))
    groups = [g for u in parts for g in u.groups] + ctx_groups
    # the engine is given only the pairs some rule can fire on (:mod:`.pairs`: the same findings)
    pairs = pair_filter(service).pairs(pair_records(p for u in parts for p in u.pairs + u.reverse),
                                       {g["gid"]: g for g in groups})
    records = (context_records(view, refs) + groups + pairs + [claim_recs[c.id] for c in owned]
               + [{k: v for k, v in r.items() if k != "gid"} for r in claim_records(view, context)])
    res = audit_records(service, sub, owned, records, progress, premises_named=False, shared=fact_records(view, refs))
    return _split(res, parts, keys, keep_proofs, claim_recs)
