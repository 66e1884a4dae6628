"""The web pages (server/pages.py) with Flask's test client: every page rendered on the server, readable
without JavaScript, escaped, in UTF-8, with friendly 400/404 pages for bad input."""
from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from gpukb.server import pages
from tests._html import Page, walk_text

T4_Q = "why not T4 for 13B full fine-tune"
T4_Q_ZH = "为什么 T4 不能全量微调 13B 模型"

# -- fixtures --------------------------------------------------------------------------------------------

def get_page(web, url: str, status: int = 200) -> tuple[Page, str]:
    r = web.get(url)
    body = r.get_data(as_text=True)
    assert r.status_code == status, (url, r.status_code, body[:1000])
    assert r.mimetype == "text/html", r.mimetype
    assert r.mimetype_params.get("charset", "").lower() == "utf-8"
    assert '<meta charset="utf-8">' in body
    return Page(body), body


def ask_url(q: str) -> str:
    return "/?q=" + quote(q)


@pytest.fixture(scope="module")
def t4_page(web):
    return get_page(web, ask_url(T4_Q))


@pytest.fixture(scope="module")
def audit_page(web):
    return get_page(web, "/audit")


# -- the question page -------------------------------------------------------------------------------------

def test_register_is_idempotent(site):
    pages.register(site)
    assert "pages" in site.blueprints


def test_home_has_a_labelled_question_box_and_examples(web):
    page, body = get_page(web, "/")
    html = page.find_all("html")[0]
    assert html.get("lang") == "en"
    form = page.find_all("form", role="search")[0]
    assert form.get("method") == "get"
    box = page.by_id("q")
    assert box is not None and box.tag == "input" and box.get("name") == "q"
    assert box.get("maxlength") == "500"
    assert page.find_all("label", for_="q"), "the question box has a label"
    links = {a.text: a.get("href") for a in page.find_all("a") if (a.get("href") or "").startswith("/?q=")}
    for q in (T4_Q, T4_Q_ZH, "can GN7 fine-tune Llama-2-7B with QLoRA?", "Does the T4 support BF16?"):
        assert q in links, q
    zh = [a for a in page.find_all("a") if a.text == T4_Q_ZH][0]
    assert zh.get("lang") == "zh-Hans"
    assert page.find_all("article") == []   # no answer without a question


def test_empty_question_shows_the_home_page(web):
    page, _ = get_page(web, "/?q=")
    assert page.find_all("article") == []
    page, _ = get_page(web, "/?q=%20%20")
    assert page.find_all("article") == []


def test_t4_answer_is_rendered_on_the_server(t4_page, kb):
    page, body = t4_page
    api = kb.ask(T4_Q).to_json()
    verdict = page.find_all("p", class_="verdict")[0]
    assert verdict.get("data-verdict") == "does_not_fit" == api["verdict"]
    assert "It does not fit." in verdict.text
    assert "✗" in verdict.text           # a symbol and words, not colour alone
    assert page.by_id("q").get("value") == T4_Q
    # no JavaScript is needed: the answer is in the HTML itself, and scripts are only deferred extras
    for s in page.find_all("script"):
        assert s.get("defer") is not None and s.get("src", "").startswith("/assets/")


def test_memory_bars_are_proportional_and_labelled(t4_page, kb):
    page, _ = t4_page
    mem = kb.ask(T4_Q).to_json()["memory"]
    rows = {tr.get("data-component"): tr for tr in page.find_all("tr") if tr.get("data-component")}
    for key in ("weights", "gradients", "optimizer", "activations", "overhead", "total", "capacity"):
        assert key in rows, key
    assert "Optimizer states" in rows["optimizer"].text and "156.0 GB" in rows["optimizer"].text
    assert "Weights" in rows["weights"].text and "26.0 GB" in rows["weights"].text
    bars = {}
    for key, tr in rows.items():
        bar = [e for e in page.all if e.tag == "svg" and "bar" in e.classes() and tr in e.ancestors()][0]
        rect = bar.children[0]
        assert rect.tag == "rect" and bar.get("style") is None and rect.get("style") is None, "no inline styles"
        width = float(re.fullmatch(r"([\d.]+)%", rect.get("width")).group(1))
        gb_ = float(bar.get("data-gb"))
        if key in mem:
            assert gb_ == pytest.approx(mem[key], abs=1e-3)
        bars[key] = (gb_, width)
    scale = 100 / max(g for g, _ in bars.values())
    for key, (gb_, width) in bars.items():
        assert width == pytest.approx(gb_ * scale, abs=0.006), f"{key}: width proportional to GB"
    total = [e for e in page.all if e.tag == "svg" and "bar-total" in e.classes()][0]
    assert total.children[0].get("width") == "100.00%"
    table = page.find_all("table", class_="bars")[0]
    assert page.find_all("caption") and table.children[0].tag == "caption"


