"""`gpukb gpus`, `gpukb instances [--provider P] [--gpu G]`, `gpukb models` (with a NAME: one entry with every
fact, its citation and the unknowns) and the text of the price-ranked instance choice (`gpukb query
--cheapest`, `gpukb ask "the cheapest instance that ..."`). Each ``--json`` prints the API's object
(GET /v1/gpus[/<id>], /v1/instances[/<id>], /v1/models[/<id>], POST /v1/cheapest)."""
from __future__ import annotations

import argparse
from typing import Any, Callable

from gpukb.engine import models as m

from .cli_flags import json_flag, kb_version_flag
from .cli_render import print_json

#: command -> (entity kind, list answer name, entry answer name)
COMMANDS = {"gpus": ("gpu", "gpus", "gpu"), "instances": ("instance", "instances", "instance"),
            "models": ("model", "models", "model")}


def add_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The three listing commands, declared with the CLI's own ``command(name, help)``."""
    p = command("gpus", "list the GPUs the KB knows, or one GPU with every fact, its citation and the unknowns")
    p.add_argument("name", nargs="?", help="a GPU (e.g. T4): every fact of it")
    kb_version_flag(p)
    json_flag(p)
    p = command("instances", "list the instance sizes the KB knows (with prices), or one size with every fact")
    p.add_argument("name", nargs="?", help="an instance size (e.g. GN7.2XLARGE32): every fact of it")
    p.add_argument("--provider", metavar="P", help="only this cloud provider's sizes (aws, tencent, alibaba, gcp)")
    p.add_argument("--gpu", metavar="G", help="only sizes carrying this GPU (A100 takes both memory sizes)")
    kb_version_flag(p)
    json_flag(p)
    p = command("models", "list the models the KB knows, or one model with every fact")
    p.add_argument("name", nargs="?", help="a model (e.g. llama-2-7b): every fact of it")
    kb_version_flag(p)
    json_flag(p)


def run(kb: Any, args: argparse.Namespace) -> int:
    kind = COMMANDS[args.command][0]
    if args.name:
        if getattr(args, "provider", None) or getattr(args, "gpu", None):
            from gpukb.engine.core.errors import BadInput
            raise BadInput("--provider and --gpu filter the list; give them without a NAME")
        d = kb.catalog_entry(kind, args.name, kb_version=args.kb_version)
        print_json(d) if args.json else print(render_entry(d))
        return 0
    filters = {"provider": args.provider, "gpu": args.gpu} if kind == "instance" else {}
    d = kb.catalog(kind, kb_version=args.kb_version, **filters)
    print_json(d) if args.json else print(render_list(kind, d))
    return 0


# -- text -----------------------------------------------------------------------------------------------

def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()      # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def price_text(p: Any) -> str:
    if p is None:
        return "-"
    p = m.to_json(p)
    where = ", ".join(x for x in (p.get("region"), p.get("as_of")) if x)
    return f"{p['value']:g} {p['currency']}/h" + (f" ({where})" if where else "")


def render_list(kind: str, d: Any) -> str:
    j = m.to_json(d)
    if kind == "gpu":
        cols = ("architecture", "memory_gb", "memory_type", "memory_bandwidth", "bf16_tensor_tflops", "fp8_tensor_tflops",
                "tdp_w", "launch_year")
        rows = [[g["name"] + (" (" + "/".join(g["variants"]) + ")" if g.get("variants") else "")]
                + [g["specs"].get(c, "-") for c in cols] + [f"{g['facts']}/{g['unknowns']}"] for g in j["gpus"]]
        head = ["GPU", "arch", "memory", "type", "bandwidth", "BF16 TFLOPS", "FP8 TFLOPS", "power", "year", "facts/unknowns"]
        return table(head, rows) + f"\n{len(rows)} GPUs (release {j['kb_version']}); `gpukb gpus NAME` for every fact"
    if kind == "instance":
        rows = [[i["name"], i["provider"] or "-", i["family"] or "-", "/".join(i["gpu"]) or "-",
                 i["specs"].get("gpu_count", "-"), i["specs"].get("vcpu", "-"), i["specs"].get("host_memory_gb", "-"),
                 price_text(i["prices"][0]) if i["prices"] else "not published in the KB"] for i in j["instances"]]
        head = ["instance", "provider", "family", "GPU", "GPUs", "vCPU", "host memory", "price"]
        return table(head, rows) + f"\n{len(rows)} instance sizes (release {j['kb_version']})"
    rows = [[x["name"], x["label"]] + [x["specs"].get(c, "-") for c in ("params", "layers", "hidden_size", "heads", "kv_heads")]
            for x in j["models"]]
    return table(["model", "name", "params", "layers", "hidden", "heads", "kv heads"], rows) + \
        f"\n{len(rows)} models (release {j['kb_version']})"


def render_entry(d: Any) -> str:
    j = m.to_json(d)
    lines = [f"{j['label']} ({j['id']}, release {j['kb_version']})"]
    if j.get("provider") or j.get("gpu"):
        lines.append(f"provider {j.get('provider') or '-'}, family {j.get('family') or '-'}, GPU {'/'.join(j.get('gpu') or []) or '-'}")
    if j["kind"] == "instance":
        lines.append("price: " + ("; ".join(price_text(p) for p in j["prices"]) or j.get("price_note", "-")))
    lines.append(f"{j['fact_count']} facts:")
    for f in j["facts"]:
        q = f" {f['qualifiers']}" if f["qualifiers"] else ""
        via = f" (of {f['via']})" if f.get("via") else ""
        lines.append(f"  {f['attribute']}{q}: {f['text']}{via} [{f['citation']}]")
    if j["unknowns"]:
        lines.append(f"{j['unknown_count']} unknowns:")
        lines += [f"  {u['attribute']}: {u['kind'].replace('_', ' ')}: {u['reason']} [{u['citation']}]" for u in j["unknowns"]]
    if j.get("missing"):
        lines.append("neither a fact nor a recorded unknown: " + ", ".join(j["missing"]))
    if j.get("instances"):
        lines.append("instance sizes carrying it: " + ", ".join(j["instances"]))
    return "\n".join(lines)


def render_price_choice(a: Any, lang: str = "en") -> str:
    """The price-ranked instance choice: the answer, then each fitting size with its price."""
    j = m.to_json(a)
    lines = [j["answer"]]
    rows = [[o["instance"], o.get("provider") or "-", "/".join(o["gpu"]) or "-", str(o.get("gpus") or "-"),
             price_text(o["prices"][0]) if o["prices"] else ("未公开" if lang == "zh" else "not published in the KB")]
            for o in j.get("ranked") or []]
    if rows:
        lines += ["", table(["instance", "provider", "GPU", "GPUs", "price"], rows)]
    if j.get("note"):
        lines.append(j["note"].get(lang) or j["note"].get("en", ""))
    lines.append(f"{len(j.get('not_fitting') or [])} other sizes do not fit.")
    return "\n".join(lines)
