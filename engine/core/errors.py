"""Exception hierarchy shared by the engine, the CLI and the HTTP API.

Every class carries the HTTP status it maps to, so the API turns any of them into one JSON error shape
and the CLI into exit code 1 with the same messages.
"""
from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Any

MAX_MESSAGE = 1000          # characters of one error message; longer ones are cut (values can be huge)
MAX_ISSUES = 200            # issues kept by one error; the rest are counted

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 6
_SHORT.maxlevel = 3


def short(value: Any) -> str:
    """A bounded repr of a value for error messages: long strings, deep or long lists are elided, so a
    huge value (e.g. one built from YAML aliases) never turns into a huge message."""
    return _SHORT.repr(value)


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    text = text if isinstance(text, str) else str(text)      # a str subclass (a Note with its Chinese) is kept
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


@dataclass(frozen=True)
class Issue:
    """One problem found in an input: where it is and what would be accepted instead."""

    message: str
    file: str | None = None
    line: int | None = None
    field: str | None = None
    allowed: Any = None

    def __post_init__(self) -> None:
        if isinstance(self.message, str) and len(self.message) > MAX_MESSAGE:
            object.__setattr__(self, "message", clip(self.message))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "") + ": "
        text = where + (f"{self.field}: " if self.field else "") + self.message
        if self.allowed is not None:
            allowed = self.allowed
            if isinstance(allowed, (list, tuple, set)):
                items = sorted(map(str, allowed))
                allowed = ", ".join(items[:25]) + (f" ... ({len(items)} in all)" if len(items) > 25 else "")
            text += f" (allowed: {allowed})"
        return text

    def as_dict(self) -> dict[str, Any]:
        d = {"message": self.message}
        for k in ("file", "line", "field"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.allowed is not None:
            a = self.allowed
            d["allowed"] = sorted(map(str, a)) if isinstance(a, (set, frozenset)) else a
        return d


class GpukbError(Exception):
    """Base class: a failure the user can act on. `status` is the HTTP status it maps to."""

    status = 400

    def __init__(self, message: str, issues: list[Issue] | None = None):
        message = clip(message)
        super().__init__(message)
        self.message = message
        self.issues = list(issues or [])
        if len(self.issues) > MAX_ISSUES:     # say how many, show the first ones
            more = len(self.issues) - MAX_ISSUES
            self.issues = self.issues[:MAX_ISSUES] + [Issue(f"... and {more} more problem(s) not shown")]

    def __str__(self) -> str:
        if not self.issues:
            return self.message
        return self.message + "\n" + "\n".join("  " + str(i) for i in self.issues)


class BadInput(GpukbError):
    """A request, question or scenario that cannot be answered as given."""

    status = 400


class TooLarge(BadInput):
    """An input over its size limit (a text to check, a request body)."""

    status = 413


class ValidationError(GpukbError):
    """KB or rule files that break the schema; `issues` names file, line and what is allowed."""

    status = 400


class NotFound(GpukbError):
    """An id (claim, source, conclusion, release) that does not exist."""

    status = 404


class UnknownRelease(BadInput):
    """A KB release name that kb/versions.yaml does not list."""


class RuleError(GpukbError):
    """A rule failed while running: runaway derivation or bad arithmetic."""

    status = 422


class EngineError(RuleError):
    """durable_rules itself failed (an error it logged or recorded in a session's state).

    The question fails as a whole, never with a partial derivation; the message names the rule that
    was matching when durable_rules reported the error.
    """

    status = 500


class TimeLimitExceeded(GpukbError):
    """A request or a derivation ran past its time limit (see :mod:`engine.core.limits`)."""

    status = 503


def require_text(text: Any, what: str, name: str, max_chars: int, too_long: type[GpukbError] = BadInput,
                 hint: str = "") -> str:
    """``text`` if it is a non-blank string of at most ``max_chars`` characters; else the error that
    says which of the three it is not (``too_long`` for the length: a question is a 400, a text to
    check a 413)."""
    if not isinstance(text, str):
        msg = f"the {what} must be text, got {type(text).__name__}"
        raise BadInput(msg, [Issue(msg, field=name)])
    if len(text) > max_chars:
        msg = f"the {what} is {len(text):,} characters long; at most {max_chars:,} are accepted{hint}"
        raise too_long(msg, [Issue(msg, field=name)])
    if not text.strip():
        msg = f"the {what} is empty"
        raise BadInput(msg, [Issue(msg, field=name)])
    return text
