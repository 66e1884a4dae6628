"""Running the audit of a release: blocks, batches, worker processes, and reuse of unchanged blocks.

The claims of a release fall into blocks that no rule relates to each other
(:func:`audit_blocks.partition`); each block is audited with the reference facts it can reach, so the
work grows with the number of claims instead of its square and memory with the largest block. A block
audit is a pure function of the block's claims, their sources' dates and context, the reference facts
it reaches and the rules: :func:`block_key` names that input, and an audit given a previous result
(``previous=``) reuses every block whose key is unchanged (adding a source re-audits only the blocks
its claims join). Batches of blocks run in this process, on local worker processes (``workers=N``) or
on a Dask cluster (``scheduler="tcp://host:port"``, the optional extra ``gpukb[cluster]``).
"""
from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..kb.store import Fact, ReleaseView
from ..reasoning.reasoner import Derivation
from .audit import AuditResult, audit_block
from .audit_blocks import batches, partition, reachable_reference

log = logging.getLogger("gpukb.audit")


@dataclass
class BlockResult:
    """What the audit says of one block: findings, statuses and corroboration of its claims, and the
    derivation of the batch it was audited in (None when proofs are not kept)."""

    key: str
    claims: list[str]
    findings: list[dict[str, Any]]
    statuses: dict[str, dict[str, Any]]
    by_claim: dict[str, list[dict]]
    corroboration: dict[str, list[dict]]
    derivation: Derivation | None = None


@dataclass
class AuditRun:
    """The blocks of a run and how many were audited or reused (what ``gpukb audit`` reports)."""

    blocks: list[BlockResult] = field(default_factory=list)
    audited: int = 0
    reused: int = 0
    batches: int = 0
    workers: int = 1


def block_key(view: ReleaseView, block: list[Fact], reference: list[Fact], rules_digest: str) -> str:
    """A digest of everything a block's audit reads: its claims (id, version, content, review mark),
    their sources' dates and context, the reference facts it reaches and the rules."""
    h = hashlib.sha256(rules_digest.encode())
    vocab_path = Path(view.kb.root) / "vocabulary.yaml"
    if vocab_path.is_file():
        h.update(hashlib.sha256(vocab_path.read_bytes()).digest())
    for c in sorted(block, key=lambda c: c.id):
        src = view.kb.sources.get(c.source or "")
        h.update(repr((c.key, sorted(c.as_dict().items(), key=lambda kv: kv[0]), c.pending,
                       src.published if src else None, tuple(src.about) if src else ())).encode())
    for f in reference:
        h.update(f.key.encode() + b"\0")
    return h.hexdigest()[:24]


def _sub_view(view: ReleaseView, claims: list[Fact]) -> ReleaseView:
    facts = {f.id: f for f in view.reference}
    facts.update({c.id: c for c in claims})
    return ReleaseView(view.kb, view.release, facts, set(view.source_ids))


def _union_reference(view: ReleaseView, parts: Iterable[list[Fact]]) -> list[Fact]:
    keep = {f.key for part in parts for f in part}
    return [f for f in view.reference if f.key in keep]


def _split(res: AuditResult, blocks: list[list[Fact]], keys: list[str], keep_proofs: bool) -> list[BlockResult]:
    """One batch's result cut along its blocks."""
    owner = {c.id: i for i, b in enumerate(blocks) for c in b}
    out = [BlockResult(k, [c.id for c in b], [], {}, {}, {}, res.derivation if keep_proofs else None)
           for k, b in zip(keys, blocks)]
    for item in res.findings:
        out[owner[item["claims"][0]["id"]]].findings.append(item)
    for cid, st in res.statuses.items():
        out[owner[cid]].statuses[cid] = st
    for cid, lst in res.by_claim.items():
        out[owner[cid]].by_claim[cid] = lst
    for ref, lst in res.corroboration.items():
        for cref in lst:
            out[owner[cref["id"]]].corroboration.setdefault(ref, []).append(cref)
    return out


def audit_batch(service, view: ReleaseView, blocks: list[list[Fact]], keys: list[str],
                references: list[list[Fact]], keep_proofs: bool = True) -> list[BlockResult]:
    """Audit some blocks in one engine run; their results, one per block."""
    claims = [c for b in blocks for c in b]
    res = audit_block(service, _sub_view(view, claims), _union_reference(view, references))
    return _split(res, blocks, keys, keep_proofs)


# -- worker processes ---------------------------------------------------------------------------
_WORKER_STATE: dict[tuple, Any] = {}


def _worker_state(kb_dir: str, rules_dir: str, include_pending: bool):
    """The loaded KB and compiled rules of a worker process (loaded once per process)."""
    key = (kb_dir, rules_dir, include_pending)
    if key not in _WORKER_STATE:
        from .service import GpuKB
        _WORKER_STATE[key] = GpuKB(kb_dir, rules_dir, include_pending=include_pending)
    return _WORKER_STATE[key]


def batch_job(kb_dir: str, rules_dir: str, include_pending: bool, release: str, block_ids: list[list[str]],
              keys: list[str], keep_proofs: bool) -> list[BlockResult]:
    """A batch audited in a worker (a local process or a Dask worker): the blocks travel as claim ids."""
    state = _worker_state(kb_dir, rules_dir, include_pending)
    view = state.view(release)
    blocks = [[view.facts[i] for i in ids] for ids in block_ids]
    refs = [reachable_reference(view, b) for b in blocks]
    return audit_batch(state, view, blocks, keys, refs, keep_proofs)


