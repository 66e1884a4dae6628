"""The web pages in a real headless Chromium, against a real server on a free port.

Skipped (never failed) when no Chromium is installed or the `playwright` package is missing. Point
GPUKB_CHROMIUM at a Chromium binary to use another one. Playwright's own browser download is not
used: the system Chromium is launched through `executable_path`.
"""
from __future__ import annotations

import os
import shutil
import threading
from urllib.parse import quote

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

T4_Q = "why not T4 for 13B full fine-tune"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 15_000


def find_chromium() -> str | None:
    given = os.environ.get("GPUKB_CHROMIUM")
    if given:
        return given if os.path.exists(given) else None
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


@pytest.fixture(scope="module")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        pytest.skip("no Chromium found (looked for chromium, chromium-browser and /usr/bin/chromium; "
                    "install it, e.g. `apt-get install chromium`, or set GPUKB_CHROMIUM)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the playwright Python package is not installed (pip install playwright; "
                    "no `playwright install` is needed: the system Chromium is used)")
    return path


@pytest.fixture(scope="module")
def live_server(chromium_path):
    """The real app (API and pages) served by werkzeug in a thread, on a free port."""
    from werkzeug.serving import make_server

    from gpukb.server import create_app, pages
    app = create_app()
    pages.register(app)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, name="gpukb-live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()
        thread.join(timeout=10)
        srv.server_close()


