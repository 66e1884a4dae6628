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
        .map(tr => [tr.dataset.component, tr.querySelector('.bar').getBoundingClientRect().width]))""")
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


def test_audit_page_marks_every_claim(page, live_server):
    claims = page.request.get(live_server + "/v1/claims").json()["claims"]
    page.goto(live_server + "/audit")
    distinct = page.evaluate(
        "() => new Set([...document.querySelectorAll('.doc mark[data-claim-id]')].map(m => m.dataset.claimId)).size")
    assert distinct == len(claims) > 300


def test_clicking_a_claim_opens_its_findings(page, live_server):
    page.goto(live_server + "/audit?source=S000")
    panel = page.locator("#claim-panel")
    assert panel.is_hidden()
    mark = page.locator('.doc mark[data-claim-id="S000-C002"]').first
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


def test_keyboard_opens_a_claim_too(page, live_server):
    page.goto(live_server + "/audit?source=S001&status=incorrect")
    first = page.locator(".doc a.claim").first
    first.focus()
    page.keyboard.press("Enter")
    page.locator("#claim-panel").wait_for(state="visible")
    assert "Incorrect" in page.locator("#claim-panel").inner_text()


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
