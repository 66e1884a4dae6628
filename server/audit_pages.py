"""The audit pages: every source rendered from its Markdown with each claim marked at its span
(/audit), and one claim with its context, status and findings (/claims/<id>). Routes on the pages
blueprint (server/pages.py); the marking itself is server/markdown_marks.py."""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from flask import render_template, request
from markupsafe import Markup

from gpukb.engine.audit.without import parse_sources
from gpukb.engine.core.errors import BadInput, GpukbError

from .i18n import catalog, html_lang, verbatim
from .markdown_marks import Mark, layout_markdown, layout_raw, render_marked, window
from .page_views import claim_id
from .pages import (LANGS, MAX_ID_CHARS, STATUSES, PageError, _CONTROL, arg, audit_href, bp, claim_href,
                    conclusion_href, get_kb, kb_version_arg, status_info, tr, trm, ui_lang, url)

VIEWS = ("rendered", "source")
CONTEXT_CHARS = 80


def _marks(claims: list[dict[str, Any]], status_of: dict[str, str], href_of: Callable[[str], str]) -> list[Mark]:
    lang = ui_lang()
    out = []
    for c in claims:
        span = c.get("span") or []
        if len(span) != 2:
            continue
        info = status_info(status_of.get(c["id"], "unverifiable"))
        out.append(Mark(c["id"], int(span[0]), int(span[1]), info.id, info.symbol,
                        tr("audit.mark_title", id=c["id"], status=info.name(lang)), href_of(c["id"])))
    return out


def mark_source_text(text: str, claims: list[dict[str, Any]], status_of: dict[str, str],
                     href_of: Callable[[str], str] = lambda cid: "#f-" + cid, rendered: bool = False) -> Markup:
    """The source as HTML with every claim marked at its code-point span: its raw text, or (with
    `rendered`) its Markdown rendered (see server/markdown_marks.py)."""
    layout = layout_markdown(text) if rendered else layout_raw(text)
    return render_marked(layout, _marks(claims, status_of, href_of), table_label=tr("audit.table"))


def _source_lang(s: dict[str, Any]) -> str:
    return html_lang("zh" if (s.get("language") or "").startswith("zh") else "en")


def _evidence_view(eid: str, shown_sources: set[str], claims_by_id: dict[str, dict[str, Any]]) -> dict[str, Any]:
    cid = claim_id(eid)
    if cid in claims_by_id:
        c = claims_by_id[cid]
        href = ("#" + cid) if c["source"] in shown_sources else claim_href(cid)
        return {"kind": "claim", "id": cid, "source": c["source"], "quote": c.get("quote"),
                "gloss_en": c.get("gloss_en"), "href": href}
    if eid.startswith("R-"):
        try:
            doc = get_kb().explain(eid, "json", "en").to_json()
            node = doc.get("tree") or {}
            lab = node.get("label") or {}
            return {"kind": "reference", "id": eid, "label": lab.get("en") if isinstance(lab, dict) else lab,
                    "citation": node.get("citation"), "confidence": node.get("confidence"),
                    "href": conclusion_href(eid)}
        except GpukbError:
            pass
    return {"kind": "derived", "id": eid}


