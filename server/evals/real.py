"""`gpukb eval real`: the checker on passages copied from public web pages (kb/gold/real/)."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.real import PARTS, SPEC_PARTS, evaluate, load_gold, load_spec, report_text, spec_files

from ..cli_flags import kb_version_flag

NAME = "real"
HELP = ("the checker on passages copied from public pages, per split (kb/gold/real/), and on spec sentences "
        "(kb/gold/spec_check_dev*.yaml, spec_check.yaml)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", metavar="DIR", help="a folder of passage files (default: the KB's gold/real/)")
    p.add_argument("--split", choices=PARTS, action="append",
                   help="only this part (repeatable; default: dev, heldout, spec-dev and spec)")
    kb_version_flag(p)
    p.add_argument("--errors", action="store_true",
                   help="list the dev parts' wrong flags, missed errors and noise claims (never a held-out part's)")


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    passages = load_gold(args.gold or kb.kb_dir / "gold" / "real")
    parts = tuple(args.split or PARTS)
    spec = {part: [s for f in files for s in load_spec(f)] for part in SPEC_PARTS
            if part in parts for files in [spec_files(kb.kb_dir / "gold", part)] if files}
    report = evaluate(kb, passages, args.kb_version, parts, spec)
    return report, report_text(report, verbose=args.errors)
