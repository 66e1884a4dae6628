"""What passes between gpukb and durable_rules as text, in plain Python (no engine import): messages whose
JSON is written once, match texts read back (without decoding when they allow it), and the engine's failures
as an exception."""
from __future__ import annotations

import json
import logging
import re
from typing import Any
from .durable_facts import MARK_ESCAPE



class EngineFault(RuntimeError):
    """durable_rules refused a message or failed inside; the reasoner reports it as an EngineError.

    ``rule`` is the durable rule name that was matching when the failure was reported, when known.
    """

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message)
        self.rule = rule


class ErrorLog(logging.Handler):
    """Keeps what durable_rules logs at ERROR (its action-callback failures, e.g. "error code: 307"),
    which it otherwise only logs while the run goes on; sessions turn each record into an EngineFault."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a malformed record still counts as an error
            text = str(record.msg)
        self.records.append(text[:1000])


class Message(dict):
    """A message for durable_rules with its JSON text already written (``text``, what ``_ENCODE`` writes
    for the dict): a reference record's projection is encoded once, not in every session."""

    __slots__ = ("text",)

    def __init__(self, fields: dict[str, Any], text: str):
        super().__init__(fields)
        self.text = text


# A match as the C core hands it out (state.c, serializeResult): {"<action>":{"b_x":<message>,...}}, each
# message the text gpukb sent, a flat object. Without a backslash in the text (other than in the escaped
# \u0001 that begins the list and boolean marks) no string holds a quote, so these patterns can only
# meet the action's name, the bindings' names and each message's "fk".
_ACTION = re.compile(r'\{"([^"]*)":\{')


_BINDING = re.compile(r'"(b_[^"]*)":\{')


_FK = re.compile(r'"fk": "([^"]*)"')


def match_keys(text: str) -> tuple[str, dict[str, str]]:
    """(action name, binding → fact key) of one match text, read without decoding the messages (a
    third of the cost of ``json.loads``, which is used when the text has escapes or another shape)."""
    if "\\" not in text or text.count("\\") == text.count(MARK_ESCAPE):
        head = _ACTION.match(text)
        if head is not None:
            binds, fks = _BINDING.findall(text), _FK.findall(text)
            if len(binds) == len(fks):
                return head.group(1), dict(zip(binds, fks))
    name, bindings = match_dict(text)
    return name, {k: v["fk"] for k, v in bindings.items()}


def match_dict(text: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """(action name, binding → message) of one match text, decoded."""
    for name, bindings in json.loads(text).items():
        return name, bindings
    raise EngineFault(f"durable_rules handed out an empty match: {text[:200]!r}")
