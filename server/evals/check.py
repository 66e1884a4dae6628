"""`gpukb eval check`: the checker on held-out statements (kb/gold/check.yaml)."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.check import evaluate, load_gold, report_text

from ..cli_flags import kb_version_flag

NAME = "check"
HELP = "how many claims of held-out statements the checker finds and judges right (kb/gold/check.yaml)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", metavar="FILE", help="a gold file (default: the KB's gold/check.yaml)")
    kb_version_flag(p)
    p.add_argument("--errors", action="store_true", help="list missed, wrong and extra claims")


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    report = evaluate(kb, load_gold(args.gold or kb.kb_dir / "gold" / "check.yaml"), args.kb_version)
    return report, report_text(report, verbose=args.errors)
