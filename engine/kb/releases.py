"""The KB's releases: ``kb/versions.yaml`` read and checked against the sources and facts it names.

A release lists, in order, the sources it adds and the fact versions it revises or retires; a query
that names a release sees exactly the facts of that release (:class:`gpukb.engine.kb.store.KB`).
"""
from __future__ import annotations

from pathlib import Path

from ..core.errors import Issue, short
from ..core.yamlio import LineDict, check_top_keys, load_file
from .store import Fact, Release, Source

__all__ = ["load_releases"]


def load_releases(path: Path, fname: str, sources: dict[str, Source], facts: list[Fact],
                  issues: list[Issue]) -> list[Release]:
    """The releases of ``versions.yaml`` in order, each checked against the loaded sources and facts
    (what it adds, revises and retires must exist; every revised version and every source must be
    introduced by some release); problems are appended to ``issues``."""
    data = load_file(path, fname, path.parent)
    check_top_keys(data, ("releases",), fname, issues)
    items = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        issues.append(Issue("expected a non-empty 'releases' list", fname, 1, "releases"))
        return [Release("empty", "", "", 0)]
    out: list[Release] = []
    keys = {f.key for f in facts}
    ids = {f.id for f in facts}
    names: set[str] = set()
    for i, item in enumerate(items):
        line = getattr(item, "line", 0)
        if not isinstance(item, LineDict):
            issues.append(Issue("each release must be a mapping", fname, line))
            continue
        for k in sorted(set(item) - {"name", "date", "note", "adds", "revises", "retires"}, key=str):
            issues.append(Issue(f"unknown field {short(k)}", fname, item.line_of(k), str(k), ["name", "date", "note", "adds", "revises", "retires"]))
        name = str(item.get("name", ""))
        if not name or name in names:
            issues.append(Issue(f"release name {short(name)} is missing or repeated", fname, line, "name"))
        names.add(name)
        adds = item.get("adds") or {}
        srcs = list(adds.get("sources") or []) if isinstance(adds, dict) else []
        for s in srcs:
            if s not in sources:
                issues.append(Issue(f"release adds unknown source {short(s)}", fname, item.line_of("adds"), "adds.sources", set(sources)))
        revises = [str(x) for x in item.get("revises") or []]
        for k in revises:
            if k not in keys:
                issues.append(Issue(f"release revises unknown fact version {short(k)}", fname, item.line_of("revises"), "revises"))
        retires = [str(x) for x in item.get("retires") or []]
        for k in retires:
            if k not in ids:
                issues.append(Issue(f"release retires unknown fact {short(k)}", fname, item.line_of("retires"), "retires"))
        out.append(Release(name, str(item.get("date", "")), str(item.get("note", "")), i, srcs, revises, retires, line))
    rel_names = {r.name for r in out}
    for f in facts:
        if f.version > 1 and not any(f.key in r.revises for r in out):
            issues.append(Issue(f"{f.key} is not listed under 'revises' of any release in {fname}", f.file, f.line, "version"))
        if f.since and f.since not in rel_names:
            issues.append(Issue(f"unknown release {f.since!r}", f.file, f.line, "since", sorted(rel_names)))
    added = {s for r in out for s in r.adds_sources}
    under_review = {f.source for f in facts if f.pending} - {f.source for f in facts if f.tier == "claim" and not f.pending}
    for s in sources:
        if s not in added and s not in under_review:
            issues.append(Issue(f"source {s} is not added by any release", fname, 1, "adds.sources"))
    return out
