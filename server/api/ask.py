"""GET /v1/ask?q=...&lang=en|zh&kb_version=...: a question in English or Chinese, answered."""
from __future__ import annotations

from flask import Blueprint

from . import KB_VERSION, LANG, Param, cached_json, read_args
from .routes import route
from ..state import engine_method

bp = Blueprint("ask", __name__)


Q = Param("q", required=True, max_chars=None, multiline=True, description="The question, at most 500 characters.",
          schema={"type": "string", "minLength": 1, "maxLength": 500}, example="why not T4 for 13B full fine-tune")


@route(bp, "get", "/v1/ask", tag="answers", params=(Q, LANG, KB_VERSION), errors=(400, 422, 500, 501, 503),
       summary="Answer a question in English or Chinese (a sizing question or a fact question).",
       ok=("A sizing answer (kind sizing), a fact answer (kind fact) or what could not be understood (kind unknown).",
           "ask"))
def ask():
    args = read_args()
    fn = engine_method("ask", "answering questions")
    key = ("ask", id(getattr(fn, "__self__", fn)), " ".join(args["q"].split()), args["lang"], args["kb_version"])
    return cached_json(key, lambda: fn(args["q"], lang=args["lang"], kb_version=args["kb_version"]).to_json())
