"""`gpukb eval audit`: the audit's label and evidence accuracy against kb/gold/audit.yaml."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.audit import evaluate, load_gold, report_text

from ..cli_flags import kb_version_flag

NAME = "audit"
HELP = "label and evidence accuracy of the audit against the gold set (kb/gold/audit.yaml)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", metavar="FILE", help="a gold file (default: the KB's gold/audit.yaml)")
    kb_version_flag(p)
    p.add_argument("--errors", action="store_true", help="list every claim the audit gets wrong")


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    view = kb.view(args.kb_version)
    gold = load_gold(args.gold or kb.kb_dir / "gold" / "audit.yaml")
    report = evaluate(kb.audit_result(view.name), gold)
    report["kb_version"] = view.name
    return report, report_text(report, verbose=args.errors)
