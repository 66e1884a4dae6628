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


def wsgi_with_security_headers(wsgi_app):
    """Wrap a WSGI callable so that every response it starts carries the headers, also those of apps
    mounted beside Flask (the MCP endpoint); headers already set are kept."""
    def app(environ, start_response):
        def start(status, headers, exc_info=None):
            present = {k.lower() for k, _ in headers}
            ctype = next((v for k, v in headers if k.lower() == "content-type"), "")
            wanted = PAGE_HEADERS if ctype.split(";")[0].strip() == "text/html" else API_HEADERS
            headers = list(headers) + [(k, v) for k, v in wanted.items() if k.lower() not in present]
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)
        return wsgi_app(environ, start)
    return app
