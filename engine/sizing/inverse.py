"""The inverse question: the largest model of a family that fits a scenario, found by searching sizes with
the sizing rules (search points cached)."""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any
from ..models import scenario as scen
from . import run as sizing
from ..core.errors import BadInput
from ..kb.store import ReleaseView
if TYPE_CHECKING:
    from ..core.session import Session


#: where the search for the largest model starts (any size works; a fixed one makes the result a function
#: of the configuration alone)
SEARCH_START = 1e9


def max_params(state: Session, s: dict[str, Any], view: ReleaseView) -> float | None:
    """The largest parameter count that fits, the scenario's other inputs unchanged.

    The answer depends on the configuration only (hardware, method, precision, batch ...), not on the
    size the question asked about: the search starts from the same points whatever that size, so it is
    computed once per release and configuration and remembered (least recently used out first with the
    search points, :meth:`GpuKB.probe_totals`), and a question about another size of the same
    configuration reads it back.
    """
    base = {k: v for k, v in scen.inputs(s).items() if k not in ("model", "params")}
    key = ("max_params", view.name, json.dumps(base, sort_keys=True, default=str))
    found = state.probe_totals(key)
    if found is sizing.MISSING:
        found = state.probe_totals(key, _largest_that_fits(state, base, view))
    return found


def _largest_that_fits(state: Session, base: dict[str, Any], view: ReleaseView) -> float | None:
    """Memory grows almost linearly with the parameter count, so a few secant steps over the rules' own
    totals find the boundary (the first step assumes the total proportional to the size; one more
    corrects for activations, which grow slower); the size reported is rounded to three significant
    figures and checked to fit (if not, the next lower three-figure sizes are tried, then 3% steps).
    Each point is one scenario added to the answer's staged session, evaluated only when the search reaches it."""
    known: dict[float, tuple[float, float] | None] = {}

    def totals(ns: list[float]) -> list[tuple[float, float] | None]:
        todo = []
        for n in dict.fromkeys(n for n in ns if n not in known):
            try:
                s2, n2 = scen.normalise({**base, "params": n}, state.kb.vocab, view)
            except BadInput:
                known[n] = None
                continue
            # a point another search already evaluated (the rules' totals depend on the release and the
            # normalised scenario only): the rounded sizes checked last recur across configurations' searches
            key = (view.name, json.dumps(s2, sort_keys=True, default=str))
            hit = state.probe_totals(key)
            if hit is not sizing.MISSING:
                known[n] = hit
            else:
                todo.append((n, s2, n2, key))
        for (n, _, _, key), r in zip(todo, state.run_scenarios([(s2, n2) for _, s2, n2, _ in todo], view, "probe")):
            v = r.one("verdict")
            known[n] = (v["need_gb"], v["capacity_gb"]) if v else None
            state.probe_totals(key, known[n])
        return [known[n] for n in ns]

    n0 = SEARCH_START
    t0 = totals([n0])[0]
    if t0 is None or t0[0] <= 0:
        return None
    cap = t0[1]
    n1 = n0 * cap / t0[0]
    if n1 < 1e3:
        return None
    t1 = totals([n1])[0]
    for _ in range(6):
        if t1 is None or abs(t1[0] - cap) < cap * 1e-3:
            break
        slope = (t1[0] - t0[0]) / (n1 - n0) if n1 != n0 else 0
        if slope <= 0:
            break
        n_new = n1 + (cap - t1[0]) / slope
        if n_new < 1e3:
            return None
        n0, t0 = n1, t1
        n1, t1 = n_new, totals([n_new])[0]
    if t1 is None:
        return None
    for i in range(20):  # report a rounded size that really fits: the next lower ones first, then 3% steps
        shown = float(f"{n1:.3g}")
        t_shown = totals([shown])[0]
        if t_shown is not None and t_shown[0] <= cap:
            return shown
        n1 = shown - 10 ** (math.floor(math.log10(shown)) - 2) if i < 3 else n1 * 0.97
    return None
