"""`gpukb`: the command line over :class:`engine.service.GpuKB`.

Every command with ``--json`` prints exactly the object the HTTP API returns for the same question;
without it, a readable summary (``--lang zh``: in Chinese, labels included). Each error is printed once,
never with a traceback unless -v is given twice: as text on stderr, or under ``--json`` as the API's
error object ``{"ok": false, "status", "error", "errors": [...]}`` on stdout. An unknown subcommand,
flag, GPU, model or instance is answered with the closest known names ("did you mean ...?").

Exit status:

    0   success
    2   bad input: a usage error, or a value the engine refuses (BadInput: an unknown GPU, model or
        release, a value out of range; NotFound: an id, source or name that does not exist)
    1   any other failure: a broken KB or rule file, a rule error, a time limit, an internal error

The options of each command are declared in :mod:`.cli_args` (``gpukb COMMAND --help`` shows each with
its default, and examples); this module runs the commands.

    gpukb validate
    gpukb query --params 13e9 --method full --gpu T4
    gpukb ask "why not T4 for 13B full fine-tune" --json
    gpukb explain Q-... --format text --lang zh
    gpukb serve --port 8000 --workers 2
    gpukb mcp                      # an MCP server on stdio, for chat clients

It is a little over 400 lines: one small function per command, each a thin wrapper over GpuKB.
"""
from __future__ import annotations

import argparse
import functools
from pathlib import Path
import json
import logging
import os
import sys
import traceback
from typing import Any, Callable, Sequence

from gpukb.engine.core.errors import BadInput, GpukbError, Issue, NotFound
from gpukb.engine.core.files import read_input_text
from gpukb.engine import models
from gpukb.engine.service.state import DEFAULT_KB, DEFAULT_RULES, GpuKB
from gpukb.engine.kb.notes import in_lang
from gpukb.engine.audit.without import parse_sources

from .errors import NotImplementedYet
from .cli_render import (print_json, render_answer, render_audit, render_check, render_choice, render_claims,
                         render_diff, render_gaps, render_sizing, render_sources, render_versions)
from .evals import evaluations
from .cli_args import QUERY_KEYS, Parser, UsageError, _close, either, _seconds_in, build_parser, version  # noqa: F401  (build_parser, version: API)
from .progress import bar

log = logging.getLogger("gpukb.cli")


# -- engine access --------------------------------------------------------------------------------------

def _dirs(args: argparse.Namespace) -> tuple[str, str]:
    kb = args.kb or os.environ.get("GPUKB_KB") or str(DEFAULT_KB)
    rules = args.rules or os.environ.get("GPUKB_RULES") or str(DEFAULT_RULES)
    return kb, rules


def _pending(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "include_pending", False))


@functools.lru_cache(maxsize=4)
def _engine(kb_dir: str, rules_dir: str, include_pending: bool = False) -> GpuKB:
    """One engine per directory pair and process (a CLI run uses one; tests reuse it). Checked texts are
    kept in the user's check store, so `gpukb explain` of an id printed by `gpukb check` works in a new
    process (the findings are recomputed from the text)."""
    kb = GpuKB(kb_dir, rules_dir, include_pending=include_pending)
    kb.check_store = _user_check_store()
    return kb


def _user_check_store() -> Path | None:
    """$GPUKB_CHECK_STORE, else ~/.cache/gpukb/checks: a directory of this user's only (mode 0700), or None."""
    raw = os.environ.get("GPUKB_CHECK_STORE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpukb" / "checks")
    try:
        store = Path(raw)
        store.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = store.stat()
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            return None            # another user's, or open to others: a forged text could change a proof
        return store
    except OSError:
        return None


def _method(kb: GpuKB, name: str, what: str) -> Callable[..., Any]:
    fn = getattr(kb, name, None)
    if not callable(fn):
        raise NotImplementedYet(f"{what} is not available yet: the engine has no GpuKB.{name}()")
    return fn


