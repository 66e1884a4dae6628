"""GET /v1/ask?q=...&lang=en|zh&kb_version=...: a question in English or Chinese, answered."""
from __future__ import annotations

from flask import Blueprint

from . import KB_VERSION, LANG, Param, cached_json, read_args, shaped
from ..state import engine_method

bp = Blueprint("ask", __name__)


@bp.get("/v1/ask")
def ask():
    args = read_args(Param("q", required=True, max_chars=None, multiline=True), LANG, KB_VERSION)
    fn = engine_method("ask", "answering questions")
    key = ("ask", id(getattr(fn, "__self__", fn)), " ".join(args["q"].split()), args["lang"], args["kb_version"])
    return cached_json(key, lambda: shaped("ask", fn(args["q"], lang=args["lang"], kb_version=args["kb_version"])))
