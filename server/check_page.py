"""The /check page: paste a text, see each checkable claim marked in it as /audit marks a source, with
its status, the finding that decided it and a correction. A plain form (POST), readable without
JavaScript; the marks and findings link to the proofs like every other conclusion."""
from __future__ import annotations

from flask import current_app, render_template, request

from gpukb.engine.text.check import MAX_CHECK_CHARS
from gpukb.engine.core.errors import GpukbError

from .audit_pages import mark_source_text
from .engine_gate import gate_of, within_budget
from .pages import LANGS, PageError, arg, bp, conclusion_href, get_kb, tr, url


@bp.route("/check", methods=["GET", "POST"])
def check():
    arg("lang", 5, LANGS)
    text = ""
    result = None
    if request.method == "POST":
        text = request.form.get("text", "")
        text_lang = request.form.get("text_lang") or None
        if text_lang not in (None, "en", "zh"):
            raise PageError(400, tr("check.bad_lang"), [], [(tr("site.check"), url("pages.check"))])
        if text.strip():
            try:
                with gate_of(current_app.extensions, current_app.config).turn():
                    result = within_budget(lambda: get_kb().check(text, lang=text_lang)).to_json()
            except GpukbError as exc:
                if exc.status in (400, 413, 422):
                    raise PageError(exc.status, exc.message, [], [(tr("site.check"), url("pages.check"))]) from None
                raise
    html = None
    entries = []
    if result is not None:
        status_of = {c["id"]: c["status"] for c in result["claims"]}
        html = mark_source_text(text, [{"id": c["id"], "span": c["span"]} for c in result["claims"]], status_of,
                                lambda cid: "#f-" + cid)
        for c in result["claims"]:
            top = next((f for f in c["findings"] if f["kind"] == c["status"]), None)
            entries.append({"claim": c, "top": top, "href": conclusion_href(top["id"]) if top else None})
    return render_template("check.html", text=text, result=result, html=html, entries=entries,
                           max_chars=MAX_CHECK_CHARS)