# -- commands -------------------------------------------------------------------------------------------

def _issues_of(result: dict[str, Any]) -> list[Any]:
    for key in ("issues", "errors", "problems"):
        if isinstance(result.get(key), list):
            return result[key]
    return []


def _issue_text(i: Any) -> str:
    if isinstance(i, Issue):
        return str(i)
    if isinstance(i, dict):
        return str(Issue(str(i.get("message", "")), file=i.get("file"), line=i.get("line"), field=i.get("field"),
                         allowed=i.get("allowed")))
    return str(i)


def _count(result: dict[str, Any], *names: str) -> Any:
    for where in (result, result.get("counts") or {}):
        for n in names:
            v = where.get(n)
            if isinstance(v, int) and not isinstance(v, bool):
                return v
            if isinstance(v, list):
                return len(v)
    return "?"


def cmd_validate(args: argparse.Namespace) -> int:
    kb_dir, rules_dir = _dirs(args)
    _renice(args.nice)
    # loading checks every file (a ValidationError lists every issue); then, unless --quick, a bounded
    # smoke derivation compiles and runs the rules, so that a runaway rule fails here, not in a server
    from gpukb.engine.text.ingest import recover
    from gpukb.engine.service.state import validate_dirs
    recovered = recover(kb_dir)        # an ingest that kill -9 or a full disk interrupted
    if recovered:
        print(f"gpukb: {recovered}", file=sys.stderr)
    steps = 1 if args.quick else 2
    with bar(args) as progress:
        progress("validate: checking the files", 0, steps)
        result = validate_dirs(kb_dir, rules_dir, fill_spans=bool(args.fill_spans))
        progress("validate: checking the files", 1, steps)
        result = result if isinstance(result, dict) else {}
        issues = _issues_of(result)
        if not (issues or result.get("ok") is False) and not args.quick:
            from gpukb.engine.service.smoke import smoke
            progress("validate: smoke derivation", 1, steps)
            result["smoke"] = smoke(kb_dir, rules_dir, args.time_limit)
            progress("validate: smoke derivation", 2, steps)
    if issues or result.get("ok") is False:
        if args.json:
            from .errors import error_body
            print(json.dumps(error_body(400, f"{len(issues)} problem(s) found", issues), ensure_ascii=False, indent=2))
            return EXIT_FAILURE
        for i in issues:
            print(_issue_text(i), file=sys.stderr)
        print(f"{len(issues)} problem(s) found", file=sys.stderr)
        return EXIT_FAILURE
    if args.json:
        print_json(result)
        return 0
    print(f"ok: {_count(result, 'claims')} claims, {_count(result, 'reference', 'reference_facts')} reference facts, "
          f"{_count(result, 'rules')} rules, {_count(result, 'releases', 'versions')} releases")
    return 0


def _renice(n: int) -> None:
    if n:
        try:
            os.nice(n)
        except OSError:
            pass


def _query_body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for key in QUERY_KEYS:
        value = getattr(args, key, None)
        if value is None:
            continue
        body[key] = value
    return body


def cmd_query(args: argparse.Namespace) -> int:
    if getattr(args, "cheapest", False):
        from .cli_inventory import render_price_choice
        providers = [p for x in args.provider or [] for p in x.split(",") if p.strip()] or None
        answer = _engine(*_dirs(args), _pending(args)).cheapest(_query_body(args), providers, args.lang)
        print_json(answer) if args.json else print(render_price_choice(answer, args.lang))
        return 0
    if getattr(args, "provider", None):
        raise BadInput("--provider goes with --cheapest")
    if args.solve:
        answer = _engine(*_dirs(args), _pending(args)).solve(_query_body(args), args.solve, args.lang)
        print_json(answer) if args.json else print(render_choice(answer, args.lang))
        return 0
    answer = _engine(*_dirs(args), _pending(args)).query(_query_body(args))
    if args.json:
        print_json(answer)
    else:           # --lang zh: the answer's notes in Chinese too
        print(render_sizing(in_lang(answer, args.lang), args.lang))
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    kb = _engine(*_dirs(args), _pending(args))
    answer = _method(kb, "ask", "answering questions")(args.question, lang=args.lang, kb_version=args.kb_version)
    if args.json:
        print_json(answer)
    else:
        print(render_answer(answer, args.lang or answer.get("lang") or "en"))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    text = _check_text(args)
    kb = _engine(*_dirs(args), _pending(args))
    d = _method(kb, "check", "checking texts")(text, lang=args.lang, kb_version=args.kb_version)
    if args.json:
        print_json(d)
    else:
        print(render_check(d, args.lang or d.lang.value))
    return 0


