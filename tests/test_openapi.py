"""server/openapi.json describes the API that is actually served, and real answers conform to it.

The document is generated (server/openapi_spec.py): the paths from the routes' declarations
(server/api/routes.py), every answer's schema from its typed model (gpukb.engine.models), the request
bodies from the one declaration of the query's fields (gpukb.engine.models.query). The committed file and the served document are that generated
document; real answers of every endpoint, errors included, validate against it, and against its strict
form (no field a model does not declare).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError

from gpukb.engine import models
from gpukb.engine.models import scenario
from gpukb.server import openapi_spec

from ._answers import samples

SPEC_FILE = Path(__file__).resolve().parents[1] / "server" / "openapi.json"
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}

# The structure this project relies on (a subset of the OpenAPI 3.1 specification's own schema).
OPENAPI_SUBSET = {
    "type": "object",
    "required": ["openapi", "info", "paths", "components"],
    "properties": {
        "openapi": {"type": "string", "pattern": r"^3\.1\.\d+$"},
        "info": {"type": "object", "required": ["title", "version"],
                 "properties": {"title": {"type": "string"}, "version": {"type": "string"}}},
        "paths": {
            "type": "object",
            "propertyNames": {"pattern": "^/"},
            "additionalProperties": {
                "type": "object",
                "propertyNames": {"enum": sorted(HTTP_METHODS | {"parameters", "summary", "description"})},
                "additionalProperties": {"$ref": "#/$defs/operation"},
            },
        },
        "components": {"type": "object", "properties": {"schemas": {"type": "object"}}},
    },
    "$defs": {
        "ref": {"type": "object", "required": ["$ref"], "properties": {"$ref": {"type": "string", "pattern": "^#/"}}},
        "parameter": {"oneOf": [
            {"$ref": "#/$defs/ref"},
            {"type": "object", "required": ["name", "in", "schema"],
             "properties": {"name": {"type": "string"}, "in": {"enum": ["query", "path", "header", "cookie"]},
                            "required": {"type": "boolean"}},
             "if": {"properties": {"in": {"const": "path"}}},
             "then": {"required": ["required"], "properties": {"required": {"const": True}}}},
        ]},
        "operation": {
            "type": "object",
            "required": ["operationId", "responses"],
            "properties": {
                "operationId": {"type": "string"},
                "parameters": {"type": "array", "items": {"$ref": "#/$defs/parameter"}},
                "requestBody": {"type": "object", "required": ["content"]},
                "responses": {"type": "object", "minProperties": 1,
                              "propertyNames": {"pattern": "^([1-5][0-9X]{2}|default)$"},
                              "additionalProperties": {"oneOf": [
                                  {"$ref": "#/$defs/ref"},
                                  {"type": "object", "required": ["description"]}]}},
            },
        },
    },
}


@pytest.fixture(scope="module")
def spec():
    return json.loads(SPEC_FILE.read_text(encoding="utf-8"))


def resolve(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        node = _pointer(spec, node["$ref"])
    return node


def _pointer(spec, ref):
    assert ref.startswith("#/"), ref
    node = spec
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _operations(spec):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in HTTP_METHODS:
                yield path, method, op


def _validator(spec, schema):
    # the document's components travel with the schema so "#/components/..." references resolve
    return Draft202012Validator({**schema, "components": spec["components"]})


def validate_response(spec, path, method, response):
    """Check a test-client response against what the document says for this operation and status."""
    op = spec["paths"][path][method]
    declared = op["responses"].get(str(response.status_code))
    assert declared is not None, f"{method.upper()} {path}: status {response.status_code} is not documented"
    content = resolve(spec, declared)["content"]
    assert response.mimetype in content, f"{response.mimetype} not documented for {path} {response.status_code}"
    schema = content[response.mimetype]["schema"]
    body = response.get_json(force=True) if "json" in response.mimetype else response.get_data(as_text=True)
    _validator(spec, schema).validate(body)
    return body


# -- the document itself --------------------------------------------------------------------------------

def test_the_document_has_the_openapi_structure(spec):
    Draft202012Validator.check_schema(OPENAPI_SUBSET)
    Draft202012Validator(OPENAPI_SUBSET).validate(spec)


def test_the_schema_dialect_is_the_default_swagger_ui_reads():
    """Swagger UI (/docs) warns about, and does not support, a jsonSchemaDialect other than OAS 3.1's base."""
    for doc in (openapi_spec.document(), openapi_spec.document_zh()):
        assert doc.get("jsonSchemaDialect", "https://spec.openapis.org/oas/3.1/dialect/base") == \
            "https://spec.openapis.org/oas/3.1/dialect/base"


