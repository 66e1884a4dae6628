"""gpukb's web pages: ask a question, audit the sources, read one conclusion.

Every page is rendered on the server and readable without JavaScript; the little JavaScript there is
(a claim panel on /audit, expand/collapse buttons for proof trees) only adds convenience.

    /                       question box and example questions
    /?q=...                 the answer (verdict, memory bars, recommendations, cited summary, proof tree)
    /audit                  every source's text with its claims marked in place, coloured by audit status
    /audit?source=S002&status=incorrect
    /conclusions/<id>       one conclusion: proof tree, why-not, sources, PROV-JSON and DOT exports

The pages read everything through the engine facade (:class:`engine.service.GpuKB`); they never touch
the engine's internals. Bad input renders a friendly HTML error page with status 400 or 404.

    from gpukb.server import create_app, pages
    app = create_app()
    pages.register(app)          # no-op when the factory has registered the blueprint already
"""
from __future__ import annotations

import bisect
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable
from urllib.parse import quote

from flask import Blueprint, Flask, current_app, render_template, request, url_for
from markupsafe import Markup, escape
from werkzeug.exceptions import HTTPException

from gpukb.engine.errors import GpukbError
from gpukb.engine.terms import MEMORY_COMPONENTS, gb, label

from .state import get_kb

__all__ = ["bp", "register", "STATUSES", "mark_source_text"]

log = logging.getLogger("gpukb.pages")

bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
                static_url_path="/assets")

DEFAULT_MAX_QUERY_CHARS = 500
MAX_ID_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CITE_MARK = re.compile(r"\[(\d{1,3})\]")
LANGS = ("en", "zh")


@dataclass(frozen=True)
class Status:
    """An audit status: how the page names, explains and draws it."""

    id: str
    label: str
    label_zh: str
    symbol: str          # shown next to the label so status never depends on colour alone
    description: str


# Most severe first; the legend and the filters use this order.
STATUSES: tuple[Status, ...] = (
    Status("incorrect", "Incorrect", "错误", "✗", "contradicts the reference tier"),
    Status("misattributed", "Misattributed", "张冠李戴", "⇄", "true of something else than what the claim names"),
    Status("contradiction", "Contradiction", "相互矛盾", "≠", "another source says otherwise and neither outranks the other"),
    Status("inconsistent_with_derivation", "Inconsistent with derivation", "与推导不符", "≉",
           "gpukb's own sizing for the claim's scope disagrees"),
    Status("overstated", "Overstated", "夸大", "↑", "claims more than the evidence supports"),
    Status("understated", "Understated", "低估", "↓", "claims less than the evidence shows"),
    Status("scope_dependent", "Scope-dependent", "视范围而定", "◐",
           "true in some scopes only; the qualifiers decide"),
    Status("unverifiable", "Unverifiable", "无法核实", "?", "nothing in the KB speaks to it"),
    Status("supported", "Supported", "有依据", "✓", "agrees with the reference tier or a derivation"),
)
STATUS_BY_ID = {s.id: s for s in STATUSES}

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("why not T4 for 13B full fine-tune", "en"),
    ("为什么 T4 不能全量微调 13B 模型", "zh"),
    ("can GN7 fine-tune Llama-2-7B with QLoRA?", "en"),
    ("Does the T4 support BF16?", "en"),
    ("GN7 用的是什么 GPU？", "zh"),
)

MEMORY_PARTS = tuple((k, label("component", k, "en").capitalize(), label("component", k, "zh"))
                     for k in MEMORY_COMPONENTS if k != "adapters")

ACTIONS = {
    "more_gpus": "Use more GPUs",
    "use_fp16": "Use FP16 mixed precision",
    "gradient_checkpointing": "Turn on gradient checkpointing",
    "flash_attention": "Use FlashAttention",
    "method_lora": "Switch to LoRA",
    "method_qlora": "Switch to QLoRA",
    "family": "Move to another instance family",
}

METHODS = {"full": "full fine-tuning", "lora": "LoRA fine-tuning", "qlora": "QLoRA fine-tuning",
           "pretrain": "pre-training", "inference": "inference"}


def register(app: Flask) -> None:
    """Register the pages blueprint on `app` unless it is there already."""
    if "pages" not in app.blueprints:
        app.register_blueprint(bp)


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


