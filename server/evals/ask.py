"""`gpukb eval ask`: the question parser's accuracy against kb/gold/questions.yaml, by intent and language."""
from __future__ import annotations

import argparse
from typing import Any

from gpukb.engine.evals.ask import evaluate, load_questions, report_text

NAME = "ask"
HELP = "parse accuracy of the question parser against the gold questions (kb/gold/questions.yaml)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", metavar="FILE", help="a question file (default: the KB's gold/questions.yaml)")
    p.add_argument("--errors", action="store_true", help="list every question parsed wrong")


def run(kb: Any, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    report = evaluate(kb.kb.vocab, load_questions(args.gold or kb.kb_dir / "gold" / "questions.yaml"))
    return report, report_text(report, verbose=args.errors)