def test_recommendations_and_cited_summary(t4_page, kb):
    page, body = t4_page
    api = kb.ask(T4_Q).to_json()
    lists = page.find_all("ol", class_="recs")
    items = [c for recs in lists for c in recs.children if c.tag == "li"]
    # the changes that fit, then at most three that do not, folded (issue #35)
    no_fit = [r for r in api["recommendations"] if not r.get("fits")]
    assert len(items) == len(api["recommendations"]) - len(no_fit) + min(3, len(no_fit))
    folded = page.find_all("details", class_="recs-no-fit")
    assert folded and all(i.get("class") == "rec-no" for i in [c for c in lists[-1].children if c.tag == "li"])
    assert not any("still does not fit" in i.text for i in [c for c in lists[0].children if c.tag == "li"])
    # the cheapest change that fits one T4 comes first (two software/method changes together), then more GPUs
    assert " and switch to QLoRA" in items[0].text and "✓ fits" in items[0].text
    more = next(i for i in items if "Use more GPUs" in i.text)
    n = next(r for r in api["recommendations"] if r["action"] == "more_gpus")["change"]["gpus"]
    assert f"{n} GPUs" in more.text and "✓ fits" in more.text
    assert any("still does not fit" in i.text for i in items)
    summary = page.find_all("p", class_="summary-main")[0]
    assert summary.get("lang") == "en"
    assert "does not fit" in summary.text
    cites = [a for a in page.all if a.tag == "a" and "cite" in (a.get("class") or "").split()]
    assert cites and all(page.by_id(a.get("href")[1:]) is not None for a in cites), "citation marks link to the list"
    zh = [p for p in page.find_all("p", lang="zh-Hans") if "放不下" in p.text]
    assert zh, "the Chinese summary is there too"


def test_proof_tree_is_collapsible_and_ends_in_linked_quotes(t4_page, kb):
    page, body = t4_page
    tree = page.find_all("ul", class_="tree")[0]
    details = [e for e in page.all if e.tag == "details" and tree in e.ancestors()]
    assert len(details) >= 5
    assert all(d.children and d.children[0].tag == "summary" for d in details)
    assert details[0].get("open") is not None
    # the T4's 16 GB rests on a product brief that the sources also state: their quotes are leaves
    quotes = [b for b in page.find_all("blockquote") if tree in b.ancestors()]
    assert quotes
    texts = {b.text.strip("“”") for b in quotes}
    assert "T4 仅 16GB 显存" in texts
    for b in quotes:
        assert b.get("lang") == "zh-Hans"
        link = b.children[0]
        assert link.tag == "a"
        assert re.fullmatch(r"/audit\?source=S\d{3}#S\d{3}-C\d{3}", link.get("href")), link.get("href")
    assert '<a href="/audit?source=S001#S001-C033">' in body
    # and every quote of the answer's sources is in the tree
    claim_sources = [s for s in kb.ask(T4_Q).to_json()["sources"] if s["type"] == "claim"]
    for s in claim_sources:
        assert s["quote"] in texts, s["id"]
    # the rule that decided is named
    assert "sizing.verdict.does_not_fit@1" in tree.text


def test_answer_links_to_its_conclusion_page(t4_page, kb):
    page, _ = t4_page
    cid = kb.ask(T4_Q).to_json()["conclusion_id"]
    hrefs = {a.get("href") for a in page.find_all("a")}
    assert f"/conclusions/{cid}" in hrefs
    assert f"/v1/conclusions/{cid}/explain?format=prov" in hrefs


