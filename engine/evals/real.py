"""`gpukb eval real`: the checker on passages copied from public web pages (kb/gold/real/).

Each passage file holds the verbatim text, its URL, a fixed ``split`` (dev or heldout, chosen by site
before gpukb ever ran on it) and every checkable claim a careful reader takes from it, labelled
true / false / debatable from the vendors' documents, with ``in_domain`` saying whether gpukb's
vocabulary has the claim's subject and attribute. Per split the report gives:

- error recall: false in-domain claims that the checker found and gave a negative status;
- flag precision: negative statuses that fall on a false gold claim (a negative status on a true
  claim, or on a claim the text does not make, is a wrong flag; one on a debatable claim counts for
  neither side);
- noise: reported claims that match no gold claim;
- coverage: in-domain gold claims the checker found, whatever status it gave;
- wrong supported: ``supported`` statuses that fall on a false gold claim.

A reported claim matches a gold claim when the subject (or the GPU a family carries) and the
attribute agree and the reported span overlaps the gold quote.

Two more parts measure the same on spec sentences (kb/gold/spec_check_dev*.yaml, part ``spec-dev``, and the
held-out kb/gold/spec_check.yaml, part ``spec``): one sentence each, with the claims a careful reader takes
from it and the status each deserves. There a reported claim matches an expected one by subject and
attribute (no spans), and the report adds ``right``: expected claims judged right (``supported`` for a true
one; any negative status for a false one), and ``exact`` (the very status expected).

The labeller wrote ``unknown:<name>`` for products the vocabulary lacked when the set was made; such a
name is resolved through the vocabulary's aliases as it is now, and ``in_domain`` is recomputed (the
subject is an entity and the attribute one that applies to its kind), so a growing vocabulary is
measured on the claims it can now check.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ..core.errors import BadInput, Issue
from ..core.yamlio import load_file
from ..text.bands import error_bands
from ..text.check import WRONG, audit_claims, claims_of, judged, reader, text_id
from ..text.workload import METHOD_CONCEPT
from .check import _same_attribute, _same_subject

SPLITS = ("dev", "heldout")
#: the spec-sentence parts and their gold files under kb/gold/ (dev first; ``spec`` is held out)
#: the spec parts and the gold files (glob patterns under kb/gold/) each part reads, in name order
SPEC_PARTS = {"spec-dev": "spec_check_dev*.yaml", "spec": "spec_check.yaml"}
PARTS = SPLITS + tuple(SPEC_PARTS)
#: the parts whose rows (wrong flags, misses) may be shown: never a held-out one
DEV_PARTS = ("dev", "spec-dev")
LABELS = ("true", "false", "debatable")
GOALS = {"flag_precision": (">=", 0.90), "error_recall": (">=", 0.60), "noise": ("<=", 0.10),
         "coverage": (">=", 0.60), "wrong_supported": ("<=", 0.02), "right": (">=", 0.90), "exact": (">=", 0.90)}


def _label(raw: Any) -> str | None:
    if raw is True:
        return "true"
    if raw is False:
        return "false"
    return raw if raw in LABELS else None


def load_gold(folder: str | Path) -> list[dict[str, Any]]:
    """The passages of a gold folder, validated (the error names the file and what is wrong)."""
    folder = Path(folder)
    files = sorted(folder.glob("*.yaml"))
    if not files:
        raise BadInput(f"{folder}: no passage files (*.yaml)", [Issue("no passages", field="gold")])
    out = []
    for f in files:
        d = load_file(f)
        where = str(f)
        if not isinstance(d, dict) or not isinstance(d.get("text"), str) or d.get("split") not in SPLITS:
            raise BadInput(f"{where}: expected a mapping with text and split (dev or heldout)",
                           [Issue("bad passage", file=where, field="split", allowed=list(SPLITS))])
        claims = []
        for i, c in enumerate(d.get("claims") or []):
            label = _label(c.get("label")) if isinstance(c, dict) else None
            if label is None or not isinstance(c.get("quote"), str):
                raise BadInput(f"{where}: claims[{i}] needs a quote and a label",
                               [Issue("bad claim", file=where, field="label", allowed=list(LABELS))])
            start = d["text"].find(c["quote"])
            if start < 0:
                raise BadInput(f"{where}: claims[{i}]'s quote is not in the text: {c['quote'][:60]!r}",
                               [Issue("quote not in text", file=where, field="quote")])
            claims.append({**c, "label": label, "span": (start, start + len(c["quote"])),
                           "in_domain": bool(c.get("in_domain"))})
        out.append({"id": d.get("id") or f.stem, "url": d.get("url"), "lang": d.get("lang"), "split": d["split"],
                    "text": d["text"], "claims": claims})
    return out


def resolve(gold: dict[str, Any], vocab) -> dict[str, Any]:
    """The gold claim with its subject resolved in today's vocabulary and ``in_domain`` recomputed."""
    subject = str(gold.get("subject") or "")
    if subject.startswith("unknown:"):
        subject = vocab.aliases().get(subject.split(":", 1)[1].strip().lower(), subject)
    kind = vocab.kind_of(subject)
    spec = vocab.attributes.get(str(gold.get("attribute")))
    return {**gold, "subject": subject, "in_domain": bool(kind and spec and kind in spec.applies_to)}


