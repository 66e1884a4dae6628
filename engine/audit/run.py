"""Running the audit of a release: units, batches, worker processes, and reuse of unchanged units.

The claims of a release fall into units (:func:`audit_blocks.units`): the value groups of one bucket
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

import contextlib
import gc
import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..kb.store import Fact, ReleaseView
from ..reasoning.reasoner import Derivation
from ..kb import facts as factrec
from .result import AuditResult, audit_records, name_premises
from .inputs import claim_records, reference_records
from . import blocks as audit_blocks
from .blocks import Unit, batches, group_pairs, units
from .keys import claim_keys, reach, sub_unit
from .delta import Plan, _fresh, derivations, remerge, replan
from .gaps import reason as unverifiable_reason

log = logging.getLogger("gpukb.audit")


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


def _union_reference(view: ReleaseView, parts: Iterable[list[Fact]]) -> list[Fact]:
    keep = {f.key for part in parts for f in part}
    return [f for f in view.reference if f.key in keep]


def _split(res: AuditResult, parts: list[Unit], keys: dict[str, str], keep_proofs: bool) -> list[BlockResult]:
    """One batch's result cut claim by claim (what the batch says of context claims is dropped)."""
    d = res.derivation if keep_proofs else None
    own = {c.id: BlockResult(keys[c.id], [], {}, {}, d) for u in parts for c in u.claims}
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
    facts = {f.id: f for f in view.reference}
    facts.update(named)
    sub = ReleaseView(view.kb, view.release, facts, set(view.source_ids))
    records = (reference_records(view, refs) + [g for u in parts for g in u.groups] + ctx_groups
               + [p for u in parts for p in u.pairs] + [claim_recs[c.id] for c in owned]
               + [{k: v for k, v in r.items() if k != "gid"} for r in claim_records(view, context)])
    res = audit_records(service, sub, owned, records, progress, premises_named=False)
    return _split(res, parts, keys, keep_proofs)


# -- worker processes ---------------------------------------------------------------------------
_WORKER_STATE: dict[tuple, Any] = {}


def _worker_state(factory: Callable[..., Any], kb_dir: str, rules_dir: str, include_pending: bool):
    """The loaded KB and compiled rules of a worker process (loaded once per process); ``factory`` is the
    session class of the caller (pickled by reference), so this package never imports the service."""
    key = (factory.__module__, factory.__qualname__, kb_dir, rules_dir, include_pending)
    if key not in _WORKER_STATE:
        _WORKER_STATE[key] = factory(kb_dir, rules_dir, include_pending=include_pending)
    return _WORKER_STATE[key]


def batch_job(factory: Callable[..., Any], kb_dir: str, rules_dir: str, include_pending: bool, release: str, parts: list[Unit],
              keys: dict[str, str], references: list[list[str]], claim_recs: dict[str, dict[str, Any]],
              keep_proofs: bool) -> list[BlockResult]:
    """A batch audited in a worker (a local process or a Dask worker): the units travel whole, the
    reference facts as keys of the worker's own copy of the KB."""
    state = _worker_state(factory, kb_dir, rules_dir, include_pending)
    view = state.view(release)
    by_key = {f.key: f for f in view.reference}
    refs = [[by_key[k] for k in ks if k in by_key] for ks in references]
    with collector_paused():
        return audit_batch(state, view, parts, keys, refs, claim_recs, keep_proofs)


CONNECT_SECONDS = 5.0       # to connect to a Dask scheduler, and for it to greet us


