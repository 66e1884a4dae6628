"""The service's own answers: errors (the one error shape of every failure) and health."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .base import OMIT, Model, spec


@dataclass(kw_only=True)
class Issue(Model):
    """One problem with the input: what was wrong, where, and what is allowed instead."""

    message: str
    field: str = OMIT
    allowed: Any = spec(OMIT, "What is accepted instead: a list of values or a range such as \"1..65536\".")
    file: str = OMIT
    line: int = OMIT


@dataclass(kw_only=True)
class Error(Model):
    """Every failure: 400 bad input (errors say what and what is allowed), 404 unknown id, ..."""

    SCHEMA = {"additionalProperties": False}     # the one error shape: nothing else, ever

    ok: Literal[False]
    status: int = spec(description=None, minimum=400, maximum=599)
    error: str = spec()
    errors: list[Issue] = spec(minItems=1)


@dataclass(kw_only=True)
class Reload(Model):
    """Which KB generation is served and when it was loaded, and the last KB change the server refused."""

    loaded_at: str = OMIT
    last_error: str | None = OMIT
    last_error_at: str | None = OMIT
    generation: int = spec(OMIT, minimum=0)


@dataclass(kw_only=True)
class Health(Model):
    """The service is up, with the latest KB release and its size."""

    status: Literal["ok"]
    kb_version: str
    claims: int | None = spec(minimum=0)
    rules: int | None = spec(minimum=0)
    kb_digest: str = spec(OMIT, "A digest of the KB, rules and code this worker serves (under gpukb serve).")
    reload: Reload = spec(OMIT, "Present under gpukb serve: which KB generation is served and when it was "
                          "loaded, and the last KB change the server refused (the last good KB keeps serving; "
                          "cleared once the files are back in a good state).")
