"""The pages a newcomer meets first (issue #35): a styled /check, why-not in sentences, English pages in
English, short conclusion ids and scenario labels, distinguishable audit statuses, what the audit counts,
at most three non-fitting changes (folded), Swagger UI at /docs without a CDN; JSON logs for serve."""
from __future__ import annotations

import colorsys
import json
import logging
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from tests._html import Page

ROOT = Path(__file__).resolve().parents[1]
CSS = (ROOT / "server" / "static" / "style.css").read_text(encoding="utf-8")
T4_Q = "why not T4 for 13B full fine-tune"


def page_of(web, url: str, status: int = 200, method: str = "get", **kw) -> tuple[Page, str]:
    r = getattr(web, method)(url, **kw)
    body = r.get_data(as_text=True)
    assert r.status_code == status, (url, r.status_code, body[:300])
    return Page(body), body


@pytest.fixture(scope="module")
def t4(web):
    return page_of(web, "/?q=" + quote(T4_Q) + "&lang=en")


# -- /check ---------------------------------------------------------------------------------------------------

def test_check_page_is_styled_by_the_stylesheet(web):
    page, body = page_of(web, "/check", method="post", data={"text": "A T4 has 16 GB of memory and supports BF16."})
    classes = {c for e in page.all for c in e.classes()}
    for cls in ("check-form", "check-result", "check-claims", "check-claim", "correction"):
        if cls in classes or cls == "check-form":
            assert re.search(rf"\.{cls}\b[^{{]*\{{", CSS), f".{cls} has no style"
    assert "style=" not in body and "<style" not in body and not re.search(r"<script(?![^>]*\bsrc=)", body)


def test_screenshots_cover_every_page_in_both_languages_and_on_a_phone():
    import importlib.util
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    shots = mod.shots("http://x", "Q-1")
    urls = [u for _, u, _, _ in shots]
    for path in ("/check", "/docs", "/audit", "/claims/", "/conclusions/", "/gpus", "/?q="):
        hits = [u for u in urls if path in u]
        assert any("lang=zh" in u for u in hits), f"{path}: no Chinese screenshot"
        assert any("lang=zh" not in u for u in hits), f"{path}: no English screenshot"
        assert any(o.get("width") == 390 for _, u, _, o in shots if path in u), f"{path}: no phone screenshot"
    assert len({n for n, _, _, _ in shots}) == len(shots)


# -- the answer page ----------------------------------------------------------------------------------------

def test_why_not_says_a_sentence_and_folds_the_rule_internals(t4):
    page, _ = t4
    sentence = page.find_all("p", class_="why-not-sentence")[0]
    assert "per-GPU total" in sentence.text and "<=" not in sentence.text and "total_gb" not in sentence.text
    internals = page.find_all("details", class_="rule-internals")[0]
    assert "p.total_gb <= c.gb" in internals.text and internals.get("open") is None
    for code in [e for e in page.all if e.tag == "code" and "total_gb" in e.text]:
        assert any(a.tag == "details" for a in code.ancestors()), "rule internals only inside the folded details"


def test_an_english_page_says_no_chinese_outside_what_is_marked_chinese(t4):
    page, _ = t4
    for el in page.all:
        own = "".join(x for x in el.content if isinstance(x, str))
        if re.search(r"[\u4e00-\u9fff]", own):
            assert any(a.get("lang", "").startswith("zh") for a in [el, *el.ancestors()]) or \
                any(a.get("translate") == "no" for a in [el, *el.ancestors()]), (el, own[:60])


def test_at_most_three_changes_that_do_not_fit_folded(t4, kb):
    page, _ = t4
    recs = kb.ask(T4_Q).to_json()["recommendations"]
    no_fit = [r for r in recs if not r.get("fits")]
    assert no_fit, "the T4 answer has changes that do not fit"
    folded = page.find_all("details", class_="recs-no-fit")
    assert len(folded) == 1 and folded[0].get("open") is None
    shown = [e for e in page.all if e.tag == "li" and "rec-no" in e.classes()]
    assert 0 < len(shown) <= 3 and all(any(a is folded[0] for a in e.ancestors()) for e in shown)