def _run_pool(service, view, todo, keep_proofs, workers, scheduler, progress) -> list[list[BlockResult]]:
    args = [(str(service.kb_dir), str(service.rules_dir), bool(service.include_pending), view.name,
             [[c.id for c in b] for b in blocks], keys, keep_proofs) for blocks, keys, _ in todo]
    results: list[list[BlockResult] | None] = [None] * len(todo)
    if scheduler:
        try:
            from dask.distributed import Client, as_completed as dask_completed
        except ImportError:
            from ..errors import BadInput, Issue
            raise BadInput("a Dask scheduler needs the optional extra: pip install 'gpukb[cluster]'",
                           [Issue("dask.distributed is not installed", field="scheduler")]) from None
        with Client(scheduler) as client:
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


def run_audit(service, view: ReleaseView, *, workers: int = 1, scheduler: str | None = None,
              previous: AuditResult | None = None, keep_proofs: bool = True,
              progress: Callable[[str, int, int | None], None] | None = None) -> AuditResult:
    """Audit every claim of a release, block by block (see the module docstring).

    ``workers`` > 1 audits batches on that many local processes, ``scheduler`` on a Dask cluster;
    ``previous`` (an earlier result, e.g. of the release before a source was added) lends its blocks
    whose inputs are unchanged; without ``keep_proofs`` the derivations are dropped once read (a large
    audit's memory) and recomputed for the blocks an explanation asks for.
    """
    progress = progress if progress is not None else getattr(service, "progress", None)
    blocks = partition(view)
    refs = [reachable_reference(view, b) for b in blocks]
    keys = [block_key(view, b, r, service.rules.digest) for b, r in zip(blocks, refs)]
    known = {b.key: b for b in (previous.run.blocks if previous is not None and previous.run else [])}
    done: dict[str, BlockResult] = {}
    fresh = [(b, k, r) for b, k, r in zip(blocks, keys, refs) if k not in known]
    todo = []
    for batch in batches([b for b, _, _ in fresh]):
        idx = {id(b) for b in batch}
        sel = [(b, k, r) for b, k, r in fresh if id(b) in idx]
        todo.append(([b for b, _, _ in sel], [k for _, k, _ in sel], [r for _, _, r in sel]))
    workers = max(1, int(workers or 1))
    log.info("audit of %s: %d claims in %d blocks, %d to audit in %d batches, %d reused", view.name,
             len(view.claims), len(blocks), len(fresh), len(todo), len(blocks) - len(fresh))
    if (workers > 1 or scheduler) and len(todo) > 1:
        for part in _run_pool(service, view, todo, keep_proofs, workers, scheduler, progress):
            done.update((b.key, b) for b in part)
    else:
        single = len(todo) == 1
        for n, (bl, ks, rs) in enumerate(todo, 1):
            if single:      # one run: the reasoner's own progress (facts asserted) is the finer measure
                res = audit_block(service, _sub_view(view, [c for b in bl for c in b]), _union_reference(view, rs),
                                  progress=progress)
                done.update((b.key, b) for b in _split(res, bl, ks, keep_proofs))
            else:
                done.update((b.key, b) for b in audit_batch(service, view, bl, ks, rs, keep_proofs))
                if progress:
                    progress("auditing blocks", n, len(todo))
    parts = [done.get(k) or known[k] for k in keys]
    out = merge(view, parts, keep_proofs)
    out.run = AuditRun(parts, audited=len(fresh), reused=len(blocks) - len(fresh), batches=len(todo),
                       workers=workers)
    out.recompute = lambda cid: _recompute(service, view, blocks, refs, keys, cid)
    return out


def merge(view: ReleaseView, parts: list[BlockResult], keep_proofs: bool) -> AuditResult:
    """The result of a release from its blocks' results, in the order one run gives (by claim id)."""
    findings = sorted((f for p in parts for f in p.findings), key=lambda f: f["claims"][0]["id"])
    statuses: dict[str, dict[str, Any]] = {}
    by_claim: dict[str, list[dict]] = {}
    corroboration: dict[str, list[dict]] = {}
    for p in parts:
        statuses.update(p.statuses)
        by_claim.update(p.by_claim)
        for ref, lst in p.corroboration.items():
            corroboration.setdefault(ref, []).extend(lst)
    for lst in corroboration.values():
        lst.sort(key=lambda c: c["id"])
    statuses = {c.id: statuses[c.id] for c in view.claims if c.id in statuses}
    derivs = list({id(p.derivation): p.derivation for p in parts if p.derivation is not None}.values())
    res = AuditResult(view.name, derivs[0] if len(derivs) == 1 else None, findings, statuses, corroboration, by_claim)
    res.view = view
    res.parts = derivs
    res.proofs_kept = keep_proofs
    return res


def _recompute(service, view, blocks, refs, keys, cid: str) -> Derivation | None:
    for b, r, k in zip(blocks, refs, keys):
        if any(c.id == cid for c in b):
            return audit_batch(service, view, [b], [k], [r], keep_proofs=True)[0].derivation
    return None


def default_workers() -> int:
    """The worker count ``--workers 0`` means: one per core."""
    return max(1, os.cpu_count() or 1)
