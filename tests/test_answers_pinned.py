"""Sizing answers pinned to a record, so that restructuring the engine cannot change them unnoticed.

``tests/fixtures/answers_pinned.json`` holds, for a fixed, seeded set of 240 queries (the scenarios of
:mod:`test_determinism`), what each answer decides: the verdict, the memory breakdown, the capacity, the
smallest GPU count and the ranked recommendations (action, fits). It was recorded with the engine of
``dbd081e``, before issue 14's last moves (typed ids and qualifiers, the audit's functions registered with
the expression language) and issue 18's question speed-ups. A change that alters an answer on purpose
re-records it: ``GPUKB_RECORD_ANSWERS=1 python -m pytest tests/test_answers_pinned.py``, and says why in
its commit.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from gpukb.engine.core.errors import BadInput

from .test_determinism import GPUS, MODELS, _scenarios

RECORD = Path(__file__).parent / "fixtures" / "answers_pinned.json"


def decisions(kb) -> list[dict]:
    """What each pinned query's answer decides (or the error it gets)."""
    out = []
    for body in _scenarios(GPUS, MODELS):
        try:
            a = kb.query(dict(body)).to_json()
        except BadInput as exc:
            out.append({"query": body, "error": exc.message})
            continue
        out.append({"query": body, "verdict": a.get("verdict"), "memory": a.get("memory"),
                    "capacity": a.get("capacity"), "min_gpus": a.get("min_gpus"),
                    "recommendations": [[r.get("action"), r.get("fits")] for r in a.get("recommendations", [])]})
    return json.loads(json.dumps(out, sort_keys=True, default=str))


def test_sizing_answers_equal_the_record(gpukb):
    now = decisions(gpukb)
    if os.environ.get("GPUKB_RECORD_ANSWERS"):
        RECORD.write_text(json.dumps(now, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    assert len(now) == len(recorded) == 240
    changed = [(r["query"], r, n) for r, n in zip(recorded, now) if r != n]
    assert not changed, f"{len(changed)} of 240 answers differ from the record; first: {changed[0]}"
