"""KB reloads off the request path, on gunicorn's documented hooks and signals only.

A thread of the gunicorn master, started by the ``when_ready`` hook, looks at the KB and rules
directories every ``reload`` seconds (a stat walk, nothing is opened). When they changed it stages
and builds a new generation (:mod:`server.generations`: copied, validated, compiled, smoke-derived
and snapshotted in a child process); the running workers serve meanwhile, untouched. A refused
change is recorded (/health shows it) and the last good KB keeps serving; the record is cleared when
the files return to the served state or a later change is accepted.

The switch uses gunicorn's settings (server hooks) and master signals (TTIN, TTOU), nothing else:

1. the thread puts the new generation and a fresh token into the app configuration that workers are
   forked with, announces the token as ``next`` (:mod:`server.switch`) and sends the master TTIN,
   one at a time, each once the previous new worker is up (``nworkers_changed`` acknowledges each
   signal). A new worker loads the generation as a batch-scheduled process, warms up and waits at
   the gate in ``post_worker_init``. A worker that cannot load it, or a roll longer than
   ROLL_TIMEOUT, abandons the change: the configuration goes back to the served generation, the
   waiting workers leave (the master replaces them on that generation) and the count goes back with
   TTOU once every worker is up;
2. with a full set waiting, the thread empties ``serving``: each old worker stops accepting in its own
   event loop and says so; then it names the new token and the new workers accept. The generations
   never accept side by side, and no request waits for a KB to load (only, for a few milliseconds,
   in the listen backlog);
3. the thread sends TTOU until the master keeps ``workers`` workers again; the master stops one
   worker per TTOU.

What is not documented, and what the switch does not rely on for correctness: *which* worker TTOU
stops. gunicorn's source stops the oldest (in every version tested), i.e. the retired ones; had it
stopped a new one, every worker still running would serve the new generation all the same, and a
retired worker that no TTOU stops leaves after ``graceful_timeout`` (the master replaces it, on the
new generation). Likewise an abandoned change leaves only workers of the served generation,
whichever TTOU stops.

Why not HUP: it reloads the whole configuration, starts the new workers and stops the old ones at
once, before the new ones have loaded the KB (seconds with no worker that accepts). Why not a
subclass of gunicorn's ``Arbiter``: its worker table, main loop and wake-up are not API and change
between releases. The hooks never touch the Arbiter they are given; the worker they are given is
gpukb's own :class:`server.worker.GpukbWorker`, on the base class gunicorn documents for custom
workers (``gunicorn.workers.base.Worker``: ``app``, ``pid``, ``ppid``, ``alive``, ``wsgi``, ``notify()``).
"""
from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable

from gpukb.engine.core.errors import GpukbError, clip

from .generations import Builder, Generation, now, state_of, write_state
from .switch import GATE_POLL, ROLL_TIMEOUT, write_serving

log = logging.getLogger("gpukb.reload")
RETIRE_WAIT = 2.0     # seconds for the old workers to stop accepting, at most
ACK_WAIT = 5.0        # seconds for the master to act on a signal


