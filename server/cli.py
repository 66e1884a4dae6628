"""`gpukb`: the command line over :class:`engine.service.GpuKB`.

Every command with ``--json`` prints exactly the object the HTTP API returns for the same question;
without it, a readable summary. Errors go to stderr with exit status 1 (usage errors: 2), never a
traceback unless -v is given twice.

    gpukb validate
    gpukb query --params 13e9 --method full --gpu T4
    gpukb ask "why not T4 for 13B full fine-tune" --json
    gpukb explain Q-... --format text --lang zh
    gpukb serve --port 8000 --workers 2
    gpukb mcp                      # an MCP server on stdio, for chat clients
"""
from __future__ import annotations

import argparse
import functools
import logging
import os
import sys
import re
import traceback
from typing import Any, Callable, Sequence

from gpukb.engine.errors import BadInput, GpukbError, Issue
from gpukb.engine.terms import FINDING_KINDS, LANGS, METHODS, OPTIMIZERS, PRECISIONS
from gpukb.engine.answers.service import DEFAULT_KB, DEFAULT_RULES, GpuKB
from gpukb.engine.answers.audit_run import default_workers
from gpukb.engine.answers.without import parse_sources

from .errors import NotImplementedYet
from .cli_render import (print_json, render_answer, render_audit, render_check, render_choice, render_claims,
                         render_diff, render_gaps, render_sizing, render_sources, render_versions)
from .evals import evaluations
from .progress import bar

EXPLAIN_FORMATS = ("json", "text", "prov", "dot")
KINDS = FINDING_KINDS
# query flags -> body keys (the POST /v1/query body uses the same names)
QUERY_KEYS = ("model", "params", "method", "precision", "optimizer", "gpu", "instance", "vram_gb", "gpus", "zero",
              "seq_len", "batch", "lora_rank", "gradient_checkpointing", "flash_attention", "offload", "kb_version")

log = logging.getLogger("gpukb.cli")


def version() -> str:
    try:
        from importlib.metadata import version as dist_version
        return dist_version("gpukb")
    except Exception:
        from gpukb.engine import __version__
        return __version__


# -- argument parsing ----------------------------------------------------------------------------------

def _positive_int(text: str) -> int:
    n = _int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {n}")
    return n


def _port(text: str) -> int:
    n = _int(text, "a port number")
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"port {n} is out of range 1..65535")
    return n


