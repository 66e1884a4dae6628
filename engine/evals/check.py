"""`gpukb eval check`: the checker on statements nobody tuned it on (kb/gold/check.yaml).

Each gold statement lists the claims a careful reader takes from it and the status each deserves,
written from the vendors' documents. A gold claim is *found* when the checker extracts a claim with
the same subject (a family and the one GPU it carries count as one, as the audit reads them) and
attribute (a memory and a suitability verdict count as one), and *right* when that claim also gets the
gold status. Extracted claims that match no gold claim are counted as extra; a statement with nothing
checkable should yield none.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..core.errors import BadInput, Issue
from ..core.terms import FINDING_KINDS
from ..core.yamlio import load_file
from ..text.check import audit_claims, claims_of, text_id
from .extract import carries

VERDICTS = ("memory_verdict", "suitability")


def load_gold(path: str | Path) -> list[dict[str, Any]]:
    data = load_file(path)
    items = (data or {}).get("statements") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise BadInput(f"{path}: expected a mapping with a 'statements' list")
    out = []
    for i, st in enumerate(items):
        where = f"{path}: statements[{i}]"
        if not isinstance(st, dict) or not isinstance(st.get("text"), str) or not isinstance(st.get("expect") or [], list):
            raise BadInput(f"{where}: expected text and an expect list")
        for e in st.get("expect") or []:
            if not isinstance(e, dict) or e.get("status") not in FINDING_KINDS or not e.get("subject") or not e.get("attribute"):
                raise BadInput(f"{where}: each expected claim needs subject, attribute and a known status",
                               [Issue("bad expected claim", field="expect", allowed=list(FINDING_KINDS))])
        out.append({"text": st["text"], "lang": st.get("lang"), "expect": list(st.get("expect") or [])})
    return out


def _same_subject(gold: str, got: str, view) -> bool:
    if gold == got:
        return True
    vocab = view.kb.vocab
    # one GPU's generic name and its variant's are one subject; two different variants are not (a claim about the
    # 80 GB card is not the labeller's claim about the 40 GB one)
    generic = vocab.generic(gold)
    return carries(view, gold, got) or (generic == vocab.generic(got) and gold.startswith("gpu:") and generic in (gold, got))


#: attributes that state one fact in two ways: the host interface "PCIe 4.0" states the PCIe generation
SAME_FACT = ({"host_link", "pcie_generation"}, {"fp16_tensor_tflops", "bf16_tensor_tflops"})


def _same_attribute(a: str, b: str) -> bool:
    return a == b or (a in VERDICTS and b in VERDICTS) or any({a, b} <= pair for pair in SAME_FACT)


def evaluate(state, gold: list[dict[str, Any]], kb_version: str | None = None) -> dict[str, Any]:
    view = state.view(kb_version)
    per_status: dict[str, Counter] = defaultdict(Counter)
    per_lang: dict[str, Counter] = defaultdict(Counter)
    misses, wrong, extra = [], [], []
    totals = Counter()
    for st in gold:
        claims, _, lang = claims_of(st["text"], text_id(st["text"], view.name), view, st.get("lang"))
        res = audit_claims(state, view, claims)
        lang = st.get("lang") or lang
        used: set[str] = set()
        for e in st["expect"]:
            totals["expected"] += 1
            per_status[e["status"]]["n"] += 1
            per_lang[lang]["n"] += 1
            hit = next((c for c in claims if c.id not in used and _same_attribute(e["attribute"], c.attribute)
                        and _same_subject(e["subject"], c.subject, view)), None)
            if hit is None:
                misses.append({"text": st["text"], **e})
                continue
            used.add(hit.id)
            got = res.status_of(hit.id)["status"]
            totals["found"] += 1
            per_status[e["status"]]["found"] += 1
            per_lang[lang]["found"] += 1
            if got == e["status"]:
                totals["right"] += 1
                per_status[e["status"]]["right"] += 1
                per_lang[lang]["right"] += 1
            else:
                wrong.append({"text": st["text"], **e, "got": got, "claim": f"{hit.subject} {hit.attribute} = {hit.value_text(view.kb.vocab)}"})
        for c in claims:
            if c.id not in used:
                totals["extra"] += 1
                extra.append({"text": st["text"], "subject": c.subject, "attribute": c.attribute,
                              "value": c.value_text(view.kb.vocab), "status": res.status_of(c.id)["status"]})
    n = totals["expected"] or 1
    return {"kb_version": view.name, "statements": len(gold), "expected": totals["expected"],
            "found": totals["found"], "right": totals["right"], "extra": totals["extra"],
            "found_rate": totals["found"] / n, "accuracy": totals["right"] / n,
            "accuracy_when_found": totals["right"] / totals["found"] if totals["found"] else 0.0,
            "per_status": {k: dict(v) for k, v in sorted(per_status.items())},
            "per_lang": {k: dict(v) for k, v in sorted(per_lang.items())},
            "missed": misses, "wrong": wrong, "extra_claims": extra}


def report_text(rep: dict[str, Any], verbose: bool = False) -> str:
    pct = lambda a, b: f"{100 * a / b:5.1f}%" if b else "   - "  # noqa: E731
    lines = [f"check gold set: {rep['statements']} statements, {rep['expected']} expected claims",
             f"  found (extracted)      {pct(rep['found'], rep['expected'])}  ({rep['found']}/{rep['expected']})",
             f"  right status           {pct(rep['right'], rep['expected'])}  ({rep['right']}/{rep['expected']}; "
             f"{pct(rep['right'], rep['found']).strip()} of those found)",
             f"  extra claims           {rep['extra']}", "", f"  {'gold status':30} {'n':>4} {'found':>7} {'right':>7}"]
    for k, c in rep["per_status"].items():
        lines.append(f"  {k:30} {c.get('n', 0):4d} {pct(c.get('found', 0), c.get('n', 0)):>7} {pct(c.get('right', 0), c.get('n', 0)):>7}")
    for k, c in rep["per_lang"].items():
        lines.append(f"  lang {k:25} {c.get('n', 0):4d} {pct(c.get('found', 0), c.get('n', 0)):>7} {pct(c.get('right', 0), c.get('n', 0)):>7}")
    if verbose:
        lines.append("  missed:")
        lines += [f"    {m['subject']} {m['attribute']} ({m['status']})  \u201c{m['text'][:70]}\u201d" for m in rep["missed"]]
        lines.append("  wrong status:")
        lines += [f"    {w['claim']}: gold {w['status']}, got {w['got']}  \u201c{w['text'][:70]}\u201d" for w in rep["wrong"]]
        lines.append("  extra:")
        lines += [f"    {x['subject']} {x['attribute']} = {x['value']} ({x['status']})  \u201c{x['text'][:70]}\u201d" for x in rep["extra_claims"]]
    return "\n".join(lines)
