"""`gpukb eval extract`: claim extraction against the curated claims of the bundled sources."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.extract import evaluate, report_text

from ..cli_flags import kb_version_flag

NAME = "extract"
HELP = "precision and recall of claim extraction against the curated claims of the bundled sources"


def add_arguments(p: argparse.ArgumentParser) -> None:
    kb_version_flag(p)
    p.add_argument("--errors", action="store_true", help="list spurious and missed claims")


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    report = evaluate(kb.view(args.kb_version))
    return report, report_text(report, verbose=args.errors)