def test_chinese_question(web):
    page, body = get_page(web, ask_url(T4_Q_ZH))
    assert page.by_id("q").get("value") == T4_Q_ZH
    assert T4_Q_ZH in body                          # UTF-8, not escaped into entities
    h2 = page.by_id("answer-h")
    assert h2.children[0].get("lang") == "zh-Hans"
    main = page.find_all("p", class_="summary-main")[0]
    assert main.get("lang") == "zh-Hans" and "放不下" in main.text
    assert page.find_all("p", class_="verdict")[0].get("data-verdict") == "does_not_fit"
    labels = [e for e in page.find_all("span", class_="nlabel") if "放不下" in e.text]
    assert labels and labels[0].get("lang") == "zh-Hans", "tree labels follow the question's language"


def test_fact_questions(web):
    page, body = get_page(web, ask_url("Does the T4 support BF16?"))
    assert page.find_all("p", class_="fact-answer")[0].text.strip() == "false"
    assert "pytorch PR 148322" in body
    page, body = get_page(web, ask_url("GN7 用的是什么 GPU？"))
    assert page.find_all("p", class_="fact-answer")[0].text.strip() == "T4"
    badges = [b.text for b in page.find_all("span", class_="status-badge")]
    assert any("Incorrect" in b for b in badges), "the articles' A100 claim is shown as incorrect, in words"
    assert 'href="/claims/S000-C002"' in body


def test_sizing_that_fits(web):
    page, _ = get_page(web, ask_url("can GN7 fine-tune Llama-2-7B with QLoRA?"))
    verdict = page.find_all("p", class_="verdict")[0]
    assert verdict.get("data-verdict") == "fits" and "It fits." in verdict.text


def test_unknown_question_says_what_is_missing(web):
    page, body = get_page(web, ask_url("hello there"))
    assert "could not answer" in body
    assert page.find_all("p", class_="unknown")
    assert any((a.get("href") or "").startswith("/?q=") for a in page.find_all("a"))


def test_html_is_escaped(web):
    evil = '<script>alert("x")</script> T4 13B "full" & <b>'
    page, body = get_page(web, ask_url(evil))
    assert "<script>alert" not in body
    assert "&lt;script&gt;alert" in body
    assert page.by_id("q").get("value") == evil
    assert not [s for s in page.find_all("script") if not s.get("src")]


# -- the audit page -----------------------------------------------------------------------------------------

def test_audit_marks_every_claim(audit_page, kb):
    page, _ = audit_page
    claims = kb.claims().to_json()["claims"]
    status = {c["id"]: c["audit"]["status"] for c in claims}
    marks = [m for m in page.find_all("mark", data_claim_id=True)
             if any("doc" in a.classes() for a in m.ancestors())]
    marked = {m.get("data-claim-id") for m in marks}
    assert marked == set(status), (set(status) - marked, marked - set(status))
    for m in marks:
        cid = m.get("data-claim-id")
        assert m.get("data-status") == status[cid]
        assert cid in m.get("data-claims").split()
        assert m.get("title").startswith(cid + ": ")
        link = next(a for a in m.ancestors() if a.tag == "a")
        primary = link.children[0].get("data-claim-id")
        assert link.get("href") == "/claims/" + primary, "no-JS: each mark links to its claim's page"
    for cid in status:
        assert page.by_id(cid) is not None, f"anchor for {cid} in the text"
        entry = page.by_id("f-" + cid)
        assert entry is not None and entry.tag == "li"
        assert status_label(status[cid]) in entry.text


def status_label(sid: str) -> str:
    return pages.STATUS_BY_ID[sid].label