def _check_text(args: argparse.Namespace) -> str:
    """The text ``gpukb check`` was given: as its argument, on standard input (``-``) or in ``--file``."""
    if args.file is not None and args.text is not None:
        raise BadInput("give the text to check or --file, not both", [Issue("both a text and --file", field="file")])
    if args.file is not None:
        return read_input_text(args.file, MAX_INPUT_BYTES)
    if args.text is None:
        raise BadInput("nothing to check: give the text, - to read standard input, or --file PATH",
                       [Issue("no text", field="text")])
    if args.text != "-" and "\n" not in args.text and " " not in args.text.strip() and Path(args.text).is_file():
        print(f"note: checking the words {args.text!r}; to check that file's text use --file {args.text}", file=sys.stderr)
    return sys.stdin.read() if args.text == "-" else args.text


#: the largest file ``gpukb check --file`` reads; the check itself refuses texts over its character limit
MAX_INPUT_BYTES = 1_000_000


def cmd_ingest(args: argparse.Namespace) -> int:
    from gpukb.engine.text.ingest import ingest
    kb_dir, rules_dir = _dirs(args)
    d = ingest(kb_dir, args.file, args.source, args.title, args.publisher, args.date, args.lang)
    audit = GpuKB(kb_dir, rules_dir, include_pending=True).audit(source=args.source)
    d["audit"] = audit.summary[args.source].to_json() if args.source in audit.summary else {"claims": 0, "by_status": {}}
    if args.json:
        print_json(d)
        return 0
    print(f"registered {d['source']} ({d['file']}); {d['claims']} claims pending review in {d['claims_file']}")
    counts = ", ".join(f"{n} {k}" for k, n in d["audit"]["by_status"].items() if n)
    print(f"audit of the pending claims (gpukb audit --include-pending --source {d['source']}): {counts or 'nothing to audit'}")
    if d["not_understood"]:
        print(f"{len(d['not_understood'])} passages yielded no claim; encode what matters by hand")
    print("next: review each claim, delete its 'review: pending' line, and add the source to a release in versions.yaml")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    kb = _engine(*_dirs(args), _pending(args))
    result = _method(kb, "explain", "explaining conclusions")(args.id, args.format, args.lang)
    if isinstance(result, str):
        sys.stdout.write(result if result.endswith("\n") else result + "\n")
    else:
        print_json(result)
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    d = _engine(*_dirs(args), _pending(args)).claims(source=args.source, kb_version=args.kb_version)
    if args.json:
        print_json(d)
    else:
        print(render_claims(d))
    return 0