_TITLES = {400: "That request could not be read", 404: "Not found", 405: "Method not allowed",
           500: "Something went wrong", 501: "Not available yet"}


def _error_page(status: int, message: str, details: Iterable[str] = (), links: Iterable[tuple[str, str]] = ()):
    status = status if 400 <= status <= 599 else 500
    html = render_template("error.html", status=status, title=_TITLES.get(status, "Error"), message=message,
                           details=list(details), links=list(links) or [("Ask a question", url_for("pages.index")),
                                                                        ("Audit the sources", url_for("pages.audit"))])
    return html, status


@bp.errorhandler(PageError)
def _page_error(exc: PageError):
    return _error_page(exc.status, exc.message, exc.details, exc.links)


@bp.errorhandler(GpukbError)
def _engine_error(exc: GpukbError):
    status = int(getattr(exc, "status", 400) or 400)
    if status >= 500:
        log.error("%s %s: %s", request.method, request.path, exc.message)
    return _error_page(status, exc.message, [str(i) for i in exc.issues])


@bp.errorhandler(Exception)
def _unexpected(exc: Exception):
    if isinstance(exc, HTTPException):
        if exc.code and exc.code < 400:          # redirects pass through
            return exc
        return _error_page(exc.code or 500, exc.description or exc.name)
    log.exception("page %s %s failed", request.method, request.path)
    return _error_page(500, "The page could not be built; the server log has the details.")


# -- request parameters -------------------------------------------------------------------------------

def _arg(name: str, max_chars: int = 200, choices: Iterable[str] | None = None,
         links: Iterable[tuple[str, str]] = ()) -> str | None:
    """One query parameter (the first if repeated), checked; empty means not given."""
    value = request.args.get(name)
    if value is None or value == "":
        return None
    if len(value) > max_chars:
        raise PageError(400, f"The {name} is {len(value)} characters long; at most {max_chars} are accepted.",
                        [f"Shorten the {name} and try again."])
    if _CONTROL.search(value):
        raise PageError(400, f"The {name} contains control characters.")
    if choices is not None:
        allowed = list(choices)
        if value not in allowed:
            shown = value if len(value) <= 60 else value[:60] + "…"
            raise PageError(400, f"Unknown {name} {shown!r}.", [f"Allowed: {', '.join(allowed)}."], links)
    return value


def _kb_version() -> str | None:
    return _arg("kb_version", 40)


# -- helpers the templates use -----------------------------------------------------------------------

def claim_id(fact_id: str) -> str:
    """S001-C005@1 → S001-C005."""
    return str(fact_id).split("@", 1)[0]


def audit_href(source: str | None, cid: str) -> str:
    """Where a claim sits in its source's text on the audit page."""
    args = {"source": source} if source else {}
    return url_for("pages.audit", **args) + "#" + claim_id(cid)


def conclusion_href(cid: str) -> str:
    return url_for("pages.conclusion", cid=cid)


def export_href(cid: str, fmt: str) -> str:
    return f"/v1/conclusions/{quote(cid, safe='@')}/explain?format={fmt}"




