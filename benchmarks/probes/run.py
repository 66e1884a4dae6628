"""How many probe passages `gpukb check` calls wrong: true passages with a wrong status (a false flag) and false
passages with one (a catch). Usage: run.py [SET ...] [-v]."""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

WRONG = ("incorrect", "overstated", "understated", "misattributed", "contradicted", "inconsistent_with_derivation")
HERE = Path(__file__).parent


def _text(item: dict) -> str:
    """The passage; a one-line table or spec list of p39 with its rows on lines of their own."""
    text = item["text"]
    return text.replace(" / ", "\n") if str(item.get("style", "")).startswith(("table", "spec")) else text


def main(argv: list[str]) -> int:
    import gpukb
    verbose = "-v" in argv
    sets = [a for a in argv if not a.startswith("-")] or sorted(p.name for p in HERE.iterdir() if p.is_dir())
    kb = gpukb.open()
    for name in sets:
        for kind in ("true", "false"):
            items = yaml.safe_load((HERE / name / f"{kind}.yaml").read_text(encoding="utf-8"))
            flagged = 0
            for item in items:
                wrong = [c for c in kb.check(_text(item)).claims if str(getattr(c.status, "value", c.status)) in WRONG]
                flagged += bool(wrong)
                if verbose and bool(wrong) == (kind == "true"):
                    print(f"  {name}/{kind}: {item['text'][:70]!r} -> {[(c.subject, c.attribute, c.value) for c in wrong]}")
            print(f"{name} {kind}: {flagged} of {len(items)} passages called wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
