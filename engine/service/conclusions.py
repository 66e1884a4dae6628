"""Explanations of one conclusion (a sizing answer, an audit finding or a fact) in json, text, PROV or DOT;
the JSON and PROV ones are built here as their typed models."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..explain import export, dot as export_dot, prov as export_prov
from ..models import scenario as scen
from ..models.explain import Explanation, ProvDocument
from ..core.errors import BadInput, Issue, NotFound
from ..kb.ids import source_of
from ..kb.notes import in_lang
from ..explain.trees import tree
from ..audit.inputs import na_key, not_applicable
from ..kb.labels import fact_label
from ..text.check import CHECK_PREFIX, check_of, finding_of
from ..sizing.answer import sizing_answer

if TYPE_CHECKING:
    from .state import GpuKB

#: a claim of a checked text: ``X<digest>-C001``
CHECKED_CLAIM = re.compile(CHECK_PREFIX + r"[0-9a-f]{6,64}-C\d{1,6}")


def explain(state: GpuKB, cid: str, fmt: str = "json", lang: str = "en") -> Explanation | ProvDocument | str:
    """Why / why-not of a conclusion (Q- sizing id, A- finding id, or a fact id) in one format: the typed
    :class:`Explanation` (json) or :class:`ProvDocument` (prov), or the text of a text or DOT export."""
    if fmt not in ("json", "text", "prov", "dot"):
        raise BadInput(f"unknown format {fmt!r}", [Issue(f"unknown format {fmt!r}", field="format", allowed=["json", "text", "prov", "dot"])])
    if lang not in ("en", "zh"):
        raise BadInput(f"unknown language {lang!r}", [Issue(f"unknown language {lang!r}", field="lang", allowed=["en", "zh"])])
    if not isinstance(cid, str) or not cid or len(cid) > 2000:
        raise BadInput("a conclusion id is required", [Issue("expected a conclusion id", field="id")])
    doc = _document(state, cid)
    if fmt == "json":
        return Explanation.build(in_lang(doc, lang))   # the notes of a sizing answer (its summary's caveats) in its language
    if fmt == "text":
        return export.to_text(doc["tree"], lang)
    if fmt == "dot":
        return export_dot.to_dot(doc["tree"], lang)
    return ProvDocument.build(export_prov.to_prov(doc["tree"], {k: v.as_dict() for k, v in state.kb.sources.items()}))


def _document(state: GpuKB, cid: str) -> dict[str, Any]:
    """The explanation of a conclusion as an object of its fields (the tree a JSON object, a sizing answer's
    parts their models; notes not yet in a language)."""
    if cid.startswith("Q-"):
        release, sc = scen.decode_conclusion_id(cid)
        view = state.view(release)
        s, notes = scen.normalise(sc, state.kb.vocab)
        ans = state.cached(("query", view.name, scen.conclusion_id(s, view.name), tuple(notes)), lambda: sizing_answer(state, s, notes, view))
        t = ans.explanation.tree.to_json()
        doc = {"conclusion_id": cid, "kind": "sizing", "kb_version": view.name, "scenario": ans.scenario,
               "conclusion": {"verdict": ans.verdict, "label": t["label"]},
               "holds": True, "tree": t, "why_not": ans.get("why_not"),
               "summary": ans.summary, "contradictions": ans.contradictions, "sources": ans.sources}
    elif cid.startswith("A-" + CHECK_PREFIX):
        audit, f = finding_of(state, cid)
        view = audit.view
        t = tree(audit.proof(f["claims"][0]["id"]), f["fact"], view, state.rules, audit.corroboration)
        doc = {"conclusion_id": cid, "kind": "finding", "kb_version": view.name, "finding": f, "holds": True, "tree": t,
               "summary": f["explanation"]}
    elif cid.startswith("A-"):
        view = state.view(None)
        audit = state.audit_result(view.name)
        f = next((x for x in audit.findings if x["id"] == cid), None)
        if f is None:
            raise NotFound(f"no finding {cid!r} in release {view.name}", [Issue(f"no finding {cid!r}", field="id")])
        t = tree(audit.proof(f["claims"][0]["id"]), f["fact"], view, state.rules, audit.corroboration)
        doc = {"conclusion_id": cid, "kind": "finding", "kb_version": view.name, "finding": f, "holds": True, "tree": t,
               "summary": f["explanation"]}
    elif CHECKED_CLAIM.fullmatch(cid):        # a claim of a checked text: its findings, the strongest explained
        audit = check_of(state, source_of(cid), cid)
        if cid not in audit.statuses:
            raise NotFound(f"the checked text has no claim {cid!r}", [Issue(f"no claim {cid!r}", field="id")])
        found, st = audit.findings_for(cid), audit.status_of(cid)
        if not found:
            raise NotFound(f"the claim {cid!r} has no finding to explain (it is {st['status']})",
                           [Issue(f"no finding for {cid!r}", field="id")])
        # the finding that decided the claim's status (its rank and kind), else the most severe
        top = next((f for f in found if f.get("rank") == st.get("rank") and f["kind"] == st["status"]), found[0])
        doc = _document(state, top["id"])
        doc.update(conclusion_id=cid, findings=found, status=st)
    elif cid.startswith("NA-"):              # what the vendor says does not apply (an audit finding's evidence)
        view = state.view(None)
        u = next((u for (s, a), u in not_applicable(view).items() if na_key(s, a) == cid), None)
        if u is None:
            raise NotFound(f"no not-applicable statement {cid[:200]!r}", [Issue(f"no statement {cid[:200]!r}", field="id")])
        rec = {"t": "na", "subject": u.subject, "attribute": u.attribute}
        node = {"fact": cid, "type": "na", "given": True, "tier": "reference", "citation": u.citation,
                "confidence": "high", "note": u.reason,
                "label": fact_label(rec, view, view.kb.vocab)}
        doc = {"conclusion_id": cid, "kind": "fact", "kb_version": view.name, "holds": True, "tree": node}
    else:
        try:       # an @version is honoured: explained in the latest release that holds that version
            view, fact = state.kb.view_of(cid)
        except NotFound as exc:
            raise NotFound(f"no conclusion or fact {cid[:200]!r}: {exc.message}", exc.issues) from None
        audit = state.audit_result(view.name)
        node = {"fact": fact.key, "type": "claim" if fact.tier == "claim" else "ref", "given": True,
                "label": {"en": fact.gloss_en or fact.value_text(state.kb.vocab), "zh": fact.quote or fact.value_text(state.kb.vocab)},
                "tier": "claim" if fact.tier == "claim" else "reference"}
        if fact.tier == "claim":
            node.update(source=fact.source, quote=fact.quote, span=list(fact.span or []))
        else:
            node.update(citation=fact.citation, confidence=fact.confidence, stated_by=audit.corroboration.get(fact.id, []))
        doc = {"conclusion_id": fact.key, "kind": "fact", "kb_version": view.name, "holds": True, "tree": node,
               "status": audit.status_of(fact.id) if fact.tier == "claim" else None,
               "findings": audit.findings_for(fact.id) if fact.tier == "claim" else []}
    return doc
