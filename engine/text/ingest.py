"""`gpukb ingest FILE --source S003`: a new article taken into the KB for review.

The text is copied verbatim under kb/sources/, registered in sources.yaml, and its claims are extracted
(:mod:`extract`) into kb/claims/S003.yaml, each marked ``review: pending``. Pending claims are validated
like any other but the audit and the answers use them only with ``--include-pending``, until a curator
has corrected each claim and deleted its ``review`` line (and added the source to a release). Nothing is
left behind when a step fails: the KB is validated with the new files before the command returns, and
the files are removed again if it does not load.
"""
from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from ..core.errors import BadInput, GpukbError, Issue
from ..core.files import read_input_text
from ..kb.ids import SOURCE_ID
from ..kb.loader import load_kb
from .check import claims_of

MAX_SOURCE_BYTES = 2_000_000


def _yaml_str(x: Any) -> str:
    """A scalar as YAML: JSON's string and number syntax is valid YAML and needs no quoting rules."""
    return json.dumps(x, ensure_ascii=False)


def ingest(kb_dir: str | Path, file: str | Path, sid: str, title: str | None = None, publisher: str | None = None,
           date: str | None = None, lang: str | None = None) -> dict[str, Any]:
    """Register ``file`` as source ``sid`` with its extracted claims pending review; what was written."""
    root = Path(kb_dir)
    path = Path(file)
    if not isinstance(sid, str) or not SOURCE_ID.match(sid):
        raise BadInput(f"--source must look like S003, got {sid!r}", [Issue("expected S followed by three digits", field="source")])
    if date is not None:
        try:
            _dt.date.fromisoformat(date)
        except ValueError:
            raise BadInput(f"--date must be a date like 2026-12-03, got {date!r}", [Issue("expected YYYY-MM-DD", field="date")]) from None
    if lang is not None and lang not in ("en", "zh"):
        raise BadInput(f"--lang must be en or zh, got {lang!r}", [Issue("unknown language", field="lang", allowed=["en", "zh"])])
    text = read_input_text(path, MAX_SOURCE_BYTES, "an article")
    raw = text.encode("utf-8")          # the file's bytes again: valid UTF-8 decodes and encodes back unchanged
    recovered = recover(root)
    if recovered and not recovered.endswith("as it was before it"):
        raise GpukbError(recovered, [Issue(recovered, str(root / JOURNAL))])
    kb = load_kb(root)
    if sid in kb.sources:
        raise BadInput(f"source {sid} exists already ({kb.sources[sid].title})", [Issue("source id taken", field="source", allowed=None)])
    claims_path = root / "claims" / f"{sid}.yaml"
    if claims_path.exists():
        raise BadInput(f"{claims_path} exists already", [Issue("claims file exists", str(claims_path))])
    lang = lang or ("zh" if re.search(r"[\u4e00-\u9fff]", text) else "en")
    view = kb.release(None)
    claims, skipped, _ = claims_of(text, sid, view, lang)

    src_name = f"{sid[1:]}_{hashlib.sha256(raw).hexdigest()[:16]}.txt"
    src_path = root / "sources" / src_name
    sources_yaml = root / "sources" / "sources.yaml"
    before = sources_yaml.read_text(encoding="utf-8")
    entry = [f"  - id: {sid}", f"    file: {src_name}", f"    title: {_yaml_str(title or path.stem)}",
             f"    publisher: {_yaml_str(publisher)}" if publisher else "    publisher: null",
             f"    published: {_yaml_str(date)}" if date else "    published: null",
             f"    language: {lang}", "    # ingested by gpukb ingest; add it to a release once its claims are reviewed"]
    vocab = kb.vocab
    lines = [f"# Claims extracted from {sid} by `gpukb ingest`; each is pending review: correct it, then delete its",
             "# `review: pending` line. Confidence is the extractor's.", f"source: {sid}", "claims:"]
    for c in claims:
        gloss = f"{vocab.label(c.subject)}: {vocab.attributes[c.attribute].en} = {c.value_text(vocab)}"
        lines += [f"  - id: {c.id}", "    version: 1", f"    quote: {_yaml_str(c.quote)}", f"    span: {list(c.span or [])}",
                  f"    subject: {_yaml_str(c.subject)}", f"    attribute: {c.attribute}", f"    value: {_yaml_str(c.value)}"]
        if c.unit is not None:
            lines.append(f"    unit: {_yaml_str(c.unit)}")
        if c.qualifiers:
            quals = {k: v for k, v in _raw_qualifiers(c).items()}
            lines.append(f"    qualifiers: {_yaml_str(quals)}")
        lines += [f"    modality: {c.modality}", f"    gloss_en: {_yaml_str(gloss)}"]
        if c.approx:
            lines.append("    approx: true")
        lines += [f"    note: {_yaml_str(f'extracted with confidence {c.confidence}')}", "    review: pending"]
    if not claims:
        lines[-1] = "claims: []"
    # Every file is written under a temporary name and renamed into place. No order of single renames
    # keeps the KB valid throughout (claims need a registered source, a registered source needs its
    # claims), so a journal of what the KB held before is written first and removed last: a `gpukb
    # ingest` or `gpukb validate` that finds it (kill -9 or a full disk struck in between) puts the
    # KB back exactly as it was (:func:`recover`).
    steps = [(src_path, raw), (claims_path, ("\n".join(lines) + "\n").encode("utf-8")),
             (sources_yaml, (before.rstrip("\n") + "\n" + "\n".join(entry) + "\n").encode("utf-8"))]
    journal = {"source": sid, "files": [{"path": str(t.relative_to(root)),
                                         "before": base64.b64encode(t.read_bytes()).decode() if t.exists() else None}
                                        for t, _ in steps]}
    try:
        _write_atomically(root / JOURNAL, json.dumps(journal).encode())
        for target, data in steps:
            _write_atomically(target, data)
        load_kb(root, include_pending=True)             # the KB must still load, with the new claims
    except (GpukbError, OSError) as exc:
        problems = _undo(root, journal)
        if isinstance(exc, GpukbError) and not problems:
            raise
        what = (f"cannot write {exc.filename or 'a file of the KB'}: {exc.strerror or exc}" if isinstance(exc, OSError)
                else exc.message)
        msg = (f"ingest failed: {what}; " + ("the KB is exactly as it was" if not problems else
               "and the KB could not be restored (" + "; ".join(problems) + f"); {JOURNAL} says what it held"))
        raise GpukbError(msg, [Issue(msg, str(getattr(exc, "filename", None) or "") or None)]) from None
    (root / JOURNAL).unlink(missing_ok=True)
    return {"source": sid, "file": str(src_path), "claims_file": str(claims_path), "claims": len(claims),
            "not_understood": skipped, "lang": lang}