def params_text(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return str(n)
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= div:
            return f"{n / div:.3g}{unit}"
    return f"{n:.3g}"


def strip_prefix(v: Any) -> Any:
    if isinstance(v, str) and ":" in v and re.match(r"^[a-z_]+:", v):
        return v.split(":", 1)[1]
    return v


def change_text(change: dict[str, Any] | None) -> str:
    if not change:
        return ""
    parts = []
    for k, v in change.items():
        v = strip_prefix(v)
        if k == "gpus":
            parts.append(f"{v} GPUs")
        elif k == "zero":
            parts.append(f"ZeRO-{v}")
        elif v is True:
            parts.append(f"{k.replace('_', ' ')} on")
        else:
            parts.append(f"{k.replace('_', ' ')} {v}")
    return ", ".join(parts)


def lang_attr(lang: str | None) -> str:
    return "zh-Hans" if lang == "zh" else "en"


def _is_cjk(ch: str) -> bool:
    return ("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\u3000" <= ch <= "\u303f"
            or "\uff00" <= ch <= "\uffef")


def text_lang(text: Any) -> str:
    """zh-Hans when at least a fifth of the text is CJK, else en (lang attributes of mixed content)."""
    s = str(text or "").replace(" ", "")
    cjk = sum(1 for ch in s if _is_cjk(ch))
    return "zh-Hans" if cjk and cjk * 5 >= len(s) else "en"


def quote_lang(text: Any) -> str:
    """A quoted sentence of a source: zh-Hans as soon as it has any CJK character."""
    return "zh-Hans" if any(_is_cjk(ch) for ch in str(text or "")) else "en"


def with_cite_links(text: str, prefix: str = "cite-") -> Markup:
    """Escape `text` and turn its [n] citation marks into links to #cite-n."""
    out = []
    pos = 0
    for m in _CITE_MARK.finditer(text):
        out.append(escape(text[pos:m.start()]))
        n = m.group(1)
        out.append(Markup('<a class="cite" href="#{p}{n}" aria-label="citation {n}">[{n}]</a>').format(p=prefix, n=n))
        pos = m.end()
    out.append(escape(text[pos:]))
    return Markup("").join(out)


@bp.app_template_global("status_info")
def status_info(sid: str | None) -> Status:
    return STATUS_BY_ID.get(sid or "", Status(sid or "unknown", (sid or "unknown").replace("_", " ").capitalize(),
                                                 sid or "未知", "•", ""))


@bp.app_template_filter("gb")
def _gb_filter(v: Any) -> str:
    """``{{ x|gb }}``: gigabytes formatted as everywhere else (engine.terms.gb)."""
    return gb(v)


@bp.app_template_filter("term")
def _term_filter(key: Any, kind: str, lang: str = "en") -> str:
    """``{{ 'qlora'|term('method', 'zh') }}``: a label from the one vocabulary (engine.terms)."""
    return label(kind, key, lang)


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"audit_href": audit_href, "conclusion_href": conclusion_href, "export_href": export_href,
            "gb": gb, "lang_attr": lang_attr, "text_lang": text_lang, "quote_lang": quote_lang, "claim_id": claim_id,
            "statuses": STATUSES, "with_cite_links": with_cite_links, "change_text": change_text,
            "strip_prefix": strip_prefix, "params_text": params_text,
            "method_label": lambda m: METHODS.get(m, str(m))}


# -- proof trees ---------------------------------------------------------------------------------------

def _anchor(fact: str) -> str:
    return "n-" + re.sub(r"[^A-Za-z0-9_-]", "-", str(fact))


def _fmt_value(v: Any) -> str:
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return f"{int(v):,}" if abs(v) >= 1e4 else str(int(v))
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt_value(x) for x in v)
    return str(strip_prefix(v)) if isinstance(v, str) else str(v)


def tree_view(node: dict[str, Any] | None, lang: str = "en", open_depth: int = 2) -> dict[str, Any] | None:
    """The proof tree, shaped for the template: labels in `lang`, anchors, leaves and their quotes."""
    if not node:
        return None
    seen: set[str] = set()

    def label_of(n: dict[str, Any]) -> tuple[str, str]:
        lab = n.get("label") or {}
        if isinstance(lab, str):
            return lab, text_lang(lab)
        text = lab.get(lang) or lab.get("en") or lab.get("zh") or str(n.get("fact", ""))
        return text, (lang_attr(lang) if lab.get(lang) else text_lang(text))

    def walk(n: dict[str, Any], depth: int) -> dict[str, Any]:
        fact = str(n.get("fact", ""))
        text, tlang = label_of(n)
        premises = n.get("premises") or []
        shared = bool(n.get("shared")) or (fact in seen and bool(fact))
        out: dict[str, Any] = {
            "fact": fact, "type": n.get("type"), "label": text, "label_lang": tlang,
            "tier": n.get("tier"), "depth": depth, "open": depth < open_depth,
            "anchor": None, "ref": None, "shared": shared,
        }
        if shared:
            out["ref"] = _anchor(fact)
            out["leaf"] = True
            return out
        if fact:
            seen.add(fact)
            out["anchor"] = _anchor(fact)
        desc = n.get("rule_description") or {}
        out.update(
            rule=n.get("rule"),
            rule_description=(desc.get(lang) or desc.get("en")) if isinstance(desc, dict) else desc,
            vals=[(k, _fmt_value(v)) for k, v in (n.get("values") or {}).items()],
            cites=[{"id": c.get("id"), "citation": c.get("citation"), "confidence": c.get("confidence")}
                   for c in (n.get("cites") or [])],
            citation=n.get("citation"), confidence=n.get("confidence"), note=n.get("note"),
            source=n.get("source"), quote=n.get("quote"),
            claim=claim_id(fact) if n.get("tier") == "claim" else None,
            stated_by=[{"id": c.get("id"), "source": c.get("source"), "quote": c.get("quote"),
                        "gloss_en": c.get("gloss_en")} for c in (n.get("stated_by") or [])],
            given=bool(n.get("given")),
        )
        out["premises"] = [walk(p, depth + 1) for p in premises]
        out["leaf"] = not out["premises"]
        return out

    return walk(node, 0)


