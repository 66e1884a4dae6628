"""The claim extractor measured against the curated claims of the bundled sources.

An extracted claim matches a curated one when both state the same subject, attribute and value and
their spans in the source overlap (one curated claim matches at most one extracted claim). "The same"
is what the audit would judge the same: a family and the one GPU it carries are one subject for the
attributes the family inherits from its GPU or that apply to both (verdicts, advice), and a verdict
(any attribute whose values are the verdict enum: memory, suitability, bandwidth, host memory, storage
I/O, price-performance) is compared by its polarity (enough / not enough), which is all the audit reads
of it (engine/kb/facts.py gives verdict facts a polarity and the audit rules compare only that); a memory
and a suitability verdict count as one. An extracted claim that repeats an already matched one (the
same statement made twice in a text) is counted as a duplicate, not as spurious.

Precision is matched / extracted, recall matched / curated, per source and overall. Recall is also
given over two smaller sets of curated claims, both printed beside the full one:

- *expressible* (``recall_expr``, extra information: the 60% goal of issue 17 is read against the
  full recall): claims whose value the vocabulary can state as data. Claims of a free-text attribute
  (``note``, ``features``, ``cpu``, ``product_kind``: type ``text``) are a curator's paraphrase; no
  extractor can produce the same string, and the audit never compares them, so they are excluded. Everything else stays in, however hard.
- *covered* (``recall*``): claims whose attribute the extractor has words for, which says how much of
  the gap is coverage (attributes with no cue words yet) rather than accuracy.
"""
from __future__ import annotations

from typing import Any

from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval
from ..text.check import claims_of
from ..text.guard import carries  # noqa: F401  (also used by the other evaluations)


def same_value(a: Fact, b: Fact) -> bool:
    """Two values agree: quantities within 5% at both ends, lists as sets, anything else equal."""
    if isinstance(a.norm, Interval) and isinstance(b.norm, Interval):
        def close(x: float | None, y: float | None) -> bool:
            if x is None or y is None:
                return x is y
            return abs(x - y) <= 0.05 * max(abs(x), abs(y), 1e-12)
        return close(a.norm.lo, b.norm.lo) and close(a.norm.hi, b.norm.hi)
    if isinstance(a.value, list) or isinstance(b.value, list):
        as_set = lambda v: {str(x) for x in (v if isinstance(v, list) else [v])}  # noqa: E731
        return as_set(a.value) == as_set(b.value)
    return str(a.value).lower() == str(b.value).lower()


VERDICTS = ("memory_verdict", "suitability")


def same_claim(c: Fact, g: Fact, view: ReleaseView) -> bool:
    """``g`` (extracted) states what ``c`` (curated) states, as the audit would read both."""
    vocab = view.kb.vocab
    if (c.attribute in VERDICTS and g.attribute in VERDICTS) or (c.attribute == g.attribute and _verdict(vocab, c.attribute)):
        if vocab.polarity(str(c.value)) != vocab.polarity(str(g.value)) or vocab.polarity(str(c.value)) == 0:
            return False
    elif c.attribute != g.attribute or not same_value(c, g):
        return False
    if c.subject == g.subject:
        return True
    spec = vocab.attributes.get(c.attribute)
    if spec is None or not ("family" in spec.inherited_by or {"gpu", "family"} <= set(spec.applies_to)):
        return False
    return carries(view, c.subject, g.subject)


def _verdict(vocab: Any, attribute: str) -> bool:
    spec = vocab.attributes.get(attribute)
    return spec is not None and spec.type == "enum" and spec.enum == "verdict"


def expressible(vocab: Any, attribute: str) -> bool:
    """A claim of this attribute has a value the vocabulary can state (not a free-text paraphrase)."""
    spec = vocab.attributes.get(attribute)
    return spec is not None and spec.type != "text"


def _overlap(a: list[int] | None, b: list[int] | None) -> bool:
    return bool(a and b) and a[0] < b[1] and b[0] < a[1]


