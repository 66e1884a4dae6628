"""/docs: the API's reference, Swagger UI over /openapi.json.

Swagger UI 5 (which reads OpenAPI 3.1) comes from the swagger-ui-py package (its static files ship
inside the wheel; the older swagger-ui-bundle ships Swagger UI 4, which refuses 3.1 documents), served
from this server under /docs/assets/, so the page needs no CDN and no network at run time, and runs
under the pages' strict Content-Security-Policy: the bundle and its stylesheet are files of this
server, and the one line that starts it is static/docs.js (no inline script).
"""
from __future__ import annotations

from flask import abort, jsonify, render_template, send_from_directory

from .pages import LANGS, arg, bp

#: the files of the bundle the page uses (nothing else under its directory is served)
ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css")


def assets_dir():
    import importlib.resources
    return importlib.resources.files("swagger_ui") / "static"


@bp.get("/docs")
def docs():
    arg("lang", 5, LANGS)
    return render_template("docs.html")     # in Chinese, Swagger UI reads the Chinese document below


@bp.get("/docs/openapi.zh.json")
def docs_spec_zh():
    """The API's document with its summaries and descriptions in Chinese, for /docs?lang=zh (the API's own
    /openapi.json stays English)."""
    from .openapi_spec import document_zh
    return jsonify(document_zh())


@bp.get("/docs/assets/<name>")
def docs_asset(name: str):
    if name not in ASSETS:
        abort(404)
    resp = send_from_directory(str(assets_dir()), name, max_age=86400)
    return resp
