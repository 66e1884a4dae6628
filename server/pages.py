"""gpukb's web pages: ask a question, audit the sources, read one claim or one conclusion.

Every page is rendered on the server and readable without JavaScript; the little JavaScript there is
(a claim pop-up on /audit, expand/collapse buttons for proof trees) lives in static files and only
adds convenience, so a strict Content-Security-Policy (no inline scripts or styles) works.

    /                       question box and example questions
    /?q=...                 the answer (verdict, memory bars, recommendations, cited summary, proof tree)
    /audit                  every source rendered from its Markdown with each claim marked in place
    /audit?source=S002&status=incorrect&kind=contradiction&view=source
    /claims/<id>            one claim: quote, context in its source, status, findings and their proofs
    /conclusions/<id>       one conclusion: proof tree, why-not, sources, PROV-JSON and DOT exports

Each page speaks English or Chinese: ``?lang=en|zh`` or, without it, the browser's Accept-Language
(server/i18n.yaml holds every label). The pages read everything through the engine facade
(:class:`GpuKB`); bad input renders a friendly HTML error page with status 400 or 404.

    from gpukb.server import create_app, pages
    app = create_app()
    pages.register(app)          # no-op when the factory has registered the blueprint already
"""
from __future__ import annotations

import logging
import re
from typing import Any, Iterable
from urllib.parse import quote

from flask import Blueprint, Flask, current_app, g, has_request_context, render_template, request, url_for
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from gpukb.engine.core.errors import GpukbError
from gpukb.engine.core.terms import gb, label

from . import page_views as views
from .i18n import DEFAULT, LANGS, Status, catalog, fmt_number, html_lang, negotiate, statuses, t, tm, verbatim
from .state import get_kb

__all__ = ["bp", "register", "STATUSES", "STATUS_BY_ID", "mark_source_text", "PageError"]

log = logging.getLogger("gpukb.pages")

bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
               static_url_path="/assets")

DEFAULT_MAX_QUERY_CHARS = 500
MAX_ID_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

STATUSES: tuple[Status, ...] = statuses()          # most severe first (server/i18n.yaml)
STATUS_BY_ID = {s.id: s for s in STATUSES}

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("why not T4 for 13B full fine-tune", "en"),
    ("为什么 T4 不能全量微调 13B 模型", "zh"),
    ("can GN7 fine-tune Llama-2-7B with QLoRA?", "en"),
    ("Does the T4 support BF16?", "en"),
    ("GN7 用的是什么 GPU？", "zh"),
)


def register(app: Flask) -> None:
    """Register the pages blueprint on `app` unless it is there already."""
    if "pages" not in app.blueprints:
        app.register_blueprint(bp)


# -- language --------------------------------------------------------------------------------------------

def ui_lang() -> str:
    """The request's UI language: a valid ``lang`` parameter, else the browser's Accept-Language."""
    if not has_request_context():
        return DEFAULT
    if "ui_lang" not in g:
        arg = request.args.get("lang")
        g.lang_param = arg if arg in LANGS else None
        g.ui_lang = negotiate(g.lang_param, request.accept_languages)
    return g.ui_lang


def tr(key: str, **params: Any) -> str:
    """A UI string in the request's language."""
    return t(key, ui_lang(), **params)


def trm(key: str, **params: Any):
    """A UI string in the request's language, as HTML (Markup parameters kept)."""
    return tm(key, ui_lang(), **params)


def url(endpoint: str, **values: Any) -> str:
    """url_for, keeping an explicit ``?lang=`` so the language the reader chose stays chosen."""
    ui_lang()
    if g.get("lang_param") and "lang" not in values:
        values["lang"] = g.lang_param
    return url_for(endpoint, **{k: v for k, v in values.items() if v not in (None, "")})


def lang_url(lang: str) -> str:
    """This page in another language."""
    args = request.args.to_dict()
    args["lang"] = lang
    return url_for(request.endpoint or "pages.index", **(request.view_args or {}), **args)


@bp.after_request
def _vary(response):
    """A page's language may come from Accept-Language: caches must keep the languages apart."""
    if request.args.get("lang") not in LANGS:
        response.vary.add("Accept-Language")
    return response


# -- errors -------------------------------------------------------------------------------------------

class PageError(Exception):
    """A request the pages cannot answer, shown as a friendly HTML page."""

    def __init__(self, status: int, message: str, details: Iterable[str] = (),
                 links: Iterable[tuple[str, str]] = ()):
        super().__init__(message)
        self.status = status
        self.message = message
        self.details = list(details)
        self.links = list(links)


def _error_page(status: int, message: str, details: Iterable[str] = (), links: Iterable[tuple[str, str]] = ()):
    status = status if 400 <= status <= 599 else 500
    key = f"error.title.{status}"
    title = tr(key) if key in catalog().ui else tr("error.title.other")
    html = render_template("error.html", status=status, title=title, message=message, details=list(details),
                           links=list(links) or [(tr("site.ask"), url("pages.index")),
                                                 (tr("site.audit"), url("pages.audit"))])
    return html, status




