"""What the KB knows: GET /v1/gpus[/<id>], /v1/instances[?provider=&gpu=][/<id>], /v1/models[/<id>] (each
entry with every reference fact, its citation and the unknowns with their reasons), and POST /v1/cheapest:
the instance sizes that fit a query body, ranked by hourly list price within each currency."""
from __future__ import annotations

import json

from flask import Blueprint

from . import KB_VERSION, Param, cached_json, check_id, json_response, read_args, read_json_object, shaped
from ..state import get_kb

bp = Blueprint("inventory", __name__)


@bp.get("/v1/gpus")
def gpus():
    args = read_args(KB_VERSION)
    return json_response(shaped("gpus", get_kb().catalog("gpu", kb_version=args["kb_version"])))


@bp.get("/v1/gpus/<gid>")
def gpu(gid: str):
    args = read_args(KB_VERSION)
    return json_response(shaped("gpu", get_kb().catalog_entry("gpu", check_id(gid), kb_version=args["kb_version"])))


@bp.get("/v1/instances")
def instances():
    args = read_args(Param("provider"), Param("gpu"), KB_VERSION)
    return json_response(shaped("instances", get_kb().catalog("instance", provider=args["provider"], gpu=args["gpu"],
                                                               kb_version=args["kb_version"])))


@bp.get("/v1/instances/<iid>")
def instance(iid: str):
    args = read_args(KB_VERSION)
    return json_response(shaped("instance", get_kb().catalog_entry("instance", check_id(iid), kb_version=args["kb_version"])))


@bp.get("/v1/models")
def models_():
    args = read_args(KB_VERSION)
    return json_response(shaped("models", get_kb().catalog("model", kb_version=args["kb_version"])))


@bp.get("/v1/models/<mid>")
def model(mid: str):
    args = read_args(KB_VERSION)
    return json_response(shaped("model", get_kb().catalog_entry("model", check_id(mid), kb_version=args["kb_version"])))


@bp.post("/v1/cheapest")
def cheapest():
    read_args()
    body = read_json_object()
    providers = body.pop("providers", None)
    lang = body.pop("lang", None) or "en"
    kb = get_kb()
    key = ("cheapest", id(kb), json.dumps([body, providers, lang], sort_keys=True, default=str))
    return cached_json(key, lambda: shaped("cheapest", kb.cheapest(body, providers, lang)))
