"""Log lines that cannot be forged: control characters in logged values are escaped.

A request path may carry ``%0a`` or ``%1b``; written as is, it would start a new, fake log line or
drive a terminal. :func:`printable` escapes every C0/C1 control character and DEL (``\\n`` -> ``\\x0a``);
:class:`SafeFormatter` applies it to each record's message (tracebacks keep their line breaks).
"""
from __future__ import annotations

import json
import logging
import os
import re
from datetime import datetime, timezone
from typing import Any

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(value: object) -> str:
    """``value`` as text with control characters escaped as ``\\xNN`` (or ``\\uNNNN``)."""
    text = value if isinstance(value, str) else str(value)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text)


#: the attributes every LogRecord has; any other one (``extra=``) goes into a JSON line as is
_RECORD_KEYS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


def json_logs() -> bool:
    """``GPUKB_LOG_FORMAT=json``: one JSON object per log line (for log collectors)."""
    return os.environ.get("GPUKB_LOG_FORMAT", "").strip().lower() == "json"


class SafeFormatter(logging.Formatter):
    """A formatter whose messages (not tracebacks) have their control characters escaped; with
    ``GPUKB_LOG_FORMAT=json`` (or ``json_lines=True``), each record is one JSON object instead:
    ``{"time", "level", "logger", "process", "message"[, "exception"], ...extra}`` (JSON escapes
    control characters, so a line cannot be forged either)."""

    def __init__(self, *args: Any, json_lines: bool | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.json_lines = json_logs() if json_lines is None else json_lines

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        record.message = printable(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        if not self.json_lines:
            return super().format(record)
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name, "process": record.process,
            "message": record.getMessage()}
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        for key, value in vars(record).items():
            if key not in _RECORD_KEYS and key not in out and not key.startswith("_"):
                out[key] = value if isinstance(value, (str, int, float, bool, type(None))) else str(value)
        return json.dumps(out, ensure_ascii=False)