# -- answers -----------------------------------------------------------------------------------------

def memory_bars(answer: dict[str, Any]) -> dict[str, Any]:
    """Rows of the memory chart: each with GB and a width proportional to GB (percent of the largest)."""
    mem = answer.get("memory") or {}
    cap = answer.get("capacity") or {}
    rows = []
    for key, en, zh in MEMORY_PARTS:
        v = mem.get(key)
        if v is None:
            continue
        rows.append({"key": key, "label": en, "label_zh": zh, "gb": float(v), "kind": "part"})
    total = float(mem.get("total") or sum(r["gb"] for r in rows))
    rows.append({"key": "total", "label": "Total", "label_zh": "合计", "gb": total, "kind": "total"})
    per_gpu = mem.get("per_gpu_total")
    scen = answer.get("scenario") or {}
    gpus = cap.get("gpus") or 1
    if per_gpu is not None and (abs(float(per_gpu) - total) > 1e-6 or gpus > 1):
        zero = scen.get("zero")
        rows.append({"key": "per_gpu_total", "label": f"Per GPU ({gpus} GPUs, ZeRO-{zero})",
                     "label_zh": "每卡合计", "gb": float(per_gpu), "kind": "total"})
    if cap.get("per_gpu") is not None:
        rows.append({"key": "capacity", "label": f"Usable per GPU ({cap.get('gpu') or 'GPU'})",
                     "label_zh": "每卡可用", "gb": float(cap["per_gpu"]), "kind": "capacity"})
    scale = max([r["gb"] for r in rows] + [1e-9])
    for r in rows:
        r["pct"] = max(0.0, min(100.0, 100.0 * r["gb"] / scale))
        r["width"] = f"{r['pct']:.2f}%"
    return {"rows": rows, "scale": scale, "per_gpu": per_gpu, "capacity": cap.get("per_gpu")}