def test_audit_shows_each_source_rendered_from_its_markdown(audit_page, kb):
    """The text content of each rendered source is the source text itself (syntax hidden, not dropped),
    and its tables are tables with marks inside their cells."""
    page, _ = audit_page
    docs = page.find_all("div", class_="doc")
    assert [d.get("data-source") for d in docs] == [s["id"] for s in kb.sources().to_json()["sources"]]
    for d in docs:
        assert d.get("lang") == "zh-Hans" and d.get("data-view") == "rendered"
        assert d.text == kb.source(d.get("data-source")).text
    s001 = docs[1]
    tables = [e for e in page.all if e.tag == "table" and s001 in e.ancestors()]
    assert len(tables) == 4
    cells_with_marks = [c for c in page.all if c.tag in ("td", "th") and tables[0] in c.ancestors()
                        and any(x.tag == "mark" for x in page.all if c in x.ancestors())]
    assert len(cells_with_marks) >= 4
    assert not [e for e in page.all if "md-raw" in e.classes()], "no block fell back to raw text"


def test_audit_source_view_shows_the_raw_text_with_the_same_marks(web, kb):
    page, _ = get_page(web, "/audit?source=S001&view=source")
    doc = page.find_all("div", class_="doc")[0]
    assert doc.get("data-view") == "source" and "doc-source" in doc.classes()
    assert doc.text == kb.source("S001").text
    assert not [t for t in page.all if t.tag == "table" and doc in t.ancestors()]
    marked = {m.get("data-claim-id") for m in page.all if m.tag == "mark" and doc in m.ancestors()}
    assert marked == {c["id"] for c in kb.claims().to_json()["claims"] if c["source"] == "S001"}
    toggle = [a for a in page.find_all("a") if a.get("data-view-link") == "rendered"]
    assert toggle and toggle[0].get("href").startswith("/audit?source=S001")


@pytest.mark.parametrize("view", ["rendered", "source"])
def test_audit_mark_spans_match_the_claims(web, kb, view):
    """Each claim's pieces (the links whose mark lists it) start at its span and spell out its quote."""
    page, _ = get_page(web, f"/audit?view={view}")
    claims = {c["id"]: c for c in kb.claims().to_json()["claims"]}
    seen = set()
    for d in page.find_all("div", class_="doc"):
        pieces: dict[str, list[tuple[int, str]]] = {}

        def visit(el, offset):
            if el.tag == "a" and "claim" in el.classes():
                for cid in el.children[0].get("data-claims").split():
                    pieces.setdefault(cid, []).append((offset, el.text))

        walk_text(d, 0, visit)
        for cid, ps in pieces.items():
            start, _end = claims[cid]["span"]
            assert ps[0][0] == start, cid
            assert "".join(t for _, t in ps) == claims[cid]["quote"], cid
        seen |= set(pieces)
    assert seen == set(claims)


def test_audit_legend_counts_per_source_and_status(audit_page, kb):
    page, body = audit_page
    summary = kb.audit().to_json()["summary"]
    for st in pages.STATUSES:
        count = page.find_all("span", data_status_count=st.id)[0]
        assert int(count.text.replace(",", "")) == sum(s["by_status"].get(st.id, 0) for s in summary.values()), st.id
        row = [r for r in page.find_all("tr") if r.get("data-status-row") == st.id][0]
        sample = [m for m in page.find_all("mark", class_="sample") if m.get("data-status") == st.id][0]
        assert st.label in sample.text and st.symbol in sample.text
        for sid, s in summary.items():
            cell = [c for c in row.children if c.tag == "td" and c.get("data-source") == sid][0]
            assert int(cell.text) == s["by_status"].get(st.id, 0), (st.id, sid)
            link = [a for a in page.all if a.tag == "a" and cell in a.ancestors()]
            if s["by_status"].get(st.id):
                assert link[0].get("href") == f"/audit?source={sid}&status={st.id}"
    n = sum(s["claims"] for s in summary.values())
    assert f"{n} claims in 3 sources" in page.find_all("p", class_="counts")[0].text


def test_audit_findings_show_evidence(audit_page, kb):
    page, _ = audit_page
    entry = page.by_id("f-S000-C002")
    assert "Incorrect" in entry.text and "contradicts the reference" in entry.text
    assert "Evidence:" in entry.text and "Tencent Cloud intl docs" in entry.text
    hrefs = {a.get("href") for a in page.all if a.tag == "a" and entry in a.ancestors()}
    assert "/conclusions/A-S000-C002-incorrect-R-GN7-gpu" in hrefs
    assert "#S000-C002" in hrefs and "/claims/S000-C002" in hrefs