@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    yield p
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_type_a_question_and_see_the_verdict(page, live_server):
    page.goto(live_server + "/")
    box = page.get_by_label("Your question")
    box.click()
    page.keyboard.type(T4_Q)
    page.keyboard.press("Enter")
    verdict = page.locator("p.verdict")
    verdict.wait_for()
    assert "It does not fit." in verdict.inner_text()
    assert verdict.get_attribute("data-verdict") == "does_not_fit"
    assert "q=" in page.url
    assert page.locator("#q").input_value() == T4_Q
    # the bars are drawn: the total is the widest, the optimizer states wider than the weights
    widths = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('tr[data-component]')]
        .map(tr => [tr.dataset.component, tr.querySelector('.bar rect').getBoundingClientRect().width]))""")
    assert widths["total"] == max(widths.values())
    assert widths["optimizer"] > widths["weights"] > widths["activations"] > 0
    # the proof tree opens and closes; "Expand all" (JavaScript) opens every step
    page.get_by_role("button", name="Expand all").click()
    assert page.evaluate("() => [...document.querySelectorAll('ul.tree details')].every(d => d.open)")
    quote_link = page.locator("ul.tree blockquote a", has_text="T4 仅 16GB 显存").first
    assert quote_link.is_visible()
    assert quote_link.get_attribute("href") == "/audit?source=S001#S001-C033"


def test_chinese_question_by_link(page, live_server):
    page.goto(live_server + "/")
    page.get_by_role("link", name="为什么 T4 不能全量微调 13B 模型").click()
    page.locator("p.verdict").wait_for()
    main = page.locator("p.summary-main")
    assert main.get_attribute("lang") == "zh-Hans"
    assert "放不下" in main.inner_text()


VISIBLE_MARKS_JS = """() => {
  const seen = {};
  for (const m of document.querySelectorAll('.doc mark[data-claims]')) {
    const r = m.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && m.checkVisibility())
      for (const id of m.dataset.claims.split(' ')) seen[id] = (seen[id] || 0) + 1;
  }
  return {visible: Object.keys(seen),
          own: [...new Set([...document.querySelectorAll('.doc mark[data-claim-id]')].map(m => m.dataset.claimId))]};
}"""


@pytest.mark.parametrize("view", ["rendered", "source"])
def test_every_claim_is_marked_and_visible(page, live_server, view):
    claims = page.request.get(live_server + "/v1/claims").json()["claims"]
    page.goto(live_server + "/audit?view=" + view)
    got = page.evaluate(VISIBLE_MARKS_JS)
    ids = {c["id"] for c in claims}
    assert len(ids) > 300
    assert set(got["own"]) == ids, "every claim is the data-claim-id of a mark"
    assert set(got["visible"]) == ids, ids - set(got["visible"])
    assert page.locator(".doc .md-syntax").first.is_hidden() if view == "rendered" else True


def test_a_table_of_the_article_is_a_table_with_marks_in_its_cells(page, live_server):
    page.goto(live_server + "/audit?source=S001")
    tables = page.locator(".doc table")
    assert tables.count() == 4
    first = tables.first
    assert first.locator("th").first.inner_text() == "项目"
    assert "|" not in first.inner_text() and "---" not in first.inner_text(), "no Markdown syntax is shown"
    cells = page.evaluate("""() => [...document.querySelectorAll('.doc table td, .doc table th')]
        .filter(c => [...c.querySelectorAll('mark')].some(m => m.checkVisibility())).length""")
    assert cells >= 20
    mark = first.locator("td mark[data-claim-id]").filter(visible=True).first
    assert mark.is_visible()


def test_the_source_toggle_shows_the_raw_text_with_the_same_marks(page, live_server):
    page.goto(live_server + "/audit?source=S001")
    page.locator("a[data-view-link=source]").click()
    page.wait_for_url("**view=source**")
    doc = page.locator(".doc")
    assert doc.get_attribute("data-view") == "source"
    assert "|---|---|" in doc.inner_text()
    assert page.locator(".doc table").count() == 0
    assert page.evaluate("() => document.querySelectorAll('.doc mark[data-claim-id]').length") > 150


def test_clicking_a_claim_opens_its_findings(page, live_server):
    page.goto(live_server + "/audit?source=S000")
    panel = page.locator("#claim-panel")
    assert panel.is_hidden()
    mark = page.locator('.doc mark[data-claim-id="S000-C002"]').filter(visible=True).first
    mark.click()
    panel.wait_for(state="visible")
    text = panel.inner_text()
    assert "S000-C002" in text
    assert "Incorrect" in text and "contradicts the reference" in text
    assert "Evidence:" in text and "Tencent Cloud intl docs" in text
    assert page.locator('#claim-panel [data-panel-claim="S000-C002"]').count() == 1
    assert page.evaluate("() => document.activeElement.id") == "claim-panel"
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    # focus goes back to the claim that opened the panel
    assert page.evaluate("() => document.activeElement.querySelector('mark') ?.dataset.claimId") == "S000-C002"


def test_keyboard_reaches_marks_opens_them_and_escape_closes(page, live_server):
    page.goto(live_server + "/audit?source=S001&status=incorrect")
    page.locator("a[data-view-link]").first.focus()
    for _ in range(4):          # a table's scrolling box takes focus too (it scrolls by keyboard), then the marks
        page.keyboard.press("Tab")
        focused = page.evaluate("""() => { const a = document.activeElement;
            return {cls: a.className, inDoc: !!a.closest('.doc'), shown: a.checkVisibility(),
                    claim: a.querySelector('mark') && a.querySelector('mark').dataset.claimId}; }""")
        assert focused["inDoc"] and focused["cls"] in ("claim", "md-table"), focused
        if focused["cls"] == "claim":
            break
    assert focused["cls"] == "claim" and focused["shown"], focused
    page.keyboard.press("Enter")
    panel = page.locator("#claim-panel")
    panel.wait_for(state="visible")
    assert "Incorrect" in panel.inner_text()
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    assert page.evaluate("() => document.activeElement.querySelector('mark').dataset.claimId") == focused["claim"]


def test_without_javascript_a_mark_leads_to_the_claim_page(browser, live_server):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    try:
        p = context.new_page()
        p.goto(live_server + "/audit?source=S000")
        p.locator('.doc mark[data-claim-id="S000-C002"]').filter(visible=True).first.click()
        p.wait_for_url("**/claims/S000-C002")
        assert "S000-C002" in p.locator("h1").inner_text()
        assert p.locator(".doc-context mark").filter(visible=True).count() >= 1
    finally:
        context.close()


LATIN_UI_JS = """(terms) => {
  const out = [];
  const exempt = el => {
    if (el.closest('script, style, code, title, [translate="no"], .content, .md-syntax')) return true;
    const withLang = el.closest('[lang]');
    return withLang && !withLang.getAttribute('lang').startsWith('zh');
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || exempt(el) || !el.checkVisibility()) continue;
    for (const w of n.textContent.match(/[A-Za-z]{2,}/g) || []) if (!terms.includes(w)) out.push(w + ' in ' + n.textContent.trim().slice(0, 40));
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
    if (exempt(el)) continue;
    for (const a of ['title', 'aria-label', 'placeholder', 'alt'])
      for (const w of (el.getAttribute(a) || '').match(/[A-Za-z]{2,}/g) || []) if (!terms.includes(w)) out.push(w + ' in @' + a);
  }
  return out;
}"""


def test_chinese_interface_has_no_english_label_left(browser, live_server):
    from tests._html import ZH_UI_TERMS
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    try:
        p = context.new_page()
        for path in ("/audit", "/audit?source=S001&view=source", "/claims/S001-C002", "/?q=" + quote(T4_Q), "/"):
            p.goto(live_server + path)                 # no ?lang=: the browser's Accept-Language decides
            assert p.evaluate("() => document.documentElement.lang") == "zh-Hans", path
            left = p.evaluate(LATIN_UI_JS, sorted(ZH_UI_TERMS))
            assert not left, (path, left[:10])
        p.goto(live_server + "/audit?lang=zh")
        assert p.locator("h1").inner_text() == "来源审核"
        p.locator('.doc mark[data-claim-id="S000-C002"]').filter(visible=True).first.click()
        panel = p.locator("#claim-panel")
        panel.wait_for(state="visible")
        assert "说法 S000-C002" in panel.locator("h2").inner_text() and "错误" in panel.inner_text()
        assert not p.evaluate(LATIN_UI_JS, sorted(ZH_UI_TERMS))
    finally:
        context.close()


def test_phone_width_has_no_sideways_scrolling(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
    try:
        p = context.new_page()
        for path in ("/audit", "/audit?lang=zh", "/audit?source=S001&view=source", "/claims/S001-C017",
                     "/?q=" + quote(T4_Q), "/?q=" + quote(T4_Q) + "&lang=zh"):
            p.goto(live_server + path)
            sizes = p.evaluate("""() => ({page: document.documentElement.scrollWidth, view: window.innerWidth,
                docs: [...document.querySelectorAll('.doc')].map(d => [d.scrollWidth, d.clientWidth]),
                tables: [...document.querySelectorAll('.doc table')].map(t => {
                    const box = t.closest('.md-table'); return [box.clientWidth, getComputedStyle(box).overflowX]; })})""")
            assert sizes["page"] <= sizes["view"], (path, sizes["page"], sizes["view"])
            for scroll, client in sizes["docs"]:
                assert scroll <= client, (path, "the article body scrolls sideways", scroll, client)
            for width, overflow in sizes["tables"]:
                assert width <= sizes["view"] and overflow == "auto", (path, "a table scrolls in its own box")
    finally:
        context.close()


def test_tree_leaf_link_lands_on_the_claim(page, live_server):
    page.goto(live_server + "/audit?source=S001#S001-C033")
    targeted = page.evaluate("() => [...document.querySelectorAll('mark.targeted')].map(m => m.textContent).join('')")
    assert "16GB" in targeted


def test_conclusion_page_links_to_exports(page, live_server):
    cid = page.request.get(live_server + "/v1/ask?q=" + quote(T4_Q)).json()["conclusion_id"]
    page.goto(live_server + "/conclusions/" + cid)
    assert page.get_by_role("heading", name="Why not?").is_visible()
    prov = page.get_by_role("link", name="W3C PROV-JSON")
    href = prov.get_attribute("href")
    assert href == f"/v1/conclusions/{cid}/explain?format=prov"
    r = page.request.get(live_server + href)
    assert r.ok and "entity" in r.json()


def test_paste_a_text_on_check_and_see_a_marked_claim(page, live_server):
    page.goto(live_server + "/check")
    page.get_by_label("Text to check").fill("The T4 has 32 GB of memory and supports BF16.")
    page.get_by_role("button", name="Check").click()
    mark = page.locator("div.source-text mark[data-status='incorrect']").first
    mark.wait_for()
    assert mark.is_visible()
    claim = page.locator("li.check-claim[data-claim-status='incorrect']").first
    assert "16 GB" in claim.inner_text()
    proof = claim.get_by_role("link", name="proof")
    proof.click()
    page.wait_for_url("**/conclusions/A-X*")
    assert "incorrect" in page.content()
