"""Regenerate docs/screenshots/*.png: the web pages as a headless Chromium shows them.

    python scripts/screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium] [--width 1280]

Starts its own server (the real app, API and pages, on a free port), opens each page in the system
Chromium through Playwright (no `playwright install` needed) and saves one PNG per page. Chinese text
needs a CJK font (Debian: fonts-noto-cjk), or it renders as boxes.
"""
from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
T4_Q = "why not T4 for 13B full fine-tune"
T4_Q_ZH = "为什么 T4 不能全量微调 13B 模型"


def find_chromium(given: str | None = None) -> str | None:
    for path in (given, os.environ.get("GPUKB_CHROMIUM")):
        if path:
            return path if os.path.exists(path) else None
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def start_server():
    """(base URL, stop function) of the app served by werkzeug in a thread on a free port."""
    from werkzeug.serving import make_server

    from gpukb.server import create_app, pages
    logging.getLogger("werkzeug").setLevel(logging.WARNING)     # no line per request
    app = create_app()
    pages.register(app)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, name="gpukb-screenshots", daemon=True)
    thread.start()

    def stop():
        srv.shutdown()
        thread.join(timeout=10)
        srv.server_close()
    return f"http://127.0.0.1:{srv.server_port}", stop


CHECK_TEXT = "T4 显卡有 32GB 显存，支持 BF16。A100 有 80GB HBM2e 显存。"
PHONE = {"width": 390, "height": 844}


def shots(base: str, conclusion_id: str) -> list[tuple[str, str, bool, dict]]:
    """(file name, URL, full page?, options) of every screenshot: each page in English, in Chinese and at
    390 px (a phone), plus a few views of the audit. Options: "open" (a claim whose pop-up to open),
    "scroll_to" (a selector to scroll into view), "width"/"height" (another viewport), "check" (a text to
    submit in the /check form), "wait_for" (a selector drawn by a script after the page loads)."""
    def zh(url: str) -> str:
        return url + ("&" if "?" in url else "?") + "lang=zh"

    pages = [   # (name, URL, full page?, options)
        ("home", base + "/", False, {}),
        ("answer", base + "/?q=" + quote(T4_Q), True, {}),
        ("audit", base + "/audit?source=S001", False, {"scroll_to": "#h-S001"}),
        ("claim", base + "/claims/S001-C017", False, {}),
        ("conclusion", base + "/conclusions/" + conclusion_id, False, {}),
        ("check", base + "/check", True, {"check": CHECK_TEXT}),
        ("gpus", base + "/gpus", False, {}),
        ("gpu-t4", base + "/gpus/T4", False, {}),
        ("docs", base + "/docs", False, {"wait_for": "#swagger-ui .opblock"}),
    ]
    out = [   # the views the README shows (names kept)
        ("answer-t4-13b-full.png", base + "/?q=" + quote(T4_Q), True, {}),
        ("answer-zh.png", base + "/?q=" + quote(T4_Q_ZH) + "&lang=zh", False, {}),
        ("audit.png", base + "/audit", False, {"scroll_to": "#legend-h"}),
        ("audit-s001-incorrect.png", base + "/audit?source=S001", False, {"scroll_to": "#h-S001", "open": "S001-C021"}),
        ("audit-zh.png", base + "/audit?source=S001&lang=zh", False, {"scroll_to": "#h-S001"}),
        ("audit-source-view.png", base + "/audit?source=S001&view=source", False, {"scroll_to": "#source-S001 .doc"}),
        ("audit-phone.png", base + "/audit?source=S001&lang=zh", False,
         {"scroll_to": "#source-S001 .doc table", **PHONE}),
    ]
    for name, url, full, opts in pages:
        if name not in ("answer", "audit"):
            out.append((f"{name}.png", url, full, opts))
        zh_name = {"answer": "answer-zh-full.png", "audit": "audit-s001-zh.png"}.get(name, f"{name}-zh.png")
        out.append((zh_name, zh(url), full, opts))
        out.append((f"{name}-phone.png" if name != "audit" else "audit-phone-en.png", url, full, {**opts, **PHONE}))
        out.append((f"{name}-phone-zh.png", zh(url), full, {**opts, **PHONE}))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots"), help="output directory")
    ap.add_argument("--chromium", help="Chromium binary (default: chromium on PATH or /usr/bin/chromium)")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    args = ap.parse_args(argv)

    chromium = find_chromium(args.chromium)
    if chromium is None:
        print("no Chromium found: install it (Debian: apt-get install chromium) or pass --chromium", file=sys.stderr)
        return 1
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("the playwright package is missing: pip install playwright", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base, stop = start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
            try:
                context = browser.new_context(viewport={"width": args.width, "height": args.height},
                                              device_scale_factor=1, locale="en-US", reduced_motion="reduce")
                page = context.new_page()
                cid = page.request.get(base + "/v1/ask?q=" + quote(T4_Q)).json()["conclusion_id"]
                for name, url, full, opts in shots(base, cid):
                    page.set_viewport_size({"width": opts.get("width", args.width),
                                            "height": opts.get("height", args.height)})
                    page.goto(url, wait_until="load")
                    page.evaluate("() => document.fonts.ready")
                    if opts.get("wait_for"):                      # drawn by a script after load (/docs)
                        page.locator(opts["wait_for"]).first.wait_for(state="visible", timeout=15000)
                    if opts.get("check"):                         # /check: submit a text, show the result
                        page.fill("#check-text", opts["check"])
                        page.locator("form.check-form button[type=submit]").click()
                        page.wait_for_load_state("load")
                    if opts.get("scroll_to"):
                        page.locator(opts["scroll_to"]).first.evaluate(
                            "e => { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -8); }")
                    if opts.get("open"):                          # show a claim's pop-up open
                        mark = page.locator(f'.doc mark[data-claim-id="{opts["open"]}"]').filter(visible=True).first
                        mark.click()
                        page.locator("#claim-panel").wait_for(state="visible")
                    path = out / name
                    page.screenshot(path=str(path), full_page=full)
                    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}  ({url[len(base):][:70]})")
                context.close()
            finally:
                browser.close()
    finally:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
