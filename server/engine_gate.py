"""Every face's way into the engine for work that is not cached: a bounded turn and a time budget.

A worker computes at most ENGINE_CONCURRENCY uncached answers at once (default 1: the work is
CPU-bound and holds the GIL, so interleaving only slows each). Requests that find the engine busy wait
for their turn, but only ENGINE_QUEUE of them per worker (default 4) and for at most ENGINE_QUEUE_WAIT
seconds (default 10, never past the request's own deadline); past either, the request is answered at
once with a 503 and ``Retry-After``. So a flood of expensive requests never takes every request thread
of a worker: /health, pages and cached answers always find a thread free.

The same gate and the same time limit (REQUEST_TIME_LIMIT) apply to the API, the pages and /mcp; the
CLI applies the time limit. A text whose check runs past the limit is a 422 that names the limit
(:func:`within_budget`), not a generic 503.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator, Mapping

from gpukb.engine.core import limits
from gpukb.engine.core.errors import GpukbError, Issue, TimeLimitExceeded

DEFAULT_QUEUE = 4
DEFAULT_QUEUE_WAIT = 10.0
RETRY_AFTER = 5          # seconds a refused client is told to wait


class EngineBusy(GpukbError):
    """Too many requests are already waiting for this worker's engine (HTTP 503 with Retry-After)."""

    status = 503

    def __init__(self, message: str, issues: list[Issue] | None = None, retry_after: int = RETRY_AFTER):
        super().__init__(message, issues)
        self.retry_after = retry_after


class OverBudget(GpukbError):
    """A text whose check takes longer than the time limit (HTTP 422): shorter texts are the cure."""

    status = 422


class EngineGate:
    """At most ``concurrency`` holders; at most ``queue`` waiters, each for at most ``wait`` seconds."""

    def __init__(self, concurrency: int = 1, queue: int = DEFAULT_QUEUE, wait: float = DEFAULT_QUEUE_WAIT):
        self.concurrency = max(1, int(concurrency))
        self.queue = max(0, int(queue))
        self.wait = max(0.0, float(wait))
        self._sem = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self.waiting = 0

    def _busy(self, why: str) -> EngineBusy:
        msg = (f"the server is busy: {why}; retry in {RETRY_AFTER} s (at most {self.concurrency} answer(s) are "
               f"computed at once per worker and {self.queue} wait, each at most {self.wait:g} s)")
        return EngineBusy(msg, [Issue(msg, field="server")])

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        if not self._sem.acquire(blocking=False):
            with self._lock:
                if self.waiting >= self.queue:
                    raise self._busy(f"{self.waiting} requests are already waiting for the engine")
                self.waiting += 1
            try:
                left = limits.remaining()
                wait = self.wait if left is None else max(0.0, min(self.wait, left))
                got = self._sem.acquire(timeout=wait)
            finally:
                with self._lock:
                    self.waiting -= 1
            if not got:
                raise self._busy(f"no turn at the engine within {wait:.3g} s")
        try:
            yield
        finally:
            self._sem.release()


def gate_of(extensions: dict[str, Any], config: Mapping[str, Any]) -> EngineGate:
    """The app's one gate (created on first use from its configuration)."""
    gate = extensions.get("gpukb_engine_gate")
    if gate is None:
        with _CREATE:
            gate = extensions.get("gpukb_engine_gate")
            if gate is None:
                gate = extensions["gpukb_engine_gate"] = EngineGate(
                    int(config.get("ENGINE_CONCURRENCY", 1) or 1), int(config.get("ENGINE_QUEUE", DEFAULT_QUEUE)),
                    float(config.get("ENGINE_QUEUE_WAIT", DEFAULT_QUEUE_WAIT)))
    return gate


_CREATE = threading.Lock()


def within_budget(fn: Callable[[], Any], what: str = "checking this text") -> Any:
    """``fn()``; a time limit it runs past becomes a 422 naming the limit (the text is over the budget)."""
    try:
        return fn()
    except TimeLimitExceeded as exc:
        seconds = exc.message.split("limit of ", 1)[-1].split(" s", 1)[0] if "limit of " in exc.message else "?"
        msg = (f"{what} took longer than the time limit of {seconds} s per request; send a shorter text "
               "(split it), or raise the limit (gpukb serve --request-timeout, GPUKB_REQUEST_TIMEOUT)")
        raise OverBudget(msg, [Issue(msg, field="text")]) from None