JOURNAL = ".gpukb-ingest.json"


def _undo(root: Path, journal: dict[str, Any]) -> list[str]:
    """Put every file of an ingest back as the journal says it was (newest first); what failed."""
    problems = []
    for item in reversed(journal.get("files") or []):
        target = root / str(item["path"])
        if root.resolve() not in target.resolve().parents:
            continue                                 # a journal never names a file outside the KB
        try:
            if item.get("before") is None:
                target.unlink(missing_ok=True)
            else:
                _write_atomically(target, base64.b64decode(item["before"]))
        except (OSError, ValueError) as undo:
            problems.append(f"{target}: {getattr(undo, 'strerror', None) or undo}")
    if not problems:
        (root / JOURNAL).unlink(missing_ok=True)
    return problems


def recover(kb_dir: str | Path) -> str | None:
    """Undo an ingest that was interrupted (its journal is still there); what was done, in words."""
    root = Path(kb_dir)
    path = root / JOURNAL
    if not path.is_file():
        return None
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"an interrupted ingest left {path}, which cannot be read ({exc}); restore the KB by hand"
    problems = _undo(root, journal)
    if problems:
        return f"an interrupted ingest of {journal.get('source')} could not be undone: " + "; ".join(problems)
    return f"an interrupted ingest of {journal.get('source')} was undone: the KB is as it was before it"


def _write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` or what it held before, never a part: a temporary file in the same
    directory, flushed to disk, then renamed over it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    try:
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def _raw_qualifiers(c) -> dict[str, Any]:
    """A claim's qualifiers as written in a claim file (quantities as plain numbers)."""
    out = {}
    for k, v in c.qualifiers.items():
        if hasattr(v, "point"):
            v = v.point()
        out[k] = v
    return out