class Reloader:
    """The reload thread and the server hooks of one ``gpukb serve`` master."""

    def __init__(self, app_config: dict[str, Any], builder: Builder | None, every: float, current: Generation,
                 run_dir: Path, workers: int):
        self.app_config = app_config      # the dict workers are forked with (GpukbServer.app_config)
        self.builder, self.every, self.current, self.run_dir = builder, every, current, run_dir
        self.workers = workers
        self.state_path = run_dir / "state.json"
        self.refused: dict[str, Any] | None = None
        self.rolls = 1
        self.token = f"g{current.number}r1"
        self.master = 0
        self.nworkers = 0
        self._changed = threading.Condition()
        self._stop = threading.Event()
        app_config.update(current.app_config(), GPUKB_TOKEN=self.token, GPUKB_RUN=str(run_dir))
        write_serving(run_dir, self.token, None)

    def hooks(self) -> dict[str, Callable]:
        return {"when_ready": self.when_ready, "nworkers_changed": self.nworkers_changed,
                "child_exit": self.child_exit, "on_exit": self.on_exit}

    # -- gunicorn's server hooks (in the master's main thread) -------------------------------------
    def when_ready(self, _server) -> None:
        self.master = os.getpid()
        self._write_state()
        if self.builder is not None and self.every:
            threading.Thread(target=self._watch, name="gpukb-reload", daemon=True).start()

    def nworkers_changed(self, _server, new: int, _old: int | None) -> None:
        with self._changed:
            self.nworkers = new
            self._changed.notify_all()

    def child_exit(self, _server, worker) -> None:
        """A worker left: its markers go (a ``failed`` one stays until the reload thread has read it)."""
        for kind in ("boot", "up"):
            for p in self.run_dir.glob(f"{kind}-*-{worker.pid}"):
                p.unlink(missing_ok=True)
        (self.run_dir / f"retired-{worker.pid}").unlink(missing_ok=True)

    def on_exit(self, _server) -> None:
        self._stop.set()

    # -- the watcher thread --------------------------------------------------------------------------
    def _watch(self) -> None:
        last = self.builder.stamp()
        while not self._stop.wait(self.every):
            try:
                st = self.builder.stamp()
                if st != last:
                    last = st
                    self._consider()
            except Exception:   # noqa: BLE001 - a reload must never take the master down
                log.exception("KB reload failed; still serving generation %d", self.current.number)

    def _consider(self) -> None:
        staged = None
        try:
            staged = self.builder.stage()
            if staged.name == self.current.digest[:32]:
                if self.refused is not None:
                    log.info("the KB files are back to a good state; the refused change is cleared")
                    self._set_refused(None)
                return
            if self.refused is not None and self.refused.get("digest") == staged.name:
                return
            log.info("KB change seen; checking and compiling it in the background")
            t0 = time.monotonic()
            gen = self.builder.build(staged)
            log.info("KB change checked in %.1f s; switching the workers", time.monotonic() - t0)
            self._roll(gen)
        except GpukbError as exc:
            self._refuse(clip(f"KB change refused: {exc}", 2000), staged.name if staged is not None else None)

    def _refuse(self, text: str, digest: str | None) -> None:
        log.error("%s; still serving generation %d", text, self.current.number)
        self._set_refused({"error": text, "at": now(), "digest": digest})

    def _set_refused(self, value: dict[str, Any] | None) -> None:
        self.refused = value
        self._write_state()

    def _write_state(self) -> None:
        try:
            write_state(self.state_path, state_of(self.current, self.refused))
        except OSError as exc:
            log.warning("cannot write %s: %s", self.state_path, exc)

    # -- the switch ----------------------------------------------------------------------------------
    def _markers(self, kind: str, token: str | None = None) -> dict[int, Path]:
        """``<kind>-<token>-<pid>`` markers (any token when None), by pid."""
        out = {}
        for p in self.run_dir.glob(f"{kind}-{token or '*'}-*"):
            try:
                out[int(p.name.rsplit("-", 1)[1])] = p
            except ValueError:
                continue
        return out

    def _signal(self, sig: int, expect: Callable[[int], bool]) -> bool:
        """Send the master ``sig`` and wait until ``nworkers_changed`` reports a count ``expect`` accepts."""
        os.kill(self.master, sig)
        with self._changed:
            return self._changed.wait_for(lambda: expect(self.nworkers), ACK_WAIT)

    def _roll(self, gen: Generation) -> None:
        """Serve ``gen`` (a checked build) with a full set of new workers, or refuse it."""
        gen.number, gen.loaded_at = self.current.number + 1, now()
        self.rolls += 1
        token = f"g{gen.number}r{self.rolls}"
        self.app_config.update(gen.app_config(), GPUKB_TOKEN=token, GPUKB_ROLL=True)
        write_serving(self.run_dir, self.token, token)
        log.info("starting %d workers for KB generation %d (%s)", self.workers, gen.number, gen.digest[:16])
        try:
            self._start(gen, token)
        except Exception as exc:   # noqa: BLE001 - an unexpected failure gives the change up, never the server
            log.exception("KB switch failed")
            self._abort(gen, f"the switch failed: {exc}")
        finally:
            for p in self._markers("failed", token).values():
                p.unlink(missing_ok=True)

    def _start(self, gen: Generation, token: str) -> None:
        """Add workers for ``token`` one at a time (TTIN) until a full set waits at the gate, then switch."""
        deadline = time.monotonic() + ROLL_TIMEOUT
        while True:
            failed = self._markers("failed", token)
            if failed:
                why = next(iter(failed.values())).read_text(encoding="utf-8", errors="replace") or "a worker failed"
                return self._abort(gen, f"a worker could not load it: {why}")
            if time.monotonic() > deadline:
                return self._abort(gen, f"the new workers did not load it within {ROLL_TIMEOUT:g} s")
            up, boot = self._markers("up", token), self._markers("boot", token)
            if len(up) >= self.workers:
                break
            if not set(boot) - set(up):       # none loading: one more (the serving ones keep the CPU)
                n = self.nworkers
                if self._signal(signal.SIGTTIN, lambda v: v > n):
                    self._until(lambda: set(self._markers("boot", token)) - set(up), ACK_WAIT)
            time.sleep(0.01)
        self._switch(gen, token)

    def _until(self, pred: Callable[[], Any], seconds: float) -> Any:
        """Poll ``pred`` every GATE_POLL seconds until it holds (its value) or ``seconds`` pass."""
        end = time.monotonic() + seconds
        while not (v := pred()) and time.monotonic() < end:
            time.sleep(GATE_POLL)
        return v

    def _switch(self, gen: Generation, token: str) -> None:
        """The old workers stop accepting, then the new ones start; the count goes back with TTOU."""
        old = {pid for pid in self._markers("up") if pid not in self._markers("up", token)}
        t0 = time.monotonic()
        write_serving(self.run_dir, None, token)      # nobody accepts: the old workers stop
        if not self._until(lambda: all((self.run_dir / f"retired-{pid}").exists() or pid not in self._markers("up")
                                       for pid in old), RETIRE_WAIT):
            log.warning("an old worker did not stop accepting within %g s", RETIRE_WAIT)
        write_serving(self.run_dir, token, None)      # the new workers accept
        log.info("%d old workers stopped accepting in %.0f ms", len(old), (time.monotonic() - t0) * 1000)
        self.app_config.pop("GPUKB_ROLL", None)
        previous, self.current, self.token, self.refused = self.current, gen, token, None
        self._write_state()
        log.info("serving KB generation %d (%s)", gen.number, gen.digest[:16])
        self._shrink()
        if self.builder is not None:
            self.builder.prune({self.current.digest, previous.digest})

    def _shrink(self) -> None:
        """TTOU until the master keeps ``workers`` workers again."""
        while self.nworkers > self.workers:
            n = self.nworkers
            if not self._signal(signal.SIGTTOU, lambda v: v < n):
                log.warning("the master did not lower the worker count (%d, want %d)", n, self.workers)
                return

    def _abort(self, gen: Generation, why: str) -> None:
        """Give the change up: workers forked from now on serve the current generation again; the new
        ones leave the gate (the master replaces them on the current one), then the count is lowered."""
        self.app_config.pop("GPUKB_ROLL", None)
        self.app_config.update(self.current.app_config(), GPUKB_TOKEN=self.token)
        write_serving(self.run_dir, self.token, None)
        self._refuse(f"KB change refused: {clip(why, 1500)}", gen.digest[:32])
        if not self._until(lambda: set(self._markers("up")) == set(self._markers("up", self.token))
                           and len(self._markers("up")) >= self.nworkers, ROLL_TIMEOUT):
            log.warning("the replaced workers did not all load the current generation in time")
        self._shrink()