def cmd_sources(args: argparse.Namespace) -> int:
    d = _engine(*_dirs(args), _pending(args)).sources()
    if args.json:
        print_json(d)
    else:
        print(render_sources(d))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    kb = _engine(*_dirs(args), _pending(args))
    if args.gaps:
        if args.source or args.kind or args.format or args.without:
            raise BadInput("--gaps lists the gaps of a whole release; it takes no --source, --kind, --format or --without")
        d = _method(kb, "audit_gaps", "the audit's gaps")(kb_version=args.kb_version)
        if args.json or args.jsonl:
            _write_stream(d, args.jsonl, "gaps")
        else:
            print(render_gaps(d))
        return 0
    with bar(args) as progress:
        # how this command audits (the engine may be shared by later commands of the process: reset after)
        kb.progress, kb.audit_workers, kb.audit_scheduler = progress, args.workers, args.scheduler
        # findings are printed, not explained: a unit's proof is recomputed if asked (--without reads them)
        kb.audit_keep_proofs = bool(args.without)
        try:
            if args.without:
                try:
                    parse_sources(args.without, kb.kb.sources)
                except BadInput as exc:
                    args.usage_error(f"argument --without: {exc.message.removeprefix('without: ')}")
            d = _method(kb, "audit", "the audit")(source=args.source, kind=args.kind, kb_version=args.kb_version,
                                                  fmt=args.format, **({"without": args.without} if args.without else {}))
        finally:
            kb.progress, kb.audit_workers, kb.audit_scheduler, kb.audit_keep_proofs = None, 1, None, True
    if args.json or args.jsonl or args.format:
        kb.drop_audits()            # a 100k-claim audit's working state goes before its answer is written
        _write_stream(d, args.jsonl, "@graph" if args.format else "findings")
    else:
        print(render_audit(d))
    return 0


def _write_stream(d: models.Model, jsonl: bool, array: str) -> None:
    """A large answer written item by item (:mod:`.cli_stream`): the same bytes as print_json, never
    held whole as one text; ``jsonl``: one item of ``array`` per line, then the rest on a last line."""
    from gpukb.engine.core.memory import collector_paused
    from .cli_stream import write_json, write_jsonl
    with collector_paused():        # the audit's millions of objects are not traversed again while writing
        if jsonl:
            write_jsonl(d, sys.stdout, array)
        else:
            write_json(d, sys.stdout)


def cmd_openapi(args: argparse.Namespace) -> int:
    from . import openapi_spec
    if args.check:
        current = openapi_spec.GENERATED.read_text(encoding="utf-8") if openapi_spec.GENERATED.exists() else ""
        if current != openapi_spec.text():
            print(f"gpukb: {openapi_spec.GENERATED} is out of date: run gpukb openapi --write", file=sys.stderr)
            return 1
        return 0
    if args.write:
        changed = openapi_spec.write()
        print(f"{openapi_spec.GENERATED}: {'regenerated' if changed else 'up to date'}")
        return 0
    sys.stdout.write(openapi_spec.text())
    return 0


def cmd_versions(args: argparse.Namespace) -> int:
    d = _engine(*_dirs(args), _pending(args)).versions()
    if args.json:
        print_json(d)
    else:
        print(render_versions(d))
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    kb = _engine(*_dirs(args), _pending(args))
    d = _method(kb, "diff", "comparing releases")(args.a, args.b)
    if args.json:
        print_json(d)
    else:
        print(render_diff(d))
    return 0


def _preflight(kb_dir: str, rules_dir: str) -> None:
    """Load the KB and the rules as data (nothing is compiled into durable_rules in the gunicorn master),
    so that a broken KB is reported here, with its issues, instead of as a worker boot failure."""
    from gpukb.engine.kb.loader import load_kb
    from gpukb.engine.audit.functions import load_rules_for
    load_rules_for(load_kb(kb_dir), rules_dir)


LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def _log_level() -> int:
    """The server's log level: $LOG_LEVEL (or $GPUKB_LOG_LEVEL), one of LOG_LEVELS; default info."""
    raw = (os.environ.get("GPUKB_LOG_LEVEL") or os.environ.get("LOG_LEVEL") or "info").strip().lower()
    if raw not in LOG_LEVELS:
        raise BadInput(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {raw[:40]!r}",
                       [Issue("unknown log level", field="LOG_LEVEL", allowed=list(LOG_LEVELS))])
    return getattr(logging, raw.upper())


