"""The short text an MCP tool result carries beside its structured answer: verdict, then citations.

A chatbot reads this text (many clients show a model only the text content) and cites from it, so
every rendering ends with numbered citations: a quote with its source id and span (``[start, end)``
in code points of the source text, as in the API), or a reference fact with its citation. Where the
answer's own summary already numbers its citations (``[1][2]`` marks in a sizing summary, ``[1: ...]``
in a fact answer), the numbers here are the same, so the marks in the summary point into this list.

Everything shown is read from the API's answer object; nothing is recomputed.
"""
from __future__ import annotations

from typing import Any, Iterable

from gpukb.engine.explain.trees import leaves

MAX_FINDINGS = 10   # findings of an audit shown in the text (the structured answer has them all)
MAX_QUOTE = 160     # characters of a quote shown


class Citations:
    """Numbered citations, each listed once; ``add`` returns the number of an item."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self._keys: dict[tuple, int] = {}

    def add(self, item: dict[str, Any]) -> int:
        key = (item.get("type"), item.get("claim") or item.get("fact") or item.get("citation"))
        if key not in self._keys:
            self.items.append(item)
            self._keys[key] = len(self.items)
        return self._keys[key]

    def quote(self, claim: str | None, source: str | None, quote: str | None, span: Any = None,
              status: str | None = None) -> int:
        return self.add({"type": "quote", "claim": claim, "source": source, "quote": quote, "span": span,
                         "status": status})

    def reference(self, fact: str | None, citation: str | None, confidence: str | None = None) -> int:
        return self.add({"type": "reference", "fact": fact, "citation": citation, "confidence": confidence})

    def lines(self) -> list[str]:
        if not self.items:
            return []
        out = ["", "Citations:"]
        for n, c in enumerate(self.items, 1):
            if c["type"] == "quote":
                span = c.get("span")
                where = c.get("source") or "?"
                if isinstance(span, (list, tuple)) and len(span) == 2:
                    where += f" [{span[0]}, {span[1]})"
                status = f" (audit: {c['status']})" if c.get("status") else ""
                out.append(f"[{n}] quote {c.get('claim')}, {where}: “{_short(c.get('quote'))}”{status}")
            else:
                conf = f", {c['confidence']} confidence" if c.get("confidence") else ""
                out.append(f"[{n}] reference {c.get('fact')}: {c.get('citation') or 'no citation'}{conf}")
        return out


def _short(text: Any, width: int = MAX_QUOTE) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= width else s[: width - 1] + "…"


def _pick(value: Any, lang: str) -> str:
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("en") or "")
    return "" if value is None else str(value)


def _claim_spans(items: Iterable[dict[str, Any]]) -> dict[str, Any]:
    return {c["id"]: c.get("span") for c in items if isinstance(c, dict) and c.get("id") and c.get("span")}


# -- one renderer per answer kind -------------------------------------------------------------------------

def sizing(a: dict[str, Any], lang: str = "en") -> str:
    """A sizing answer (``query``, ``ask`` of kind sizing): the verdict, the cited summary, the sources."""
    cites = Citations()
    summary = a.get("summary") or {}
    spans = _claim_spans(s for s in a.get("sources") or [] if s.get("type") == "claim")
    for c in summary.get("citations") or []:          # keep the summary's own numbering
        if c.get("type") == "quote":
            cites.quote(c.get("claim"), c.get("source"), c.get("quote"), spans.get(c.get("claim")))
        else:
            cites.reference(c.get("fact"), c.get("citation"))
    for s in a.get("sources") or []:                   # then the other quoted sentences it rests on
        if s.get("type") == "claim":
            cites.quote(s.get("id"), s.get("source"), s.get("quote"), s.get("span"))
    lines = [f"Verdict: {a.get('verdict')}", _pick(summary, lang)]
    if a.get("note"):
        lines.append(_pick(a["note"], lang))
    if a.get("contradictions"):
        lines.append(f"{len(a['contradictions'])} source claim(s) disagree with this answer or its premises "
                     "(listed under `contradictions`).")
    if a.get("conclusion_id"):
        lines.append(f"Conclusion id: {a['conclusion_id']} (the explain tool gives its proof tree).")
    return "\n".join(x for x in lines if x) + "\n" + "\n".join(cites.lines())


def fact(a: dict[str, Any], lang: str = "en") -> str:
    """A fact answer: the reference value (citation [1]), then the claims for and against it."""
    cites = Citations()
    for s in a.get("support") or []:
        if s.get("type") == "reference":
            cites.reference(s.get("id"), s.get("citation"), s.get("confidence"))
    for s in a.get("support") or []:
        if s.get("type") == "claim":
            cites.quote(s.get("id"), s.get("source"), s.get("quote"), s.get("span"), s.get("status"))
    for s in a.get("contradictions") or []:
        cites.quote(s.get("id"), s.get("source"), s.get("quote"), s.get("span"), s.get("status"))
    f = a.get("fact") or {}
    head = f"Fact: {f.get('subject')} {f.get('attribute')} = {f.get('text', f.get('value'))}"
    body = a.get("answer") or _pick(a.get("summary"), lang)
    return "\n".join(x for x in (head, body) if x) + "\n" + "\n".join(cites.lines())


def fact_comparison(a: dict[str, Any], lang: str = "en") -> str:
    """A fact comparison: the answer (its [n] marks number the references below), then each value's fact id."""
    cites = Citations()
    for s in a.get("support") or []:
        cites.reference(s.get("id"), s.get("citation"), s.get("confidence"))
    lines = [str(a.get("answer") or _pick(a.get("summary"), lang))]
    lines += [f"- {f.get('subject')}: {f.get('text', f.get('value'))} (fact: {f.get('id')})"
              for c in a.get("compared") or [] for f in c.get("facts") or []]
    return "\n".join(lines) + "\n" + "\n".join(cites.lines())


