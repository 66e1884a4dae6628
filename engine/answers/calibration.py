"""How far gpukb's memory estimates are from published measurements, and the error band that follows.

The measured points are reference facts (``memory_measured`` and the papers' ``training_memory`` of a
whole run, with the method as a qualifier). Each is sized with the defaults a question would get; the
ratio measured / estimated of the point measurements gives the band: a total T is reported as
[T·min ratio, T·max ratio], and a verdict whose capacity falls inside the band is *borderline*.
Bounds ("> 80 GB") are checked for consistency only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import BadInput
from ..kb.store import ReleaseView
from ..kb.vocabulary import Interval
from . import scenario as scen

if TYPE_CHECKING:
    from .service import GpuKB

MEASURED = ("memory_measured", "training_memory")


def points(view: ReleaseView) -> list[Any]:
    """The measured points of a release: whole-run memory of a named model under a named method."""
    out = []
    for f in view.reference:
        method = f.qualifiers.get("method") if isinstance(f.qualifiers.get("method"), str) else None
        if f.attribute in MEASURED and method and f.subject.startswith("model:") and isinstance(f.norm, Interval) \
                and not f.qualifiers.get("component") and view.ref(f.subject, "params") is not None:
            out.append(f)
    return sorted(out, key=lambda f: f.id)


def calibrate(state: GpuKB, view: ReleaseView) -> dict[str, Any]:
    """Every measured point with gpukb's estimate and their ratio; the band from the point ratios."""
    rows = []
    for f in points(view):
        body = {"model": f.subject, "method": f.qualifiers["method"].split(":")[1]}
        gpu = f.qualifiers.get("gpu")
        body["gpu" if gpu else "vram_gb"] = gpu.split(":")[1] if gpu else 80
        try:
            s, notes = scen.normalise(body, state.kb.vocab, view)
            r = state.run_scenario(s, notes, view)
        except BadInput as exc:
            rows.append({"fact": f.key, "error": exc.message})
            continue
        ms, rt = r.one("model_states"), r.one("runtime_mem")
        if ms is None or rt is None:
            rows.append({"fact": f.key, "error": "no estimate for this model"})
            continue
        est = round(ms["gb"] + rt["gb"], 3)
        row = {"fact": f.key, "model": f.subject.split(":")[1], "method": body["method"], "measured": f.norm.as_dict(),
               "estimate_gb": est, "citation": f.citation}
        if f.norm.kind == "number":
            row["ratio"] = round(f.norm.lo / est, 3) if est else None
        else:
            lo, hi = f.norm.lo, f.norm.hi
            row["consistent"] = (lo is None or est >= lo * 0.8) and (hi is None or est <= hi * 1.25)
        rows.append(row)
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    band = {"low": min(ratios), "high": max(ratios), "points": len(ratios)} if ratios else None
    by_method: dict[str, dict[str, Any]] = {}
    for m in sorted({r["method"] for r in rows if r.get("ratio")}):
        rs = [r["ratio"] for r in rows if r.get("ratio") and r["method"] == m]
        if len(rs) >= MIN_POINTS:
            by_method[m] = {"low": min(rs), "high": max(rs), "points": len(rs)}
    return {"kb_version": view.name, "points": rows, "band": band, "by_method": by_method}


MIN_POINTS = 2      # a band from fewer measured points than this is not given


def band_of(state: GpuKB, view: ReleaseView, method: str) -> dict[str, Any] | None:
    """The error band of a method's estimates in a release (None without enough measured points)."""
    bands = state.memo(("calibration-bands", view.name),
                       lambda: state.cached(("calibration", view.name), lambda: calibrate(state, view))["by_method"])
    band = bands.get(method)
    return dict(band) if band is not None else None


def report_text(rep: dict[str, Any]) -> str:
    lines = [f"sizing against published measurements, release {rep['kb_version']}:",
             f"  {'point':34} {'method':9} {'measured':>12} {'estimate':>10} {'ratio':>7}"]
    for r in rep["points"]:
        if "error" in r:
            lines.append(f"  {r['fact']:34} cannot be sized: {r['error']}")
            continue
        m = r["measured"]
        shown = f"{m['lo']:g} GB" if m["kind"] == "number" else ("> " if m["hi"] is None else "< ") + f"{(m['lo'] or m['hi']):g} GB"
        ratio = f"{r['ratio']:.2f}" if r.get("ratio") else ("ok" if r.get("consistent") else "NOT OK")
        lines.append(f"  {r['fact']:34} {r['method']:9} {shown:>12} {r['estimate_gb']:>8.1f} GB {ratio:>7}")
    for m, b in rep["by_method"].items():
        lines.append(f"  band for {m} (measured / estimated over {b['points']} points): {b['low']:.2f} .. {b['high']:.2f}")
    return "\n".join(lines)