def engine_text(items: Iterable[str]) -> list[Markup]:
    """Messages of the engine (English) marked as such inside a page in any language."""
    return [Markup('<span class="content" lang="en">{0}</span>').format(x) for x in items]


@bp.errorhandler(PageError)
def _page_error(exc: PageError):
    return _error_page(exc.status, exc.message, exc.details, exc.links)


@bp.errorhandler(GpukbError)
def _engine_error(exc: GpukbError):
    status = int(getattr(exc, "status", 400) or 400)
    if status >= 500:
        log.error("%s %s: %s", request.method, request.path, exc.message)
    html, status = _error_page(status, engine_text([exc.message])[0], engine_text(str(i) for i in exc.issues))
    retry = getattr(exc, "retry_after", None)
    return (html, status, {"Retry-After": str(int(retry))}) if retry else (html, status)


@bp.errorhandler(Exception)
def _unexpected(exc: Exception):
    if isinstance(exc, HTTPException):
        if exc.code and exc.code < 400:          # redirects pass through
            return exc
        return _error_page(exc.code or 500, exc.description or exc.name)
    log.exception("page %s %s failed", request.method, request.path)
    return _error_page(500, tr("error.failed"))


# -- request parameters -------------------------------------------------------------------------------

def arg(name: str, max_chars: int = 200, choices: Iterable[str] | None = None,
        links: Iterable[tuple[str, str]] = ()) -> str | None:
    """One query parameter (the first if repeated), checked; empty means not given."""
    value = request.args.get(name)
    if value is None or value == "":
        return None
    pname = tr("param." + name) if "param." + name in catalog().ui else name
    if len(value) > max_chars:
        raise PageError(400, tr("error.too_long", name=pname, n=len(value), max=max_chars),
                        [tr("error.shorten", name=pname)])
    if _CONTROL.search(value):
        raise PageError(400, tr("error.control", name=pname))
    if choices is not None:
        allowed = list(choices)
        if value not in allowed:
            shown = value if len(value) <= 60 else value[:60] + "…"
            raise PageError(400, trm("error.unknown_value", name=pname, value=verbatim(shown, "code")),
                            [trm("error.allowed", values=verbatim(", ".join(allowed), "code"))], links)
    return value


def kb_version_arg() -> str | None:
    return arg("kb_version", 40)


# -- helpers the templates use -----------------------------------------------------------------------

def audit_href(source: str | None, cid: str) -> str:
    """Where a claim sits in its source on the audit page."""
    return url("pages.audit", source=source) + "#" + views.claim_id(cid)


def claim_href(cid: str) -> str:
    return url("pages.claim", cid=views.claim_id(cid))


def conclusion_href(cid: str) -> str:
    return url("pages.conclusion", cid=cid)


def export_href(cid: str, fmt: str) -> str:
    return f"/v1/conclusions/{quote(cid, safe='@')}/explain?format={fmt}"


def status_info(sid: str | None) -> Status:
    if sid in STATUS_BY_ID:
        return STATUS_BY_ID[sid]
    name = (sid or "unknown").replace("_", " ")
    return Status(sid or "unknown", "•", {"en": name.capitalize(), "zh": name}, {"en": "", "zh": ""})


def component_label(key: str) -> str:
    """A memory component's label in the page's language (engine.core.terms, the one closed vocabulary)."""
    return label("component", key, ui_lang())


@bp.app_template_filter("gb")
def _gb_filter(v: Any) -> str:
    """``{{ x|gb }}``: gigabytes formatted as everywhere else (engine.core.terms.gb)."""
    return gb(v)


@bp.app_template_filter("term")
def _term_filter(key: Any, kind: str, lang: str | None = None) -> str:
    """``{{ 'qlora'|term('method') }}``: a label from the one vocabulary (engine.core.terms), by default in the
    page's language."""
    return label(kind, key, lang or ui_lang())


@bp.app_template_filter("status_label")
def _status_label(sid: str | None) -> str:
    """``'incorrect'|status_label`` → the status name in the page's language."""
    return status_info(sid).name(ui_lang())


@bp.app_template_filter("status_desc")
def _status_desc(sid: str | None) -> str:
    return status_info(sid).describe(ui_lang())


@bp.app_template_filter("num")
def _num(value: Any, digits: int | None = None) -> str:
    """``1234|num`` → "1,234"; ``3.14159|num(2)`` → "3.14"."""
    return fmt_number(value, ui_lang(), digits)


@bp.app_template_filter("confidence")
def _confidence(level: Any) -> str:
    key = f"confidence.{level}"
    return tr("word.confidence", level=tr(key) if key in catalog().ui else level)


