"""The KB's identifiers as types: what a claim, fact or finding id is made of, parsed in one place.

- a source id: ``S000``;
- a claim id: its source and a number, ``S000-C003`` (:class:`ClaimId`); a text checked by
  ``gpukb check`` gets a source of its own (``X<digest>``), so :func:`source_of` reads any id of
  that shape;
- a reference fact id: ``R-`` and a name, ``R-T4-memory_gb``;
- a fact reference: a claim or reference id, optionally at a version, ``S000-C003@2`` (:class:`FactRef`);
- a finding id: ``A-`` + the claim id + the kind (+ the other fact, + the detail) (:func:`finding_id`).

>>> ClaimId.parse("S001-C042"), str(ClaimId("S001", 42))
(ClaimId(source='S001', number=42), 'S001-C042')
>>> FactRef.parse("R-T4-memory_gb@1"), bare("S001-C005@1"), bare("S001-C005")
(FactRef(id='R-T4-memory_gb', version='1'), 'S001-C005', 'S001-C005')
>>> source_of("S001-C005"), finding_source("A-S002-C010-incorrect-R-T4-memory_gb")
('S001', 'S002')
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

__all__ = ["CLAIM_ID", "SOURCE_ID", "REF_ID", "ClaimId", "FactRef", "bare", "source_of", "ref_head",
           "finding_id", "finding_source"]

CLAIM_ID = re.compile(r"^S\d{3}-C\d{3,4}$")
SOURCE_ID = re.compile(r"^S\d{3}$")
REF_ID = re.compile(r"^R-[A-Za-z0-9_.+\-]+$")


class ClaimId(NamedTuple):
    """A claim id of the KB: the source that makes the claim and the claim's number in it."""

    source: str
    number: int

    @classmethod
    def parse(cls, text: Any) -> "ClaimId | None":
        """The parts of ``S000-C003`` (None when ``text`` is not a KB claim id)."""
        if not isinstance(text, str) or not CLAIM_ID.match(text):
            return None
        source, _, number = text.partition("-C")
        return cls(source, int(number))

    def __str__(self) -> str:
        return f"{self.source}-C{self.number:03d}"


class FactRef(NamedTuple):
    """A claim or reference fact named with an optional version (its text, unchecked: the store
    decides whether a version is valid and held)."""

    id: str
    version: str | None

    @classmethod
    def parse(cls, text: Any) -> "FactRef":
        """``id@version`` or a bare ``id`` (version None)."""
        fid, sep, ver = str(text).partition("@")
        return cls(fid, ver if sep else None)


def bare(ref: Any) -> str:
    """A fact reference without its version: ``S001-C005@1`` -> ``S001-C005``."""
    return str(ref).partition("@")[0]


def source_of(claim_id: Any) -> str:
    """The source part of a claim id (the text before its first ``-``): ``S001-C005`` -> ``S001``."""
    return str(claim_id).split("-", 1)[0]


def ref_head(ref: Any) -> tuple[str, ...]:
    """The first two ``-`` parts of a reference id, ``("R", "T4")``: the ids of one subject (for
    suggesting the ids near a mistyped one)."""
    return tuple(str(ref).split("-")[:2])


def finding_id(claim: str, kind: str, other: str | None = None, detail: Any = None) -> str:
    """The id of an audit finding on ``claim``: ``A-<claim>-<kind>[-<other>][-<detail>]`` (a detail
    counts only as text)."""
    return f"A-{claim}-{kind}" + (f"-{other}" if other is not None else "") + \
        (f"-{detail}" if isinstance(detail, str) else "")


def finding_source(fid: str) -> str:
    """The source of the claim a finding id is about: ``A-S002-C010-...`` -> ``S002``."""
    return source_of(fid[2:])
