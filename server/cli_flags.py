"""Options shared by many `gpukb` commands and evaluations, defined once so their help stays the same."""
from __future__ import annotations

import argparse


def json_flag(p: argparse.ArgumentParser) -> None:
    """``--json``: print the API's JSON object instead of text."""
    p.add_argument("--json", action="store_true", help="print the API's JSON object")


def kb_version_flag(p: argparse.ArgumentParser) -> None:
    """``--kb-version V``: answer from a named release instead of the latest."""
    p.add_argument("--kb-version", metavar="V", help="a release name (default: the latest)")
