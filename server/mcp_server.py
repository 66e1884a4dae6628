"""gpukb as a Model Context Protocol server: the HTTP API's answers as tools and resources for chatbots.

One job: map MCP tools and resources onto the :class:`GpuKB` facade methods the HTTP API calls. No
answer is computed here; a tool's structured result is the API's JSON for the same input, and its
text (:mod:`server.mcp_text`) is the verdict with numbered citations a bot can quote.

    tool      facade call                                   HTTP twin
    ask       GpuKB.ask(question, lang, kb_version)          GET  /v1/ask
    query     GpuKB.query(body)                              POST /v1/query
    check     GpuKB.check(text, lang, kb_version)            POST /v1/check (listed only when the engine has it)
    explain   GpuKB.explain(conclusion_id, format, lang)     GET  /v1/conclusions/<id>/explain
    audit     GpuKB.audit(source, kind, kb_version)          GET  /v1/audit (+ a claim-status filter)
    claim     GpuKB.claim(id, kb_version)                    GET  /v1/claims/<id>
    fact      GpuKB.fact(subject, attribute, release, lang)  the fact part of GET /v1/ask

    resource                                   facade call
    gpukb://sources                            GpuKB.sources()
    gpukb://sources/{source_id}                GpuKB.source(id)["text"]    (the document verbatim)
    gpukb://sources/{source_id}/claims         GpuKB.claims(source=id)
    gpukb://conclusions/{conclusion_id}        GpuKB.explain(id, "json")   (the proof tree)

Input schemas (:mod:`server.mcp_schemas`) are built from the loaded KB at ``tools/list`` time, so a
new GPU in the vocabulary is a new enum value for the bot.

Errors. Bad arguments, unknown ids and every other :class:`GpukbError` come back as a tool result
with ``isError: true`` (the MCP form for errors a model can correct), whose text is the engine's
message and issues and whose structured content is the API's error body
``{"ok": false, "status", "error", "errors"}`` with the same messages as the API's 400/404. An
unknown tool or resource URI is a JSON-RPC error (-32602 / -32002) carrying the same body as data.
Anything unexpected is logged and answered as a 500-shaped error result: no input stops the server.
Engine calls run in worker threads (``anyio.to_thread``); the facade is thread-safe.

The check tool: ``GpuKB.check`` is being written separately. The tool is registered for an engine
that has the method (checked on every ``tools/list`` and call, so a reloaded engine that gains it
shows it) and is otherwise absent, as the API answers 501 for it.
"""
from __future__ import annotations

import contextlib

import json
import logging
from dataclasses import dataclass
from typing import Any, Callable

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from gpukb.engine.service.state import GpuKB
from gpukb.engine.core.errors import BadInput, GpukbError, Issue, NotFound
from gpukb.engine.core.terms import FINDING_KINDS, LANGS
from gpukb.engine.models import to_json

from . import mcp_text as render
from .api import check_id
from .errors import NotImplementedYet, error_body
from .mcp_schemas import (ask_schema, audit_schema, check_schema, claim_schema, explain_schema, fact_schema,
                          query_schema)

log = logging.getLogger("gpukb.mcp")

SERVER_NAME = "gpukb"
RESOURCE_NOT_FOUND = -32002          # the MCP specification's code for an unknown resource
INSTRUCTIONS = (
    "gpukb answers whether a cloud GPU can train or serve a model, and audits claims about Tencent Cloud "
    "GN7 / NVIDIA T4, with every answer traced to quoted source sentences and cited reference facts. "
    "Use `ask` for a question in English or Chinese, `query` for a precise scenario, `fact` for one "
    "specification, `audit` and `claim` for what the sources get wrong, `explain` for the proof of a "
    "conclusion id. Ground your reply on the result: state the verdict and cite the numbered citations "
    "(quote with source id and span, or reference with its citation) given in the text.")

Engine = Callable[[], GpuKB]


# -- tool calls: argument checks, then one facade call ------------------------------------------------------

