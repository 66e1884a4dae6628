"""Time limits for work that could run long: a request, a reload's smoke derivation.

A limit is a deadline in a context variable, so each thread (and each request served by it) has its
own. Long loops call :func:`check` now and then; past the deadline it raises
:class:`~engine.errors.TimeLimitExceeded`, which the API answers with a 503 in the usual error shape.

    with time_limit(30, "answering /v1/ask"):
        ...                      # any derivation in here stops after 30 s
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from typing import Iterator

from .errors import Issue, TimeLimitExceeded

_DEADLINE: contextvars.ContextVar[tuple[float, float, str] | None] = contextvars.ContextVar("gpukb_deadline",
                                                                                          default=None)


@contextlib.contextmanager
def time_limit(seconds: float | None, what: str = "the request") -> Iterator[None]:
    """Run the body under a deadline ``seconds`` from now (None or 0: no limit; an outer, earlier
    deadline stays in force)."""
    if not seconds or seconds <= 0:
        yield
        return
    deadline = time.monotonic() + float(seconds)
    outer = _DEADLINE.get()
    if outer is not None and outer[0] <= deadline:
        yield
        return
    token = _DEADLINE.set((deadline, float(seconds), what))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def start(seconds: float | None, what: str = "the request") -> contextvars.Token | None:
    """Set a deadline until :func:`stop` (for hooks that cannot wrap the work in ``with``)."""
    if not seconds or seconds <= 0:
        return None
    return _DEADLINE.set((time.monotonic() + float(seconds), float(seconds), what))


def stop(token: contextvars.Token | None) -> None:
    if token is not None:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current deadline (None: no limit)."""
    d = _DEADLINE.get()
    return None if d is None else d[0] - time.monotonic()


def check(detail: str = "") -> None:
    """Raise :class:`TimeLimitExceeded` when the current deadline has passed."""
    d = _DEADLINE.get()
    if d is not None and time.monotonic() > d[0]:
        what = f"{d[2]} took longer than its limit of {d[1]:g} s"
        if detail:
            what += f" ({detail})"
        raise TimeLimitExceeded(what, [Issue(what, field="time")])
