"""A bounded trial run of the rules over a KB, so that a runaway rule is caught before a server loads it.

Loading validates files and rules as data; it cannot tell that a rule derives new facts forever. The
smoke derivation compiles the rules and runs what a server runs first: the audit of the latest
release, and the sizing questions of the watch list. The reasoner's firing budget stops a runaway
rule with an error naming it; a time limit (``engine.core.limits``) stops anything else that runs long.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..core import limits
from ..core.errors import BadInput

DEFAULT_SECONDS = 120.0


def smoke(kb_dir: str | Path, rules_dir: str | Path, seconds: float | None = DEFAULT_SECONDS,
          service=None) -> dict[str, Any]:
    """Compile and run the rules over the KB within ``seconds``; returns what ran and how long it took.

    Raises :class:`~engine.core.errors.RuleError` (runaway rule, engine fault) or
    :class:`~engine.core.errors.TimeLimitExceeded`; validation errors as loading does.
    """
    from .state import GpuKB
    t0 = time.perf_counter()
    with limits.time_limit(seconds, "the smoke derivation (compiling the rules, auditing the latest release, "
                                    "answering the watch list)"):
        kb = service if service is not None else GpuKB(kb_dir, rules_dir)
        latest = kb.kb.latest
        audit = kb.audit_result(latest)
        questions = kb.watchlist()
        unanswered = []
        for q in questions:
            try:
                kb.query(q["body"])
            except BadInput as exc:     # a question this KB cannot size is not a runaway; say so
                unanswered.append({"id": q["id"], "error": exc.message})
    return {"release": latest, "findings": len(getattr(audit, "findings", []) or []), "questions": len(questions),
            "unanswered": unanswered, "seconds": round(time.perf_counter() - t0, 3)}