def cmd_serve(args: argparse.Namespace) -> int:
    from gpukb.engine.core import cache
    from gpukb.engine.core.cache import UnsafeCache
    from . import generations
    from .generations import Builder
    from .serve import serve
    kb_dir, rules_dir = _dirs(args)
    level = logging.DEBUG if (args.verbose or 0) >= 2 else _log_level()
    env_reload = os.environ.get("GPUKB_RELOAD_SECONDS")
    every = _seconds_in(0.1, 86400, zero=True)(env_reload) if env_reload else args.reload
    # the first generation: a private copy of the KB, checked and compiled before any worker starts
    _preflight(kb_dir, rules_dir)
    try:
        builder = Builder(kb_dir, rules_dir, use_snapshot=not (args.no_snapshot or _pending(args)),
                          build_seconds=args.build_timeout)
    except UnsafeCache as exc:      # e.g. ~/.cache/gpukb owned by someone else: never trust it, use a fresh one
        print(f"gpukb: warning: {exc.message}; using a private temporary directory instead", file=sys.stderr)
        builder = Builder(kb_dir, rules_dir, cache_root=cache.fallback_dir(),
                          use_snapshot=not (args.no_snapshot or _pending(args)), build_seconds=args.build_timeout)
    staged = builder.stage()
    print("gpukb: checking and compiling the KB for the workers", file=sys.stderr)
    current = builder.build(staged)
    current.number, current.loaded_at = 1, generations.now()
    print(f"gpukb: serving on http://{args.host}:{args.port} with {args.workers} worker(s) × {args.threads} "
          f"thread(s); KB {current.digest[:16]}", file=sys.stderr)
    conf = {"REQUEST_TIME_LIMIT": args.request_timeout, "ENGINE_QUEUE": args.engine_queue,
            "ENGINE_QUEUE_WAIT": args.engine_queue_wait}
    for key, value in (("MCP_ALLOWED_HOSTS", args.mcp_allowed_hosts), ("MCP_ALLOWED_ORIGINS", args.mcp_allowed_origins),
                       ("CORS_ORIGINS", args.cors_origins), ("PUBLIC_URL", args.public_url)):
        if value:
            conf[key] = value
    if args.no_mcp:
        conf["MCP_ENABLED"] = False
    if _pending(args):                 # the workers answer with the claims pending review too
        conf["GPUKB_INCLUDE_PENDING"] = True
    serve(conf, host=args.host, port=args.port, workers=args.workers, threads=args.threads, log_level=level,
          builder=builder, reload_every=every, current=current, read_timeout=args.read_timeout,
          send_timeout=args.send_timeout)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """An MCP server on stdio. The engine is built first (a broken KB fails here, on stderr), the
    latest release's audit is computed in the background meanwhile, and stdout carries only the protocol."""
    import threading

    import anyio
    from .mcp_server import build_server, serve_stdio
    kb = _engine(*_dirs(args), _pending(args))
    threading.Thread(target=kb.audit_result, args=(kb.kb.latest,), name="gpukb-audit-warmup", daemon=True).start()
    log.info("gpukb MCP server on stdio (release %s)", kb.kb.latest)
    anyio.run(serve_stdio, build_server(lambda: kb, version=version()))
    return 0


def cmd_snapshot(args: argparse.Namespace) -> int:
    from gpukb.engine.core import limits
    from gpukb.engine.service.smoke import smoke
    from gpukb.engine.audit.snapshot import default_path, save
    kb_dir, rules_dir = _dirs(args)
    _renice(args.nice)
    with limits.time_limit(args.time_limit, "checking and compiling the KB"):
        kb = _engine(kb_dir, rules_dir)
        smoke(kb_dir, rules_dir, None, service=kb)     # a runaway rule fails here, naming the rule
        out = args.out or default_path(kb_dir, rules_dir)
        with bar(args) as progress:
            kb.progress = progress
            try:
                res = save(kb, out)
            finally:
                kb.progress = None
    print(f"wrote {res['path']}: audits of {', '.join(res['releases'])} (KB digest {res['digest']})")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    module = evaluations()[args.evaluation]
    kb = _engine(*_dirs(args), _pending(args))
    with bar(args) as progress:        # the engine's phases (e.g. the audit's rule firings), with an ETA
        kb.progress = progress
        try:
            report, text = module.run(kb, args)
        finally:
            kb.progress = None
    if args.json:
        print_json(report)
    else:
        print(text)
    return 0


