"""Batches audited apart: on local worker processes or on a Dask cluster, each worker loading the KB once."""
from __future__ import annotations

import os
from typing import Any, Callable
from .units import Unit
from ..core.memory import collector_paused
from .batch import BlockResult, audit_batch


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


def default_workers() -> int:
    """The worker count ``--workers 0`` means: one per core."""
    return max(1, os.cpu_count() or 1)