@bp.app_template_global("status_info")
def _status_info(sid: str | None) -> Status:
    return status_info(sid)


@bp.context_processor
def _helpers() -> dict[str, Any]:
    lang = ui_lang()
    return {"t": tr, "tm": trm, "verbatim": verbatim, "ui_lang": lang, "ui_html_lang": html_lang(lang), "url": url, "lang_url": lang_url,
            "langs": LANGS, "audit_href": audit_href, "claim_href": claim_href, "conclusion_href": conclusion_href,
            "export_href": export_href, "gb": gb, "lang_attr": html_lang,
            "text_lang": views.text_lang, "quote_lang": views.quote_lang, "claim_id": views.claim_id,
            "statuses": STATUSES, "with_cite_links": views.with_cite_links,
            "change_text": lambda c: views.change_text(c, lang), "strip_prefix": views.strip_prefix,
            "params_text": views.params_text, "method_label": lambda m: label("method", m, lang),
            "scenario_rows": lambda sc: views.scenario_rows(sc, lang)}


# -- the question page ---------------------------------------------------------------------------------

@bp.get("/")
def index():
    max_q = int(current_app.config.get("MAX_QUERY_CHARS") or DEFAULT_MAX_QUERY_CHARS)
    raw_q = request.args.get("q", "")
    if len(raw_q) > max_q:
        raise PageError(400, tr("error.too_long", name=tr("param.q"), n=len(raw_q), max=max_q),
                        [tr("error.ask_shorter")], [(tr("error.back_to_box"), url("pages.index"))])
    q = arg("q", max_q)
    lang = arg("lang", 5, LANGS)
    kb_version = kb_version_arg()
    answer = None
    if q and q.strip():
        from .engine_gate import gate_of
        with gate_of(current_app.extensions, current_app.config).turn():
            raw = get_kb().ask(q.strip(), lang=lang, kb_version=kb_version).to_json()
        answer = views.answer_view(raw, ui_lang(), component_label, audit_href, conclusion_href)
    return render_template("index.html", q=q or "", answer=answer, examples=EXAMPLES, max_q=max_q,
                           kb_version=kb_version)


# -- one conclusion -----------------------------------------------------------------------------------

@bp.get("/conclusions/")
def conclusions_index():
    raise PageError(404, trm("error.name_conclusion", path=verbatim("/conclusions/<id>", "code")),
                    [tr("error.conclusion_ids")])


@bp.get("/conclusions/<path:cid>")
def conclusion(cid: str):
    if len(cid) > MAX_ID_CHARS or _CONTROL.search(cid) or not cid.strip():
        raise PageError(404, tr("error.no_conclusion_any"), [tr("error.conclusion_ids")])
    arg("lang", 5, LANGS)
    lang = ui_lang()
    try:
        doc = get_kb().explain(cid, "json", lang).to_json()
    except GpukbError as exc:
        if exc.status in (400, 404):
            shown = cid if len(cid) <= 80 else cid[:80] + "…"
            raise PageError(404, trm("error.no_conclusion", id=verbatim(shown, "code")),
                            engine_text([exc.message] + [str(i) for i in exc.issues][:3])) from None
        raise
    tree = views.tree_view(doc.get("tree"), lang, open_depth=3)
    summary = doc.get("summary") or {}
    sources = []
    for s in doc.get("sources") or []:
        if s.get("type") == "claim":
            sources.append({**s, "href": claim_href(s.get("id") or "")})
        else:
            sources.append(s)
    finding = doc.get("finding")
    if finding:
        finding = {**finding, "claims": [{**c, "href": claim_href(c["id"])} for c in finding.get("claims") or []]}
    fact_findings = doc.get("findings") or []
    cites = (views.citations_view(summary.get("citations") or [], audit_href, conclusion_href)
             if isinstance(summary, dict) else [])
    cid_shown = doc.get("conclusion_id") or cid
    return render_template(
        "conclusion.html", doc=doc, cid=cid_shown, lang=lang, tree=tree, summary=summary, citations=cites,
        sources=sources, finding=finding, fact_findings=fact_findings,
        why_not=doc.get("why_not"), contradictions=doc.get("contradictions") or [],
        exports=[(fmt, export_href(cid_shown, fmt), label) for fmt, label in
                 (("prov", "W3C PROV-JSON"), ("dot", "Graphviz DOT"), ("text", tr("conclusion.plain_text")),
                  ("json", "JSON"))])


from .audit_pages import mark_source_text  # noqa: E402  (registers /audit and /claims/<id> on bp)
from . import check_page  # noqa: E402,F401  (registers /check on bp)
from . import catalog_pages  # noqa: E402,F401  (registers /gpus, /instances, /models on bp)
from . import docs_page  # noqa: E402,F401  (registers /docs, Swagger UI, on bp)