def unknown(a: dict[str, Any], lang: str = "en") -> str:
    """A question the parser could not answer: what is missing and example questions."""
    lines = [_pick(a.get("answer"), lang) or "The question was not understood."]
    if a.get("missing"):
        lines.append("Missing: " + ", ".join(map(str, a["missing"])))
    if a.get("examples"):
        lines.append("Questions it answers, for example: " + " | ".join(map(str, a["examples"][:4])))
    return "\n".join(lines)


def answer(a: dict[str, Any], lang: str = "en") -> str:
    """An ``ask`` answer of any kind."""
    lang = a.get("lang") or lang
    kind = a.get("kind")
    if kind == "sizing":
        return sizing(a, lang)
    if kind == "fact":
        return fact(a, lang)
    if kind == "fact_comparison":
        return fact_comparison(a, lang)
    if kind in ("comparison", "instance_choice", "gpu_choice", "inverse"):
        return choice(a, lang)
    return unknown(a, lang)


def choice(a: dict[str, Any], lang: str = "en") -> str:
    """A comparison, an instance choice or an inverse answer: the answer, then each candidate with its proof id."""
    lines = [str(a.get("answer") or "")]
    rows = a.get("options") or a.get("tried") or [x for x in (a.get("fits"), a.get("first_not_fitting")) if x]
    for o in rows:
        what = o.get("gpu") or o.get("instance") or o.get("family") or o.get("value")
        lines.append(f"- {what}: {o.get('verdict')} (needs {o.get('need_gb')} GB of {o.get('usable_gb_per_gpu')} GB per GPU;"
                     f" proof: {o.get('conclusion_id')})")
    return "\n".join(lines)


