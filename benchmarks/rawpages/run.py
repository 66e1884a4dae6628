"""The claims `gpukb check` calls wrong on unlabelled excerpts of real web pages, each with its context and
correction, for a person to judge against the datasheets. Usage: run.py [SET ...] (r1 … r8; all by default)."""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

WRONG = ("incorrect", "overstated", "understated", "misattributed", "contradicted", "inconsistent_with_derivation")
HERE = Path(__file__).parent


def main(argv: list[str]) -> int:
    import gpukb
    kb = gpukb.open()
    sets = argv or sorted(p.name for p in HERE.iterdir() if p.is_dir())
    for name in sets:
        flags = 0
        for path in sorted((HERE / name).glob("*.yaml")):
            page = yaml.safe_load(path.read_text(encoding="utf-8"))
            text = page["text"]
            for c in kb.check(text).claims:
                status = str(getattr(c.status, "value", c.status))
                if status not in WRONG:
                    continue
                flags += 1
                around = text[max(0, c.span[0] - 120):c.span[1] + 80].replace("\n", " / ")
                print(f"{name}/{path.stem} {page['site']} [{status}] {c.subject} {c.attribute}={c.value!r}\n"
                      f"    …{around}…\n    {c.correction.en if c.correction else ''}")
        print(f"{name}: {flags} claims called wrong on {len(list((HERE / name).glob('*.yaml')))} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
