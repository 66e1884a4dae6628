"""Sources and claims as the API lists them, each claim with its audit status."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import Issue, NotFound

if TYPE_CHECKING:
    from ..core.session import Session


def sources(state: Session) -> dict[str, Any]:
    return {"sources": [s.as_dict() for s in state.kb.sources.values()]}


def source(state: Session, sid: str, with_text: bool = True) -> dict[str, Any]:
    s = state.kb.sources.get(sid)
    if s is None:
        raise NotFound(f"no source {sid!r}", [Issue(f"no source {sid!r}", field="id", allowed=sorted(state.kb.sources))])
    return s.as_dict(with_text=with_text)


def claims(state: Session, source: str | None = None, kb_version: str | None = None) -> dict[str, Any]:
    view = state.view(kb_version)
    if source is not None and source not in state.kb.sources:
        raise NotFound(f"no source {source!r}", [Issue(f"no source {source!r}", field="source", allowed=sorted(state.kb.sources))])
    audit = state.audit_result(view.name)
    out = []
    for f in sorted(view.claims, key=lambda f: f.id):
        if source and f.source != source:
            continue
        d = f.as_dict()
        if audit is not None:
            d["audit"] = audit.status_of(f.id)
        out.append(d)
    return {"kb_version": view.name, "claims": out}


def claim(state: Session, cid: str, kb_version: str | None = None) -> dict[str, Any]:
    view, f = state.kb.view_of(cid, kb_version)      # an @version is honoured, never ignored
    if f.tier != "claim":
        raise NotFound(f"no claim {cid!r} in release {view.name}", [Issue(f"no claim {cid!r}", field="id")])
    d = f.as_dict()
    d["kb_version"] = view.name
    audit = state.audit_result(view.name)
    if audit is not None:
        d["audit"] = audit.status_of(f.id)
        d["findings"] = audit.findings_for(f.id)
    d["versions"] = [g.as_dict() for g in state.kb.all_facts if g.id == f.id]
    return d


def claim_brief(c) -> dict[str, Any]:
    """A claim as a citation: id, source, verbatim quote and its span."""
    return {"id": c.id, "source": c.source, "quote": c.quote, "span": list(c.span or [])}


def vocabulary_label(state: Session, what: str, key: str, lang: str = "en") -> str:
    """A display label from the vocabulary: `what` is "attribute", "entity" or the name of an enum
    (e.g. "component"); an unknown key is returned unchanged."""
    vocab = state.kb.vocab
    if what == "attribute":
        attr = vocab.attributes.get(key)
        return (attr.zh if lang == "zh" else attr.en) if attr else key
    if what == "entity":
        return vocab.label(key) if key in vocab.entities else key
    return vocab.enum_label(what, key, lang)
