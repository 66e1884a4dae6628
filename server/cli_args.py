"""`gpukb`'s options: the argument parser of every command and the types that check option values.

Choices come from the vocabulary enums of the answer models (:mod:`gpukb.engine.models`), so the CLI
offers exactly what the API accepts. The commands themselves are in :mod:`.cli`.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
from typing import Any, Callable

from gpukb.engine.models import FindingKind, Lang, Method, Offload, Optimizer, Precision
from gpukb.engine.models import query as query_fields
from gpukb.engine.models.vocab import SolveTarget
from gpukb.engine.core.terms import ZERO_STAGES
from gpukb.engine.audit.workers import default_workers

from .cli_flags import json_flag, kb_version_flag
from .evals import evaluations


EXPLAIN_FORMATS = ("json", "text", "prov", "dot")


def choices(enum: Any) -> list[str]:
    """An option's choices: the values of a vocabulary enum of the answer models."""
    return [m.value for m in enum]


LANGS = choices(Lang)
KINDS = choices(FindingKind)
# query flags -> body keys (the POST /v1/query body uses the same names): the query's fields that are flags,
# from their one declaration (gpukb.engine.models.query, which the API's and MCP's schemas read too)
QUERY_KEYS = query_fields.CLI_KEYS

def version() -> str:
    try:
        from importlib.metadata import version as dist_version
        return dist_version("gpukb")
    except Exception:
        from gpukb.engine import __version__
        return __version__


# -- argument parsing ----------------------------------------------------------------------------------

class UsageError(Exception):
    """A command line argparse refuses (exit status 2); :func:`gpukb.server.cli.main` prints it once,
    as text on stderr or, under ``--json``, as the API's error object on stdout."""

    def __init__(self, parser: argparse.ArgumentParser, message: str):
        super().__init__(message)
        self.parser, self.message = parser, message


def either(names: list[str]) -> str:
    """"A", "A or B", "A, B or C"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _close(word: str, candidates: Any, n: int = 3) -> list[str]:
    """The candidates closest to ``word`` (case-insensitive difflib), best first."""
    by_lower = {str(c).lower(): str(c) for c in candidates}
    return [by_lower[c] for c in difflib.get_close_matches(str(word).lower(), list(by_lower), n=n, cutoff=0.6)]


class Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for unknown subcommands and flags (3.14's suggest_on_error, for
    3.11-3.13), raising :class:`UsageError` instead of printing and exiting."""

    #: the command line being parsed (set by main), to find the subcommand an unknown flag was given to
    argv: list[str] = []

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(self, message + self._suggestion(message))

    def _suggestion(self, message: str) -> str:
        m = re.search(r"invalid choice: '?([^'\s]*)'? \(choose from (.*)\)", message)
        if m:
            names = [c.strip().strip("'\"") for c in m.group(2).split(",")]
            close = _close(m.group(1), names)
            return f"; did you mean {either(close)}?" if close else ""
        m = re.search(r"unrecognized arguments: (.*)", message)
        if m:
            options = self._options()
            hints = {}
            for word in m.group(1).split():
                flag = word.split("=", 1)[0]
                close = _close(flag, options) if flag.startswith("-") else []
                if close:
                    hints[flag] = either(close)
            if len(hints) == 1:
                return f"; did you mean {next(iter(hints.values()))}?"
            return f"; did you mean {'; '.join(f'{either_} for {flag}' for flag, either_ in hints.items())}?" if hints else ""
        return ""

    def _options(self) -> list[str]:
        """The flags of the subcommand named on the command line (and the global ones)."""
        parsers: list[argparse.ArgumentParser] = [self]
        here: argparse.ArgumentParser = self
        for word in self.argv:
            subs = [a for a in here._actions if isinstance(a, argparse._SubParsersAction)]
            if subs and word in subs[0].choices:
                here = subs[0].choices[word]
                parsers.append(here)
        return sorted({o for p in parsers for a in p._actions for o in a.option_strings if o.startswith("--")})


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help with each option's default (unless its help already says it) and the examples kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (not action.option_strings or action.default in (None, False, True, argparse.SUPPRESS)
                or "default" in text.lower() or isinstance(action, (argparse._HelpAction, argparse._VersionAction))):
            return text
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"


