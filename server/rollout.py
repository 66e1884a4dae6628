"""KB reloads off the request path: the gunicorn master builds a new generation, then swaps all workers.

A thread of the master (:class:`GpukbArbiter`) looks at the KB and rules directories every ``reload``
seconds (a stat walk, nothing is opened). When they changed it stages and builds a new generation
(:mod:`server.generations`: copied, validated, compiled, smoke-derived and snapshotted in a child
process); requests are served meanwhile by the running workers, untouched. A refused change is
recorded (/health shows it) and the last good KB keeps serving; the record is cleared when the files
return to the served state or a later change is accepted.

The switch: the master forks a full set of new workers for the new generation, one after the other
(each as a batch-scheduled process while it loads, so the serving workers keep the CPU). Each loads
it, answers a few warm-up requests internally, reports ready and waits at a gate. When all are ready the master stops the old workers (they finish the
requests they hold) and opens the gate in the same step, so every worker switches within a few
milliseconds and no request waits for a KB to load. Workers that do not become ready in time are
killed and the change is refused.
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from gunicorn.arbiter import Arbiter

from gpukb.engine.core.errors import GpukbError, clip

from .generations import Builder, Generation, now, state_of, write_state

log = logging.getLogger("gpukb.reload")
ROLL_TIMEOUT = 120.0     # seconds for the new workers of a generation to load it
GATE_POLL = 0.005


class GpukbArbiter(Arbiter):
    """gunicorn's master, plus the KB reload thread and the all-workers-together switch."""

    def __init__(self, app, builder: Builder | None, every: float, current: Generation, run_dir: Path):
        self.builder = builder
        self.every = every
        self.current = current
        self.run_dir = run_dir
        self.state_path = run_dir / "state.json"
        self.refused: dict[str, Any] | None = None
        self._pending: Generation | None = None
        self._roll: dict[str, Any] | None = None
        self._mutex = threading.Lock()
        self._stop = threading.Event()
        self._recheck = threading.Event()     # look at the files again after a switch, changed or not
        super().__init__(app)

    # -- gunicorn hooks -----------------------------------------------------------------------------
    def start(self) -> None:
        super().start()
        self._write_state()
        if self.builder is not None and self.every:
            threading.Thread(target=self._watch, name="gpukb-reload", daemon=True).start()

    def manage_workers(self) -> None:
        try:
            self._step()
        except Exception:     # noqa: BLE001 - a reload must never take the master down
            log.exception("KB reload step failed; still serving generation %s", self.current.number)
        super().manage_workers()

    def halt(self, reason=None, exit_status=0):
        self._stop.set()
        super().halt(reason, exit_status)

    # -- the watcher thread -------------------------------------------------------------------------
    def _watch(self) -> None:
        last = self.builder.stamp()
        while not self._stop.wait(self.every):
            try:
                st = self.builder.stamp()
                if st == last and not self._recheck.is_set():
                    continue
                self._recheck.clear()
                last = st
                self._consider()
            except Exception:   # noqa: BLE001
                log.exception("KB reload check failed")

    def _consider(self) -> None:
        staged = None
        try:
            staged = self.builder.stage()
            digest = staged.name
            with self._mutex:
                rolling = (self._roll or {}).get("gen")
                if digest == self.current.digest[:32] and rolling is None:
                    self._pending = None        # the files are back to what is served: nothing to switch to
                coming = {g.digest[:32] for g in (self._pending, rolling) if g is not None}
                refused = self.refused
            if digest == self.current.digest[:32] or digest in coming:
                if refused is not None:
                    log.info("the KB files are back to a good state; the refused change is cleared")
                    self._set_refused(None)
                return
            if refused is not None and refused.get("digest") == digest:
                return
            log.info("KB change seen; checking and compiling it in the background")
            t0 = time.monotonic()
            gen = self.builder.build(staged)
            log.info("KB change checked in %.1f s; switching the workers", time.monotonic() - t0)
            with self._mutex:
                self._pending = gen
            self.wakeup()
        except GpukbError as exc:
            text = clip(f"KB change refused: {exc}", 2000)
            log.error("%s; still serving generation %d", text, self.current.number)
            self._set_refused({"error": text, "at": now(), "digest": staged.name if staged is not None else None})

    def _set_refused(self, value: dict[str, Any] | None) -> None:
        with self._mutex:
            self.refused = value
        self._write_state()

    def _write_state(self) -> None:
        with self._mutex:
            state = state_of(self.current, self.refused)
        try:
            write_state(self.state_path, state)
        except OSError as exc:
            log.warning("cannot write %s: %s", self.state_path, exc)

    # -- the switch (main thread) ----------------------------------------------------------------------
    def _step(self) -> None:
        roll = self._roll
        if roll is None:
            with self._mutex:
                gen, self._pending = self._pending, None
            if gen is not None:
                self._begin(gen)
            return
        new = [pid for pid in self.WORKERS if pid not in roll["old"]]
        ready = [pid for pid in new if (self.run_dir / f"ready-{roll['gen'].number}-{pid}").exists()]
        if len(ready) >= self.cfg.workers and len(ready) == len(new):
            self._finish(roll)
        elif len(ready) == len(new) and len(new) < self.cfg.workers:
            # one new worker loads at a time: the old ones keep most of the CPU for requests
            self.num_workers = len(self.WORKERS) + 1
            threading.Timer(0.01, self.wakeup).start()
        elif time.monotonic() - roll["started"] > ROLL_TIMEOUT:
            self._abort(roll, f"the new workers did not load the change within {ROLL_TIMEOUT:g} s")
        else:
            threading.Timer(0.01, self.wakeup).start()   # look again soon, not in a second

    def _begin(self, gen: Generation) -> None:
        gen.number = self.current.number + 1
        gen.loaded_at = now()
        gate = self.run_dir / f"gate-{gen.number}"
        self._roll = {"gen": gen, "old": set(self.WORKERS), "started": time.monotonic(), "gate": gate}
        self.app.app_config.update(gen.app_config(), GPUKB_GATE=str(gate))
        self.num_workers = len(self.WORKERS) + 1        # manage_workers forks the first new worker now
        log.info("starting %d workers for KB generation %d (%s)", self.cfg.workers, gen.number, gen.digest[:16])

    def _finish(self, roll: dict[str, Any]) -> None:
        for pid in roll["old"]:
            if pid in self.WORKERS:
                self.kill_worker(pid, signal.SIGTERM)
        roll["gate"].touch()
        self.num_workers = self.cfg.workers
        self.app.app_config.pop("GPUKB_GATE", None)
        previous = self.current
        with self._mutex:
            self.current = roll["gen"]
            self.refused = None
        self._roll = None
        self._write_state()
        log.info("serving KB generation %d (%s)", self.current.number, self.current.digest[:16])
        for p in self.run_dir.glob("ready-*"):
            p.unlink(missing_ok=True)
        if self.builder is not None:
            self.builder.prune({self.current.digest, previous.digest})
        self._recheck.set()       # the files may have changed again while the workers were switching

    def _abort(self, roll: dict[str, Any], why: str) -> None:
        for pid in list(self.WORKERS):
            if pid not in roll["old"]:
                self.kill_worker(pid, signal.SIGKILL)
        self.num_workers = self.cfg.workers
        self.app.app_config.pop("GPUKB_GATE", None)
        self.app.app_config.update(self.current.app_config())
        self._roll = None
        self._recheck.set()
        log.error("KB change refused: %s; still serving generation %d", why, self.current.number)
        self._set_refused({"error": f"KB change refused: {why}", "at": now(), "digest": roll["gen"].digest[:32]})