def _int(text: str, what: str = "a whole number") -> int:
    """An integer option's value, or a usage error saying what was expected."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def _int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number in lo..hi, with an error that says the range."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number in {lo}..{hi}, got {text[:40]!r}") from None
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"{n} is out of range {lo}..{hi}")
        return n
    return parse


def _seconds_in(lo: float, hi: float, zero: bool = False) -> Callable[[str], float]:
    """An argparse type: seconds in lo..hi (and 0 when ``zero``: off); NaN and infinity are refused."""
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text[:40]!r}") from None
        if zero and x == 0:
            return 0.0
        if not (lo <= x <= hi):    # also false for NaN
            allowed = f"0 (off) or {lo:g}..{hi:g}" if zero else f"{lo:g}..{hi:g}"
            raise argparse.ArgumentTypeError(f"{text[:40]} seconds is out of range: {allowed}")
        return x
    return parse


def build_parser() -> argparse.ArgumentParser:
    def global_options(p: argparse.ArgumentParser, default: Any) -> None:
        p.add_argument("--kb", metavar="DIR", default=default,
                       help="KB directory (default: $GPUKB_KB or the kb/ of this checkout)")
        p.add_argument("--rules", metavar="DIR", default=default,
                       help="rules directory (default: $GPUKB_RULES or the rules/ of this checkout)")
        p.add_argument("-v", "--verbose", action="count", default=default,
                       help="log progress (-vv: debug, and tracebacks on errors)")
        p.add_argument("-q", "--quiet", action="store_true", default=default,
                       help="no progress bars (they are drawn on a terminal only)")
        p.add_argument("--include-pending", action="store_true", default=default,
                       help="also use claims pending review (from gpukb ingest) and sources no release adds yet")

    parser = argparse.ArgumentParser(
        prog="gpukb",
        description="A rules-engine knowledge base about whether cloud GPUs can train or serve a model.")
    global_options(parser, None)
    parser.add_argument("--version", action="version", version=f"gpukb {version()}")
    # the same options after the subcommand; SUPPRESS keeps them from overriding values given before it
    common = argparse.ArgumentParser(add_help=False)
    global_options(common, argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_, description=help_)

    def json_flag(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true", help="print the API's JSON object")

    p = command("validate", "check the KB and the rules; print every problem with file and line")
    p.add_argument("--fill-spans", action="store_true", help="compute missing claim spans from their quotes and write them")
    p.add_argument("--quick", action="store_true",
                   help="only check the files; skip the smoke derivation that catches runaway rules")
    p.add_argument("--time-limit", type=_seconds_in(1, 3600), default=120.0, metavar="SECONDS",
                   help="stop the smoke derivation after this long (1..3600; default 120)")
    p.add_argument("--nice", type=_int_in(0, 19), default=0, help=argparse.SUPPRESS)
    json_flag(p)

    p = command("claims", "list the claims of a release")
    p.add_argument("--source", metavar="S", help="only the claims of this source (e.g. S000)")
    p.add_argument("--kb-version", metavar="V", help="a release name (default: the latest)")
    json_flag(p)

    p = command("sources", "list the source documents")
    json_flag(p)

    p = command("ask", "answer a question in English or Chinese")
    p.add_argument("question")
    p.add_argument("--lang", choices=LANGS, help="the question's language (default: detected)")
    p.add_argument("--kb-version", metavar="V", help="a release name (default: the latest)")
    json_flag(p)

    p = command("check", "find the checkable claims in a text (English or Chinese) and audit each one")
    p.add_argument("text", help="the text, or - to read it from standard input")
    p.add_argument("--lang", choices=LANGS, help="the text's language (default: detected)")
    p.add_argument("--kb-version", metavar="V", help="a release name (default: the latest)")
    json_flag(p)

    p = command("ingest", "take in a new article: register it and extract its claims, pending review")
    p.add_argument("file", help="the article as a UTF-8 text or Markdown file")
    p.add_argument("--source", metavar="S", required=True, help="the new source id, e.g. S003")
    p.add_argument("--title", help="the article's title (default: the file name)")
    p.add_argument("--publisher", help="who published it")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="when it was published")
    p.add_argument("--lang", choices=LANGS, help="its language (default: detected)")
    json_flag(p)

    p = command("query", "size a training or inference scenario")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--model", metavar="NAME", help="a model name, e.g. llama-2-7b")
    what.add_argument("--params", metavar="N", help="parameter count, e.g. 13e9 or 13B")
    p.add_argument("--method", choices=METHODS)
    p.add_argument("--precision", choices=PRECISIONS)
    p.add_argument("--optimizer", choices=OPTIMIZERS)
    hw = p.add_mutually_exclusive_group()
    hw.add_argument("--gpu", metavar="NAME", help="T4, A10, A100-40GB, A100-80GB, A800-80GB, V100-32GB, H100-80GB, L4 ...")
    hw.add_argument("--instance", metavar="TYPE", help="an instance type, e.g. GN7.2XLARGE32")
    hw.add_argument("--vram-gb", metavar="X", help="memory per GPU in GB")
    p.add_argument("--gpus", metavar="N", type=_int)
    p.add_argument("--zero", type=int, choices=(0, 1, 2, 3), help="ZeRO stage")
    p.add_argument("--seq-len", metavar="N", type=_int)
    p.add_argument("--batch", metavar="N", type=_int)
    p.add_argument("--lora-rank", metavar="N", type=_int)
    p.add_argument("--gradient-checkpointing", action="store_true")
    p.add_argument("--flash-attention", action="store_true")
    p.add_argument("--offload", choices=("none", "optimizer", "params"),
                   help="CPU offload of full training: optimizer states and gradients (ZeRO-Offload) or parameters too")
    p.add_argument("--kb-version", metavar="V", help="a release name (default: the latest)")
    p.add_argument("--lang", choices=LANGS, default="en", help="language of the printed summary (default: en)")
    p.add_argument("--solve", choices=("batch", "seq_len", "params"),
                   help="instead of one verdict, the largest batch, sequence length or model that fits the rest")
    json_flag(p)

    p = command("explain", "why (or why not) a conclusion holds")
    p.add_argument("id", help="a conclusion id (Q-...) as printed by query or ask")
    p.add_argument("--format", choices=EXPLAIN_FORMATS, default="text",
                   help="text (default), json (the API's object), prov (W3C PROV-JSON) or dot (Graphviz)")
    p.add_argument("--lang", choices=LANGS, default="en")

    p = command("audit", "which claims are wrong, and why")
    p.add_argument("--source", metavar="S", help="only the findings about this source's claims")
    p.add_argument("--kind", choices=KINDS, help="only findings of this kind")
    p.add_argument("--format", choices=("claimreview",), help="schema.org ClaimReview JSON-LD")
    p.add_argument("--without", metavar="S", action="append",
                   help="answer as if source S were removed (repeatable or comma-separated): what still holds, "
                        "what is withdrawn, from the audit's ATMS labels")
    p.set_defaults(usage_error=p.error)
    p.add_argument("--gaps", action="store_true",
                   help="list the reference facts that would decide the unverifiable claims, most claims first")
    p.add_argument("--kb-version", metavar="V", help="a release name (default: the latest)")
    p.add_argument("--workers", metavar="N", type=_workers, default=1,
                   help="audit the claims' blocks on N local processes (0: one per core; default 1)")
    p.add_argument("--scheduler", metavar="ADDR", type=_scheduler,
                   help="audit the blocks on a Dask cluster, e.g. tcp://host:8786 (needs gpukb[cluster])")
    json_flag(p)

    p = command("versions", "list the KB releases, oldest first")
    json_flag(p)

    p = command("diff", "what changed between two releases")
    p.add_argument("a", metavar="A", help="the older release")
    p.add_argument("b", metavar="B", help="the newer release")
    json_flag(p)

    p = command("synth", "write a synthetic KB (real vocabulary, reference tier and rules; generated sources)")
    p.add_argument("--claims", metavar="N", type=_int_in(1, 1_000_000), required=True,
                   help="number of claims to generate (1..1000000)")
    p.add_argument("--seed", metavar="S", type=_int, default=0, help="random seed (default 0)")
    p.add_argument("--out", metavar="DIR", required=True, help="an empty or new directory")

    p = command("snapshot", "audit every release once and save the derivations for serving workers to load")
    p.add_argument("--out", metavar="FILE",
                   help="where to write it (default: a file named by the KB's digest in the private cache directory)")
    p.add_argument("--time-limit", type=_seconds_in(1, 86400), default=None, metavar="SECONDS",
                   help="stop after this long (default: no limit)")
    p.add_argument("--nice", type=_int_in(0, 19), default=0, metavar="N", help="run at a lower CPU priority")

    p = command("serve", "serve the HTTP API with gunicorn")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=_port, default=os.environ.get("PORT") or "8000",
                   help="default: $PORT or 8000")
    p.add_argument("--workers", type=_int_in(1, 64), default=2, help="worker processes (1..64; default: 2)")
    p.add_argument("--threads", type=_int_in(1, 64), default=8, help="request threads per worker (1..64; default: 8)")
    p.add_argument("--no-snapshot", action="store_true", help="do not build or load a snapshot of the audits")
    p.add_argument("--reload", type=_seconds_in(0.1, 86400, zero=True), default=5.0, metavar="SECONDS",
                   help="check the KB for changes this often; a broken change keeps the last good KB "
                        "(0: never; else 0.1..86400; default 5)")
    p.add_argument("--request-timeout", type=_seconds_in(1, 3600), default=30.0, metavar="SECONDS",
                   help="time limit of one request's engine work, then 503 (1..3600; default 30)")
    p.add_argument("--read-timeout", type=_seconds_in(1, 300), default=15.0, metavar="SECONDS",
                   help="time for a request (line, headers, body) to arrive once it starts, then 408 (1..300; default 15)")
    p.add_argument("--build-timeout", type=_seconds_in(10, 86400), default=300.0, metavar="SECONDS",
                   help="time limit of checking and compiling a KB change (10..86400; default 300)")
    p.add_argument("--no-mcp", action="store_true", help="do not serve the MCP endpoint at /mcp")

    command("mcp", "serve the answers as an MCP server on stdin/stdout (for chat clients)")

    p = command("eval", "measure gpukb against its labelled gold sets (kb/gold/)")
    which = p.add_subparsers(dest="evaluation", metavar="NAME", required=True)
    for name, module in evaluations().items():
        q = which.add_parser(name, parents=[common], help=module.HELP, description=module.HELP)
        if callable(getattr(module, "add_arguments", None)):
            module.add_arguments(q)
        q.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


# -- engine access --------------------------------------------------------------------------------------

def _dirs(args: argparse.Namespace) -> tuple[str, str]:
    kb = args.kb or os.environ.get("GPUKB_KB") or str(DEFAULT_KB)
    rules = args.rules or os.environ.get("GPUKB_RULES") or str(DEFAULT_RULES)
    return kb, rules


def _pending(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "include_pending", False))


def _workers(text: str) -> int:
    """--workers: a count of local processes, 0 for one per core."""
    n = _int(text, "a whole number of processes")
    if not 0 <= n <= 256:
        raise argparse.ArgumentTypeError(f"expected 0 (one per core) to 256 processes, got {n}")
    return n or default_workers()


def _scheduler(text: str) -> str:
    """--scheduler: a Dask scheduler address."""
    if not re.fullmatch(r"(tcp|tls|inproc|ucx)://[^\s]{1,200}", text):
        raise argparse.ArgumentTypeError(f"expected a Dask scheduler address such as tcp://host:8786, got {text[:80]!r}")
    return text


@functools.lru_cache(maxsize=4)
def _engine(kb_dir: str, rules_dir: str, include_pending: bool = False) -> GpuKB:
    """One engine per directory pair and process (a CLI run uses one; tests reuse it)."""
    return GpuKB(kb_dir, rules_dir, include_pending=include_pending)


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
    from gpukb.engine.answers.service import validate_dirs
    result = validate_dirs(kb_dir, rules_dir, fill_spans=bool(args.fill_spans))
    result = result if isinstance(result, dict) else {}
    issues = _issues_of(result)
    if issues or result.get("ok") is False:
        for i in issues:
            print(_issue_text(i), file=sys.stderr)
        print(f"{len(issues)} problem(s) found", file=sys.stderr)
        return 1
    if not args.quick:
        from gpukb.engine.answers.smoke import smoke
        result["smoke"] = smoke(kb_dir, rules_dir, args.time_limit)
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
        if value is None or value is False:
            continue
        body[key] = value
    return body


def cmd_query(args: argparse.Namespace) -> int:
    if args.solve:
        answer = _engine(*_dirs(args), _pending(args)).solve(_query_body(args), args.solve, args.lang)
        print_json(answer) if args.json else print(render_choice(answer, args.lang))
        return 0
    answer = _engine(*_dirs(args), _pending(args)).query(_query_body(args))
    if args.json:
        print_json(answer)
    else:
        print(render_sizing(answer, args.lang))
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
    kb = _engine(*_dirs(args), _pending(args))
    text = sys.stdin.read() if args.text == "-" else args.text
    d = _method(kb, "check", "checking texts")(text, lang=args.lang, kb_version=args.kb_version)
    if args.json:
        print_json(d)
    else:
        print(render_check(d, args.lang or d.get("lang") or "en"))
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from gpukb.engine.answers.ingest import ingest
    kb_dir, rules_dir = _dirs(args)
    d = ingest(kb_dir, args.file, args.source, args.title, args.publisher, args.date, args.lang)
    audit = GpuKB(kb_dir, rules_dir, include_pending=True).audit(source=args.source)
    d["audit"] = audit["summary"].get(args.source, {"claims": 0, "by_status": {}})
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
        print_json(d) if args.json else print(render_gaps(d))
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
    if (args.json or args.format):
        print_json(d)
    else:
        print(render_audit(d))
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
    from gpukb.engine.kb.store import load_kb
    from gpukb.engine.reasoning.rules import load_rules
    kb = load_kb(kb_dir)
    load_rules(rules_dir, {f.id for f in kb.all_facts if f.tier == "reference"})


def cmd_serve(args: argparse.Namespace) -> int:
    from gpukb.engine import cache
    from gpukb.engine.cache import UnsafeCache
    from . import generations
    from .generations import Builder
    from .serve import serve
    kb_dir, rules_dir = _dirs(args)
    level = logging.DEBUG if (args.verbose or 0) >= 2 else logging.INFO
    env_reload = os.environ.get("GPUKB_RELOAD_SECONDS")
    every = _seconds_in(0.1, 86400, zero=True)(env_reload) if env_reload else args.reload
    # the first generation: a private copy of the KB, checked and compiled before any worker starts
    _preflight(kb_dir, rules_dir)
    try:
        builder = Builder(kb_dir, rules_dir, use_snapshot=not args.no_snapshot, build_seconds=args.build_timeout)
    except UnsafeCache as exc:      # e.g. ~/.cache/gpukb owned by someone else: never trust it, use a fresh one
        print(f"gpukb: warning: {exc.message}; using a private temporary directory instead", file=sys.stderr)
        builder = Builder(kb_dir, rules_dir, cache_root=cache.fallback_dir(), use_snapshot=not args.no_snapshot,
                          build_seconds=args.build_timeout)
    staged = builder.stage()
    print("gpukb: checking and compiling the KB for the workers", file=sys.stderr)
    current = builder.build(staged)
    current.number, current.loaded_at = 1, generations.now()
    print(f"gpukb: serving on http://{args.host}:{args.port} with {args.workers} worker(s) × {args.threads} "
          f"thread(s); KB {current.digest[:16]}", file=sys.stderr)
    conf = {"REQUEST_TIME_LIMIT": args.request_timeout}
    if args.no_mcp:
        conf["MCP_ENABLED"] = False
    serve(conf, host=args.host, port=args.port, workers=args.workers, threads=args.threads, log_level=level,
          builder=builder, reload_every=every, current=current, read_timeout=args.read_timeout)
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
    from gpukb.engine import limits
    from gpukb.engine.answers.smoke import smoke
    from gpukb.engine.answers.snapshot import default_path, save
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
    report, text = module.run(_engine(*_dirs(args), _pending(args)), args)
    if args.json:
        print_json(report)
    else:
        print(text)
    return 0


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
    "explain": cmd_explain, "audit": cmd_audit, "versions": cmd_versions, "diff": cmd_diff, "serve": cmd_serve,
}


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    verbosity = args.verbose or 0
    _setup_logging(verbosity)
    try:
        return COMMANDS[args.command](args)
    except GpukbError as exc:
        print(f"gpukb: error: {exc.message}", file=sys.stderr)
        for issue in exc.issues:
            print(f"  {_issue_text(issue)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except Exception as exc:          # a bug: say so without a traceback unless asked for one
        if verbosity >= 2:
            traceback.print_exc()
        print(f"gpukb: internal error: {type(exc).__name__}: {exc} (run with -vv for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