#: examples shown at the end of each command's --help (each line runs from a checkout)
EXAMPLES: dict[str, tuple[str, ...]] = {
    "validate": ("gpukb validate", "gpukb validate --quick --json"),
    "claims": ("gpukb claims --source S000", "gpukb claims --kb-version 2026.09 --json"),
    "sources": ("gpukb sources", "gpukb sources --json"),
    "ask": ('gpukb ask "why not T4 for 13B full fine-tune"', 'gpukb ask "为什么 T4 不能全量微调 13B 模型"',
            'gpukb ask "Does the T4 support BF16?" --json'),
    "check": ('gpukb check "A T4 has 16 GB of memory and supports BF16."', "gpukb check --file kb/sources/000_224545ea096de99b.txt --json",
              "gpukb check - < article.md"),
    "ingest": ("gpukb ingest article.md --source S003 --title 'GN7 review' --date 2025-01-31",),
    "query": ("gpukb query --model llama-2-13b --method full --gpu T4",
              "gpukb query --params 7e9 --method qlora --instance GN7.2XLARGE32 --lang zh",
              "gpukb query --model llama-2-7b --method lora --gpu A10 --solve batch",
              "gpukb query --model llama-2-13b --method qlora --cheapest --json"),
    "gpus": ("gpukb gpus", "gpukb gpus T4 --json"),
    "instances": ("gpukb instances", "gpukb instances GN7.2XLARGE32"),
    "models": ("gpukb models", "gpukb models llama-2-13b --json"),
    "explain": ("gpukb explain Q-... --lang zh", "gpukb explain Q-... --format prov"),
    "audit": ("gpukb audit --source S000", "gpukb audit --kind incorrect --json", "gpukb audit --without S001",
              "gpukb audit --gaps"),
    "openapi": ("gpukb openapi > openapi.json", "gpukb openapi --check"),
    "versions": ("gpukb versions",),
    "diff": ("gpukb diff 2026.09 2026.12",),
    "synth": ("gpukb synth --claims 10000 --out /tmp/synth-kb",),
    "snapshot": ("gpukb snapshot", "gpukb snapshot --out /tmp/gpukb.snapshot --nice 10"),
    "serve": ("gpukb serve --port 8000 --workers 2", "LOG_LEVEL=debug GPUKB_LOG_FORMAT=json gpukb serve"),
    "mcp": ("gpukb mcp",),
    "eval": ("gpukb eval NAME --json",),
}


def epilog(name: str) -> str:
    lines = EXAMPLES.get(name, ())
    return "examples:\n" + "\n".join("  " + line for line in lines) if lines else ""