WARM_UP = ("/health", "/v1/versions", "/v1/claims?source=S000", "/")


def warm_up(app) -> None:
    """Answer a few requests inside the worker before it takes real ones, so the first real request
    does not pay for lazy work (release views, templates, Flask's first request)."""
    client = app.test_client()
    for path in WARM_UP:
        try:
            client.get(path)
        except Exception:   # noqa: BLE001 - a warm-up failure is not the worker's failure
            log.debug("warm-up of %s failed", path, exc_info=True)


def _policy(policy: int | None) -> None:
    """Switch this process between SCHED_BATCH (while loading a new generation: no wakeup preemption
    of the workers that serve) and SCHED_OTHER; both are allowed without privileges."""
    if policy is None or not hasattr(os, "sched_setscheduler"):
        return
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        pass


def batch_while_loading(worker) -> None:
    """gunicorn's post_fork hook: a worker forked for a new generation loads it as a batch process."""
    if worker.app.app_config.get("GPUKB_GATE"):
        _policy(getattr(os, "SCHED_BATCH", None))


def wait_at_gate(worker) -> None:
    """gunicorn's post_worker_init hook: a worker of a new generation reports ready, then waits until
    the master opens the gate (or gives up, when the master goes away or the switch is abandoned)."""
    conf = worker.app.app_config
    gate = conf.get("GPUKB_GATE")
    if not gate:
        return
    gate = Path(gate)
    warm_up(worker.wsgi)
    _policy(getattr(os, "SCHED_OTHER", None))   # loaded: back to the normal scheduling class
    (gate.parent / f"ready-{conf.get('GPUKB_GENERATION')}-{os.getpid()}").touch()
    deadline = time.monotonic() + ROLL_TIMEOUT + 10
    while not gate.exists():
        if not worker.alive or os.getppid() != worker.ppid or time.monotonic() > deadline:
            sys.exit(0)
        worker.notify()
        time.sleep(GATE_POLL)
