"""`gpukb eval real`: the checker on passages copied from public web pages (kb/gold/real/)."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.real import SPLITS, evaluate, load_gold, report_text

from ..cli_flags import kb_version_flag

NAME = "real"
HELP = "the checker on passages copied from public pages, per split (kb/gold/real/)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", metavar="DIR", help="a folder of passage files (default: the KB's gold/real/)")
    p.add_argument("--split", choices=SPLITS, action="append",
                   help="only this split (repeatable; default: dev and heldout)")
    kb_version_flag(p)
    p.add_argument("--errors", action="store_true", help="list the dev split's wrong flags and missed errors")


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    passages = load_gold(args.gold or kb.kb_dir / "gold" / "real")
    report = evaluate(kb, passages, args.kb_version, tuple(args.split or SPLITS))
    return report, report_text(report, verbose=args.errors)