#: the labeller's subjects for one method's memory (a concept, or the method itself), and the method each is of:
#: gpukb states such a requirement about the concept of the method's kind of training (METHOD_CONCEPT:
#: "concept:llm-peft" for LoRA and QLoRA), or about the model it names, with the method as a qualifier: the same claim
METHOD_MEMORY = {"concept:qlora-memory": "qlora", "concept:lora-memory": "lora", "method:qlora": "qlora",
                 "method:lora": "lora", "method:full": "full", "method:inference": "inference"}


def _method_memory(gold: dict[str, Any], c) -> bool:
    """Whether gold's subject is one method's memory (``METHOD_MEMORY``) and claim ``c`` states that method's
    memory about the concept gpukb uses for it; or ``c`` is a model's need with the method left open
    ("concept:model-memory") and gold states it about a memory concept or a method (the labeller's reading
    of the method: the same statement)."""
    if c.subject == "concept:model-memory":
        g = str(gold.get("subject"))
        return g in METHOD_MEMORY or g.startswith(("method:", "model:")) or \
            (g.startswith("concept:") and g.endswith("-memory"))
    method = METHOD_MEMORY.get(str(gold.get("subject")))
    return method is not None and (c.subject == METHOD_CONCEPT.get(method) or c.subject.startswith("model:")) \
        and (c.qualifiers or {}).get("method") == f"method:{method}"


