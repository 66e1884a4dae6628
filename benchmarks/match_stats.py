"""How much of the audit's deciding durable_rules does: the matches it hands back per rule, and how many
gpukb's own checks turn down (a condition durable_rules cannot evaluate, an ``if`` guard, an absent
pattern), with the firings and the audit's wall time. One process, one worker, no snapshot.

    python benchmarks/match_stats.py [KB_DIR ...] [--json] [--top 25]

Without a directory, the bundled KB. See benchmarks/HISTORY.md ("Matches gpukb turns down").
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(kb_dir: str | None) -> dict:
    from gpukb.engine.service.state import GpuKB
    from gpukb.engine.audit.run import run_audit
    t0 = time.perf_counter()
    kb = GpuKB(*([kb_dir] if kb_dir else []), **({"rules_dir": os.environ["GPUKB_RULES"]} if os.environ.get("GPUKB_RULES") else {}))
    t1 = time.perf_counter()
    kb.reasoner.stats.reset()
    res = run_audit(kb, kb.view(None), workers=1, keep_proofs=False)
    t2 = time.perf_counter()
    stats = kb.reasoner.stats.as_dict()
    return {"kb": kb_dir or "bundled", "claims": len(res.statuses), "findings": len(res.findings),
            "load_s": round(t1 - t0, 2), "audit_s": round(t2 - t1, 2), "stats": stats, "_obj": kb.reasoner.stats}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kb", nargs="*")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args(argv)
    for kb_dir in a.kb or [None]:
        r = measure(kb_dir)
        obj = r.pop("_obj")
        if a.json:
            print(json.dumps(r, indent=1))
            continue
        t = r["stats"]["total"]
        print(f"== {r['kb']}: {r['claims']} claims, {r['findings']} findings; load {r['load_s']} s, audit {r['audit_s']} s; "
              f"{t['matches']} matches, {t['fired']} firings, turned down {t['rejected_share']:.1%}")
        print(obj.table(a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