def test_audit_filters(web, kb):
    claims = kb.claims().to_json()["claims"]
    page, body = get_page(web, "/audit?source=S001&status=incorrect")
    want = {c["id"] for c in claims if c["source"] == "S001" and c["audit"]["status"] == "incorrect"}
    assert want
    marks = {m.get("data-claim-id") for m in page.find_all("mark", data_claim_id=True)
             if "sample" not in (m.get("class") or "")}
    assert marks == want
    assert [d.get("data-source") for d in page.find_all("div", class_="doc")] == ["S001"]
    assert page.by_id("f-source").children[0].tag == "option"
    selected = [o for o in page.find_all("option") if o.get("selected") is not None]
    assert {(o.parent.get("name"), o.get("value")) for o in selected} == {("source", "S001"), ("status", "incorrect"),
                                                                          ("kind", ""), ("without", "")}
    # a status no claim of S002 has: the page says so in words
    from gpukb.engine.core.terms import FINDING_KINDS
    empty = next(k for k in FINDING_KINDS if not any(c["source"] == "S002" and c["audit"]["status"] == k for c in claims))
    page, body = get_page(web, f"/audit?source=S002&status={empty}")
    assert not [m for m in page.find_all("mark", data_claim_id=True) if "sample" not in (m.get("class") or "")]
    assert "No claim of S002 matches these filters." in body
    page, _ = get_page(web, "/audit?source=S002&status=misattributed")
    want = {c["id"] for c in claims if c["source"] == "S002" and c["audit"]["status"] == "misattributed"}
    marks = {m.get("data-claim-id") for m in page.find_all("mark", data_claim_id=True)
             if "sample" not in (m.get("class") or "")}
    assert marks == want and len(want) >= 8
    page, _ = get_page(web, "/audit?source=S000")
    marks = {m.get("data-claim-id") for m in page.find_all("mark", data_claim_id=True)
             if "sample" not in (m.get("class") or "")}
    assert marks == {c["id"] for c in claims if c["source"] == "S000"}


def test_audit_filter_form_is_labelled(audit_page):
    page, _ = audit_page
    for sel in page.find_all("select"):
        assert page.find_all("label", for_=sel.get("id")), sel.get("id")


def test_mark_source_text_handles_overlaps():
    text = "0123456789abcdef"
    claims = [
        {"id": "A", "span": [0, 6]},
        {"id": "B", "span": [3, 10]},
        {"id": "C", "span": [3, 10]},          # the same span as B
        {"id": "D", "span": [4, 5]},           # inside A, B and C
        {"id": "E", "span": [4, 5]},           # the same one-character span as D
        {"id": "F", "span": [12, 16]},
        {"id": "G", "span": [15, 99]},         # past the end: clipped
        {"id": "H", "span": [7, 7]},           # empty: not marked
    ]
    status = {c["id"]: "supported" for c in claims}
    html = str(pages.mark_source_text(text, claims, status))
    page = Page("<div>" + html + "</div>")
    ids = {m.get("data-claim-id") for m in page.find_all("mark")}
    assert ids == set("ABCDEFG")
    assert page.find_all("div")[0].text == text
    for cid in "ABCDEFG":
        assert page.by_id(cid) is not None
    # the piece "4" lies inside A, B, C, D and E
    four = [m for m in page.find_all("mark") if m.text == "4"]
    listed = set()
    for m in four:
        listed |= set(m.get("data-claims").split())
    assert listed == set("ABCDE")


def test_mark_source_text_escapes():
    html = str(pages.mark_source_text('<b>"x"</b> & y', [{"id": "S9-C1", "span": [0, 3]}], {"S9-C1": "incorrect"}))
    assert "<b>" not in html and "&lt;b&gt;" in html and "&amp; y" in html
    assert 'data-status="incorrect"' in html and 'class="end" data-symbol="✗"' in html


# -- the conclusion page -------------------------------------------------------------------------------------

