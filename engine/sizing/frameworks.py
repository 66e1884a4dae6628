"""What a training or serving framework does unless a run says otherwise (kb/frameworks.yaml): the query fields
gpukb's reading of a measured run sets when the run's framework names the framework. Data, with its citations;
this module only reads and checks it."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.errors import Issue, ValidationError
from ..core.yamlio import check_top_keys, load_file
from ..models.query import FIELD

PHASES = ("training", "inference")
ENTRY_KEYS = ("words", "phase", "sets", "citation")


@lru_cache(maxsize=8)
def _load(path: str) -> tuple[tuple[str, tuple[str, ...], tuple[tuple[str, Any], ...]], ...]:
    p = Path(path)
    if not p.exists():
        return ()
    data = load_file(p)
    issues: list[Issue] = []
    check_top_keys(data, ("frameworks",), str(p), issues)
    out = []
    for i, e in enumerate((data or {}).get("frameworks") or []):
        where = f"frameworks[{i}]"
        if not isinstance(e, dict) or set(e) - set(ENTRY_KEYS) or not e.get("words") or not e.get("citation"):
            issues.append(Issue(f"{where}: needs words, phase, sets and citation, and nothing else", str(p), None,
                                where, list(ENTRY_KEYS)))
            continue
        if e.get("phase") not in PHASES:
            issues.append(Issue(f"{where}: unknown phase {e.get('phase')!r}", str(p), None, "phase", list(PHASES)))
        sets = e.get("sets") or {}
        for field, value in sets.items():
            kind = FIELD[field].type if field in FIELD else None
            if not (kind == "boolean" and isinstance(value, bool) or kind == "integer" and type(value) is int):
                issues.append(Issue(f"{where}: {field!r} must be a yes/no query field set to true or false, or a "
                                    "whole-number one set to a number", str(p), None, "sets",
                                    sorted(k for k, f in FIELD.items() if f.type in ("boolean", "integer"))))
        out.append((e["phase"], tuple(str(w) for w in e["words"]), tuple(sets.items())))
    if issues:
        raise ValidationError(f"{p}: invalid framework defaults", issues)
    return tuple(out)


def defaults(kb_root: Any, framework: Any, training: bool) -> dict[str, Any]:
    """The fields a run's framework sets unless told otherwise, the first entry that names a field winning."""
    said = str(framework or "").lower().replace("-", "")
    phase = "training" if training else "inference"
    out: dict[str, Any] = {}
    for ph, words, sets in _load(str(Path(kb_root) / "frameworks.yaml")):
        if ph == phase and any(w in said for w in words):
            out.update({f: v for f, v in sets if f not in out})
    return out
