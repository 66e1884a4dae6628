"""The worker side of a KB generation switch: a run directory that the master and the workers share.

Every worker is started with a *token* (``GPUKB_TOKEN``: its generation and roll) and the run
directory (``GPUKB_RUN``). The master's reload thread (:mod:`server.rollout`) writes
``serving.json`` there: ``{"serving": token or null, "next": token or null}``. Each worker follows it:

* a worker whose token is not the serving one stops accepting connections (:class:`Follower`, read
  by :class:`server.worker.GpukbWorker` in its event loop, every GATE_POLL seconds while a switch is
  announced by ``next``) and says so with ``retired-<pid>``; it answers what it already holds;
* a worker started for the next generation loads it, answers a few warm-up requests internally,
  says ``up-<token>-<pid>`` and waits in gunicorn's ``post_worker_init`` hook until its token is
  the serving one (or leaves, when the switch is abandoned);
* a worker that cannot load its generation says why in ``failed-<token>-<pid>`` (:mod:`server.serve`).

The master empties ``serving`` first, waits until the old workers have retired, then names the new
token: so the old and the new generation never accept side by side, and the pause between them is
a few polling intervals (connections wait in the listen backlog meanwhile, none is refused).
"""
from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Mapping

log = logging.getLogger("gpukb.reload")
GATE_POLL = 0.005        # seconds between looks at serving.json while a switch is announced
IDLE_POLL = 1.0          # and otherwise
ROLL_TIMEOUT = 120.0     # seconds for the new workers of a generation to load it
SERVING = "serving.json"
WARM_UP = ("/health", "/v1/versions", "/v1/claims?source=S000", "/")


def write_serving(run_dir: Path, serving: str | None, next_: str | None) -> None:
    """Name the token that serves and the one that comes next (atomically: readers see one or the other)."""
    tmp = run_dir / f".{SERVING}.{os.getpid()}"
    tmp.write_text(json.dumps({"serving": serving, "next": next_}), encoding="utf-8")
    os.replace(tmp, run_dir / SERVING)


def mark(conf: Mapping[str, Any], kind: str, text: str = "") -> None:
    """Leave ``<kind>-<token>-<pid>`` (``retired-<pid>`` for "retired") in the run directory."""
    run = conf.get("GPUKB_RUN")
    if not run:
        return
    name = f"{kind}-{os.getpid()}" if kind == "retired" else f"{kind}-{conf.get('GPUKB_TOKEN')}-{os.getpid()}"
    try:
        (Path(run) / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        log.warning("cannot write %s in %s: %s", name, run, exc)


class Follower:
    """What ``serving.json`` says to one worker (re-read only when the file changed)."""

    def __init__(self, conf: Mapping[str, Any]):
        run = conf.get("GPUKB_RUN")
        self.token: str | None = conf.get("GPUKB_TOKEN")
        self.path = Path(run) / SERVING if run else None
        self.state: dict[str, Any] = {}
        self._key: tuple | None = None
        self._next_look = 0.0

    def read(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            st = os.stat(self.path)
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
            if key != self._key:
                self.state, self._key = json.loads(self.path.read_text(encoding="utf-8")), key
        except (OSError, ValueError):
            pass                 # missing or being replaced: what was read last still holds
        return self.state

    def interval(self) -> float:
        """How long the worker's event loop may wait before it looks again."""
        return GATE_POLL if self.state.get("next") else IDLE_POLL

    def superseded(self) -> bool:
        """Must this worker stop accepting (its token is not the serving one)? Looked at once per
        GATE_POLL at most, so a busy event loop does not stat the file on every turn."""
        now = time.monotonic()
        if self.path is None or now < self._next_look:
            return False
        self._next_look = now + GATE_POLL
        state = self.read()
        return "serving" in state and state["serving"] != self.token


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


def post_fork(_server, worker) -> None:
    """gunicorn's ``post_fork`` hook: a worker of a coming generation says it boots, and loads it as a
    batch process."""
    conf = worker.app.app_config
    if conf.get("GPUKB_ROLL"):
        mark(conf, "boot")
        _policy(getattr(os, "SCHED_BATCH", None))


def post_worker_init(worker) -> None:
    """gunicorn's ``post_worker_init`` hook: the worker says it is up; one of a coming generation warms
    up first, then waits until its token serves (leaving if the switch is abandoned or the master goes)."""
    conf = worker.app.app_config
    if not conf.get("GPUKB_ROLL"):
        mark(conf, "up")
        return
    warm_up(worker.wsgi)
    _policy(getattr(os, "SCHED_OTHER", None))   # loaded: back to the normal scheduling class
    mark(conf, "up")
    follower = Follower(conf)
    deadline = time.monotonic() + ROLL_TIMEOUT + 10
    while True:
        state = follower.read()
        if state.get("serving") == follower.token:
            return
        if state.get("next") != follower.token or not worker.alive or os.getppid() != worker.ppid \
                or time.monotonic() > deadline:
            sys.exit(0)
        worker.notify()
        time.sleep(GATE_POLL)