def test_conclusion_page(web, kb):
    cid = kb.ask(T4_Q).to_json()["conclusion_id"]
    page, body = get_page(web, f"/conclusions/{cid}")
    assert cid in body
    assert page.find_all("ul", class_="tree") and page.find_all("details")
    assert page.by_id("whynot-h") is not None, "it does not fit, so the page says why not"
    assert "p.total_gb &lt;= c.gb" in body
    assert page.by_id("sources-h") is not None
    assert "NVIDIA T4 product brief" in body
    hrefs = {a.get("href") for a in page.find_all("a")}
    prov = f"/v1/conclusions/{cid}/explain?format=prov"
    dot = f"/v1/conclusions/{cid}/explain?format=dot"
    assert prov in hrefs and dot in hrefs
    r = web.get(prov)
    assert r.status_code == 200 and r.mimetype == "application/json"
    r = web.get(dot)
    assert r.status_code == 200 and r.get_data(as_text=True).lstrip().startswith(("digraph", "strict digraph"))
    page_zh, body_zh = get_page(web, f"/conclusions/{cid}?lang=zh")
    assert [e for e in page_zh.find_all("span", class_="nlabel") if e.get("lang") == "zh-Hans"]


def test_finding_and_fact_conclusion_pages(web):
    page, body = get_page(web, "/conclusions/A-S000-C002-incorrect-R-GN7-gpu")
    assert "Incorrect" in page.find_all("span", class_="status-badge")[0].text
    assert 'href="/audit?source=S000#S000-C002"' in body
    assert "/v1/conclusions/A-S000-C002-incorrect-R-GN7-gpu/explain?format=prov" in body
    page, body = get_page(web, "/conclusions/R-T4-bf16_native@1")
    assert "Reference fact" in body and "pytorch PR 148322" in body
    page, body = get_page(web, "/conclusions/S001-C002")
    assert "GN7-T4 实例（基于 NVIDIA T4 GPU）" in body
    assert page.by_id("ff-h") is not None


# -- errors -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("url, status, words", [
    ("/?q=" + "x" * 501, 400, "at most 500"),
    ("/?q=%01hello", 400, "control characters"),
    ("/?q=T4&lang=fr", 400, "Unknown lang"),
    ("/?q=T4&kb_version=1999.01", 400, "1999.01"),
    ("/audit?source=S999", 400, "Unknown source"),
    ("/audit?status=wrongish", 400, "Unknown status"),
    ("/audit?source=" + "S" * 300, 400, "at most"),
    ("/conclusions/nope", 404, "no conclusion"),
    ("/conclusions/A-S000-C999-incorrect-R-nothing", 404, "no conclusion"),
    ("/conclusions/Q-garbage", 404, "no conclusion"),
    ("/conclusions/" + "Q" * 2500, 404, "no conclusion"),
])
def test_bad_input_renders_a_friendly_error_page(web, url, status, words):
    page, body = get_page(web, url, status)
    assert f"Error {status}" in body
    assert words.lower() in body.lower()
    assert page.find_all("p", role="alert")
    assert {"/", "/audit"} <= {a.get("href") for a in page.find_all("a")}


def test_error_pages_link_to_what_is_allowed(web):
    page, _ = get_page(web, "/audit?source=S999", 400)
    hrefs = {a.get("href") for a in page.find_all("a")}
    assert {"/audit?source=S000", "/audit?source=S001", "/audit?source=S002"} <= hrefs
    page, _ = get_page(web, "/audit?status=nope", 400)
    assert "/audit?status=incorrect" in {a.get("href") for a in page.find_all("a")}


def test_error_message_is_escaped(web):
    _, body = get_page(web, "/audit?source=%3Cscript%3Ex", 400)
    assert "<script>x" not in body and "&lt;script&gt;x" in body


# -- assets and accessibility ------------------------------------------------------------------------------

def test_static_assets(web):
    for name, kind in (("style.css", "text/css"), ("audit.js", "text/javascript"), ("tree.js", "text/javascript")):
        r = web.get(f"/assets/{name}")
        assert r.status_code == 200 and r.mimetype in (kind, "application/javascript"), (name, r.mimetype)
        r.close()
    css = web.get("/assets/style.css").get_data(as_text=True)
    assert ":focus-visible" in css, "keyboard focus is visible"
    assert ":lang(zh-Hans)" in css


