"""`gpukb eval sizing`: each published measurement, gpukb's estimate, their ratio and the error band."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.answers.calibration import calibrate, report_text

from ..cli_flags import kb_version_flag

NAME = "sizing"
HELP = "memory estimates against the published measurements in the reference tier, with the error band"


def add_arguments(p: argparse.ArgumentParser) -> None:
    kb_version_flag(p)


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    rep = calibrate(kb, kb.view(args.kb_version))
    return rep, report_text(rep)
