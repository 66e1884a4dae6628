"""One engine for the whole test session (building it compiles the rules and audits the KB)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def bundled():
    from gpukb.engine.answers.service import GpuKB
    return GpuKB(ROOT / "kb", ROOT / "rules")
