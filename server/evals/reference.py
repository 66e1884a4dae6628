"""`gpukb eval reference`: the reference tier against an independent gold of vendor facts (kb/gold/reference.yaml)."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.reference import evaluate, load_gold, report_text

from ..cli_flags import kb_version_flag

NAME = "reference"
HELP = "how many independently written vendor facts the reference tier states alike (kb/gold/reference.yaml)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", metavar="FILE", help="a gold file (default: the KB's gold/reference.yaml)")
    kb_version_flag(p)
    p.add_argument("--brief", action="store_true", help="list the disagreements only, not the missing facts")


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    report = evaluate(kb, load_gold(args.gold or kb.kb_dir / "gold" / "reference.yaml"), args.kb_version)
    return report, report_text(report, verbose=not args.brief)
