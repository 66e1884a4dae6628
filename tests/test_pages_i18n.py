"""The pages in English and Chinese (server/i18n.py, server/i18n.yaml): every UI string exists in both
languages, the language follows ?lang= and then Accept-Language, a Chinese page has no English UI word
left, no template hard-codes English, and the pages work under a strict Content-Security-Policy."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest

from gpukb.server import i18n, pages
from tests._html import Page, latin_ui_words

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "server" / "templates"
T4_Q = "why not T4 for 13B full fine-tune"


def html_of(web, url: str, status: int = 200, **headers) -> tuple[Page, str]:
    r = web.get(url, headers=headers)
    body = r.get_data(as_text=True)
    assert r.status_code == status, (url, r.status_code, body[:500])
    return Page(body), body


def zh_pages(kb) -> list[str]:
    q = kb.ask(T4_Q).to_json()["conclusion_id"]
    return ["/", "/?q=" + quote(T4_Q), "/?q=" + quote("Does the T4 support BF16?"), "/?q=hello",
            "/?q=" + quote("为什么 T4 不能全量微调 13B 模型"), "/audit", "/audit?source=S001&view=source",
            "/audit?kind=contradiction", "/claims/S000-C002", "/claims/S001-C017", f"/conclusions/{q}",
            "/conclusions/A-S000-C002-incorrect-R-GN7-gpu", "/conclusions/R-T4-bf16_native@1", "/conclusions/S001-C002"]


# -- the catalogue --------------------------------------------------------------------------------------------

def test_every_entry_has_both_languages():
    cat = i18n.catalog()
    assert len(cat.ui) > 150
    for key, entry in cat.ui.items():
        assert set(entry) == {"en", "zh"}, key
        for lang, text in entry.items():
            forms = text.values() if isinstance(text, dict) else [text]
            assert all(isinstance(f, str) and f.strip() for f in forms), (key, lang)
            if lang == "zh":
                assert not isinstance(text, dict), f"{key}: Chinese has no plural forms"
    ids = [s.id for s in cat.statuses]
    from gpukb.engine.audit.result import KINDS
    assert set(ids) == set(KINDS), "a name, symbol and description for every audit status"
    assert len({s.symbol for s in cat.statuses}) == len(ids), "each status has its own symbol"


def _keys_used() -> set[str]:
    used = set()
    pattern = re.compile(r"""\b(?:t|tr|tm|trm)\(\s*['"]([a-z_][\w.\-]*)['"]""")
    for path in list(TEMPLATES.glob("*.html")) + list((ROOT / "server").glob("*.py")):
        used |= set(pattern.findall(path.read_text(encoding="utf-8")))
    return used


def test_every_key_the_pages_use_exists():
    used = _keys_used()
    assert len(used) > 100
    used = {k for k in used if not k.endswith((".", "_"))}       # prefixes of keys built at run time
    missing = used - set(i18n.catalog().ui)
    assert not missing, sorted(missing)


class _TemplateText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "code"):
            self.skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder", "alt") and value:
                self.words += re.findall(r"[A-Za-z]{2,}", value)

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.words += re.findall(r"[A-Za-z]{2,}", data)


def test_templates_hard_code_no_english():
    """Every word a reader sees comes from server/i18n.yaml or the data, never from a template."""
    allowed = {"gpukb", "GB", "English", "W3C", "PROV", "JSON", "Graphviz", "DOT"}
    for path in TEMPLATES.glob("*.html"):
        src = path.read_text(encoding="utf-8")
        src = re.sub(r"\{% block body_class %\}.*?\{% endblock %\}", " ", src)
        src = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", " ", src, flags=re.S)
        parser = _TemplateText()
        parser.feed(src)
        stray = [w for w in parser.words if w not in allowed]
        assert not stray, f"{path.name}: {stray[:10]}"


# -- choosing the language ----------------------------------------------------------------------------------

@pytest.mark.parametrize("arg, accept, want", [
    (None, [], "en"), ("zh", [], "zh"), ("en", [("zh-CN", 1.0)], "en"), (None, [("zh-CN", 1.0), ("en", 0.5)], "zh"),
    (None, [("fr", 1.0), ("zh-TW", 0.8)], "zh"), (None, [("fr", 1.0), ("de", 0.8)], "en"), ("xx", [("zh", 1)], "zh"),
])
def test_negotiate(arg, accept, want):
    assert i18n.negotiate(arg, accept) == want


