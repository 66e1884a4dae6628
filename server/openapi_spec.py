"""The OpenAPI 3.1 document of the API, generated: the paths, parameters, responses and request bodies
are data (``server/openapi_paths.json``); every answer's schema is generated from its typed model
(:mod:`gpukb.engine.models`), and the request bodies' vocabularies (method, precision, optimizer,
offload, lang) are filled in from the same enums.

``server/openapi.json`` is this document, committed so that it can be read and diffed; ``gpukb openapi
--write`` (``make openapi``) regenerates it and a test checks that it is up to date. The server serves
:func:`document` itself, so what is served is always what the models say.
"""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from gpukb.engine import models
from gpukb.engine.models import vocab
from gpukb.engine.models.schema import components

HERE = Path(__file__).resolve().parent
PATHS = HERE / "openapi_paths.json"
GENERATED = HERE / "openapi.json"

#: Request-body properties whose allowed values are a vocabulary enum.
BODY_ENUMS = {"method": vocab.Method, "precision": vocab.Precision, "optimizer": vocab.Optimizer,
              "offload": vocab.Offload}


def _fill_body_enums(schemas: dict[str, Any]) -> None:
    for name in ("QueryBody", "SolveBody", "CheapestBody"):
        props = schemas[name]["properties"]
        for key, enum in BODY_ENUMS.items():
            props[key]["enum"] = [m.value for m in enum]
        if "lang" in props:
            props["lang"]["enum"] = [m.value for m in vocab.Lang]
    schemas["CheckBody"]["properties"]["lang"]["enum"] = [m.value for m in vocab.Lang] + [None]


def generate(strict: bool = False) -> dict[str, Any]:
    """The whole document: the data file's paths with the schemas of every answer model.

    ``strict`` closes every model that is not open by design (``additionalProperties: false``), for the
    tests that check real answers have no field their model lacks.
    """
    doc = json.loads(PATHS.read_text(encoding="utf-8"))
    schemas = doc["components"]["schemas"]
    generated = components(models.ANSWERS.values(), strict=strict)
    clash = sorted(set(schemas) & set(generated))
    if clash:
        raise ValueError(f"{PATHS.name} declares schemas that the models generate: {', '.join(clash)}")
    _fill_body_enums(schemas)
    doc["components"]["schemas"] = {**generated, **schemas}
    return doc


@lru_cache(maxsize=2)
def _cached(strict: bool) -> str:
    return json.dumps(generate(strict), ensure_ascii=False)


def document(strict: bool = False) -> dict[str, Any]:
    """The generated document (built once per process; a fresh copy each call)."""
    return copy.deepcopy(json.loads(_cached(strict)))


def text() -> str:
    """The document as ``server/openapi.json`` holds it."""
    return json.dumps(generate(), indent=2, ensure_ascii=False) + "\n"


def write(path: Path | None = None) -> bool:
    """Regenerate ``server/openapi.json`` (or ``path``); True when it changed."""
    path = path or GENERATED
    new = text()
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old