def audit(a: dict[str, Any], lang: str = "en") -> str:
    """An audit: counts by kind, then the first findings with the quotes they are about."""
    findings = a.get("findings") or []
    counts = {k: n for k, n in (a.get("counts") or {}).items() if n}
    lines = [f"{len(findings)} finding(s) in release {a.get('kb_version')}"
             + (": " + ", ".join(f"{k} {n}" for k, n in counts.items()) if counts else "")]
    if "statuses" in a:
        by_status: dict[str, int] = {}
        for s in a["statuses"]:
            by_status[s.get("status")] = by_status.get(s.get("status"), 0) + 1
        lines.append(f"{len(a['statuses'])} claim(s) by audit status: "
                     + ", ".join(f"{k} {n}" for k, n in sorted(by_status.items(), key=lambda x: -x[1])))
    cites = Citations()
    for f in findings[:MAX_FINDINGS]:
        marks = "".join(f"[{cites.quote(c.get('id'), c.get('source'), c.get('quote'), c.get('span'))}]"
                        for c in f.get("claims") or [])
        lines.append(f"- [{f.get('kind')}] {f.get('id')}: {_short(_pick(f.get('explanation'), lang), 400)} {marks}")
    if len(findings) > MAX_FINDINGS:
        lines.append(f"... {len(findings) - MAX_FINDINGS} more finding(s) in the structured result; "
                     "narrow with source, kind or status.")
    return "\n".join(lines) + "\n" + "\n".join(cites.lines())


def claim(c: dict[str, Any], lang: str = "en") -> str:
    """One claim: its quote with source and span, its audit status and the findings about it."""
    cites = Citations()
    status = (c.get("audit") or {}).get("status") if isinstance(c.get("audit"), dict) else c.get("audit")
    n = cites.quote(c.get("id"), c.get("source"), c.get("quote"), c.get("span"), status)
    lines = [f"Claim {c.get('id')}@{c.get('version')} [{n}]: {c.get('gloss_en') or ''}".rstrip(),
             f"Audit status: {status or 'not audited'}"]
    for f in c.get("findings") or []:
        lines.append(f"- [{f.get('kind')}] {_short(_pick(f.get('explanation'), lang), 400)}")
    return "\n".join(lines) + "\n" + "\n".join(cites.lines())


def explanation(doc: Any, lang: str = "en") -> str:
    """An ``explain`` result: a text or DOT export as it is, else the conclusion and its cited leaves."""
    if isinstance(doc, str):
        return doc
    if not isinstance(doc, dict):
        return str(doc)
    if "tree" not in doc:                     # PROV-JSON: the structured result is the document
        return "W3C PROV-JSON document of the proof (in the structured result)."
    if doc.get("kind") == "sizing":
        return sizing({**doc, "verdict": (doc.get("conclusion") or {}).get("verdict")}, lang)
    cites = Citations()
    for leaf in leaves(doc["tree"]):
        if leaf.get("tier") == "claim":
            cites.quote(leaf.get("fact"), leaf.get("source"), leaf.get("quote"), leaf.get("span"))
        elif leaf.get("tier") == "reference":
            cites.reference(leaf.get("fact"), leaf.get("citation"), leaf.get("confidence"))
            for c in leaf.get("stated_by") or []:
                cites.quote(c.get("id"), c.get("source"), c.get("quote"), c.get("span"))
    lines = [f"Conclusion {doc.get('conclusion_id')} ({doc.get('kind')}, release {doc.get('kb_version')})"]
    if doc.get("kind") == "finding":
        f = doc.get("finding") or {}
        lines.append(f"[{f.get('kind')}] {_pick(doc.get('summary'), lang)}")
    else:
        label = _pick((doc["tree"] or {}).get("label"), lang)
        status = (doc.get("status") or {}).get("status") if isinstance(doc.get("status"), dict) else None
        lines.append(label + (f" (audit: {status})" if status else ""))
    return "\n".join(lines) + "\n" + "\n".join(cites.lines())


def check(a: dict[str, Any], lang: str = "en") -> str:
    """A ``check`` of a draft text: each checkable statement with its status and correction."""
    lines = [_pick(a.get("summary"), lang) or f"{len(a.get('claims') or [])} checkable statement(s)"]
    for n, c in enumerate(a.get("claims") or [], 1):
        span = c.get("span") or ["?", "?"]
        line = f"[{n}] text [{span[0]}, {span[1]}): “{_short(c.get('quote'))}” → {c.get('status')}"
        if c.get("correction"):
            line += f"; correction: {_pick(c['correction'], lang)}"
        lines.append(line)
    if a.get("not_understood"):
        lines.append(f"{len(a['not_understood'])} passage(s) not understood (listed under `not_understood`).")
    return "\n".join(lines)