def test_accept_language_picks_chinese_and_lang_overrides_it(web):
    page, _ = html_of(web, "/audit?source=S000", **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert page.find_all("html")[0].get("lang") == "zh-Hans"
    assert page.find_all("h1")[0].text == "来源审核"
    page, _ = html_of(web, "/audit?source=S000&lang=en", **{"Accept-Language": "zh-CN,zh;q=0.9"})
    assert page.find_all("html")[0].get("lang") == "en"
    assert page.find_all("h1")[0].text == "Audit of the sources"
    page, _ = html_of(web, "/audit?source=S000", **{"Accept-Language": "en-GB,en;q=0.9"})
    assert page.find_all("html")[0].get("lang") == "en"


def test_pages_vary_by_accept_language_unless_lang_is_given(web):
    assert "Accept-Language" in web.get("/audit?source=S000").headers.get("Vary", "")
    assert "Accept-Language" not in web.get("/audit?source=S000&lang=zh").headers.get("Vary", "")


def test_a_chosen_language_stays_chosen_across_links(web):
    page, _ = html_of(web, "/audit?source=S000&lang=zh")
    nav = {a.text: a.get("href") for a in page.find_all("a") if a.parent.tag == "li" and
           any(x.tag == "nav" for x in a.ancestors())}
    assert nav["审核来源"] == "/audit?lang=zh" and nav["提问"] == "/?lang=zh"
    assert nav["English"].endswith("lang=en") and "source=S000" in nav["English"]
    hrefs = {a.get("href") for a in page.find_all("a", class_="claim")}
    assert hrefs and all(h.startswith("/claims/S000-C") and h.endswith("?lang=zh") for h in hrefs)
    form = page.find_all("form")[0]
    assert [i.get("value") for i in page.find_all("input", name="lang") if form in i.ancestors()] == ["zh"]


def test_status_names_symbols_and_numbers_in_chinese(web, kb):
    page, _ = html_of(web, "/audit?lang=zh")
    for st in pages.STATUSES:
        sample = [m for m in page.find_all("mark", class_="sample") if m.get("data-status") == st.id][0]
        assert st.label_zh in sample.text and st.symbol in sample.text and st.label not in sample.text
    n = len(kb.claims().claims)
    assert f"3 篇来源中共 {n} 条说法" in page.find_all("p", class_="counts")[0].text
    marks = [m for m in page.find_all("mark") if m.get("data-claim-id") == "S000-C002"]
    assert marks[0].get("title") == "S000-C002：错误"


def test_unknown_language_is_a_friendly_400(web):
    page, body = html_of(web, "/audit?lang=fr", 400)
    assert "Unknown language" in body and "en, zh" in body


def test_chinese_pages_have_no_english_interface_word_left(web, kb):
    for url in zh_pages(kb):
        sep = "&" if "?" in url else "?"
        page, _ = html_of(web, url + sep + "lang=zh")
        assert page.find_all("html")[0].get("lang") == "zh-Hans"
        words = latin_ui_words(page)
        assert not words, (url, words[:8])


def test_english_pages_speak_english(web, kb):
    for url in zh_pages(kb)[:6]:
        page, _ = html_of(web, url)
        assert page.find_all("html")[0].get("lang") == "en"
        assert page.find_all("a", href="#main")[0].text == "Skip to content"


def test_error_pages_in_chinese(web):
    page, body = html_of(web, "/audit?status=wrongish&lang=zh", 400)
    assert "错误 400" in body and "未知的状态" in body
    assert not latin_ui_words(page)
    page, body = html_of(web, "/claims/S999-C999?lang=zh", 404)
    assert "没有说法" in body and not latin_ui_words(page)


# -- a strict Content-Security-Policy -----------------------------------------------------------------------

def test_no_inline_script_or_style_anywhere(web, kb):
    for url in zh_pages(kb) + ["/audit?status=nope"]:
        r = web.get(url)
        page = Page(r.get_data(as_text=True))
        assert not page.find_all("style")
        for el in page.all:
            assert "style" not in el.attrs, (url, el)
            assert not [a for a in el.attrs if a.startswith("on")], (url, el)
            if el.tag == "script":
                assert el.get("src", "").startswith("/assets/") and not el.text.strip()
            for attr in ("href", "src"):
                assert not (el.get(attr) or "").lower().startswith("javascript:")


# -- colours -----------------------------------------------------------------------------------------------

def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_status_colours_keep_contrast_and_differ_by_more_than_colour():
    css = (ROOT / "server" / "static" / "style.css").read_text(encoding="utf-8")
    rules = dict(re.findall(r'\[data-status="(\w+)"\] \{ (.*?) \}', css))
    assert set(rules) == {s.id for s in pages.STATUSES}
    styles = set()
    for sid, body in rules.items():
        bg = re.search(r"background: (#[0-9a-f]{6})", body).group(1)
        width, style, line = re.search(r"border-bottom: (\d)px (\w+) (#[0-9a-f]{6})", body).groups()
        assert _contrast("#1b1b1f", bg) >= 7, f"{sid}: text on its tint"
        assert _contrast(line, "#ffffff") >= 4.5, f"{sid}: underline against the page"
        assert _contrast(line, bg) >= 3, f"{sid}: underline against its tint"
        styles.add((width, style))
    assert len(styles) >= 6, "underline width and style tell statuses apart without colour"
