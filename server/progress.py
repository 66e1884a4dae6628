"""Progress bars for long CLI work (validate, synth, eval, a large audit, snapshot, the benchmarks), with
the time spent and an estimate of the time left, drawn with rich on
a terminal and silent otherwise (a pipe, a log file, ``--quiet``).

The engine reports progress through a plain callback ``progress(phase, done, total)`` (``total`` None
when unknown); a :class:`Bar` is such a callback.
"""
from __future__ import annotations

import sys
from typing import Any


def columns() -> tuple[Any, ...]:
    """What a bar shows: the phase, the bar, done/total, the time spent and, once the total is known and
    some work is done, the estimated time left ("eta 0:01:12")."""
    from rich.progress import (BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)
    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("eta"), TimeRemainingColumn(compact=True, elapsed_when_finished=True))


class Bar:
    """One line per phase on standard error while the work runs; a no-op when not enabled."""

    def __init__(self, enabled: bool | None = None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> "Bar":
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress
            self._progress = Progress(*columns(), console=Console(stderr=True), transient=False)
            self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __call__(self, phase: str, done: int, total: int | None = None) -> None:
        if self._progress is None:
            return
        task = self._tasks.get(phase)
        if task is None:
            task = self._tasks[phase] = self._progress.add_task(phase, total=total)
        self._progress.update(task, completed=done, total=total)


def bar(args: Any) -> Bar:
    """The bar a command should use: on a terminal unless ``--quiet``."""
    return Bar(sys.stderr.isatty() and not getattr(args, "quiet", False))