def evaluate(view: ReleaseView) -> dict[str, Any]:
    """Precision and recall of extraction on every bundled source with curated claims."""
    vocab = view.kb.vocab
    covered = set(vocab.cues.get("attribute") or {}) | set(vocab.cues.get("verdict_attribute") or {}) | {
        "gpu", "memory_type", "memory_required", "memory_verdict", "suitability", "exists", "vendor", "recommended_technique"}
    rows, misses, spurious = {}, [], []
    tot = {"extracted": 0, "curated": 0, "matched": 0, "curated_covered": 0, "matched_covered": 0,
           "curated_expressible": 0, "matched_expressible": 0}
    for sid, src in sorted(view.kb.sources.items()):
        curated = [c for c in view.claims if c.source == sid]
        if not curated or not src.text:
            continue
        got, _, _ = claims_of(src.text, f"E{sid}", view)
        used: set[str] = set()
        matched = dup = 0
        for g in got:
            hit = next((c for c in curated if c.id not in used and _overlap(c.span, g.span) and same_claim(c, g, view)), None)
            if hit is None and any(same_claim(view.facts[u], g, view) for u in used):
                dup += 1
                continue
            if hit is None:
                spurious.append({"source": sid, "quote": g.quote, "subject": g.subject, "attribute": g.attribute,
                                 "value": g.value_text(vocab)})
            else:
                used.add(hit.id)
                matched += 1
        cov = [c for c in curated if c.attribute in covered]
        misses += [{"claim": c.id, "subject": c.subject, "attribute": c.attribute, "value": c.value_text(vocab)}
                   for c in cov if c.id not in used]
        expr = [c for c in curated if expressible(vocab, c.attribute)]
        r = {"extracted": len(got) - dup, "curated": len(curated), "matched": matched, "curated_covered": len(cov),
             "matched_covered": sum(1 for c in cov if c.id in used), "curated_expressible": len(expr),
             "matched_expressible": sum(1 for c in expr if c.id in used)}
        rows[sid] = _rates(r)
        for k in tot:
            tot[k] += r[k]
    return {"kb_version": view.name, "sources": rows, "overall": _rates(tot), "goal": {"precision": 0.85, "recall": 0.60},
            "spurious": spurious, "missed_covered": misses}


def _rates(r: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = dict(r)
    out["precision"] = r["matched"] / r["extracted"] if r["extracted"] else None
    out["recall"] = r["matched"] / r["curated"] if r["curated"] else None
    out["recall_expressible"] = r["matched_expressible"] / r["curated_expressible"] if r["curated_expressible"] else None
    out["recall_covered"] = r["matched_covered"] / r["curated_covered"] if r["curated_covered"] else None
    return out


def report_text(rep: dict[str, Any], verbose: bool = False) -> str:
    pct = lambda x: "   -  " if x is None else f"{100 * x:5.1f}%"  # noqa: E731
    lines = ["claim extraction vs the curated claims (same subject, attribute, value; overlapping span)",
             f"  {'source':8} {'extracted':>9} {'curated':>8} {'matched':>8} {'precision':>9} {'recall':>8} "
             f"{'expr.':>6} {'recall_expr':>11} {'recall*':>8}"]
    for sid, r in list(rep["sources"].items()) + [("overall", rep["overall"])]:
        lines.append(f"  {sid:8} {r['extracted']:9d} {r['curated']:8d} {r['matched']:8d} {pct(r['precision']):>9} "
                     f"{pct(r['recall']):>8} {r['curated_expressible']:6d} {pct(r['recall_expressible']):>11} {pct(r['recall_covered']):>8}")
    g = rep["goal"]
    o = rep["overall"]
    met = o["precision"] is not None and o["recall"] is not None and \
        o["precision"] >= g["precision"] and o["recall"] >= g["recall"]
    lines.append(f"  goal (issue 17): precision >= {100 * g['precision']:.0f}%, recall >= {100 * g['recall']:.0f}% overall"
                 f"  -- {'met' if met else 'not met'}")
    lines.append("  (also shown: recall_expr, over the curated claims that are not free text; recall*, over curated")
    lines.append("  claims of attributes the extractor has words for)")
    if verbose:
        lines.append("  spurious (extracted, no curated match):")
        lines += [f"    {x['source']}: {x['subject']} {x['attribute']} = {x['value']}  \u201c{x['quote'][:60]}\u201d" for x in rep["spurious"]]
        lines.append("  missed (curated, attribute covered):")
        lines += [f"    {x['claim']}: {x['subject']} {x['attribute']} = {x['value']}" for x in rep["missed_covered"]]
    return "\n".join(lines)
