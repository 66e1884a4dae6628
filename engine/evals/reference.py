"""`gpukb eval reference`: the reference tier against an independent gold of vendor facts
(kb/gold/reference.yaml: facts with subject, attribute, value, unit, qualifiers and citation, written
from the vendors' documents without reading the tier).

A gold fact *agrees* when the tier states the same subject and attribute (scoped alike: a with-sparsity
figure is compared with a with-sparsity figure) with a value that matches once both are in the
attribute's canonical unit, within the rounding of either value as written (1.98 TB/s agrees with
1979 GB/s; 16 GiB with 17.18 GB). It is *missing* when the tier has no fact for it (the subject unknown
to the vocabulary, no fact at all, or a value recorded as not published) and a *disagreement*
otherwise; every disagreement is listed with both values and both citations. The gold is never changed
to agree.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from ..core.errors import BadInput
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval
from ..core.yamlio import load_file

#: gold qualifiers that scope a figure the tier must scope the same way (absent = false / unscoped)
SCOPING = ("sparsity",)


def load_gold(path: str | Path) -> list[dict[str, Any]]:
    data = load_file(path)
    facts = (data or {}).get("facts") if isinstance(data, dict) else None
    if not isinstance(facts, list):
        raise BadInput(f"{path}: expected a mapping with a 'facts' list")
    out = []
    for i, f in enumerate(facts):
        if not isinstance(f, dict) or not f.get("subject") or not f.get("attribute") or "value" not in f:
            raise BadInput(f"{path}: facts[{i}] needs subject, attribute and value")
        out.append({**f, "index": i, "qualifiers": dict(f.get("qualifiers") or {})})
    return out


def _decimals_tolerance(value: Any) -> float:
    """Half a unit of the last digit written ("1.98" -> 0.005, "16" -> 0.5)."""
    text = str(value).strip()
    m = re.match(r"^[-+]?\d+(?:\.(\d+))?", text)
    if not m:
        return 0.0
    try:
        Decimal(m.group(0))
    except InvalidOperation:
        return 0.0
    return 0.5 * 10 ** -(len(m.group(1) or ""))


def _norm_text(v: Any) -> str:
    return re.sub(r"[\s\-_]+", " ", str(v).split(":", 1)[-1] if isinstance(v, str) else str(v)).strip().lower()


def _tier_quantity(f: Fact, vocab: Any) -> tuple[Interval | None, float]:
    dim = vocab.attributes[f.attribute].dimension
    factor = vocab.unit_factor(dim, f.unit) or 1.0
    return (f.norm if isinstance(f.norm, Interval) else None), _decimals_tolerance(f.value) * factor


def compare(gold: dict[str, Any], f: Fact, vocab: Any) -> tuple[bool, str | None]:
    """(agrees, why not / a note) for one gold fact and one tier fact of the same subject and attribute."""
    attr = vocab.attributes[gold["attribute"]]
    gv = gold["value"]
    if attr.type == "quantity":
        iv, issues = vocab.parse_quantity(gv, gold.get("unit"), attr.dimension, {})
        if iv is None:
            return False, "the gold value does not parse: " + "; ".join(i.message for i in issues)
        tv, ttol = _tier_quantity(f, vocab)
        if tv is None:
            return False, "the tier value is not a quantity"
        gtol = _decimals_tolerance(gv) * (vocab.unit_factor(attr.dimension, gold.get("unit")) or 1.0)
        tol = max(gtol, ttol) + 1e-9 * max(abs(iv.point() or 0), 1)
        glo, ghi = iv.lo, iv.hi
        tlo, thi = tv.lo, tv.hi
        if glo is None or ghi is None or tlo is None or thi is None:        # a bound: compare the limits
            same = (glo is None) == (tlo is None) and (ghi is None) == (thi is None)
            ok = same and all(abs(a - b) <= tol for a, b in ((glo, tlo), (ghi, thi)) if a is not None and b is not None)
        else:
            ok = glo - tol <= thi and tlo - tol <= ghi if (glo != ghi or tlo != thi) else abs(glo - tlo) <= tol
        if not ok and gold.get("unit") in ("GiB", "GB") and f.unit in ("GiB", "GB") and gold.get("unit") != f.unit:
            swapped = vocab.parse_quantity(gv, f.unit, attr.dimension, {})[0]
            if swapped is not None and abs((swapped.point() or 0) - (tv.point() or 0)) <= tol:
                return False, f"the numbers match but the units differ (gold {gold.get('unit')}, tier {f.unit})"
        return ok, None
    if attr.type == "boolean":
        return (isinstance(gv, bool) and gv is f.value), None
    if attr.type in ("entity", "entities"):
        gold_set = set(gv if isinstance(gv, list) else [gv])
        tier_set = set(f.value if isinstance(f.value, list) else [f.value])
        generic = {vocab.generic(x) for x in tier_set}
        return bool(gold_set) and all(g in tier_set or g in generic for g in gold_set), None
    return _norm_text(gv) == _norm_text(f.value), None


def _candidates(view: ReleaseView, gold: dict[str, Any]) -> list[Fact]:
    vocab = view.kb.vocab
    subj, attr = gold["subject"], gold["attribute"]
    subjects = [subj] + ([vocab.generic(subj)] if vocab.generic(subj) != subj else [])
    found = []
    for s in subjects:
        found = [f for f in view.by_subject_attr.get((s, attr), []) if f.tier == "reference"]
        if found:
            break
    want = {k: bool(gold["qualifiers"].get(k)) for k in SCOPING}
    return [f for f in found if all(bool(f.qualifiers.get(k)) == v for k, v in want.items())]


def _scoped(cands: list[Fact], gold: dict[str, Any]) -> list[Fact]:
    """The candidates scoped like the gold fact (a form factor or variant it names), else all of them."""
    quals = {k: v for k, v in gold["qualifiers"].items() if k not in SCOPING}
    if not quals:
        unq = [f for f in cands if not set(f.qualifiers) - {"region", "as_of"}]
        return unq or cands
    words = [_norm_text(v) for v in quals.values()]
    scoped = [f for f in cands if any(w and (w in _norm_text(q) or _norm_text(q) in w)
                                      for w in words for q in f.qualifiers.values() if isinstance(q, str))]
    return scoped or cands


def evaluate(state: Any, gold: list[dict[str, Any]], kb_version: str | None = None) -> dict[str, Any]:
    view = state.view(kb_version)
    vocab, kb = view.kb.vocab, view.kb
    agree, missing, disagree = [], [], []
    for g in gold:
        item = {"subject": g["subject"], "attribute": g["attribute"], "value": g["value"], "unit": g.get("unit"),
                "qualifiers": g["qualifiers"], "gold_citation": g.get("citation")}
        if g["subject"] not in vocab.entities:
            # the gold may name a product by another of its names (an alias the vendor also uses)
            kind, _, name = g["subject"].partition(":")
            found = vocab.aliases().get(name.lower())
            if found is None or not found.startswith(kind + ":"):
                missing.append({**item, "reason": "the subject is not in the vocabulary"})
                continue
            g = {**g, "subject": found}
        if g["attribute"] not in vocab.attributes:
            missing.append({**item, "reason": "the attribute is not in the vocabulary"})
            continue
        cands = _scoped(_candidates(view, g), g)
        if not cands:
            unk = [u for u in kb.unknowns if u.subject in (g["subject"], vocab.generic(g["subject"]))
                   and u.attribute == g["attribute"]]
            reason = f"recorded as {unk[0].kind}: {unk[0].reason}" if unk else "no tier fact"
            missing.append({**item, "reason": reason})
            continue
        results = [(f, *compare(g, f, vocab)) for f in cands]
        hit = next((r for r in results if r[1]), None)
        if hit is not None:
            agree.append({**item, "tier": hit[0].key})
            continue
        f, _, note = results[0]
        disagree.append({**item, "tier": [{"id": x.key, "value": x.value, "unit": x.unit, "text": x.value_text(vocab),
                                            "qualifiers": {k: (v.as_dict() if isinstance(v, Interval) else v)
                                                           for k, v in x.qualifiers.items()},
                                            "citation": x.citation} for x, _, _ in results],
                         **({"note": note} if note else {})})
    compared = len(agree) + len(disagree)
    total = len(gold)
    return {
        "kb_version": view.name, "gold": total, "compared": compared,
        "agree": len(agree), "missing": len(missing), "disagree": len(disagree),
        "agreement": round(len(agree) / compared, 4) if compared else None,
        "agreement_of_all": round(len(agree) / total, 4) if total else None,
        "coverage": round(compared / total, 4) if total else None,
        "disagreements": disagree, "missing_facts": missing,
        "by_attribute": _by_attribute(agree, missing, disagree),
    }


def _by_attribute(agree, missing, disagree) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for name, items in (("agree", agree), ("missing", missing), ("disagree", disagree)):
        for x in items:
            out.setdefault(x["attribute"], {"agree": 0, "missing": 0, "disagree": 0})[name] += 1
    return dict(sorted(out.items()))


def _value(v: Any, unit: Any) -> str:
    return f"{v}{' ' + str(unit) if unit else ''}"


def report_text(r: dict[str, Any], verbose: bool = True) -> str:
    pct = lambda x: "n/a" if x is None else f"{100 * x:.1f}%"      # noqa: E731
    lines = [f"reference tier vs kb/gold/reference.yaml (release {r['kb_version']}): {r['gold']} gold facts",
             f"  agreement {pct(r['agreement'])} of the {r['compared']} compared ({r['agree']} agree, {r['disagree']} disagree); "
             f"{r['missing']} missing (coverage {pct(r['coverage'])}; {pct(r['agreement_of_all'])} of all gold facts agree)"]
    if r["disagreements"]:
        lines.append("disagreements:")
        for d in r["disagreements"]:
            q = f" {d['qualifiers']}" if d["qualifiers"] else ""
            tier = "; ".join(f"{t['text']} ({t['id']})" for t in d["tier"])
            lines.append(f"  {d['subject']} {d['attribute']}{q}: gold {_value(d['value'], d['unit'])}, tier {tier}"
                         + (f" — {d['note']}" if d.get("note") else ""))
    if verbose and r["missing_facts"]:
        lines.append("missing:")
        for m in r["missing_facts"]:
            q = f" {m['qualifiers']}" if m["qualifiers"] else ""
            lines.append(f"  {m['subject']} {m['attribute']}{q} = {_value(m['value'], m['unit'])}: {m['reason']}")
    return "\n".join(lines)
