"""Input schemas of the MCP tools, built from the loaded KB so nothing is retyped here.

The query's fields (keys, types, ranges, vocabularies, help) come from their one declaration,
:mod:`engine.models.query` (which the OpenAPI request bodies and the scenario validator read too), the
other closed enums (finding kinds, languages) from :mod:`engine.core.terms`, entity names and
attributes from the vocabulary, release names from kb/versions.yaml, explain formats from the API's
parameter list. A new GPU in the vocabulary is a new enum value for the bot; a new query field is one
line of engine/models/query.py.
"""
from __future__ import annotations

from typing import Any

from gpukb.engine.models import query
from gpukb.engine.models.check import MAX_CHECK_CHARS      # the check contract's text limit
from gpukb.engine.ask.parser import MAX_QUESTION_CHARS
from gpukb.engine.service.state import GpuKB
from gpukb.engine.core.terms import FINDING_KINDS, LANGS

from .api import MAX_ID_CHARS
from .api.conclusions import FORMATS as EXPLAIN_FORMATS

KB_VERSION_HELP = query.KB_VERSION_HELP
LANG_HELP = "answer language: en or zh (default: the question's language)."


def _releases(kb: GpuKB) -> list[str]:
    return [r.name for r in kb.kb.releases]


def _names(kb: GpuKB, *kinds: str) -> list[str]:
    """The catalog names of a vocabulary's entities of some kinds (the engine's own ``allowed`` list)."""
    v = kb.kb.vocab
    return sorted(e.split(":", 1)[1] for e in v.entities if v.kind_of(e) in kinds and v.entities[e].get("catalog", True))


def _string(description: str, enum: list[str] | tuple[str, ...] | None = None, max_len: int | None = None) -> dict:
    d: dict[str, Any] = {"type": "string", "description": description}
    if enum is not None:
        d["enum"] = list(enum)
    if max_len is not None:
        d["maxLength"] = max_len
    return d


def _object(properties: dict[str, dict], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


def _field(kb: GpuKB, f: query.Field) -> dict[str, Any]:
    """One query field (:data:`gpukb.engine.models.query.FIELDS`, the same declaration the OpenAPI
    QueryBody is generated from) for a bot: its help, the catalog's names or the releases as an enum, the
    numeric ranges spelled out."""
    if f.entity:
        return _string(f.help, _names(kb, *f.entity))
    if f.name == "kb_version":
        return _string(f.help, _releases(kb))
    if f.text:                       # a number or text such as "13B"
        lo, hi = f.limits or (0, 0)
        return {"type": ["number", "string"], "description": f"{f.help} ({lo:g}..{hi:g})"}
    out = {**query.property_schema(f, described=False), "description": f.help}
    out.pop("default", None)         # the engine states the defaults it assumed in the answer's notes
    if f.limits and f.type in ("number", "integer"):
        out["minimum"], out["maximum"] = f.limits
    return out


def query_schema(kb: GpuKB) -> dict[str, Any]:
    """The query's fields with their enums, ranges and the catalog's names, and ``without``."""
    props = {f.name: _field(kb, f) for f in query.FIELDS}
    props["without"] = without_schema(kb)
    return _object(props)


def ask_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"question": _string("the question, in English or Chinese, as a user would ask it",
                                        max_len=MAX_QUESTION_CHARS),
                    "lang": _string(LANG_HELP, LANGS), "kb_version": _string(KB_VERSION_HELP, _releases(kb))},
                   ("question",))


def check_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"text": _string("the draft text to check (English or Chinese)", max_len=MAX_CHECK_CHARS),
                    "lang": _string(LANG_HELP, LANGS), "kb_version": _string(KB_VERSION_HELP, _releases(kb))},
                   ("text",))


def explain_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"conclusion_id": _string("a conclusion id from an answer: Q-... (sizing), A-... (audit "
                                             "finding) or a claim or reference fact id", max_len=MAX_ID_CHARS),
                    "format": _string("json (proof tree, default), text (indented), prov (W3C PROV-JSON) "
                                      "or dot (Graphviz)", EXPLAIN_FORMATS),
                    "lang": _string("label language (default en)", LANGS)}, ("conclusion_id",))


def without_schema(kb: GpuKB) -> dict[str, Any]:
    """Sources to answer as if removed (the API's ``?without=``)."""
    return _string("source ids to answer as if they were removed (comma-separated, e.g. "
                   f"{','.join(sorted(kb.kb.sources)[:2])}): what still holds without their claims", max_len=MAX_ID_CHARS)


def audit_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"source": _string("only findings about this source's claims", sorted(kb.kb.sources)),
                    "kind": _string("only findings of this kind", FINDING_KINDS),
                    "status": _string("only claims whose audit status (top-ranked finding) is this", FINDING_KINDS),
                    "without": without_schema(kb),
                    "kb_version": _string(KB_VERSION_HELP, _releases(kb))})


def claim_schema(kb: GpuKB) -> dict[str, Any]:
    return _object({"id": _string("a claim id, e.g. S001-C009 (optionally @version)", max_len=MAX_ID_CHARS),
                    "kb_version": _string(KB_VERSION_HELP, _releases(kb))}, ("id",))


def fact_schema(kb: GpuKB) -> dict[str, Any]:
    v = kb.kb.vocab
    return _object({"subject": _string("an entity id of the vocabulary (kind:name, e.g. gpu:T4); a name or "
                                       "alias is resolved too", sorted(v.entities)),
                    "attribute": _string("an attribute of the vocabulary, e.g. memory_gb, bf16_native",
                                         sorted(v.attributes)),
                    "lang": _string("answer language (default en)", LANGS),
                    "kb_version": _string(KB_VERSION_HELP, _releases(kb))}, ("subject", "attribute"))