class _Findings:
    """A claim's findings shaped for the templates (the decisive one in full, scope differences short)."""

    def __init__(self, findings: dict[str, dict[str, Any]], claims_by_id: dict[str, dict[str, Any]],
                 shown: set[str]):
        self.findings, self.claims_by_id, self.shown = findings, claims_by_id, shown
        self.cache: dict[str, dict[str, Any]] = {}

    def evidence(self, eid: str) -> dict[str, Any]:
        if eid not in self.cache:
            self.cache[eid] = _evidence_view(eid, self.shown, self.claims_by_id)
        return self.cache[eid]

    def of(self, c: dict[str, Any], status: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        fs, scope = [], []
        for fid in (c.get("audit") or {}).get("findings") or []:
            f = self.findings.get(fid)
            if f is None:
                continue
            others = [{**x, "href": ("#" + x["id"]) if x.get("source") in self.shown else claim_href(x["id"])}
                      for x in f.get("claims") or [] if x.get("id") != c["id"]]
            other_ids = {x.get("id") for x in others}
            item = {"id": fid, "kind": f.get("kind"), "rank": f.get("rank") or 0,
                    "explanation": f.get("explanation") or {}, "others": others,
                    "differences": f.get("scope_differences") or [], "rule": f.get("rule"),
                    # another claim already named under "With" is not repeated as evidence
                    "evidence": [self.evidence(e) for e in f.get("evidence") or [] if claim_id(e) not in other_ids]}
            (scope if f.get("kind") == "scope_dependent" else fs).append(item)
        fs.sort(key=lambda f: -f["rank"])
        scope.sort(key=lambda f: -f["rank"])
        if scope and (status == "scope_dependent" or not fs):
            fs.append(scope.pop(0))      # the decisive scope finding in full, the rest in one short list
        return fs, scope


@bp.get("/audit")
def audit():
    """The page, rendered once per release, parameters and UI language (the KB is read-only while
    served); renderings are kept least recently used first, bounded in count and bytes."""
    import threading
    from collections import OrderedDict
    from flask import current_app
    ext = current_app.extensions
    cache, lock = ext.get("gpukb_audit_pages") or ext.setdefault("gpukb_audit_pages", (OrderedDict(), threading.Lock()))
    key = (id(get_kb()), request.query_string, ui_lang())
    with lock:
        html = cache.get(key)
        if html is not None:
            cache.move_to_end(key)
            return html
    html = _render_audit()
    if isinstance(html, str):
        with lock:
            cache[key] = html
            while len(cache) > 64 or sum(len(v) for v in cache.values()) > 64 * 1024 * 1024:
                cache.popitem(last=False)
    return html


def _render_audit():
    kb = get_kb()
    arg("lang", 5, LANGS)
    kb_version = kb_version_arg()
    all_sources = kb.sources().to_json()["sources"]
    source = arg("source", 40, [s["id"] for s in all_sources],
                 [(f"{s['id']}: {s.get('title_en') or s.get('title')}", url("pages.audit", source=s["id"]))
                  for s in all_sources])
    status_links = [(s.name(ui_lang()), url("pages.audit", status=s.id)) for s in STATUSES]
    status = arg("status", 60, [s.id for s in STATUSES], status_links)
    kind = arg("kind", 60, [s.id for s in STATUSES],
               [(s.name(ui_lang()), url("pages.audit", kind=s.id)) for s in STATUSES])
    view = arg("view", 20, VIEWS) or "rendered"
    without = _without_arg(kb, all_sources)
    claims = kb.claims(kb_version=kb_version).to_json()["claims"]
    audit_doc = kb.audit(kb_version=kb_version, **({"without": without} if without else {})).to_json()
    findings = {f["id"]: f for f in audit_doc["findings"]}
    if without:        # the claims of the removed sources go; the others' statuses are the ones that still hold
        statuses = {st["claim"]: st for st in audit_doc["statuses"]}
        claims = [{**c, "audit": {**(c.get("audit") or {}), **statuses[c["id"]]}} for c in claims if c["id"] in statuses]
        all_sources = [s for s in all_sources if s["id"] not in without]
    claims_by_id = {c["id"]: c for c in claims}
    status_of = {c["id"]: (c.get("audit") or {}).get("status", "unverifiable") for c in claims}
    kinds_of = {c["id"]: {findings[f]["kind"] for f in (c.get("audit") or {}).get("findings") or [] if f in findings}
                for c in claims}
    shown_sources = [s for s in all_sources if not source or s["id"] == source]
    shown_ids = {s["id"] for s in shown_sources}
    shaper = _Findings(findings, claims_by_id, shown_ids)

    docs = []
    per_source: dict[str, Counter[str]] = {}
    for s in all_sources:
        per_source[s["id"]] = Counter(status_of[c["id"]] for c in claims if c["source"] == s["id"])
    for s in shown_sources:
        in_source = [c for c in claims if c["source"] == s["id"]]
        marked = [c for c in in_source if (not status or status_of[c["id"]] == status)
                  and (not kind or kind in kinds_of[c["id"]])]
        marked.sort(key=lambda c: (tuple(c.get("span") or (0, 0)), c["id"]))
        text = kb.source(s["id"]).text
        entries = []
        for c in marked:
            fs, scope = shaper.of(c, status_of[c["id"]])
            entries.append({"claim": c, "status": status_of[c["id"]], "findings": fs, "scope": scope})
        html = mark_source_text(text, marked, status_of, claim_href, rendered=view == "rendered")
        docs.append({"source": s, "html": html, "counts": per_source[s["id"]], "n_claims": len(in_source),
                     "n_marked": len(marked), "entries": entries, "lang": _source_lang(s)})
    totals: Counter[str] = Counter()
    for c in per_source.values():
        totals.update(c)
    filtered = bool(status or kind)
    return render_template("audit.html", docs=docs, sources=all_sources, source=source, status=status, kind=kind,
                           view=view, views=VIEWS, totals=totals, per_source=per_source, filtered=filtered,
                           n_claims=sum(d["n_claims"] for d in docs), n_marked=sum(d["n_marked"] for d in docs),
                           kb_version=kb_version, kb_release=audit_doc.get("kb_version"),
                           without=without, wparam=",".join(without) or None, wblock=audit_doc.get("without"),
                           all_source_ids=[s.id for s in kb.sources().sources])


def _without_arg(kb: Any, sources: list[dict[str, Any]]) -> list[str]:
    """The sources ``?without=`` removes (repeatable or comma-separated); an unknown id is a 400 page
    that links each source's page without it."""
    arg("without", 200)             # length and control characters of the first value
    values = request.args.getlist("without")
    try:
        return parse_sources([v for v in values if v], kb.kb.sources)
    except BadInput:
        shown = ",".join(values)
        shown = shown if len(shown) <= 60 else shown[:60] + "…"
        raise PageError(400, trm("error.unknown_value", name=tr("param.without"), value=verbatim(shown, "code")),
                        [trm("error.allowed", values=verbatim(", ".join(s["id"] for s in sources), "code"))],
                        [(f"{s['id']}: {s.get('title_en') or s.get('title')}", url("pages.audit", without=s["id"]))
                         for s in sources]) from None


@bp.get("/claims/<path:cid>")
def claim(cid: str):
    arg("lang", 5, LANGS)
    kb_version = kb_version_arg()
    if len(cid) > MAX_ID_CHARS or _CONTROL.search(cid) or not cid.strip():
        raise PageError(404, tr("error.no_claim", id="?"), [tr("error.claim_ids")],
                        [(tr("site.audit"), url("pages.audit"))])
    kb = get_kb()
    try:
        c = kb.claim(cid, kb_version=kb_version).to_json()
    except GpukbError as exc:
        if exc.status in (400, 404):
            shown = cid if len(cid) <= 80 else cid[:80] + "…"
            raise PageError(404, trm("error.no_claim", id=verbatim(shown, "code")), [tr("error.claim_ids")],
                            [(tr("site.audit"), url("pages.audit"))]) from None
        raise
    source = kb.source(c["source"]).to_json()
    text = source["text"]
    st = (c.get("audit") or {}).get("status", "unverifiable")
    a, b = (c.get("span") or [0, 0])[:2]
    layout = layout_markdown(text)
    mark = _marks([c], {c["id"]: st}, lambda _cid: "#quote")
    context = render_marked(layout, mark, anchors=False, blocks=window(layout, a, b), table_label=tr("audit.table"))
    lo, hi = max(0, a - CONTEXT_CHARS), min(len(text), b + CONTEXT_CHARS)
    shifted = [Mark(m.id, m.start - lo, m.end - lo, m.status, m.symbol, m.title, m.href) for m in mark]
    raw = render_marked(layout_raw(text[lo:hi]), shifted, anchors=False)
    findings = {f["id"]: f for f in c.get("findings") or []}
    claims_by_id = {x["id"]: x for x in kb.claims(kb_version=kb_version).to_json()["claims"]}
    fs, scope = _Findings(findings, claims_by_id, set()).of(c, st)
    lang = ui_lang()

    def label(what: str, key: Any) -> str:
        if isinstance(key, list):
            return tr("word.and").join(label(what, k) for k in key)
        return kb.vocabulary_label(what, str(key), lang) if isinstance(key, str) else str(key)

    quals = [(k, label("entity", v) if isinstance(v, (str, list)) else v) for k, v in (c.get("qualifiers") or {}).items()]
    modality = c.get("modality") or "spec"
    return render_template(
        "claim.html", c=c, status=st, source=source, src_lang=_source_lang(source), context=context, raw=raw,
        raw_cut=(lo > 0, hi < len(text)), findings=fs, scope=scope, subject=label("entity", c.get("subject")),
        attribute=label("attribute", c.get("attribute")), value=_value_text(c, label), qualifiers=quals,
        modality=tr("modality." + modality) if ("modality." + modality) in catalog().ui else modality,
        kb_version=kb_version)




def _value_text(c: dict[str, Any], label: Callable[[str, Any], str]) -> str:
    v = c.get("value")
    if isinstance(v, (list, str)) and (isinstance(v, list) or ":" in v):
        return label("entity", v)
    if isinstance(v, dict):
        return ", ".join(f"{k} {val}" for k, val in v.items())
    unit = c.get("unit")
    return f"{v} {unit}" if unit else str(v)