def _check_args(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Unknown, missing and non-string arguments, reported like the API reports query parameters."""
    props, issues = schema["properties"], []
    for key in args:
        if key not in props:
            shown = key if len(key) <= 60 else key[:60] + "..."
            issues.append(Issue(f"unknown argument {shown!r}", field=shown, allowed=sorted(props)))
    for key in schema["required"]:
        if args.get(key) is None:
            issues.append(Issue(f"the argument {key!r} is required", field=key))
    for key, spec in props.items():
        if spec.get("type") == "string" and args.get(key) is not None and not isinstance(args[key], str):
            issues.append(Issue(f"expected a string, got {type(args[key]).__name__}", field=key))
    if issues:
        raise BadInput("invalid arguments: " + "; ".join(i.message for i in issues[:3]), issues)
    return {k: v for k, v in args.items() if v is not None}


def _choice(value: str | None, name: str, allowed: tuple[str, ...] | list[str], what: str) -> str | None:
    if value is not None and value not in allowed:
        raise BadInput(f"unknown {what} {value!r}", [Issue(f"unknown {what} {value!r}", field=name, allowed=list(allowed))])
    return value


def call_audit(kb: GpuKB, a: dict[str, Any]) -> dict[str, Any]:
    """The API's audit; ``status`` keeps the claims with that audit status and the findings about them."""
    status = _choice(a.get("status"), "status", FINDING_KINDS, "audit status")
    res = kb.audit(source=a.get("source"), kind=a.get("kind"), kb_version=a.get("kb_version"), without=a.get("without")).to_json()
    if status is not None:
        res["statuses"] = [s for s in res.get("statuses", []) if s.get("status") == status]
        keep = {s["claim"] for s in res["statuses"]}
        res["findings"] = [f for f in res.get("findings", []) if any(c.get("id") in keep for c in f.get("claims", []))]
        res["counts"] = {k: sum(1 for f in res["findings"] if f.get("kind") == k) for k in res.get("counts", FINDING_KINDS)}
    return res


def call_fact(kb: GpuKB, a: dict[str, Any]) -> dict[str, Any]:
    """A fact answer, as ``ask`` gives it for a fact question."""
    v = kb.kb.vocab
    lang = _choice(a.get("lang", "en"), "lang", LANGS, "language")
    issues = []
    subject = a["subject"].strip()
    subject = subject if subject in v.entities else v.aliases().get(subject.lower())
    if subject is None:
        from gpukb.engine.kb import names
        kind, _, bare = a["subject"].strip().rpartition(":")
        kind = kind if kind in ("gpu", "instance", "model", "family") else "gpu"
        issues.append(Issue(f"unknown subject {a['subject'][:60]!r}: {names.unknown_text(v, kind, bare)}",
                            field="subject", allowed=sorted(v.entities)))
    if a["attribute"] not in v.attributes:
        issues.append(Issue(f"unknown attribute {a['attribute'][:60]!r}", field="attribute", allowed=sorted(v.attributes)))
    if issues:
        raise BadInput("invalid arguments: " + "; ".join(i.message for i in issues), issues)
    return kb.fact(subject, a["attribute"], kb.view(a.get("kb_version")), lang).to_json()


def call_check(kb: GpuKB, a: dict[str, Any]) -> dict[str, Any]:
    from .engine_gate import within_budget
    return to_json(within_budget(lambda: kb.check(a["text"], lang=a.get("lang"), kb_version=a.get("kb_version"))))


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its schema (built from the loaded KB), its facade call, and its text rendering."""

    name: str
    title: str
    description: str
    schema: Callable[[GpuKB], dict[str, Any]]
    call: Callable[[GpuKB, dict[str, Any]], Any]
    text: Callable[[Any, str], str]
    requires: str | None = None          # a GpuKB method the tool needs

    def available(self, kb: GpuKB) -> bool:
        return self.requires is None or callable(getattr(kb, self.requires, None))

    def tool(self, kb: GpuKB) -> types.Tool:
        return types.Tool(name=self.name, title=self.title, description=self.description, input_schema=self.schema(kb),
                          annotations=types.ToolAnnotations(title=self.title, read_only_hint=True,
                                                            idempotent_hint=True, open_world_hint=False))


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("ask", "Ask gpukb a question",
             "Answer a question in English or Chinese about whether a GPU or cloud instance can train or serve a "
             "model (\"why not T4 for 13B full fine-tune?\", \"能用 T4 做 7B 的 QLoRA 吗\") or about one specification "
             "(\"Does the T4 support BF16?\"). Returns the verdict (fits / does_not_fit) with the memory needed "
             "and available, recommendations, a conclusion_id for `explain`, and numbered citations of the "
             "source quotes and reference facts behind it. kind=unknown says what the question lacks.",
             ask_schema, lambda kb, a: kb.ask(a["question"], lang=a.get("lang"), kb_version=a.get("kb_version")).to_json(),
             render.answer),
    ToolSpec("query", "Size a training or inference scenario",
             "Size a precise scenario: the model (model or params), the method, the hardware (exactly one of gpu, "
             "instance, family, vram_gb) and optional settings. Defaults are stated in `notes`. Returns the "
             "verdict fits / does_not_fit, the memory breakdown in GB, the smallest GPU count that fits, ranked "
             "changes that would make it fit, and numbered citations. Same answer as POST /v1/query; `without` "
             "answers as if some sources were removed.",
             query_schema, lambda kb, a: kb.query({k: v for k, v in a.items() if k != "without"}, a.get("without")).to_json(),
             render.sizing),
    ToolSpec("check", "Check a draft text",
             "Check a draft answer or article (English or Chinese) against the KB before sending it: every "
             "checkable statement with its span in the text, its audit status and a correction when it is wrong.",
             check_schema, call_check, render.check, requires="check"),
    ToolSpec("explain", "Explain a conclusion",
             "Why (or why not) a conclusion holds, down to the quoted sentences and cited reference facts: give a "
             "conclusion_id from ask/query (Q-...), a finding id from audit (A-...) or a claim / reference id.",
             explain_schema, lambda kb, a: to_json(kb.explain(check_id(a["conclusion_id"]), a.get("format", "json"), a.get("lang", "en"))),
             render.explanation),
    ToolSpec("audit", "Audit the sources' claims",
             "Which claims of the source articles are wrong, and why: findings of the kinds "
             f"{', '.join(FINDING_KINDS)}, each with the quoted claims and an explanation, and every claim's audit "
             "status (its top-ranked finding). The whole audit is large: filter by source, kind or status. `without` "
             "answers what still holds if some sources are removed (from the audit's ATMS labels).",
             audit_schema, call_audit, render.audit),
    ToolSpec("claim", "Look up one claim",
             "One claim of a source: its verbatim quote with source id and span, its value, its audit status and "
             "the findings about it.",
             claim_schema, lambda kb, a: kb.claim(check_id(a["id"]), kb_version=a.get("kb_version")).to_json(),
             render.claim),
    ToolSpec("fact", "Look up one fact",
             "The reference value of one attribute of one entity (e.g. subject gpu:T4, attribute memory_gb) with "
             "its citation and confidence, plus the source claims that agree or disagree with it.",
             fact_schema, call_fact, render.fact),
)
TOOL_INDEX = {t.name: t for t in TOOLS}


def _error_result(exc: GpukbError) -> types.CallToolResult:
    status = int(getattr(exc, "status", 400) or 400)
    body = error_body(status, exc.message, exc.issues)
    text = f"error {status}: {exc.message}" + "".join(f"\n  {i}" for i in exc.issues if str(i) != exc.message)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=body, is_error=True)


def run_tool(engine: Engine, name: str, args: Any, guard: Callable[[], Any] | None = None) -> types.CallToolResult:
    """Call one tool synchronously; every failure becomes an error result. ``guard()`` is a context
    manager the engine call runs in (over HTTP: the request time limit and the engine's turn)."""
    try:
        spec = TOOL_INDEX[name]
        kb = engine()
        if not spec.available(kb):
            raise NotImplementedYet(f"the {name} tool is not available yet: the engine has no GpuKB.{spec.requires}()")
        if not isinstance(args, dict):
            raise BadInput("the arguments must be an object", [Issue("expected an object", field="arguments")])
        clean = args if name == "query" else _check_args(args, spec.schema(kb))   # the scenario checks its own
        with guard() if guard is not None else contextlib.nullcontext():
            result = spec.call(kb, clean)
        text = spec.text(result, clean.get("lang") or "en")
        structured = result if isinstance(result, dict) else None
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=structured)
    except GpukbError as exc:
        return _error_result(exc)
    except Exception:
        log.exception("tool %s failed", name)
        return _error_result(GpukbError("internal error: the tool could not answer; the server log has the details"))


# -- resources ------------------------------------------------------------------------------------------------

RESOURCE_TEMPLATES = (
    types.ResourceTemplate(name="source", title="Source document", uri_template="gpukb://sources/{source_id}",
                           mime_type="text/plain",
                           description="A source document verbatim; claim spans index this text in code points."),
    types.ResourceTemplate(name="source-claims", title="Claims of a source",
                           uri_template="gpukb://sources/{source_id}/claims", mime_type="application/json",
                           description="Every claim of a source with quote, span, value and audit status."),
    types.ResourceTemplate(name="conclusion", title="Proof tree of a conclusion",
                           uri_template="gpukb://conclusions/{conclusion_id}", mime_type="application/json",
                           description="Why a conclusion (Q-..., A-..., or a fact id) holds: the proof tree down "
                                       "to quotes and cited references."),
)


def list_resources(kb: GpuKB) -> list[types.Resource]:
    out = [types.Resource(name="sources", title="Sources", uri="gpukb://sources", mime_type="application/json",
                          description="The source documents: id, title, publisher, date, language.")]
    for sid, s in kb.kb.sources.items():
        out.append(types.Resource(name=sid, title=s.title, uri=f"gpukb://sources/{sid}", mime_type="text/plain",
                                  description=f"{s.title} ({s.publisher or 'unknown publisher'}), verbatim"))
        out.append(types.Resource(name=f"{sid}-claims", title=f"Claims of {sid}", uri=f"gpukb://sources/{sid}/claims",
                                  mime_type="application/json", description=f"The claims of {sid} with their audit status"))
    return out


def read_resource(kb: GpuKB, uri: str) -> tuple[str, str]:
    """(mime type, text) of a resource; NotFound for an URI outside the templates."""
    prefix = "gpukb://"
    parts = uri[len(prefix):].split("/") if uri.startswith(prefix) else []
    if parts == ["sources"]:
        return "application/json", json.dumps(kb.sources().to_json(), ensure_ascii=False)
    if len(parts) == 2 and parts[0] == "sources":
        return "text/plain", kb.source(check_id(parts[1])).text
    if len(parts) == 3 and parts[0] == "sources" and parts[2] == "claims":
        return "application/json", json.dumps(kb.claims(source=check_id(parts[1], "source")).to_json(), ensure_ascii=False)
    if len(parts) == 2 and parts[0] == "conclusions":
        return "application/json", json.dumps(kb.explain(check_id(parts[1]), "json", "en").to_json(), ensure_ascii=False)
    shown = uri[:200]
    raise NotFound(f"no resource {shown!r}", [Issue(f"no resource {shown!r}", field="uri",
                                                     allowed=["gpukb://sources"] + [t.uri_template for t in RESOURCE_TEMPLATES])])


# -- the server ---------------------------------------------------------------------------------------------------

def build_server(engine: Engine, version: str = "", guard: Callable[[], Any] | None = None) -> Server:
    """The low-level MCP server over an engine provider (called per request, so a reloaded KB is seen);
    ``guard``: see :func:`run_tool` (it also wraps reading a resource)."""

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        kb = await anyio.to_thread.run_sync(engine)
        return types.ListToolsResult(tools=[t.tool(kb) for t in TOOLS if t.available(kb)])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOL_INDEX:
            msg = f"unknown tool {params.name[:60]!r}"
            raise MCPError(types.INVALID_PARAMS, msg,
                           error_body(400, msg, [Issue(msg, field="name", allowed=sorted(TOOL_INDEX))]))
        return await anyio.to_thread.run_sync(run_tool, engine, params.name, params.arguments or {}, guard)

    async def on_list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        kb = await anyio.to_thread.run_sync(engine)
        return types.ListResourcesResult(resources=list_resources(kb))

    async def on_list_resource_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=list(RESOURCE_TEMPLATES))

    async def on_read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)

        def read() -> tuple[str, str]:
            with guard() if guard is not None else contextlib.nullcontext():
                return read_resource(engine(), uri)
        try:
            mime, text = await anyio.to_thread.run_sync(read)
        except GpukbError as exc:
            code = RESOURCE_NOT_FOUND if exc.status == 404 else types.INVALID_PARAMS
            raise MCPError(code, exc.message, error_body(exc.status, exc.message, exc.issues)) from None
        except Exception:
            log.exception("resource %s failed", uri[:200])
            raise MCPError(types.INTERNAL_ERROR, "internal error: the resource could not be read") from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    return Server(SERVER_NAME, version=version, title="gpukb", instructions=INSTRUCTIONS,
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool, on_list_resources=on_list_resources,
                  on_list_resource_templates=on_list_resource_templates, on_read_resource=on_read_resource)


async def serve_stdio(server: Server) -> None:
    """Serve one client over this process's stdin and stdout until it disconnects."""
    from mcp.server.stdio import stdio_server
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