def recommendations_view(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in recs or []:
        action = r.get("action") or ""
        label = ACTIONS.get(action, action.replace("_", " ").capitalize())
        change = r.get("change") or {}
        if action == "family" and change.get("family"):
            label = f"Move to the {strip_prefix(change['family'])} family"
            if r.get("also"):
                label += f" (or {', '.join(r['also'])})"
        out.append({**r, "label": label, "change_text": change_text(change)})
    return out


def citations_view(cites: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, c in enumerate(cites or [], 1):
        item = {"n": i, **c}
        if c.get("type") == "quote":
            item["href"] = audit_href(c.get("source"), c.get("claim") or "")
        elif c.get("fact"):
            item["href"] = conclusion_href(c["fact"])
        out.append(item)
    return out


def answer_view(a: dict[str, Any]) -> dict[str, Any]:
    """What the answer partial needs, computed once here instead of in the template."""
    lang = a.get("lang") if a.get("lang") in LANGS else "en"
    other = "zh" if lang == "en" else "en"
    v: dict[str, Any] = {"kind": a.get("kind"), "lang": lang, "other": other, "raw": a,
                         "question": a.get("question"), "conclusion_id": a.get("conclusion_id")}
    summary = a.get("summary") or {}
    if a.get("kind") == "sizing":
        v["verdict"] = a.get("verdict")
        v["fits"] = a.get("verdict") == "fits"
        v["bars"] = memory_bars(a)
        v["recs"] = recommendations_view(a.get("recommendations") or [])
        v["citations"] = citations_view(summary.get("citations") or [])
        v["tree"] = tree_view((a.get("explanation") or {}).get("tree"), lang)
        v["why_not"] = a.get("why_not")
        v["contradictions"] = a.get("contradictions") or []
        v["scenario"] = a.get("scenario") or {}
    elif a.get("kind") == "fact":
        v["fact"] = a.get("fact") or {}
        v["support"] = a.get("support") or []
        v["contradictions"] = a.get("contradictions") or []
    v["summary"] = {k: summary.get(k) for k in LANGS if summary.get(k)}
    v["caveats"] = summary.get("caveats") or []
    return v


@bp.get("/")
def index():
    max_q = int(current_app.config.get("MAX_QUERY_CHARS") or DEFAULT_MAX_QUERY_CHARS)
    raw_q = request.args.get("q", "")
    if len(raw_q) > max_q:
        raise PageError(400, f"The question is {len(raw_q)} characters long; at most {max_q} are accepted.",
                        ["Ask a shorter question, e.g. one of the examples."],
                        [("Back to the question box", url_for("pages.index"))])
    q = _arg("q", max_q)
    lang = _arg("lang", 5, LANGS)
    kb_version = _kb_version()
    answer = None
    if q and q.strip():
        answer = answer_view(get_kb().ask(q.strip(), lang=lang, kb_version=kb_version))
    return render_template("index.html", q=q or "", answer=answer, examples=EXAMPLES, max_q=max_q,
                           kb_version=kb_version)


# -- the audit page -----------------------------------------------------------------------------------

@dataclass
class _Segment:
    start: int
    end: int
    covering: list[str] = field(default_factory=list)   # claim ids, shortest span first
    primary: str | None = None
    extra: list[str] = field(default_factory=list)       # claims needing their own nested mark here


def mark_source_text(text: str, claims: list[dict[str, Any]], status_of: dict[str, str],
                     href_of=lambda cid: "#f-" + cid) -> Markup:
    """The source text as HTML with every claim marked at its code-point span.

    The text is split at every span boundary; each piece covered by claims becomes one link holding a
    ``<mark data-claim-id data-claims data-status>``. Every claim is the ``data-claim-id`` of at least
    one mark: claims are given pieces shortest first, and a claim left without a piece of its own (its
    span equals another's) gets a mark nested inside. Each claim's start carries an anchor with its id.
    """
    n = len(text)
    spans: dict[str, tuple[int, int]] = {}
    for c in claims:
        span = c.get("span") or []
        if len(span) != 2:
            continue
        a, b = max(0, min(int(span[0]), n)), max(0, min(int(span[1]), n))
        if b <= a:
            continue
        spans[c["id"]] = (a, b)
    cuts = sorted({0, n, *(x for ab in spans.values() for x in ab)})
    order = sorted(spans, key=lambda cid: (spans[cid][1] - spans[cid][0], spans[cid][0], cid))
    rank = {cid: i for i, cid in enumerate(order)}
    segs = [_Segment(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
    starts = [s.start for s in segs]
    for cid in order:
        a, b = spans[cid]
        i = bisect.bisect_left(starts, a)
        while i < len(segs) and segs[i].end <= b:
            segs[i].covering.append(cid)
            i += 1
    # give every claim a piece of its own, the claims with the fewest pieces first
    by_claim: dict[str, list[_Segment]] = {cid: [] for cid in spans}
    for s in segs:
        for cid in s.covering:
            by_claim[cid].append(s)
    for cid in sorted(spans, key=lambda c: (len(by_claim[c]), rank[c])):
        free = [s for s in by_claim[cid] if s.primary is None]
        if free:
            min(free, key=lambda s: (len(s.covering), s.start)).primary = cid
        elif by_claim[cid]:
            by_claim[cid][0].extra.append(cid)
    anchors_at: dict[int, list[str]] = {}
    for cid in order:
        anchors_at.setdefault(spans[cid][0], []).append(cid)
    for v in anchors_at.values():
        v.sort()

    def mark_open(cid: str, covering: list[str], end: int) -> Markup:
        st = status_of.get(cid, "unverifiable")
        info = status_info(st)
        others = len(covering) - 1
        title = f"{cid}: {info.label}" + (f" (+{others} overlapping claim{'s' if others > 1 else ''})" if others > 0 else "")
        # the piece where the claim ends shows its status symbol (CSS ::after), so status is not colour alone
        last = Markup(' class="end" data-symbol="{0}"').format(info.symbol) if spans[cid][1] == end else Markup("")
        return Markup('<mark data-claim-id="{cid}" data-claims="{claims}" data-status="{st}"{last} title="{title}">').format(
            cid=cid, claims=" ".join(covering), st=st, title=title, last=last)

    out: list[Markup] = []
    for s in segs:
        for cid in anchors_at.get(s.start, []):
            out.append(Markup('<span class="anchor" id="{0}"></span>').format(cid))
        piece = escape(text[s.start:s.end])
        if not s.covering:
            out.append(piece)
            continue
        primary = s.primary or s.covering[0]
        covering = [primary] + [c for c in s.covering if c != primary]
        html = Markup('<a class="claim" href="{href}">').format(href=href_of(primary)) + mark_open(primary, covering, s.end)
        for cid in s.extra:
            html += mark_open(cid, [cid] + [c for c in covering if c != cid], s.end)
        html += piece + Markup("</mark>") * (1 + len(s.extra)) + Markup("</a>")
        out.append(html)
    return Markup("").join(out)


def _evidence_view(eid: str, shown_sources: set[str], claims_by_id: dict[str, dict[str, Any]]) -> dict[str, Any]:
    cid = claim_id(eid)
    if cid in claims_by_id:
        c = claims_by_id[cid]
        href = ("#" + cid) if c["source"] in shown_sources else audit_href(c["source"], cid)
        return {"kind": "claim", "id": cid, "source": c["source"], "quote": c.get("quote"),
                "gloss_en": c.get("gloss_en"), "href": href}
    if eid.startswith("R-"):
        try:
            doc = get_kb().explain(eid, "json", "en")
            node = doc.get("tree") or {}
            lab = node.get("label") or {}
            return {"kind": "reference", "id": eid, "label": lab.get("en") if isinstance(lab, dict) else lab,
                    "citation": node.get("citation"), "confidence": node.get("confidence"),
                    "href": conclusion_href(eid)}
        except GpukbError:
            pass
    return {"kind": "derived", "id": eid}


@bp.get("/audit")
def audit():
    kb = get_kb()
    kb_version = _kb_version()
    all_sources = kb.sources()["sources"]
    source_ids = [s["id"] for s in all_sources]
    source = _arg("source", 40, source_ids,
                  [(f"{s['id']}: {s.get('title_en') or s.get('title')}", url_for("pages.audit", source=s["id"]))
                   for s in all_sources])
    status = _arg("status", 60, [s.id for s in STATUSES],
                  [(s.label, url_for("pages.audit", status=s.id)) for s in STATUSES])
    claims = kb.claims(kb_version=kb_version)["claims"]
    audit_doc = kb.audit(kb_version=kb_version)
    findings = {f["id"]: f for f in audit_doc["findings"]}
    claims_by_id = {c["id"]: c for c in claims}
    status_of = {c["id"]: (c.get("audit") or {}).get("status", "unverifiable") for c in claims}
    shown_sources = [s for s in all_sources if not source or s["id"] == source]
    shown_ids = {s["id"] for s in shown_sources}
    evidence_cache: dict[str, dict[str, Any]] = {}

    def evidence(eid: str) -> dict[str, Any]:
        if eid not in evidence_cache:
            evidence_cache[eid] = _evidence_view(eid, shown_ids, claims_by_id)
        return evidence_cache[eid]

    docs = []
    totals: Counter[str] = Counter()
    for s in shown_sources:
        in_source = [c for c in claims if c["source"] == s["id"]]
        counts = Counter(status_of[c["id"]] for c in in_source)
        totals.update(counts)
        marked = [c for c in in_source if not status or status_of[c["id"]] == status]
        marked.sort(key=lambda c: (tuple(c.get("span") or (0, 0)), c["id"]))
        text = kb.source(s["id"])["text"]
        items = []
        for c in marked:
            fids = (c.get("audit") or {}).get("findings") or []
            fs, scope = [], []
            for fid in fids:
                f = findings.get(fid)
                if f is None:
                    continue
                others = [x for x in f.get("claims") or [] if x.get("id") != c["id"]]
                other_ids = {x.get("id") for x in others}
                item = {"id": fid, "kind": f.get("kind"), "rank": f.get("rank") or 0,
                        "explanation": f.get("explanation") or {}, "others": others,
                        "differences": f.get("scope_differences") or [],
                        # another claim that is already named under "With" is not repeated as evidence
                        "evidence": [evidence(e) for e in f.get("evidence") or [] if claim_id(e) not in other_ids]}
                (scope if f.get("kind") == "scope_dependent" else fs).append(item)
            fs.sort(key=lambda f: -f["rank"])
            scope.sort(key=lambda f: -f["rank"])
            if scope and (status_of[c["id"]] == "scope_dependent" or not fs):
                fs.append(scope.pop(0))      # the decisive scope finding in full, the rest in one short list
            items.append({"claim": c, "status": status_of[c["id"]], "findings": fs, "scope": scope})
        docs.append({"source": s, "html": mark_source_text(text, marked, status_of), "counts": counts,
                     "n_claims": len(in_source), "n_marked": len(marked), "entries": items,
                     "lang": lang_attr("zh" if (s.get("language") or "").startswith("zh") else "en")})
    # a claim of another source a finding mentions: link there, or here when the source is shown
    for d in docs:
        for it in d["entries"]:
            for f in it["findings"] + it["scope"]:
                for o in f["others"]:
                    o["href"] = ("#" + o["id"]) if o.get("source") in shown_ids else audit_href(o.get("source"), o["id"])
    return render_template("audit.html", docs=docs, sources=all_sources, source=source, status=status,
                           totals=totals, n_claims=sum(d["n_claims"] for d in docs),
                           n_marked=sum(d["n_marked"] for d in docs), kb_version=kb_version,
                           kb_release=audit_doc.get("kb_version"))


# -- one conclusion -----------------------------------------------------------------------------------

@bp.get("/conclusions/")
def conclusions_index():
    raise PageError(404, "Name a conclusion: /conclusions/<id>.",
                    ["Conclusion ids come from answers (Q-…), audit findings (A-…) or facts (R-…, S001-C001)."])


@bp.get("/conclusions/<path:cid>")
def conclusion(cid: str):
    if len(cid) > MAX_ID_CHARS or _CONTROL.search(cid) or not cid.strip():
        raise PageError(404, "There is no conclusion with that id.",
                        ["Conclusion ids come from answers (Q-…), audit findings (A-…) or facts (R-…, S001-C001)."])
    lang = _arg("lang", 5, LANGS) or "en"
    try:
        doc = get_kb().explain(cid, "json", lang)
    except GpukbError as exc:
        if exc.status in (400, 404):
            shown = cid if len(cid) <= 80 else cid[:80] + "…"
            raise PageError(404, f"There is no conclusion {shown!r}.",
                            [exc.message] + [str(i) for i in exc.issues][:3]) from None
        raise
    tree = tree_view(doc.get("tree"), lang, open_depth=3)
    summary = doc.get("summary") or {}
    sources = []
    for s in doc.get("sources") or []:
        if s.get("type") == "claim":
            sources.append({**s, "href": audit_href(s.get("source"), s.get("id") or "")})
        else:
            sources.append(s)
    finding = doc.get("finding")
    if finding:
        finding = {**finding, "claims": [{**c, "href": audit_href(c.get("source"), c["id"])}
                                         for c in finding.get("claims") or []]}
    fact_findings = doc.get("findings") or []
    return render_template(
        "conclusion.html", doc=doc, cid=doc.get("conclusion_id") or cid, lang=lang, tree=tree,
        summary=summary, citations=citations_view(summary.get("citations") or []) if isinstance(summary, dict) else [],
        sources=sources, finding=finding, fact_findings=fact_findings,
        why_not=doc.get("why_not"), contradictions=doc.get("contradictions") or [],
        exports=[(fmt, export_href(doc.get("conclusion_id") or cid, fmt), label) for fmt, label in
                 (("prov", "W3C PROV-JSON"), ("dot", "Graphviz DOT"), ("text", "plain text"), ("json", "JSON"))],
        lang_links=[(lg, url_for("pages.conclusion", cid=cid, lang=lg)) for lg in LANGS])