# -- a conclusion page --------------------------------------------------------------------------------------

def test_a_conclusion_shows_a_short_id_and_labels(web, kb):
    cid = kb.ask(T4_Q).to_json()["conclusion_id"]
    assert len(cid) > 100
    page, body = page_of(web, "/conclusions/" + cid)
    short = page.find_all("code", class_="cid-short")[0]
    assert short.text.rstrip("…") == cid[:12] and short.get("title") == cid
    assert page.find_all("button", class_="copy-id")[0].get("data-copy") == cid
    full = page.find_all("details", class_="cid-full")[0]
    assert cid in full.text
    dl = page.find_all("dl", class_="scenario")[0]
    assert "gradient checkpointing" in dl.text and "False" not in dl.text and "True" not in dl.text
    assert not re.search(r"\b\w+_\w+\b", "".join(e.text for e in dl.children if e.tag == "dt")), "raw keys as labels"
    assert "copy.js\" defer" in body
    zh, _ = page_of(web, "/conclusions/" + cid + "?lang=zh")
    dl = zh.find_all("dl", class_="scenario")[0]
    assert "梯度检查点" in dl.text and "关闭" in dl.text


# -- the audit ------------------------------------------------------------------------------------------------

def _hue(hexcolour: str) -> float:
    r, g, b = (int(hexcolour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


def test_the_formerly_orange_statuses_have_distinct_hues():
    rules = dict(re.findall(r'\[data-status="(\w+)"\] \{ (.*?) \}', CSS))
    hues = {}
    for sid in ("incorrect", "inconsistent_with_derivation", "contradiction"):
        bg = re.search(r"background: (#[0-9a-f]{6})", rules[sid]).group(1)
        line = re.search(r"border-bottom: \dpx \w+ (#[0-9a-f]{6})", rules[sid]).group(1)
        hues[sid] = (_hue(bg), _hue(line))
    for a in hues:
        for b in hues:
            if a < b:
                for i in (0, 1):
                    d = abs(hues[a][i] - hues[b][i])
                    assert min(d, 360 - d) >= 30, (a, b, hues)


def test_the_legend_says_it_counts_claims_and_the_cli_says_findings(web, cli):
    page, _ = page_of(web, "/audit")
    note = page.find_all("p", class_="counts-what")[0]
    assert "counts claims" in note.text and "counts findings" in note.text
    zh, _ = page_of(web, "/audit?lang=zh")
    assert "说法" in zh.find_all("p", class_="counts-what")[0].text
    code, out, _ = cli("audit", "--source", "S001")
    assert code == 0 and "counted: findings" in out and "counts claims" in out


def test_status_labels_are_text_next_to_the_colour(web):
    page, _ = page_of(web, "/audit")
    for m in page.find_all("mark", class_="sample"):
        assert re.search(r"\w{3,}", m.text), m


# -- /docs ----------------------------------------------------------------------------------------------------

def test_docs_serve_swagger_ui_from_this_server(web):
    r = web.get("/docs")
    assert r.status_code == 200
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    body = r.get_data(as_text=True)
    page = Page(body)
    srcs = [e.get("src") for e in page.all if e.tag == "script"] + [e.get("href") for e in page.all if e.tag == "link"]
    assert all(s.startswith("/") for s in srcs), srcs                   # nothing from a CDN
    assert "/docs/assets/swagger-ui-bundle.js" in srcs and "/docs/assets/swagger-ui.css" in srcs
    assert "<script>" not in body and "style=" not in body
    js = web.get("/docs/assets/swagger-ui-bundle.js")
    assert js.status_code == 200 and len(js.data) > 100_000 and "javascript" in js.mimetype
    assert web.get("/docs/assets/swagger-ui.css").mimetype == "text/css"
    assert web.get("/docs/assets/index.html").status_code == 404      # only the two files the page uses
    assert web.get("/docs/assets/..%2fswagger-ui.css").status_code == 404


def test_every_page_links_to_the_docs(web):
    for url in ("/", "/audit", "/check"):
        page, _ = page_of(web, url)
        assert [a for a in page.all if a.tag == "a" and a.get("href", "").startswith("/docs")], url


def test_swagger_ui_is_a_dependency():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'"swagger-ui-py[>=<]', text)


# -- logs of gpukb serve ----------------------------------------------------------------------------------

def test_json_log_lines(monkeypatch):
    from gpukb.server.logsafe import SafeFormatter
    monkeypatch.setenv("GPUKB_LOG_FORMAT", "json")
    fmt = SafeFormatter("%(message)s")
    rec = logging.LogRecord("gpukb.http", logging.INFO, __file__, 1, "GET %s", ("/x\nfake line",), None)
    rec.request_id = "abc"
    line = fmt.format(rec)
    assert "\n" not in line
    d = json.loads(line)
    assert d["level"] == "INFO" and d["logger"] == "gpukb.http" and d["message"] == "GET /x\nfake line"
    assert d["request_id"] == "abc" and d["time"].endswith("+00:00")
    monkeypatch.delenv("GPUKB_LOG_FORMAT")
    assert not SafeFormatter("%(message)s").format(rec).startswith("{")


def test_log_level_from_the_environment(monkeypatch, cli):
    import gpukb.server.cli as cli_module
    monkeypatch.setenv("LOG_LEVEL", "warning")
    assert cli_module._log_level() == logging.WARNING
    monkeypatch.setenv("LOG_LEVEL", "DEBUG")
    assert cli_module._log_level() == logging.DEBUG
    monkeypatch.setenv("LOG_LEVEL", "chatty")
    code, _, err = cli("serve", "--port", "1")
    assert code == 2 and "LOG_LEVEL" in err and "debug" in err


def test_readme_has_mcp_config_for_each_client_and_the_log_settings():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    chat = text[text.index("## Use from a chatbot"):text.index("## How it works")]
    for client, where in (("Claude Desktop", "claude_desktop_config.json"), ("Cursor", ".cursor/mcp.json"),
                          ("VS Code", ".vscode/mcp.json")):
        assert client in chat and where in chat, client
    assert '"servers"' in chat                    # VS Code's key
    assert "LOG_LEVEL" in text and "GPUKB_LOG_FORMAT=json" in text


def test_the_check_page_opens_with_what_is_wrong(client):
    """The claims found wrong come first, one line each with the correction, linked to their entry."""
    for lang, title in (("en", "What is wrong in this text"), ("zh", "文中的错误")):
        r = client.post(f"/check?lang={lang}", data={"text": "The T4 has 32 GB of memory. The A10 has 24 GB.",
                                                     "text_lang": ""})
        body = r.get_data(as_text=True)
        assert r.status_code == 200 and title in body
        assert body.index(title) < body.index('class="check-claims"')
        assert 'href="#f-X' in body and "16 GB" in body[body.index(title):body.index('class="check-claims"')]


def test_a_yes_no_value_of_a_chinese_text_is_shown_in_the_pages_language(web):
    for lang, shown, other in (("en", "= yes", "= 是"), ("zh", "= 是", "= yes")):
        body = web.post(f"/check?lang={lang}", data={"text": "T4 显卡支持 BF16。"}).get_data(as_text=True)
        assert shown in body and other not in body, lang


def test_a_conclusion_page_gives_its_summary_in_the_pages_language_only(web, kb):
    cid = kb.ask(T4_Q).to_json()["conclusion_id"]
    zh = web.get(f"/conclusions/{cid}?lang=zh").get_data(as_text=True)
    en = web.get(f"/conclusions/{cid}?lang=en").get_data(as_text=True)
    assert "does not fit: it needs about" not in zh and "放不下" in zh
    assert "does not fit: it needs about" in en and "做全量微调放不下" not in en
