"""Sources, claims and releases as the API lists them (each claim with its audit status), built here as
their typed models (:mod:`gpukb.engine.models.knowledge`); the faces only serialise them."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import Issue, NotFound
from ..models.base import OMIT
from ..models.knowledge import (Claim, ClaimDetail, ClaimList, Release, Source, SourceDetail, SourceList,
                                Versions)

if TYPE_CHECKING:
    from ..core.session import Session


def sources(state: Session) -> SourceList:
    return SourceList.of(sources=[Source.of(**s.as_dict()) for s in state.kb.sources.values()])


def source(state: Session, sid: str, with_text: bool = True) -> SourceDetail | Source:
    s = state.kb.sources.get(sid)
    if s is None:
        raise NotFound(f"no source {sid!r}", [Issue(f"no source {sid!r}", field="id", allowed=sorted(state.kb.sources))])
    return SourceDetail.of(**s.as_dict(with_text=True)) if with_text else Source.of(**s.as_dict())


def claims(state: Session, source: str | None = None, kb_version: str | None = None) -> ClaimList:
    view = state.view(kb_version)
    if source is not None and source not in state.kb.sources:
        raise NotFound(f"no source {source!r}", [Issue(f"no source {source!r}", field="source", allowed=sorted(state.kb.sources))])
    audit = state.audit_result(view.name)
    out = [Claim.of(**f.as_dict(), audit=audit.status_of(f.id) if audit is not None else OMIT)
           for f in sorted(view.claims, key=lambda f: f.id) if not source or f.source == source]
    return ClaimList.of(kb_version=view.name, claims=out)


def claim(state: Session, cid: str, kb_version: str | None = None) -> ClaimDetail:
    view, f = state.kb.view_of(cid, kb_version)      # an @version is honoured, never ignored
    if f.tier != "claim":
        raise NotFound(f"no claim {cid!r} in release {view.name}", [Issue(f"no claim {cid!r}", field="id")])
    audit = state.audit_result(view.name)
    return ClaimDetail.of(**f.as_dict(), kb_version=view.name,
                          audit=audit.status_of(f.id) if audit is not None else OMIT,
                          findings=audit.findings_for(f.id) if audit is not None else OMIT,
                          versions=[Claim.of(**g.as_dict()) for g in state.kb.all_facts if g.id == f.id])


def versions(state: Session) -> Versions:
    """The KB's releases, oldest first, each with its size."""
    out = []
    for r in state.kb.releases:
        v = state.view(r.name)
        out.append(Release.of(**r.as_dict(), counts={"claims": len(v.claims), "reference": len(v.reference),
                                                     "sources": len(v.source_ids), "rules": len(state.rules.rules)}))
    return Versions.of(versions=out, latest=state.kb.latest)


def claim_brief(c: Any) -> dict[str, Any]:
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
