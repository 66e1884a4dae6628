"""Log lines that cannot be forged: control characters in logged values are escaped.

A request path may carry ``%0a`` or ``%1b``; written as is, it would start a new, fake log line or
drive a terminal. :func:`printable` escapes every C0/C1 control character and DEL (``\\n`` -> ``\\x0a``);
:class:`SafeFormatter` applies it to each record's message (tracebacks keep their line breaks).
"""
from __future__ import annotations

import logging
import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(value: object) -> str:
    """``value`` as text with control characters escaped as ``\\xNN`` (or ``\\uNNNN``)."""
    text = value if isinstance(value, str) else str(value)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text)


class SafeFormatter(logging.Formatter):
    """A formatter whose messages (not tracebacks) have their control characters escaped."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        record.message = printable(record.message)
        return super().formatMessage(record)
