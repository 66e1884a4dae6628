"""Time limits for work that could run long: a request, a reload's smoke derivation.

A limit is a deadline in a context variable, so each thread (and each request served by it) has its
own. Long loops call :func:`check` now and then; past the deadline it raises
:class:`~engine.core.errors.TimeLimitExceeded`, which the API answers with a 503 in the usual error shape.

    with time_limit(30, "answering /v1/ask"):
        ...                      # any derivation in here stops after 30 s
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from typing import Iterator

from .errors import Issue, TimeLimitExceeded

# every limit in force: (deadline, seconds, what it limits, whether shared work is exempt from it)
_Entry = tuple[float, float, str, bool]
_DEADLINES: contextvars.ContextVar[tuple[_Entry, ...]] = contextvars.ContextVar("gpukb_deadlines", default=())
_SHARED: contextvars.ContextVar[bool] = contextvars.ContextVar("gpukb_shared_work", default=False)


@contextlib.contextmanager
def time_limit(seconds: float | None, what: str = "the request") -> Iterator[None]:
    """Run the body under a deadline ``seconds`` from now (None or 0: no limit; outer limits stay in
    force too)."""
    if not seconds or seconds <= 0:
        yield
        return
    token = _DEADLINES.set(_DEADLINES.get() + ((time.monotonic() + float(seconds), float(seconds), what, False),))
    try:
        yield
    finally:
        _DEADLINES.reset(token)


def start(seconds: float | None, what: str = "the request") -> contextvars.Token | None:
    """Set a request's deadline until :func:`stop` (for hooks that cannot wrap the work in ``with``).

    Work done under :func:`shared_work` is exempt from it: a result every later request reuses (the
    audit of a release) must not be abandoned because one request ran out of time, or it would be
    started again, and abandoned again, by every request after it.
    """
    if not seconds or seconds <= 0:
        return None
    return _DEADLINES.set(_DEADLINES.get() + ((time.monotonic() + float(seconds), float(seconds), what, True),))


def stop(token: contextvars.Token | None) -> None:
    if token is not None:
        _DEADLINES.reset(token)


@contextlib.contextmanager
def shared_work() -> Iterator[None]:
    """Run work whose result is cached for everyone: request deadlines do not apply to it (other
    limits, e.g. a smoke derivation's, still do; the firing budget always does)."""
    token = _SHARED.set(True)
    try:
        yield
    finally:
        _SHARED.reset(token)


def remaining() -> float | None:
    """Seconds left before the earliest deadline in force (None: no limit)."""
    entries = _DEADLINES.get()
    return min(e[0] for e in entries) - time.monotonic() if entries else None


def check(detail: str = "") -> None:
    """Raise :class:`TimeLimitExceeded` when a deadline in force has passed."""
    entries = _DEADLINES.get()
    if not entries:
        return
    now, shared = time.monotonic(), _SHARED.get()
    for deadline, seconds, what, exempt in entries:
        if now > deadline and not (exempt and shared):
            text = f"{what} took longer than its limit of {seconds:g} s" + (f" ({detail})" if detail else "")
            raise TimeLimitExceeded(text, [Issue(text, field="time")])