def test_pages_have_skip_link_and_landmarks(web):
    for url in ("/", "/audit?source=S001", ask_url(T4_Q)):
        page, _ = get_page(web, url)
        assert page.find_all("main", id="main")
        assert page.find_all("a", href="#main")
        assert page.find_all("nav")
        assert len(page.find_all("h1")) == 1


# -- filters by finding kind, and one claim's page ----------------------------------------------------------

def test_audit_filter_by_finding_kind(web, kb):
    claims = kb.claims().to_json()["claims"]
    kinds = {f["id"]: f["kind"] for f in kb.audit().to_json()["findings"]}
    want = {c["id"] for c in claims if "contradiction" in {kinds.get(f) for f in c["audit"]["findings"]}}
    assert want
    page, _ = get_page(web, "/audit?kind=contradiction")
    marked = {m.get("data-claim-id") for m in page.find_all("mark", data_claim_id=True)
              if any("doc" in a.classes() for a in m.ancestors())}
    assert marked == want
    assert {c["audit"]["status"] for c in claims if c["id"] in want} != {"contradiction"}, \
        "the kind filter finds claims with such a finding whatever their final status"
    page, _ = get_page(web, "/audit?kind=contradiction&status=contradiction")
    marked = {m.get("data-claim-id") for m in page.find_all("mark", data_claim_id=True)
              if any("doc" in a.classes() for a in m.ancestors())}
    assert marked == {c["id"] for c in claims if c["id"] in want and c["audit"]["status"] == "contradiction"}


def test_claim_page(web, kb):
    c = kb.claim("S000-C002").to_json()
    page, body = get_page(web, "/claims/S000-C002")
    assert len(page.find_all("h1")) == 1 and "S000-C002" in page.find_all("h1")[0].text
    quote = page.by_id("quote")
    assert c["quote"] in quote.text
    badge = page.find_all("span", class_="status-badge")[0]
    assert "Incorrect" in badge.text and "✗" in badge.text
    # the context is the rendered block around the claim, with the claim marked at its span
    ctx = page.find_all("div", class_="doc-context")[0]
    text = kb.source("S000").text
    assert ctx.text in text and c["quote"] in ctx.text
    pieces = [m for m in page.all if m.tag == "mark" and ctx in m.ancestors()]
    assert "".join(m.text for m in pieces) == c["quote"]
    # findings with explanations and links to their proofs, evidence linked
    hrefs = {a.get("href") for a in page.find_all("a")}
    for fid in c["audit"]["findings"]:
        assert f"/conclusions/{fid}" in hrefs
    assert "contradicts the reference" in body and "Tencent Cloud intl docs" in body
    assert "/audit?source=S000#S000-C002" in hrefs and "/conclusions/S000-C002" in hrefs
    assert "GPU model" in body, "the attribute's label comes from the vocabulary"


def test_claim_page_of_a_table_claim_shows_the_table(web, kb):
    claims = [c for c in kb.claims(source="S001").to_json()["claims"] if "|" in c["quote"] and "\n" in c["quote"]]
    assert claims
    cid = claims[0]["id"]
    page, _ = get_page(web, f"/claims/{cid}")
    ctx = page.find_all("div", class_="doc-context")[0]
    tables = [t for t in page.all if t.tag == "table" and ctx in t.ancestors()]
    assert tables
    marks = [m for m in page.all if m.tag == "mark" and tables[0] in m.ancestors()]
    assert {next(a.tag for a in m.ancestors() if a.tag in ("th", "td")) for m in marks} == {"th", "td"}


@pytest.mark.parametrize("url", ["/claims/S000-C999", "/claims/nope", "/claims/" + "C" * 2500, "/claims/%01x"])
def test_unknown_claim_is_a_404_page(web, url):
    page, body = get_page(web, url, 404)
    assert "There is no claim" in body and "/audit" in {a.get("href") for a in page.find_all("a")}