def cmd_catalog(args: argparse.Namespace) -> int:
    from .cli_inventory import run
    return run(_engine(*_dirs(args), _pending(args)), args)


def cmd_synth(args: argparse.Namespace) -> int:
    from gpukb.engine.kb.synth import make_synthetic_kb
    kb_dir, _ = _dirs(args)

    try:
        with bar(args) as progress:
            result = make_synthetic_kb(args.out, args.claims, args.seed, base=kb_dir,
                                       progress=lambda done, total: progress("generating claims", done, total))
    except (FileExistsError, ValueError) as exc:
        raise GpukbError(str(exc), [Issue(str(exc), field="out" if isinstance(exc, FileExistsError) else "claims")]) from None
    print(f"wrote {result['claims']} claims in {result['sources']} sources to {result['out']} (seed {result['seed']}); "
          f"audit it with: gpukb --kb {result['out']} audit")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "synth": cmd_synth,
    "snapshot": cmd_snapshot,
    "mcp": cmd_mcp,
    "eval": cmd_eval,
    "validate": cmd_validate, "claims": cmd_claims, "sources": cmd_sources, "ask": cmd_ask, "check": cmd_check, "ingest": cmd_ingest, "query": cmd_query,
    "gpus": cmd_catalog, "instances": cmd_catalog, "models": cmd_catalog,
    "explain": cmd_explain, "audit": cmd_audit, "openapi": cmd_openapi, "versions": cmd_versions, "diff": cmd_diff, "serve": cmd_serve,
}


#: commands that answer one question: bounded by the server's per-request time limit
#: ($GPUKB_REQUEST_TIMEOUT, default 30 s; 0 turns it off), a text over the budget named like on the API
TIME_LIMITED = ("ask", "query", "check", "explain")


def _time_limited(args: argparse.Namespace) -> int:
    from gpukb.engine.core import limits
    from .engine_gate import within_budget
    from .serve import DEFAULTS
    raw = os.environ.get("GPUKB_REQUEST_TIMEOUT")
    try:
        seconds = float(raw) if raw else DEFAULTS["request_time_limit"]
    except ValueError:
        raise BadInput(f"GPUKB_REQUEST_TIMEOUT must be a number of seconds, got {raw[:40]!r}") from None
    token = limits.start(seconds, f"gpukb {args.command}")
    try:
        if args.command == "check":
            return within_budget(lambda: COMMANDS[args.command](args))
        return COMMANDS[args.command](args)
    finally:
        limits.stop(token)


def _setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    for name in ("gpukb",):
        logger = logging.getLogger(name)
        logger.setLevel(level)
        if verbosity > 0 and not any(getattr(h, "_gpukb_cli", False) for h in logger.handlers):
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
            handler._gpukb_cli = True  # type: ignore[attr-defined]
            logger.addHandler(handler)


#: exit statuses: 2 for bad input (usage errors and the values the engine refuses), 1 for other failures
EXIT_FAILURE, EXIT_BAD_INPUT = 1, 2


def _exit_status(exc: GpukbError) -> int:
    return EXIT_BAD_INPUT if isinstance(exc, (BadInput, NotFound)) else EXIT_FAILURE


def _wants_json(argv: Sequence[str]) -> bool:
    words = list(argv)
    return "--json" in (words[:words.index("--")] if "--" in words else words)


