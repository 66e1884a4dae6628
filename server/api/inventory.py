"""What the KB knows: GET /v1/gpus[/<id>], /v1/instances[?provider=&gpu=][/<id>], /v1/models[/<id>] (each
entry with every reference fact, its citation and the unknowns with their reasons), and POST /v1/cheapest:
the instance sizes that fit a query body, ranked by hourly list price within each currency."""
from __future__ import annotations

import json

from flask import Blueprint

from . import KB_VERSION, Param, cached_json, check_id, json_response, read_args, read_json_object
from .routes import PathParam, route
from ..state import get_kb

bp = Blueprint("inventory", __name__)
READ = (400, 404, 500, 503)
ENTRY = "The entry, with every reference fact, its citation, and the unknowns with their reasons."


@route(bp, "get", "/v1/gpus", tag="catalog", params=(KB_VERSION,), errors=READ, ok=("The list.", "gpus"),
       summary="Every GPU the KB knows, with its main figures.")
def gpus():
    args = read_args()
    return json_response(get_kb().catalog("gpu", kb_version=args["kb_version"]).to_json())


@route(bp, "get", "/v1/gpus/<gid>", tag="catalog", errors=READ, ok=(ENTRY, "gpu"),
       params=(PathParam("gid", "A name, alias or id, e.g. T4."), KB_VERSION),
       summary="One GPU: every reference fact with its citation, the values recorded as unknown with their "
               "reasons, and the attributes that have neither. An unknown name is a 404 naming the closest known "
               "ones.")
def gpu(gid: str):
    args = read_args()
    return json_response(get_kb().catalog_entry("gpu", check_id(gid), kb_version=args["kb_version"]).to_json())


@route(bp, "get", "/v1/instances", tag="catalog", errors=READ, ok=("The list.", "instances"),
       params=(Param("provider", description="Only this cloud provider's sizes (aws, tencent, alibaba, gcp or an "
                                             "alias)."),
               Param("gpu", description="Only sizes carrying this GPU (a generic name such as A100 takes its "
                                        "variants)."), KB_VERSION),
       summary="Every instance size the KB knows, with its provider, GPUs, figures and hourly list prices.")
def instances():
    args = read_args()
    return json_response(get_kb().catalog("instance", provider=args["provider"], gpu=args["gpu"],
                                         kb_version=args["kb_version"]).to_json())


@route(bp, "get", "/v1/instances/<iid>", tag="catalog", errors=READ, ok=(ENTRY, "instance"),
       params=(PathParam("iid", "A name, alias or id, e.g. GN7.2XLARGE32."), KB_VERSION),
       summary="One instance size: its facts (and its family's), unknowns, provider, GPUs and list prices.")
def instance(iid: str):
    args = read_args()
    return json_response(get_kb().catalog_entry("instance", check_id(iid), kb_version=args["kb_version"]).to_json())


@route(bp, "get", "/v1/models", tag="catalog", params=(KB_VERSION,), errors=READ, ok=("The list.", "models"),
       operation_id="models", summary="Every model the KB knows, with its parameter count and shape.")
def models_():
    args = read_args()
    return json_response(get_kb().catalog("model", kb_version=args["kb_version"]).to_json())


@route(bp, "get", "/v1/models/<mid>", tag="catalog", errors=READ, ok=(ENTRY, "model"),
       params=(PathParam("mid", "A name, alias or id, e.g. llama-2-7b."), KB_VERSION),
       summary="One model: every reference fact with its citation and the unknowns.")
def model(mid: str):
    args = read_args()
    return json_response(get_kb().catalog_entry("model", check_id(mid), kb_version=args["kb_version"]).to_json())


@route(bp, "post", "/v1/cheapest", tag="answers", body="cheapest", errors=(400, 500, 503),
       summary="The instance sizes (of the providers given, default all) that fit a query body, ranked by hourly "
               "list price within each currency (never converted); sizes without a price in the KB come after the "
               "priced ones.",
       ok=("The cheapest fitting size with its price, currency, region and date, and every size ranked.", "cheapest"))
def cheapest():
    read_args()
    body = read_json_object()
    providers = body.pop("providers", None)
    lang = body.pop("lang", None) or "en"
    kb = get_kb()
    key = ("cheapest", id(kb), json.dumps([body, providers, lang], sort_keys=True, default=str))
    return cached_json(key, lambda: kb.cheapest(body, providers, lang).to_json())
