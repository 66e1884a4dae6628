"""Security headers on every response: pages, API answers, static files and errors alike.

Pages load scripts and styles from this server only; no inline script or style runs. Nothing may frame a page, and no referrer leaves it.
JSON and every other non-HTML response get the strictest policy: they load nothing.
"""
from __future__ import annotations

PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; "
            "img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}
API_HEADERS = {"Content-Security-Policy": API_CSP, **COMMON}
PAGE_HEADERS = {"Content-Security-Policy": PAGE_CSP, **COMMON}


def add_security_headers(resp) -> None:
    """Set the headers on a Flask/Werkzeug response (HTML gets the page policy, the rest the API's)."""
    for key, value in (PAGE_HEADERS if resp.mimetype == "text/html" else API_HEADERS).items():
        resp.headers.setdefault(key, value)