def test_every_reference_resolves(spec):
    refs = re.findall(r'"\$ref":\s*"([^"]+)"', SPEC_FILE.read_text(encoding="utf-8"))
    assert refs
    for ref in set(refs):
        _pointer(spec, ref)


def test_every_component_schema_is_valid_json_schema_2020_12(spec):
    for name, schema in spec["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)


def test_operation_ids_are_unique(spec):
    ids = [op["operationId"] for _, _, op in _operations(spec)]
    assert len(ids) == len(set(ids))


def test_every_operation_documents_the_error_shape_for_400(spec):
    error = {"$ref": "#/components/schemas/Error"}
    for path, method, op in _operations(spec):
        r400 = resolve(spec, op["responses"]["400"])
        assert r400["content"]["application/json"]["schema"] == error, (path, method)


# -- the document is generated from the models ----------------------------------------------------------

def test_the_committed_document_is_the_generated_one():
    """server/openapi.json is what the models generate (regenerate with `make openapi`)."""
    assert SPEC_FILE.read_text(encoding="utf-8") == openapi_spec.text(), "run: make openapi"


def _canonical(doc):
    return json.dumps(doc, sort_keys=True, ensure_ascii=False)


STRUCTURE = Path(__file__).resolve().parent / "fixtures" / "openapi_structure.json"


def _structure(doc):
    """Each operation's shape: id, tag, parameters (name, place, required, schema), request body and
    response schemas by status and media type, with every reference resolved one level (what a client
    generator reads); and every component schema the routes refer to by name."""
    def res(node):
        return resolve(doc, node) if isinstance(node, dict) else node
    out = {}
    for path, method, op in _operations(doc):
        params = [res(p) for p in op.get("parameters", [])]
        body = op.get("requestBody")
        out[f"{method.upper()} {path}"] = {
            "operationId": op["operationId"], "tags": op["tags"],
            "parameters": [[p["name"], p["in"], p.get("required", False), p["schema"]] for p in params],
            "requestBody": body and {m: c["schema"] for m, c in body["content"].items()},
            "responses": {status: {m: c["schema"] for m, c in res(r)["content"].items()}
                          for status, r in op["responses"].items()},
        }
    return out


def test_every_operation_keeps_its_shape():
    """The paths, methods, parameters, request bodies, statuses and response schemas of every operation
    (tests/fixtures/openapi_structure.json, taken from the document the hand-written paths file gave
    before issue #34): a route declaration that drops or changes any of them fails here. Adding an
    operation or a status is an extension: add it to the fixture."""
    want = json.loads(STRUCTURE.read_text(encoding="utf-8"))
    assert _canonical(_structure(openapi_spec.generate())) == _canonical(want)


def test_the_request_bodies_are_the_query_fields_declaration(spec):
    """QueryBody, SolveBody and CheapestBody are rendered from gpukb.engine.models.query.FIELDS, CheckBody
    from its own declaration: one field, one schema."""
    from gpukb.engine.models import query
    schemas = spec["components"]["schemas"]
    for body in models.BODIES.values():
        assert schemas[body.name] == body.schema(), body.name
    assert list(schemas["QueryBody"]["properties"]) == list(scenario.KEYS) == list(query.KEYS)
    assert set(schemas["SolveBody"]["properties"]) == set(query.KEYS) | {"target", "lang"}
    assert set(schemas["CheapestBody"]["properties"]) == set(query.KEYS) - set(query.HARDWARE) | {"providers", "lang"}


def test_the_mcp_tool_and_the_cli_read_the_same_query_fields(spec, gpukb):
    """The MCP query tool's input and the `gpukb query` flags come from the declaration the OpenAPI
    QueryBody is generated from: the same keys, JSON types, vocabularies and ranges."""
    import argparse
    from gpukb.engine.models import query
    from gpukb.server import mcp_schemas
    from gpukb.server.cli_args import QUERY_KEYS, build_parser
    api = spec["components"]["schemas"]["QueryBody"]["properties"]
    mcp = mcp_schemas.query_schema(gpukb)["properties"]
    assert [k for k in mcp if k != "without"] == list(api)
    for f in query.FIELDS:
        a, m = api[f.name], mcp[f.name]
        if f.entity or f.text or f.name == "kb_version":
            continue                   # the bot sees the catalog's names, the releases, "13B" as text
        for key in ("type", "enum", "minimum", "maximum"):
            if key in a:
                assert m[key] == a[key], (f.name, key)
        assert m["description"] == f.help
    assert QUERY_KEYS == query.CLI_KEYS
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["query"]
    flags = {a.dest: a for a in sub._actions}
    for key in QUERY_KEYS:
        assert key in flags, key
        if query.FIELD[key].enum is not None and query.FIELD[key].type == "string":
            assert list(flags[key].choices) == list(query.FIELD[key].enum), key


def test_no_hand_written_paths_file_remains():
    server = Path(openapi_spec.__file__).resolve().parent
    assert not (server / "openapi_paths.json").exists()
    assert not hasattr(openapi_spec, "PATHS")


def test_the_served_document_is_the_generated_one(client):
    r = client.get("/openapi.json")
    assert r.status_code == 200
    assert r.get_json() == openapi_spec.generate()


def test_gpukb_openapi_check_sees_a_stale_file(cli, tmp_path, monkeypatch):
    assert cli("openapi", "--check")[0] == 0
    stale = tmp_path / "openapi.json"
    stale.write_text(SPEC_FILE.read_text(encoding="utf-8").replace('"SizingAnswer"', '"SizingAnswerOld"', 1))
    monkeypatch.setattr(openapi_spec, "GENERATED", stale)
    assert cli("openapi", "--check")[0] == 1
    assert cli("openapi", "--write")[0] == 0
    assert stale.read_text(encoding="utf-8") == openapi_spec.text()


def test_every_documented_answer_schema_is_a_model(spec):
    """Each operation's 2xx JSON schema is a generated model component, not a hand-written one."""
    names = {getattr(m, "name", None) or m.__name__ for m in models.ANSWERS.values()}
    hand_written = {b.name for b in models.BODIES.values()}          # request bodies are no answers
    for path, method, op in _operations(spec):
        for status, resp in op["responses"].items():
            for mime, content in resolve(spec, resp).get("content", {}).items():
                refs = set(re.findall(r"#/components/schemas/(\w+)", json.dumps(content["schema"])))
                assert not refs & hand_written, (path, status)
                if "json" in mime and path != "/openapi.json":
                    assert refs and refs <= names, (path, status, mime, refs)


#: What the API contract (DESIGN.md) promises each answer has: removing or renaming any of these fields
#: in a model breaks this test.
CONTRACT = {
    "SizingAnswer": {"conclusion_id", "kb_version", "scenario", "verdict", "memory", "capacity", "min_gpus",
                     "recommendations", "explanation", "sources", "contradictions", "summary"},
    "Memory": {"unit", "weights", "gradients", "optimizer", "activations", "overhead", "model_states", "total",
               "per_gpu_model_states", "per_gpu_total"},
    "Capacity": {"unit", "per_gpu", "gpus"},
    "Summary": {"en", "zh"},
    "FactAnswer": {"kind", "fact"},
    "Explanation": {"conclusion_id", "kind", "kb_version", "tree"},
    "Claim": {"id", "version", "source", "quote", "span", "subject", "attribute", "value"},
    "ClaimList": {"claims"},
    "Finding": {"id", "kind", "claims", "evidence", "explanation"},
    "FindingList": {"findings"},
    "ClaimStatus": {"claim", "status", "findings"},
    "AuditGaps": {"kb_version", "gaps", "reasons", "unverifiable", "claims"},
    "Versions": {"versions"},
    "Release": {"name", "date", "note"},
    "Diff": {"from", "to", "added", "revised", "retired", "rules", "conclusions"},
    "CheckAnswer": {"kb_version", "claims", "not_understood", "summary"},
    "CheckedClaim": {"span", "quote", "subject", "attribute", "value", "qualifiers", "status", "findings", "correction"},
    "Health": {"status", "kb_version"},
    "Error": {"ok", "status", "error", "errors"},
    "Issue": {"message"},
}


def test_the_contract_fields_are_required_in_the_generated_schemas(spec):
    schemas = spec["components"]["schemas"]
    for name, fields in CONTRACT.items():
        assert fields <= set(schemas[name]["required"]), (name, fields - set(schemas[name]["required"]))
    assert schemas["Error"]["additionalProperties"] is False
    assert schemas["FindingKind"]["enum"] == [m.value for m in models.FindingKind]
    assert schemas["Verdict"]["enum"] == ["fits", "does_not_fit"]


@pytest.fixture(scope="module")
def strict():
    return openapi_spec.generate(strict=True)


def test_real_answers_of_every_endpoint_validate_against_the_strict_schemas(app, strict):
    """Every sampled answer (bad-input errors too) against its model's schema with no extra fields allowed."""
    checked = set()
    for s in samples(app):
        model = models.ANSWERS[s.name]
        name = getattr(model, "name", None) or model.__name__
        errors = list(_validator(strict, {"$ref": f"#/components/schemas/{name}"}).iter_errors(s.body))
        assert not errors, (s.request, errors[0].message, list(errors[0].absolute_path))
        checked.add(s.name)
    assert checked == set(models.ANSWERS)


def test_the_strict_schemas_catch_an_undeclared_field(app, strict):
    body = next(s.body for s in samples(app) if s.name == "query")
    body = {**body, "memory": {**body["memory"], "weigths": 1.0}}
    with pytest.raises(SchemaError):
        _validator(strict, {"$ref": "#/components/schemas/SizingAnswer"}).validate(body)


# -- document ↔ served routes ---------------------------------------------------------------------------

def _flask_routes(app):
    """The API's routes: every rule of the API blueprints (not static files, not the HTML pages)."""
    from gpukb.server.api import blueprints
    api = {bp.name for bp in blueprints()}
    out = {}
    for rule in app.url_map.iter_rules():
        owner = rule.endpoint.split(".")[0] if "." in rule.endpoint else None
        if owner not in api:
            assert rule.endpoint == "static" or owner == "pages", f"{rule.rule} ({rule.endpoint}) is neither API nor page"
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        out.setdefault(path, set()).update(m.lower() for m in rule.methods - {"HEAD", "OPTIONS"})
    return out


def test_every_route_is_documented_and_every_documented_path_exists(app, spec):
    routes = _flask_routes(app)
    documented = {p: {m for m in item if m in HTTP_METHODS} for p, item in spec["paths"].items()}
    assert routes == documented


def _sample(path):
    return (path.replace("{cid}", "S000-C005" if path.startswith("/v1/claims") else "Q-x")
                .replace("{sid}", "S000"))


def test_documented_query_parameters_are_exactly_the_accepted_ones(client, spec):
    """The 400 for an unknown parameter lists what the endpoint accepts; the document must agree."""
    for path, method, op in _operations(spec):
        params = [resolve(spec, p) for p in op.get("parameters", [])]
        documented = sorted(p["name"] for p in params if p["in"] == "query")
        r = client.open(_sample(path) + "?zz_unknown=1", method=method.upper(), json={})
        assert r.status_code == 400, (path, r.status_code)
        issue = next(i for i in r.get_json()["errors"] if i.get("field") == "zz_unknown")
        assert sorted(issue["allowed"]) == documented, path


def test_the_query_body_schema_matches_the_engine(spec):
    body = spec["components"]["schemas"]["QueryBody"]
    props = body["properties"]
    assert body["additionalProperties"] is False
    assert set(props) == set(scenario.KEYS)
    assert props["method"]["enum"] == list(scenario.METHODS)
    assert props["precision"]["enum"] == list(scenario.PRECISIONS)
    assert props["optimizer"]["enum"] == list(scenario.OPTIMIZERS)
    for key, (lo, hi, integer) in scenario.LIMITS.items():
        schema = props[key]
        number = next((s for s in schema.get("oneOf", [schema]) if s.get("type") in ("number", "integer")), None)
        if "enum" in schema:
            assert schema["enum"] == list(range(int(lo), int(hi) + 1)), key
            continue
        assert number is not None, key
        assert (number["minimum"], number["maximum"]) == (lo, hi), key
        assert number["type"] == ("integer" if integer else "number"), key


def test_enums_of_parameters_match_the_server(spec):
    from gpukb.server.api import LANGS
    from gpukb.server.api.audit import FORMATS as AUDIT_FORMATS, KINDS
    from gpukb.server.api.conclusions import FORMATS as EXPLAIN_FORMATS
    params = {(p, resolve(spec, x)["name"]): resolve(spec, x)["schema"]
              for p, _, op in _operations(spec) for x in op.get("parameters", [])}
    assert params[("/v1/conclusions/{cid}/explain", "format")]["enum"] == list(EXPLAIN_FORMATS)
    assert params[("/v1/conclusions/{cid}/explain", "lang")]["enum"] == list(LANGS)
    assert params[("/v1/audit", "format")]["enum"] == list(AUDIT_FORMATS)
    assert resolve(spec, params[("/v1/audit", "kind")])["enum"] == list(KINDS)


# -- real answers conform --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def conclusion_id(app):
    return app.test_client().post("/v1/query", json={"params": 13e9, "method": "full", "gpu": "T4"}).get_json()["conclusion_id"]


GETS = [
    ("/health", "/health", None),
    ("/openapi.json", "/openapi.json", None),
    ("/v1/claims", "/v1/claims", None),
    ("/v1/claims", "/v1/claims?source=S001&kb_version=2026.10", None),
    ("/v1/claims/{cid}", "/v1/claims/S000-C005", None),
    ("/v1/sources", "/v1/sources", None),
    ("/v1/sources/{sid}", "/v1/sources/S002", None),
    ("/v1/versions", "/v1/versions", None),
    ("/v1/ask", "/v1/ask?q=why+not+T4+for+13B+full+fine-tune", "ask"),
    ("/v1/ask", "/v1/ask?q=Does+the+T4+support+BF16%3F", "ask"),
    ("/v1/ask", "/v1/ask?q=hello", "ask"),
    ("/v1/audit", "/v1/audit", "audit"),
    ("/v1/audit", "/v1/audit?format=claimreview", "audit"),
    ("/v1/diff", "/v1/diff?from=2026.09&to=2026.12", "diff"),
    # errors conform too
    ("/v1/claims/{cid}", "/v1/claims/S999-C999", None),
    ("/v1/claims", "/v1/claims?kb_version=nope", None),
    ("/v1/audit", "/v1/audit?kind=nope", None),
]


@pytest.mark.parametrize("template, url, needs", GETS, ids=[g[1] for g in GETS])
def test_get_responses_conform(client, spec, requires, template, url, needs):
    if needs:
        requires(needs)
    validate_response(spec, template, "get", client.get(url))


@pytest.mark.parametrize("fmt", ["json", "text", "prov", "dot"])
def test_explain_responses_conform(client, spec, requires, conclusion_id, fmt):
    requires("explain")
    validate_response(spec, "/v1/conclusions/{cid}/explain", "get",
                      client.get(f"/v1/conclusions/{conclusion_id}/explain?format={fmt}"))
    validate_response(spec, "/v1/conclusions/{cid}", "get", client.get(f"/v1/conclusions/{conclusion_id}"))


@pytest.mark.parametrize("body", [
    {"params": 13e9, "method": "full", "gpu": "T4"},
    {"model": "llama-2-7b", "method": "qlora", "gpu": "T4"},
    {"params": "70B", "method": "inference", "precision": "int4", "vram_gb": 80, "gpus": 2},
    {"params": 7e9, "method": "full", "gpu": "A100-80GB", "gpus": 8, "zero": 3, "gradient_checkpointing": True},
    {"params": 1e9, "gpu": "T4", "colour": "red"},
])
def test_query_responses_conform_and_valid_bodies_match_the_request_schema(client, spec, body):
    r = client.post("/v1/query", json=body)
    validate_response(spec, "/v1/query", "post", r)
    request_schema = spec["paths"]["/v1/query"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    valid = True
    try:
        _validator(spec, request_schema).validate(body)
    except SchemaError:
        valid = False
    assert valid == (r.status_code == 200)


def test_a_response_that_breaks_the_schema_is_caught(spec):
    """The checker itself: a sizing answer without its verdict does not pass."""
    schema = {"$ref": "#/components/schemas/SizingAnswer"}
    with pytest.raises(SchemaError):
        _validator(spec, schema).validate({"conclusion_id": "Q-x"})


# -- schemathesis (property-based, from the document), when it is installed -----------------------------

try:
    import schemathesis
except ImportError:       # not a hard test dependency
    schemathesis = None

if schemathesis is None:
    def test_schemathesis_fuzzing():
        pytest.importorskip("schemathesis")
else:
    from hypothesis import HealthCheck, given, settings
    from schemathesis import GenerationMode
    from schemathesis.checks import (content_type_conformance, not_a_server_error, response_schema_conformance,
                                     status_code_conformance)

    # schemathesis' lazy pytest loader (from_fixture) breaks on pytest 9 (it sets Node._nodeid), so the
    # operations are parametrized here and each one is driven through its hypothesis strategy.
    _DOC = json.loads(SPEC_FILE.read_text(encoding="utf-8"))
    FUZZ = [(path, method.upper(), mode)
            for path, method, op in _operations(_DOC)
            for mode in ("positive", "negative")
            if mode == "positive" or op.get("parameters") or op.get("requestBody")]

    @pytest.fixture(scope="module")
    def fuzz_schema(app):
        return schemathesis.openapi.from_wsgi("/openapi.json", app)

    @pytest.mark.slow
    @pytest.mark.parametrize("path, method, mode", FUZZ, ids=[f"{m} {p} {g}" for p, m, g in FUZZ])
    def test_schemathesis_fuzzing(fuzz_schema, path, method, mode):
        """No input gives a 5xx; every answer has a documented status, content type and schema."""
        operation = fuzz_schema[path][method]

        @given(case=operation.as_strategy(GenerationMode(mode)))
        @settings(max_examples=25, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def run(case):
            case.call_and_validate(checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                           response_schema_conformance])
        run()
