"""`gpukb eval sizing`: each published measurement, gpukb's estimate, their ratio and the error band; and the
measured runs of kb/gold/measured_runs.yaml per split (rows for dev only; held-out aggregates only)."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.sizing.calibration import calibrate, measured_report_text, measured_runs, report_text

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