def probe_scheduler(address: str, seconds: float = CONNECT_SECONDS) -> None:
    """Refuse, in plain words and within ``seconds``, an address where no Dask scheduler answers: a
    closed port, a service that speaks another protocol (an HTTP server waits silently for a request;
    Dask itself would read its first bytes as a frame length and ask for gigabytes), a silent listener.
    A Dask scheduler speaks first: an 8-byte frame length, then its handshake."""
    import socket
    import struct
    from urllib.parse import urlsplit
    from ..core.errors import BadInput, Issue

    def bad(why: str) -> BadInput:
        msg = f"--scheduler {address[:200]}: {why}"
        return BadInput(msg, [Issue(why, field="scheduler")])
    parts = urlsplit(address if "://" in address else "tcp://" + address)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if parts.scheme not in ("tcp", "tls") or not host or not port:
        raise bad("expected an address like tcp://host:8786")
    try:
        sock = socket.create_connection((host, port), timeout=seconds)
    except socket.timeout:
        raise bad(f"no answer from {host}:{port} within {seconds:g} s (a firewall, or a wrong address?)") from None
    except ConnectionRefusedError:
        raise bad(f"nothing listens on {host}:{port} (connection refused): is the scheduler running?") from None
    except OSError as exc:
        raise bad(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
    with sock:
        if parts.scheme == "tls":
            return                       # the TLS handshake comes first; Dask's own timeout bounds the rest
        sock.settimeout(seconds)
        head = b""
        try:
            while len(head) < 8:
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    break
                head += chunk
        except (socket.timeout, OSError):
            pass
    if not head:
        raise bad(f"{host}:{port} accepts connections but said nothing within {seconds:g} s: it is not a Dask "
                  "scheduler (an HTTP server, or another service?)")
    if len(head) < 8 or not 0 < struct.unpack("<Q", head)[0] < 64 * 1024 * 1024 or head[:4] in (b"HTTP", b"SSH-"):
        shown = head[:8].decode("latin-1").encode("unicode_escape").decode()
        raise bad(f"{host}:{port} answers, but not as a Dask scheduler (it sent {shown!r})")


def _run_pool(service, view, todo, claim_recs, keep_proofs, workers, scheduler, progress) -> list[list[BlockResult]]:
    args = [(type(service), str(service.kb_dir), str(service.rules_dir), bool(service.include_pending), view.name, parts, keys,
             [[f.key for f in r] for r in refs], {c.id: claim_recs[c.id] for u in parts for c in u.claims}, keep_proofs)
            for parts, keys, refs in todo]
    results: list[list[BlockResult] | None] = [None] * len(todo)
    if scheduler:
        try:
            from dask.distributed import Client, as_completed as dask_completed
        except ImportError:
            from ..core.errors import BadInput, Issue
            raise BadInput("a Dask scheduler needs the optional extra: pip install 'gpukb[cluster]'",
                           [Issue("dask.distributed is not installed", field="scheduler")]) from None
        probe_scheduler(scheduler)
        with Client(scheduler, timeout=CONNECT_SECONDS) as client:
            futures = {client.submit(batch_job, *a, pure=False): i for i, a in enumerate(args)}
            for n, fut in enumerate(dask_completed(futures), 1):
                results[futures[fut]] = fut.result()
                if progress:
                    progress("auditing blocks", n, len(todo))
        return results      # type: ignore[return-value]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    ctx = multiprocessing.get_context("spawn")     # durable_rules' engine is not fork-safe once used
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futs = {pool.submit(batch_job, *a): i for i, a in enumerate(args)}
        for n, fut in enumerate(as_completed(futs), 1):
            results[futs[fut]] = fut.result()
            if progress:
                progress("auditing blocks", n, len(todo))
    return results      # type: ignore[return-value]


def plan(view: ReleaseView) -> tuple[list[Unit], dict[str, dict[str, Any]]]:
    """The units of a release's audit and its claims' records (with their group ids)."""
    claims = view.claims
    recs = claim_records(view, claims)
    groups = factrec.group_records(recs)
    return units(view, claims, recs, groups, group_pairs(groups)), {c.id: r for c, r in zip(claims, recs)}


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a block (restored after): an audit allocates millions
    of records that live until it ends, and each full collection traversed all of them and the KB (a
    sixth of a 10,000-claim audit's CPU time, two thirds of a re-audit's). Nothing the audit frees is
    cyclic, so reference counting frees it as before."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def run_audit(service: "Session", view: ReleaseView, *, workers: int = 1, scheduler: str | None = None,
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
        keys = claim_keys(view, parts, refs, base, claim_recs, digests)
        p, planned = Plan(view, parts, refs, keys, claim_recs, base, digests), None
    known = previous.run.results if previous is not None and previous.run else {}
    done: dict[str, BlockResult] = {}
    fresh: list[tuple[Unit, list[Fact]]] = []
    for u, r in zip(parts, refs):
        if planned is not None and id(u) not in planned:
            continue                  # a unit of the earlier plan: its claims' keys are the earlier ones
        ids = {c.id for c in u.claims if keys[c.id] not in known}
        if ids:
            fresh.append((u if len(ids) == len(u.claims) else sub_unit(u, ids, view.facts, claim_recs), r))
    todo = []
    workers = max(1, int(workers or 1))
    size = None
    n_fresh = sum(len(u.claims) for u, _ in fresh)
    if workers > 1 or scheduler:      # several batches per worker, so the last ones even out the load
        size = max(200, min(audit_blocks.BATCH_CLAIMS, n_fresh // (4 * max(workers, 2))))
    ref_of = {id(u): r for u, r in fresh}
    for batch in batches([u for u, _ in fresh], size):
        todo.append((batch, {c.id: keys[c.id] for u in batch for c in u.claims}, [ref_of[id(u)] for u in batch]))
    log.info("audit of %s: %d claims in %d units, %d claims of %d units to audit in %d batches, %d claims reused",
             view.name, len(view.claims), len(parts), n_fresh, len(fresh), len(todo), len(view.claims) - n_fresh)
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
    out.run = AuditRun(results, units=len(parts), audited=len(fresh), reused=len(parts) - len(fresh),
                       claims_audited=n_fresh, claims_reused=len(results) - n_fresh, batches=len(todo), workers=workers,
                       planned=len(parts) if planned is None else len(planned), plan=p)
    out.recompute = lambda cid: _recompute(service, view, parts, refs, keys, claim_recs, cid)
    return out


def merge(view: ReleaseView, parts: list[BlockResult]) -> AuditResult:
    """The result of a release from its units' results, as one run gives it: findings by claim id, a
    finding two claims share told once (under the claim with the lower id), premises named. The parts
    are not changed (a part may be reused by a later audit): what is completed here is a copy."""
    copies: dict[int, dict[str, Any]] = {}     # a premise (shared by a claim's findings and status) -> its copy
    items = sorted((_fresh(f, copies) for p in parts for f in p.findings), key=lambda f: f["claims"][0]["id"])
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


def default_workers() -> int:
    """The worker count ``--workers 0`` means: one per core."""
    return max(1, os.cpu_count() or 1)
