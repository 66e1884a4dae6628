"""The catalogue pages: /gpus, /instances, /models (one table each) and /gpus/<name>, /instances/<name>,
/models/<name> (one entry: every reference fact with its citation, and the unknowns with their reasons).
They read the same answers as GET /v1/gpus[/<id>], /v1/instances[/<id>] and /v1/models[/<id>]."""
from __future__ import annotations

from flask import render_template
from markupsafe import Markup, escape

from gpukb.engine.core.errors import GpukbError

from .pages import LANGS, PageError, arg, bp, engine_text, get_kb, kb_version_arg, tr, url

KINDS = {"gpus": "gpu", "instances": "instance", "models": "model"}


def entity_href(eid: str | None) -> str | None:
    """The catalogue page of a GPU, instance size or model id (``gpu:T4`` -> /gpus/T4), else None."""
    if not isinstance(eid, str) or ":" not in eid:
        return None
    kind, name = eid.split(":", 1)
    plural = {"gpu": "gpus", "instance": "instances", "model": "models"}.get(kind)
    return url(f"pages.catalog_entry", what=plural, name=name) if plural else None


def entity_link(eid: str | None, text: str | None = None) -> Markup:
    """A link to an entity's catalogue page (its text alone when it has none)."""
    shown = escape(text if text is not None else (eid or "").split(":", 1)[-1])
    href = entity_href(eid)
    return Markup(f'<a href="{escape(href)}">{shown}</a>') if href else Markup(shown)


@bp.get("/<any(gpus, instances, models):what>")
def catalog(what: str):
    arg("lang", 5, LANGS)
    provider, gpu = arg("provider"), arg("gpu")
    kind = KINDS[what]
    filters = {"provider": provider, "gpu": gpu} if kind == "instance" else {}
    try:
        d = get_kb().catalog(kind, kb_version=kb_version_arg(), **filters).to_json()
    except GpukbError as exc:
        raise PageError(400 if exc.status == 400 else 404, exc.message, engine_text([str(i) for i in exc.issues][:3])) from None
    return render_template("catalog.html", what=what, kind=kind, d=d, items=d[what], filters=d.get("filters") or {})


@bp.get("/<any(gpus, instances, models):what>/<path:name>")
def catalog_entry(what: str, name: str):
    arg("lang", 5, LANGS)
    kind = KINDS[what]
    try:
        e = get_kb().catalog_entry(kind, name[:2000], kb_version=kb_version_arg()).to_json()
    except GpukbError as exc:
        raise PageError(404 if exc.status == 404 else 400, exc.message,
                        links=[(tr(f"catalog.{what}"), url("pages.catalog", what=what))]) from None
    return render_template("entry.html", what=what, kind=kind, e=e)


@bp.app_context_processor
def _catalog_helpers():
    return {"entity_href": entity_href, "entity_link": entity_link}