def _did_you_mean(exc: GpukbError, args: argparse.Namespace | None) -> list[str]:
    """The known names closest to a value the engine refused (an issue naming a field the user gave)."""
    hints = []
    for issue in exc.issues:
        field, allowed = (issue.field, issue.allowed) if isinstance(issue, Issue) else (None, None)
        value = getattr(args, str(field).replace("-", "_"), None) if field and args is not None else None
        if isinstance(value, str) and isinstance(allowed, (list, tuple, set, frozenset)):
            close = _close(value, allowed)
            if close and value not in close:
                hints.append(f"{field}: did you mean {either(close)}?")
    return hints


def _report(exc: GpukbError, args: argparse.Namespace | None, as_json: bool) -> int:
    """An error, printed once: the API's error object on stdout under --json, else text on stderr."""
    status = _exit_status(exc)
    if as_json:
        from .errors import error_body
        print(json.dumps(error_body(int(getattr(exc, "status", 400) or 400), exc.message, exc.issues),
                         ensure_ascii=False, indent=2))
        return status
    message, lines = exc.message, []
    zh = getattr(message, "zh", None) if getattr(args, "lang", None) == "zh" else None
    if zh is not None:           # an error worded in both languages (a Note), under --lang zh: its Chinese only
        print(f"gpukb: 错误：{zh}", file=sys.stderr)
        return status
    for issue in exc.issues:
        if isinstance(issue, dict):
            issue = Issue(str(issue.get("message", "")), file=issue.get("file"), line=issue.get("line"),
                          field=issue.get("field"), allowed=issue.get("allowed"))
        if not isinstance(issue, Issue):
            lines.append(str(issue))
            continue
        bare = str(Issue(issue.message, file=issue.file, line=issue.line, field=issue.field))
        message = message.replace(str(issue), bare)         # the message quoted the issue: say it once
        if issue.message not in message:
            lines.append(bare)
        allowed = issue.allowed
        if isinstance(allowed, (list, tuple, set, frozenset)) and all(str(a) in message for a in list(allowed)[:5]):
            continue                                         # the message already names the closest ones
        if allowed is not None:
            lines.append(str(Issue("", allowed=allowed)).strip()[1:-1])
    print(f"gpukb: error: {message}", file=sys.stderr)
    for line in lines:
        print(f"  {line}", file=sys.stderr)
    for hint in _did_you_mean(exc, args):
        print(f"  {hint}", file=sys.stderr)
    return status


def _usage_failed(exc: UsageError, as_json: bool) -> int:
    if as_json:
        from .errors import error_body
        print(json.dumps(error_body(400, exc.message, [Issue(exc.message)]), ensure_ascii=False, indent=2))
    else:
        exc.parser.print_usage(sys.stderr)
        print(f"{exc.parser.prog}: error: {exc.message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line; its exit status. Output cut short by the reader (``| head``) ends quietly,
    the error report included."""
    try:
        return _main(argv)
    except BrokenPipeError:
        _drop_stdout()
        return 0


def _drop_stdout() -> None:
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = _wants_json(argv)
    parser = build_parser()
    Parser.argv = argv
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        return _usage_failed(exc, as_json)
    verbosity = args.verbose or 0
    _setup_logging(verbosity)
    try:
        if args.command in TIME_LIMITED:
            return _time_limited(args)
        return COMMANDS[args.command](args)
    except UsageError as exc:
        return _usage_failed(exc, as_json)
    except GpukbError as exc:
        return _report(exc, args, as_json)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:          # a bug: say so without a traceback unless asked for one
        if verbosity >= 2:
            traceback.print_exc()
        text = f"internal error: {type(exc).__name__}: {exc} (run with -vv for the traceback)"
        if as_json:
            from .errors import error_body
            print(json.dumps(error_body(500, text), ensure_ascii=False, indent=2))
        else:
            print(f"gpukb: {text}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
