"""`gpukb eval sizing`: each published measurement, gpukb's estimate, their ratio and the error band; and the
measured runs of kb/gold/measured_runs.yaml per split (rows for dev only; held-out aggregates only)."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.sizing.calibration import calibrate, measured_runs

from ..cli_flags import kb_version_flag

NAME = "sizing"
HELP = "memory estimates against the published measurements (reference tier and measured runs), with the error band"


def add_arguments(p: argparse.ArgumentParser) -> None:
    kb_version_flag(p)


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    view = kb.view(args.kb_version)
    rep = calibrate(kb, view)
    rep["measured_runs"] = measured_runs(kb, view)
    return rep, report_text(rep) + "\n" + measured_report_text(rep["measured_runs"])


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


def measured_report_text(rep: dict[str, Any]) -> str:
    lines = [f"sizing against published measurements of real runs ({rep['file']}):"]
    for split, st in rep["splits"].items():
        b = st.get("band") or {}
        lines.append(f"  {split}: {st['runs']} runs, {st['sized']} with a measured peak; within 15%: "
                     f"{(st['within_15pct'] or 0):.0%}; outcomes right: {(st['outcome_right'] or 0):.0%} of "
                     f"{st['outcomes_judged']}; median error {st['median_error_pct']}%; 90% band "
                     f"{b.get('low')} .. {b.get('high')} (measured / estimated)"
                     + (f"; the dev band covers {st['dev_band_covers']:.0%} of its runs" if "dev_band_covers" in st else ""))
        for r in st.get("rows", []):
            if "error" in r:
                lines.append(f"    {r['id']:6} cannot be sized: {r['error']}")
                continue
            lines.append(f"    {r['id']:6} {r['method']:9} measured {r['measured_gb'] if r['measured_gb'] else '-':>6} "
                         f"estimate {r['estimate_gb']:8.2f} {r.get('compared', 'total')[:5]:5}  err {r.get('error_pct', '-'):>6}%  "
                         f"{r['outcome']}/{r.get('predicted', '?')}")
    return "\n".join(lines)