#: the exit statuses (also in the docstring of gpukb.server.cli and in the README)
EXIT_STATUSES = """exit status:
  0  success
  1  a failure that is not the input's fault (a broken KB or rule file, a rule error, a time limit, a bug)
  2  bad input: a usage error, or a value the engine refuses (an unknown GPU, model, release or id)

with --json, an error is printed on standard output as the API's error object:
  {"ok": false, "status": 400, "error": "...", "errors": [{"message": "...", ...}]}"""


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

    parser = Parser(
        prog="gpukb", formatter_class=HelpFormatter,
        description="A rules-engine knowledge base about whether cloud GPUs can train or serve a model.",
        epilog="examples:\n  gpukb query --model llama-2-13b --method full --gpu T4\n"
               '  gpukb ask "why not T4 for 13B full fine-tune"\n  gpukb audit --source S000\n'
               "  gpukb COMMAND --help     (each command's options, defaults and examples)\n\n" + EXIT_STATUSES)
    global_options(parser, None)
    parser.add_argument("--version", action="version", version=f"gpukb {version()}")
    # the same options after the subcommand; SUPPRESS keeps them from overriding values given before it
    common = Parser(add_help=False)
    global_options(common, argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_, description=help_, epilog=epilog(name),
                              formatter_class=HelpFormatter)

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
    kb_version_flag(p)
    json_flag(p)

    p = command("sources", "list the source documents")
    json_flag(p)

    p = command("ask", "answer a question in English or Chinese")
    p.add_argument("question")
    p.add_argument("--lang", choices=LANGS, help="the question's language (default: detected)")
    kb_version_flag(p)
    json_flag(p)

    p = command("check", "find the checkable claims in a text (English or Chinese) and audit each one")
    p.add_argument("text", nargs="?", help="the text, or - to read it from standard input")
    p.add_argument("--file", metavar="PATH", help="check the UTF-8 text of this file instead (Markdown or plain text)")
    p.add_argument("--lang", choices=LANGS, help="the text's language (default: detected)")
    kb_version_flag(p)
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
    p.add_argument("--method", choices=choices(Method))
    p.add_argument("--precision", choices=choices(Precision))
    p.add_argument("--optimizer", choices=choices(Optimizer))
    hw = p.add_mutually_exclusive_group()
    hw.add_argument("--gpu", metavar="NAME", help="T4, A10, A100-40GB, A100-80GB, A800-80GB, V100-32GB, H100-80GB, L4 ...")
    hw.add_argument("--instance", metavar="TYPE", help="an instance type, e.g. GN7.2XLARGE32")
    hw.add_argument("--vram-gb", metavar="X", help="memory per GPU in GB")
    p.add_argument("--gpus", metavar="N", type=_int)
    p.add_argument("--zero", type=int, choices=ZERO_STAGES, help="ZeRO stage")
    p.add_argument("--seq-len", metavar="N", type=_int)
    p.add_argument("--batch", metavar="N", type=_int)
    p.add_argument("--lora-rank", metavar="N", type=_int)
    p.add_argument("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=None,
                   help="recompute activations (default: on for QLoRA, as PEFT and the QLoRA paper set it up; "
                        "--no-gradient-checkpointing turns it off)")
    p.add_argument("--flash-attention", action=argparse.BooleanOptionalAction, default=None,
                   help="FlashAttention / memory-efficient SDPA (no attention-score memory)")
    p.add_argument("--optimizer-in-backward", action=argparse.BooleanOptionalAction, default=None,
                   help="fuse the optimizer step into the backward pass (torchtune optimizer_in_bwd): gradients are "
                        "freed layer by layer instead of all held at once")
    p.add_argument("--chunked-cross-entropy", action=argparse.BooleanOptionalAction, default=None,
                   help="chunked / fused cross-entropy: no full FP32 sequence × vocabulary logits")
    p.add_argument("--fused-cross-entropy", action=argparse.BooleanOptionalAction, default=None,
                   help="the loss fused into the output head (Cut Cross-Entropy, Liger's fused linear cross-entropy): "
                        "no sequence × vocabulary logits held whole")
    p.add_argument("--logits-dtype-loss", action=argparse.BooleanOptionalAction, default=None,
                   help="cross-entropy on the logits in their own dtype (a training loop's nn.CrossEntropyLoss on "
                        "16-bit logits outside autocast): no FP32 upcast of the sequence × vocabulary logits")
    p.add_argument("--kbit-preparation", action=argparse.BooleanOptionalAction, default=None,
                   help="QLoRA: the model goes through PEFT's prepare_model_for_kbit_training, which upcasts the "
                        "embeddings, the output head and the norms to FP32 (not assumed unless given)")
    p.add_argument("--activation-offloading", action=argparse.BooleanOptionalAction, default=None,
                   help="activation offloading (torchtune enable_activation_offloading): with checkpointing the "
                        "per-layer checkpoints are kept in host memory")
    p.add_argument("--fsdp1", action=argparse.BooleanOptionalAction, default=None,
                   help="the sharded run uses PyTorch's FullyShardedDataParallel wrapper (FSDP1), not FSDP2's "
                        "fully_shard nor DeepSpeed: with --offload params its CPU offload keeps every gradient shard "
                        "on the GPU until the backward pass ends")
    p.add_argument("--fsdp-orig-params", action=argparse.BooleanOptionalAction, default=None,
                   help="LoRA with --zero 3 --fsdp1 and use_orig_params=True, the adapters wrapped in the same FSDP "
                        "units as the frozen layers (Lightning Fabric / LitGPT): the frozen base gets gradients as if "
                        "it were not frozen, sharded over the GPUs (PEFT through Accelerate wraps the adapters apart)")
    p.add_argument("--fsdp-no-sync", action=argparse.BooleanOptionalAction, default=None,
                   help="full training with --zero 3 --fsdp1 that accumulates gradients under no_sync (the Hugging Face "
                        "Trainer, Accelerate, Lightning): every GPU keeps the whole model's unsharded gradients until "
                        "the micro-batch that syncs")
    p.add_argument("--galore-rank", type=int, metavar="R",
                   help="full training with GaLore: the optimizer keeps its states on the attention and MLP weights' "
                        "gradients projected to rank R, beside one projection matrix each (embeddings, head and norms "
                        "keep the plain optimizer)")
    p.add_argument("--q-galore", action=argparse.BooleanOptionalAction, default=None,
                   help="with --galore-rank: Q-GaLore, the projected weights in INT8 and the projection matrices in INT4")
    p.add_argument("--layer-split", action=argparse.BooleanOptionalAction, default=None,
                   help="the model's layers are split over the GPUs in one process (Hugging Face Accelerate / "
                        "transformers device_map=\"auto\", naive pipeline): each GPU holds about 1/N of the weights, "
                        "trained states, activations and KV cache; no data parallelism, no ZeRO")
    p.add_argument("--tensor-parallel", type=int, metavar="T",
                   help="training: Megatron-style tensor-parallel group size (--tensor-model-parallel-size); --gpus a "
                        "multiple of T: each GPU holds about 1/T of the weights, states and logits and the activations "
                        "s·b·h·(10 + 24/T + 5·a·s/(h·T)) per layer (Korthikanti et al. 2022); default 1 (ZeRO data "
                        "parallelism over several GPUs)")
    p.add_argument("--sequence-parallel", action=argparse.BooleanOptionalAction, default=None,
                   help="with --tensor-parallel: Megatron's sequence parallelism, a layer's activations all split over "
                        "the group (s·b·h/T·(34 + 5·a·s/h))")
    p.add_argument("--master-weights", action=argparse.BooleanOptionalAction, default=None,
                   help="BF16 full training: FP32 master weights, gradient partitions and optimizer states beside the "
                        "BF16 weights, as DeepSpeed's bf16 mode keeps them (default with --zero 1-3 without --fsdp1); "
                        "--no-master-weights: pure BF16 (torchtune, FSDP over a bf16 model)")
    p.add_argument("--torch-compile", action=argparse.BooleanOptionalAction, default=None,
                   help="the training step is compiled with torch.compile: pointwise activations are recomputed "
                        "in the backward pass instead of saved")
    p.add_argument("--selective-checkpointing", action=argparse.BooleanOptionalAction, default=None,
                   help="with --gradient-checkpointing: torchtitan's op-level selective checkpointing; each layer also "
                        "keeps every other matmul's output (wq, wv, w1, w2) and the attention kernel's")
    p.add_argument("--expandable-segments", action=argparse.BooleanOptionalAction, default=None,
                   help="training: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; the reserve nvidia-smi shows is "
                        "sized without the allocator's fragmentation share")
    p.add_argument("--fused-optimizer", action=argparse.BooleanOptionalAction, default=None,
                   help="training: AdamW steps in a fused kernel (fused=True, DeepSpeed's FusedAdam) or a for-loop "
                        "(foreach=False); --no-fused-optimizer: PyTorch's foreach AdamW, whose step holds a tensor of "
                        "the second moments' size (default: foreach for an --fsdp1 run only)")
    p.add_argument("--engine", choices=query_fields.ENGINES,
                   help="inference: the serving engine (vllm takes gpu_memory_utilization of each card, 0.9 by default)")
    p.add_argument("--gpu-memory-utilization", metavar="F", type=float,
                   help="inference: the engine's share of each card's memory (0.05-1)")
    p.add_argument("--max-num-batched-tokens", metavar="N", type=_int,
                   help="inference: the engine's token budget per step (bounds prefill activations)")
    p.add_argument("--kv-cache-dtype", choices=query_fields.KV_CACHE_DTYPES, help="inference: fp8 halves the KV cache")
    p.add_argument("--full-prompt-logits", action=argparse.BooleanOptionalAction, default=None,
                   help="inference: the prompt's forward pass computes every position's logits and upcasts them to "
                        "FP32, as Hugging Face transformers did before v4.45.0")
    p.add_argument("--new-tokens", metavar="N", type=_int,
                   help="inference: how many of seq_len's tokens are generated after the prompt (the prompt's logits "
                        "cover the rest)")
    p.add_argument("--offload", choices=choices(Offload),
                   help="CPU offload of full training: optimizer states and gradients (ZeRO-Offload) or parameters too")
    kb_version_flag(p)
    p.add_argument("--lang", choices=LANGS, default="en", help="language of the printed summary (default: en)")
    p.add_argument("--solve", choices=choices(SolveTarget),
                   help="instead of one verdict, the largest batch, sequence length or model that fits the rest")
    p.add_argument("--cheapest", action="store_true",
                   help="instead of one verdict, the instance sizes that fit ranked by hourly list price (no hardware flags)")
    p.add_argument("--provider", metavar="P", action="append",
                   help="with --cheapest: search this cloud provider's sizes (repeatable or comma-separated; default: all)")
    json_flag(p)

    from .cli_inventory import add_commands
    add_commands(command)

    p = command("explain", "why (or why not) a conclusion holds")
    p.add_argument("id", help="a conclusion id (Q-...) as printed by query or ask")
    p.add_argument("--format", choices=EXPLAIN_FORMATS, default="text",
                   help="text (default), json (the API's object), prov (W3C PROV-JSON) or dot (Graphviz)")
    p.add_argument("--lang", choices=LANGS, default="en", help="language of the explanation")

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
    kb_version_flag(p)
    p.add_argument("--workers", metavar="N", type=_workers, default=1,
                   help="audit the claims' blocks on N local processes (0: one per core; default 1)")
    p.add_argument("--scheduler", metavar="ADDR", type=_scheduler,
                   help="audit the blocks on a Dask cluster, e.g. tcp://host:8786 (needs gpukb[cluster])")
    json_flag(p)
    p.add_argument("--jsonl", action="store_true",
                   help="JSON Lines: one finding per line (with --gaps: one gap; with --format: one review), "
                        "then the rest of the answer on a last line")

    p = command("openapi", "print the OpenAPI document generated from the answer models")
    p.add_argument("--write", action="store_true", help="regenerate server/openapi.json instead of printing it")
    p.add_argument("--check", action="store_true", help="exit 1 if server/openapi.json is not the generated document")

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

    # every serve option is also an environment variable (GPUKB_<OPTION>), for containers; a flag wins
    def env(name: str, default: Any) -> Any:
        return os.environ.get("GPUKB_" + name) or default

    def env_flag(name: str) -> bool:
        return (os.environ.get("GPUKB_" + name) or "").strip().lower() in ("1", "true", "yes", "on")

    p = command("serve", "serve the HTTP API with gunicorn (log level: $LOG_LEVEL = debug|info|warning|error, "
                         "default info; $GPUKB_LOG_FORMAT=json: one JSON object per log line)")
    p.add_argument("--host", default=env("HOST", "127.0.0.1"), help="default: $GPUKB_HOST or 127.0.0.1")
    p.add_argument("--port", type=_port, default=env("PORT", os.environ.get("PORT") or "8000"),
                   help="default: $GPUKB_PORT, $PORT or 8000")
    p.add_argument("--workers", type=_int_in(1, 64), default=env("WORKERS", "2"),
                   help="worker processes (1..64; default: $GPUKB_WORKERS or 2)")
    p.add_argument("--threads", type=_int_in(1, 64), default=env("THREADS", "8"),
                   help="request threads per worker (1..64; default: $GPUKB_THREADS or 8)")
    p.add_argument("--no-snapshot", action="store_true", default=env_flag("NO_SNAPSHOT"),
                   help="do not build or load a snapshot of the audits ($GPUKB_NO_SNAPSHOT=1)")
    p.add_argument("--reload", type=_seconds_in(0.1, 86400, zero=True), default=env("RELOAD", "5"), metavar="SECONDS",
                   help="check the KB for changes this often; a broken change keeps the last good KB "
                        "(0: never; else 0.1..86400; default: $GPUKB_RELOAD or 5)")
    p.add_argument("--request-timeout", type=_seconds_in(1, 3600), default=env("REQUEST_TIMEOUT", "30"), metavar="SECONDS",
                   help="time limit of one request's engine work, then 503 (a text to check: 422) "
                        "(1..3600; default: $GPUKB_REQUEST_TIMEOUT or 30)")
    p.add_argument("--read-timeout", type=_seconds_in(1, 300), default=env("READ_TIMEOUT", "15"), metavar="SECONDS",
                   help="time for a request (line, headers, body) to arrive once it starts, then 408 "
                        "(1..300; default: $GPUKB_READ_TIMEOUT or 15)")
    p.add_argument("--send-timeout", type=_seconds_in(1, 300), default=env("SEND_TIMEOUT", "30"), metavar="SECONDS",
                   help="time for a client to take a response, then it is dropped (1..300; default: $GPUKB_SEND_TIMEOUT or 30)")
    p.add_argument("--engine-queue", type=_int_in(0, 1000), default=env("ENGINE_QUEUE", "4"), metavar="N",
                   help="requests per worker that may wait for the engine; more are answered 503 with Retry-After "
                        "(0..1000; default: $GPUKB_ENGINE_QUEUE or 4)")
    p.add_argument("--engine-queue-wait", type=_seconds_in(0.1, 3600), default=env("ENGINE_QUEUE_WAIT", "10"),
                   metavar="SECONDS", help="how long one may wait, then 503 (default: $GPUKB_ENGINE_QUEUE_WAIT or 10)")
    p.add_argument("--build-timeout", type=_seconds_in(10, 86400), default=env("BUILD_TIMEOUT", "300"), metavar="SECONDS",
                   help="time limit of checking and compiling a KB change (10..86400; default: $GPUKB_BUILD_TIMEOUT or 300)")
    p.add_argument("--no-mcp", action="store_true", default=env_flag("NO_MCP"),
                   help="do not serve the MCP endpoint at /mcp ($GPUKB_NO_MCP=1)")
    p.add_argument("--mcp-allowed-hosts", metavar="LIST", default=env("MCP_ALLOWED_HOSTS", None),
                   help="Host headers /mcp accepts, comma-separated (e.g. '127.0.0.1:*,gpukb.example.org'); "
                        "others are refused (DNS-rebinding protection). Default: $GPUKB_MCP_ALLOWED_HOSTS, else any")
    p.add_argument("--mcp-allowed-origins", metavar="LIST", default=env("MCP_ALLOWED_ORIGINS", None),
                   help="browser Origins /mcp accepts, comma-separated (with --mcp-allowed-hosts; "
                        "default: $GPUKB_MCP_ALLOWED_ORIGINS)")
    p.add_argument("--cors-origins", metavar="LIST", default=env("CORS_ORIGINS", None),
                   help="origins the API sends CORS headers to, comma-separated, '*' for any "
                        "(default: $GPUKB_CORS_ORIGINS, else none)")
    p.add_argument("--public-url", metavar="URL", default=env("PUBLIC_URL", None),
                   help="the server's public base URL, put in front of redirects (default: $GPUKB_PUBLIC_URL, "
                        "else redirects are relative paths)")

    command("mcp", "serve the answers as an MCP server on stdin/stdout (for chat clients)")

    p = command("eval", "measure gpukb against its labelled gold sets (kb/gold/)")
    which = p.add_subparsers(dest="evaluation", metavar="NAME", required=True)
    for name, module in evaluations().items():
        q = which.add_parser(name, parents=[common], help=module.HELP, description=module.HELP,
                             epilog=f"examples:\n  gpukb eval {name}\n  gpukb eval {name} --json",
                             formatter_class=HelpFormatter)
        if callable(getattr(module, "add_arguments", None)):
            module.add_arguments(q)
        q.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


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
