"""`gpukb eval real`: the checker on passages copied from public web pages (kb/gold/real/)."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.real import PARTS, SPEC_PARTS, evaluate, load_gold, load_spec, report_text

from ..cli_flags import kb_version_flag

NAME = "real"
HELP = ("the checker on passages copied from public pages, per split (kb/gold/real/), and on spec sentences "
        "(kb/gold/spec_check_dev.yaml, spec_check.yaml)")


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
    spec = {part: load_spec(kb.kb_dir / "gold" / name) for part, name in SPEC_PARTS.items()
            if part in parts and (kb.kb_dir / "gold" / name).is_file()}
    report = evaluate(kb, passages, args.kb_version, parts, spec)
    return report, report_text(report, verbose=args.errors)