def _sized_gpu(gold: dict[str, Any], c, view) -> bool:
    """Whether claim ``c`` gives an instance a GPU variant named by its size ("p4d.24xlarge: 8× A100 80GB") and gold
    labels the same words as that instance's memory per card (``memory_gb``) of that size: one statement."""
    value, vocab = c.value if isinstance(c.value, list) else [], view.kb.vocab
    if gold.get("attribute") != "memory_gb" or c.attribute != "gpu" or len(value) != 1 or vocab.generic(str(value[0])) == value[0]:
        return False
    try:                            # a spec sentence's expectation gives no value: the variant is named by a size
        sized = gold.get("value") is None or vocab.names_size(str(value[0]), float(gold["value"]))
    except (TypeError, ValueError):
        return False
    return sized and _same_subject(str(gold.get("subject")), c.subject, view)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def evaluate(state, passages: list[dict[str, Any]], kb_version: str | None = None,
             splits: tuple[str, ...] = SPLITS, spec: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """The five measures per split (see the module docstring), with the rows behind each miss; ``spec``
    maps a spec part's name to its statements (:func:`load_spec`), measured after the passages."""
    view = state.view(kb_version)
    bands = error_bands(state, view)                # the check's error bands, as `gpukb check` reads them
    report: dict[str, Any] = {"kb_version": view.name, "splits": {}}
    for split in splits:
        if split in SPEC_PARTS:
            if spec and split in spec:
                report["splits"][split] = _evaluate_spec(state, view, spec[split], split in DEV_PARTS, bands)
            continue
        n = Counter()
        rows: list[dict[str, Any]] = []
        for p in (x for x in passages if x["split"] == split):
            n["passages"] += 1
            guards = reader(p["text"], view)
            claims, _, _ = claims_of(p["text"], text_id(p["text"], view.name), view, p.get("lang"), guards)
            res = audit_claims(state, view, claims)
            status = {cid: st["status"] for cid, st in judged(p["text"], view, claims, res, guards, bands).items()}
            gold = [resolve(g, view.kb.vocab) for g in p["claims"] if g["label"] in LABELS]
            matched_gold: dict[int, list[str]] = {}
            for c in claims:
                span = tuple(c.span or (0, 0))
                hits = [i for i, g in enumerate(gold) if _overlaps(span, g["span"])
                        and ((_same_attribute(str(g.get("attribute")), c.attribute)
                              and (_same_subject(str(g.get("subject")), c.subject, view) or _method_memory(g, c)))
                             or _sized_gpu(g, c, view))]
                st = status[c.id]
                n["reported"] += 1
                labels = {gold[i]["label"] for i in hits}
                if not hits:
                    n["noise"] += 1
                    rows.append({"passage": p["id"], "kind": "noise", "quote": c.quote, "subject": c.subject,
                                 "attribute": c.attribute, "got": [st]})
                for i in hits:
                    matched_gold.setdefault(i, []).append(st)
                if st in WRONG:
                    n["flags"] += 1
                    if "false" in labels:
                        n["right_flags"] += 1
                    elif labels == {"debatable"}:
                        n["neutral_flags"] += 1
                    else:
                        rows.append({"passage": p["id"], "kind": "wrong_flag", "quote": c.quote, "subject": c.subject,
                                     "attribute": c.attribute, "status": st, "gold": sorted(labels) or ["not in the text"]})
                if st == "supported":
                    n["supported"] += 1
                    if "false" in labels:
                        n["wrong_supported"] += 1
                        rows.append({"passage": p["id"], "kind": "wrong_supported", "quote": c.quote,
                                     "subject": c.subject, "attribute": c.attribute})
            for i, g in enumerate(gold):
                if not g["in_domain"]:
                    continue
                n["in_domain"] += 1
                got = matched_gold.get(i)
                if got:
                    n["covered"] += 1
                elif g["label"] != "false":     # a false one is listed as a missed error below
                    rows.append({"passage": p["id"], "kind": "not_found", "quote": g["quote"],
                                 "subject": g.get("subject"), "attribute": g.get("attribute")})
                if g["label"] == "false":
                    n["false_in_domain"] += 1
                    if got and any(s in WRONG for s in got):
                        n["caught"] += 1
                    else:
                        rows.append({"passage": p["id"], "kind": "missed_error", "quote": g["quote"],
                                     "subject": g.get("subject"), "attribute": g.get("attribute"),
                                     "got": got or ["not found"]})
        measures = {
            "flag_precision": _ratio(n["right_flags"], n["flags"] - n["neutral_flags"]),
            "error_recall": _ratio(n["caught"], n["false_in_domain"]),
            "noise": _ratio(n["noise"], n["reported"]),
            "coverage": _ratio(n["covered"], n["in_domain"]),
            "wrong_supported": _ratio(n["wrong_supported"], n["supported"]),
        }
        report["splits"][split] = {"counts": dict(n), "measures": measures,
                                   "goals_met": {k: _meets(k, v) for k, v in measures.items()},
                                   "rows": rows if split in DEV_PARTS else []}
    return report


def spec_files(gold_dir: str | Path, part: str) -> list[Path]:
    """The gold files of spec part ``part`` under ``gold_dir`` (:data:`SPEC_PARTS`), in name order."""
    return sorted(Path(gold_dir).glob(SPEC_PARTS[part]))


def load_spec(path: str | Path) -> list[dict[str, Any]]:
    """The statements of a spec-check gold file (the format of ``gpukb eval check``'s gold)."""
    from .check import load_gold as load_statements
    return load_statements(path)


def _evaluate_spec(state, view, statements: list[dict[str, Any]], show_rows: bool, bands) -> dict[str, Any]:
    """The measures of one spec part: each statement checked alone, its claims matched to the expected
    ones by subject and attribute."""
    n = Counter()
    rows: list[dict[str, Any]] = []
    for st in statements:
        n["passages"] += 1
        text = st["text"]
        guards = reader(text, view)
        claims, _, _ = claims_of(text, text_id(text, view.name), view, st.get("lang"), guards)
        res = audit_claims(state, view, claims)
        status = {cid: s["status"] for cid, s in judged(text, view, claims, res, guards, bands).items()}
        got_for: dict[int, str] = {}
        expected_of: dict[str, dict[str, Any]] = {}
        for i, e in enumerate(st["expect"]):
            hit = next((c for c in claims if c.id not in expected_of and ((_same_attribute(e["attribute"], c.attribute)
                        and _same_subject(e["subject"], c.subject, view)) or _sized_gpu(e, c, view))), None)
            if hit is not None:
                expected_of[hit.id] = e
                got_for[i] = status[hit.id]
        for c in claims:
            st_c = status[c.id]
            n["reported"] += 1
            e = expected_of.get(c.id)
            if e is None:
                n["noise"] += 1
                rows.append({"passage": text[:60], "kind": "noise", "quote": c.quote, "subject": c.subject,
                             "attribute": c.attribute, "got": [st_c]})
            if st_c in WRONG:
                n["flags"] += 1
                if e is not None and e["status"] in WRONG:
                    n["right_flags"] += 1
                else:
                    rows.append({"passage": text[:60], "kind": "wrong_flag", "quote": c.quote, "subject": c.subject,
                                 "attribute": c.attribute, "status": st_c,
                                 "gold": [e["status"]] if e else ["not in the text"]})
            if st_c == "supported":
                n["supported"] += 1
                if e is not None and e["status"] in WRONG:
                    n["wrong_supported"] += 1
                    rows.append({"passage": text[:60], "kind": "wrong_supported", "quote": c.quote,
                                 "subject": c.subject, "attribute": c.attribute})
        for i, e in enumerate(st["expect"]):
            n["in_domain"] += 1
            got = got_for.get(i)
            negative = e["status"] in WRONG
            if got is not None:
                n["covered"] += 1
            if negative:
                n["false_in_domain"] += 1
                if got in WRONG:
                    n["caught"] += 1
            right = got == e["status"] or (negative and got in WRONG)
            n["right"] += bool(right)
            n["exact"] += got == e["status"]
            if not right:
                rows.append({"passage": text[:60], "kind": "missed_error" if negative else "not_supported",
                             "quote": text, "subject": e["subject"], "attribute": e["attribute"],
                             "got": [got or "not found"], "expected": e["status"]})
    measures = {
        "flag_precision": _ratio(n["right_flags"], n["flags"]),
        "error_recall": _ratio(n["caught"], n["false_in_domain"]),
        "noise": _ratio(n["noise"], n["reported"]),
        "coverage": _ratio(n["covered"], n["in_domain"]),
        "wrong_supported": _ratio(n["wrong_supported"], n["supported"]),
        "right": _ratio(n["right"], n["in_domain"]),
        "exact": _ratio(n["exact"], n["in_domain"]),
    }
    return {"counts": dict(n), "measures": measures, "goals_met": {k: _meets(k, v) for k, v in measures.items()},
            "rows": rows if show_rows else []}


def _ratio(a: int, b: int) -> float | None:
    return None if b <= 0 else round(a / b, 4)


def _meets(name: str, value: float | None) -> bool | None:
    if value is None:
        return None
    op, goal = GOALS[name]
    return value >= goal if op == ">=" else value <= goal


def report_text(report: dict[str, Any], verbose: bool = False) -> str:
    """The per-part table; with ``verbose`` the dev parts' wrong flags, wrong supported, misses, in-domain
    claims not found, and noise (claims reported that match no gold claim)."""
    lines = [f"gpukb eval real (release {report['kb_version']}): passages copied from public pages, labelled "
             "from vendor documents before gpukb ran"]
    for split, r in report["splits"].items():
        c = r["counts"]
        if split in SPEC_PARTS:
            lines.append(f"\n{split}: {c.get('passages', 0)} spec sentences{' (held out)' if split not in DEV_PARTS else ''}, "
                         f"{c.get('reported', 0)} claims reported, {c.get('in_domain', 0)} expected claims "
                         f"({c.get('false_in_domain', 0)} false)")
        else:
            lines.append(f"\n{split}: {c.get('passages', 0)} passages, {c.get('reported', 0)} claims reported, "
                         f"{c.get('in_domain', 0)} in-domain gold claims ({c.get('false_in_domain', 0)} false)")
        for name, value in r["measures"].items():
            op, goal = GOALS[name]
            shown = "n/a" if value is None else f"{value:.1%}"
            met = {True: "met", False: "NOT met", None: ""}[r["goals_met"][name]]
            label = {"right": "judged right", "exact": "exact status"}.get(name, name.replace('_', ' '))
            lines.append(f"  {label:<16} {shown:>7}   goal {op} {goal:.0%}  {met}")
        if verbose and r["rows"]:
            lines.append(f"  {split} rows:")
            for row in r["rows"]:
                got = f" got {row['got']}" if row.get("got") else ""
                lines.append(f"    [{row['kind']}] {row['passage'][:24]} {row.get('subject')} {row.get('attribute')}{got}: "
                             f"{row['quote'][:90]!r}")
    return "\n".join(lines)
