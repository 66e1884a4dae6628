"""Checks kept for explaining their findings: the recent results in memory, and the checked texts in a
store shared by the processes serving one KB, so that an id printed by one process explains in another."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..models.check import CheckAnswer
from ..text import check as check_mod


class CheckMemory:
    """The check methods of :class:`GpuKB` (a mixin: it uses the state's ``_lock`` and ``_checks``)."""

    #: recent checks kept in memory for explaining their findings: at most this many characters of text
    #: in all (a check's findings grow with its text) and at most CHECKS_KEPT checks
    CHECK_CHARS_KEPT = 200_000
    CHECKS_KEPT = 64
    #: where checked texts are written so that any process serving the same KB can recompute a
    #: check's findings from its id (``gpukb serve`` sets a directory shared by its workers); None: this
    #: process only
    check_store: Path | None = None
    CHECK_STORE_BYTES = 64 * 1024 * 1024

    def check(self, text: str, lang: str | None = None, kb_version: str | None = None) -> CheckAnswer:
        """The claims a free text states, each judged by the audit's rules (see :mod:`check`), as the
        typed answer its producer builds."""
        out = check_mod.check_answer(self, text, lang, kb_version)
        sid = out.text_id
        if sid:
            with self._lock:
                self._check_chars = getattr(self, "_check_chars", {})
                self._check_chars[sid] = len(text)
                while self._checks and (sum(self._check_chars.get(k, 0) for k in self._checks) > self.CHECK_CHARS_KEPT
                                        or len(self._checks) > self.CHECKS_KEPT) and next(iter(self._checks)) != sid:
                    old, _ = self._checks.popitem(last=False)
                    self._check_chars.pop(old, None)
            self._store_check(sid, text, lang, out.kb_version)
        return out

    def _store_check(self, sid: str, text: str, lang: str | None, kb_version: str | None) -> None:
        store = self.check_store
        if store is None:
            return
        import json
        import os
        import tempfile
        try:
            store = Path(store)
            path = store / f"{sid}.json"
            if path.exists():
                os.utime(path)
                return
            data = json.dumps({"text": text, "lang": lang, "kb_version": kb_version}, ensure_ascii=True).encode()
            fd, tmp = tempfile.mkstemp(dir=store, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            entries = sorted((e.stat().st_mtime, e.stat().st_size, e) for e in store.glob("X*.json"))
            total = sum(size for _, size, _ in entries)
            for _, size, e in entries:           # oldest out first, bounded in bytes
                if total <= self.CHECK_STORE_BYTES:
                    break
                e.unlink(missing_ok=True)
                total -= size
        except OSError as exc:      # a full disk loses only the links of other processes, never the answer
            import logging
            logging.getLogger("gpukb.check").warning("cannot keep the checked text %s: %s", sid, exc)

    def recheck(self, sid: str) -> Any:
        """The result of a check another process made, recomputed from the text it stored (None: unknown)."""
        store = self.check_store
        if store is None or not check_mod.CHECK_PREFIX or not sid[1:].isalnum():
            return None
        import json
        try:
            doc = json.loads((Path(store) / f"{sid}.json").read_text(encoding="ascii"))
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
            return None
        if check_mod.text_id(doc["text"], str(doc.get("kb_version"))) != sid:
            return None
        self.check(doc["text"], doc.get("lang"), doc.get("kb_version"))
        return self.recalled_check(sid)

    def remember_check(self, sid: str, result: Any, keep: int = 64) -> None:
        with self._lock:
            self._checks[sid] = result
            self._checks.move_to_end(sid)
            while len(self._checks) > keep:
                self._checks.popitem(last=False)

    def recalled_check(self, sid: str) -> Any:
        with self._lock:
            return self._checks.get(sid)
