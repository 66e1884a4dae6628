"""What the CLI prints when ``--json`` is not given: each answer of the API as readable text.

Every function takes the typed model of one command's answer (:mod:`gpukb.engine.models`, built from
the same object ``--json`` prints) and returns its text, so the CLI, the tests and any other front end
render an answer the same way, reading the fields the models declare instead of guessing key names.
"""
from __future__ import annotations

import json
from typing import Any

from gpukb.engine import models as m
from gpukb.engine.models.ask import Candidate
from gpukb.engine.models.base import OMIT, Model
from gpukb.engine.models.sizing import Scenario
from gpukb.engine.core.terms import MEMORY_COMPONENTS, label


def print_json(obj: Any) -> None:
    """An answer (a model or its JSON object) as the API returns it."""
    print(json.dumps(m.to_json(obj), ensure_ascii=False, indent=2))


def _num(x: Any, digits: int = 2) -> str:
    if isinstance(x, bool) or x is None or x is OMIT:
        return "-" if x is None or x is OMIT else str(x).lower()
    if isinstance(x, (int, float)):
        return f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}"
    return str(x)


def _short(text: Any, width: int = 100) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= width else s[: width - 1] + "…"


def _pick(value: Any, lang: str) -> str:
    if isinstance(value, Model):
        value = value.to_json()
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("en") or next(iter(value.values()), ""))
    return "" if value is None or value is OMIT else str(value)


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a CJK character takes two)."""
    import unicodedata
    cols = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - cols)


def _t(key: str, lang: str, **params: Any) -> str:
    """A label of the text answers in the answer's language (server/i18n.yaml, keys ``cli.*``)."""
    from .i18n import t
    return t(f"cli.{key}", "zh" if lang == "zh" else "en", **params)


def _scenario_text(s: Scenario, lang: str = "en") -> str:
    params = s.get("params")
    what = s.get("model") or (_t("params", lang, n=f"{params / 1e9:g}") if isinstance(params, (int, float)) else "?")
    hw = s.get("gpu") or s.get("instance") or s.get("family") or (_t("gpu_of", lang, gb=s.get("vram_gb")) if s.get("vram_gb") else "?")
    method = label("method", s.method.value, lang) if lang == "zh" else s.method.value
    parts = [_t("scenario", lang, method=method, what=what, hw=hw)]
    if s.get("gpus"):
        parts.append(f"× {s.gpus}")
    keys = ("precision", "optimizer", "zero", "tensor_parallel", "seq_len", "batch", "lora_rank")
    extras = [f"{k}={m.to_json(s.get(k))}" for k in keys if s.get(k) is not None]
    extras += [k for k in ("gradient_checkpointing", "flash_attention", "layer_split", "sequence_parallel") if s.get(k)]
    return " ".join(parts) + (f" ({', '.join(extras)})" if extras else "")


#: The memory rows printed: the vocabulary's components, then the totals.
MEMORY_ROWS = MEMORY_COMPONENTS + ("model_states", "total")


def render_sizing(a: m.SizingAnswer, lang: str = "en") -> str:
    """A sizing answer; every label in the answer's language (``--lang zh``: Chinese throughout)."""
    lines = []
    mark = _t("fits" if a.verdict.value == "fits" else "no_fit", lang)
    lines.append(_t("verdict", lang, verdict=mark, scenario=_scenario_text(a.scenario, lang), release=a.kb_version))
    mem = a.memory
    lines.append(_t("memory", lang, unit=mem.unit))
    for key in MEMORY_ROWS:
        if mem.has(key):
            name = _t(key, lang) if key in ("model_states", "total") else (
                label("component", key, lang) if lang == "zh" else key.replace("_", " "))
            lines.append(f"  {_pad(name, 22)}{_num(mem.get(key)):>12}")
    lines.append(f"  {_pad(_t('per_gpu_states', lang), 22)}{_num(mem.per_gpu_model_states):>12}")
    lines.append(f"  {_pad(_t('per_gpu_total', lang), 22)}{_num(mem.per_gpu_total):>12}")
    if mem.has("per_gpu_reserved") and mem.get("per_gpu_reserved") != mem.per_gpu_total:
        lines.append(f"  {_pad(_t('per_gpu_reserved', lang), 22)}{_num(mem.get('per_gpu_reserved')):>12}  "
                     f"{_t('reserved_note', lang)}")
    cap = a.capacity
    basis = ", ".join(str(x) for x in (cap.get("gpu"), cap.get("basis")) if x)
    lines.append(_t("capacity", lang, per_gpu=_num(cap.per_gpu), unit=cap.unit, gpus=cap.gpus)
                 + (f" ({basis})" if basis else ""))
    notes = a.get("notes") or []
    if notes:
        lines.append(_t("assumed", lang))
        lines += [f"  - {n}" for n in notes]
    if a.min_gpus is None:
        reason = a.get("min_gpus_reason")
        lines.append(_t("min_gpus_none", lang) + (f" ({reason})" if reason else ""))
    else:
        zero = a.get("min_gpus_zero")
        lines.append(_t("min_gpus", lang, n=a.min_gpus) + (_t("with_zero", lang, zero=zero) if zero else ""))
    if a.recommendations:
        lines.append(_t("recommendations", lang))
        for r in a.recommendations[:5]:
            change = ", ".join(f"{k}={v}" for k, v in (r.get("change") or {}).items())
            fit = "" if not r.has("fits") else _t("rec_fits" if r.fits else "rec_no_fit", lang)
            need = _t("needs", lang, gb=_num(r.need_gb)) if r.get("need_gb") is not None else ""
            action = (_pick(r.get("label"), lang) if lang == "zh" and r.get("label") is not None else "") or r.action
            lines.append(f"  {r.get('rank', '-')}. {action}" + (f" ({change})" if change else "")
                         + ((("：" if lang == "zh" else ": ") + fit + need) if fit else ""))
    if a.contradictions:
        lines.append(_t("disagreeing", lang, n=len(a.contradictions)))
    lines.append("")
    lines.append(_pick(a.summary, lang))
    lines.append("")
    lines.append(_t("explain", lang, id=a.conclusion_id))
    return "\n".join(lines)


def _item_line(item: Model) -> str:
    ident = item.get("id") or item.get("citation") or ""
    text = item.get("quote") or item.get("citation") or item.get("gloss_en") or ""
    return (f"  - {ident}" + (f" ({item.get('source')})" if item.get("source") else "")
            + (f": {_short(text)}" if text and text != ident else ""))


def render_fact(a: m.FactAnswer, lang: str = "en") -> str:
    f = a.fact
    fact = f"{f.subject} {f.attribute} = {f.value}" + (f" {f.unit}" if f.get("unit") else "")
    lines = [_t("fact", lang, fact=fact, release=a.get("kb_version", "?"))]
    if a.get("summary"):
        lines.append(_pick(a.summary, lang))
    for title, items in (("support", a.get("support")), ("contradictions", a.get("contradictions"))):
        if items is None:
            continue
        lines.append(_t(title, lang, n=len(items)))
        lines += [_item_line(x.get("claim") or x) for x in items[:5]]
    return "\n".join(lines)


def render_fact_comparison(a: m.FactComparisonAnswer, lang: str = "en") -> str:
    """A fact comparison: the answer, each product's value with its fact id, then the references."""
    lines = [_pick(a.summary, lang) if a.get("summary") else a.answer]
    for c in a.compared:
        for f in c.facts:
            lines.append(f"  {f.subject}: {f.get('text', f.value)}" + (f"  ({f.id})" if f.get("id") else ""))
    refs = [x for x in a.get("support") or [] if x.get("citation")]
    lines.append(_t("support", lang, n=len(refs)))
    lines += [f"  [{i}] {x.citation} ({x.get('confidence', '?')})" for i, x in enumerate(refs, 1)]
    return "\n".join(lines)


def _candidate_line(o: Candidate, zh: bool) -> str:
    what = o.get("gpu") or o.get("instance") or o.get("family") or o.get("value")
    verdict = o.get("verdict")
    text = ({"fits": "放得下" if zh else "fits", "does_not_fit": "放不下" if zh else "does not fit"}[verdict.value]
            if verdict is not None else o.get("error") or "?")
    cid = o.get("conclusion_id")
    return (f"  {what}: {text}  {_num(o.get('need_gb'))} / {_num(o.get('usable_gb_per_gpu'))} GB"
            + (f"  [{cid[:24]}…]" if cid else ""))


def render_choice(a: m.ComparisonAnswer | m.InstanceChoiceAnswer | m.GpuChoiceAnswer | m.InverseAnswer,
                  lang: str = "en") -> str:
    """A comparison, an instance choice or an inverse answer: the answer, then each candidate sized."""
    zh = lang == "zh"
    if isinstance(a, m.InstanceChoiceAnswer) and a.get("ranking") == "price":
        from .cli_inventory import render_price_choice
        return render_price_choice(a, lang)
    lines = [_pick(a.answer, lang)]
    if isinstance(a, m.ComparisonAnswer):
        rows = a.options
    elif isinstance(a, m.InstanceChoiceAnswer):
        rows = a.tried
    elif isinstance(a, m.GpuChoiceAnswer):
        rows = a.get("fewest") or [o for o in a.tried if o.get("gpu") in (a.get("fitting") or ())] or a.tried
    else:
        rows = [x for x in (a.get("fits"), a.get("first_not_fitting")) if x]
    lines += [_candidate_line(o, zh) for o in rows]
    if isinstance(a, m.GpuChoiceAnswer) and a.get("notes"):
        lines.append(_t("assumed", lang))
        lines += [f"  - {n}" for n in a.notes]
    for x in a.get("assumed") or []:
        alt = ", ".join(x.get("alternatives") or [])
        lines.append(f"假定 {x.text} 为 {x.value}（也可以是：{alt}）" if zh else f"Assumed {x.text} means {x.value} (alternatives: {alt})")
    return "\n".join(lines)


def render_unknown(a: m.UnknownAnswer, lang: str = "en") -> str:
    lines = [_t("not_understood", lang, kind=a.kind)]
    if a.get("answer"):
        lines.append(_pick(a.answer, lang))
    said = "\n".join(lines)
    missing = [str(x) for x in a.get("missing") or [] if str(x) not in said      # each thing said once
               and not (str(x).startswith("gpukb knows no") and "gpukb 不认识" in said)]
    if missing:
        lines.append(_t("missing", lang, what=", ".join(missing)))
    if a.get("examples"):
        lines.append(_t("try", lang))
        lines += [f"  {e}" for e in a.examples]
    return "\n".join(lines)


def render_answer(a: Model, lang: str = "en") -> str:
    """Any answer of ``ask``, by its model."""
    if isinstance(a, m.SizingAnswer):
        return render_sizing(a, lang)
    if isinstance(a, m.FactAnswer):
        return render_fact(a, lang)
    if isinstance(a, m.FactComparisonAnswer):
        return render_fact_comparison(a, lang)
    if isinstance(a, (m.ComparisonAnswer, m.InstanceChoiceAnswer, m.GpuChoiceAnswer, m.InverseAnswer)):
        return render_choice(a, lang)
    if isinstance(a, m.ClaimCheckAnswer):        # the statement's check, after the one-line answer
        return a.answer + "\n\n" + render_check(a.check, lang)
    return render_unknown(a, lang)


def render_claims(d: m.ClaimList) -> str:
    lines = [f"{len(d.claims)} claims in release {d.get('kb_version')}"]
    for c in d.claims:
        status = c.get("audit")
        status = status.status.value if isinstance(status, Model) else status
        value = ", ".join(map(str, c.value)) if isinstance(c.value, list) else c.value
        unit = f" {c.unit}" if c.get("unit") else ""
        lines.append(f"{c.id}@{c.version}  {c.subject}  {c.attribute} = {_short(value, 60)}{unit}"
                     + (f"  [{status}]" if status else ""))
        lines.append(f"    “{_short(c.quote, 90)}”")
    return "\n".join(lines)


def render_sources(d: m.SourceList) -> str:
    lines = []
    for s in d.sources:
        lines.append(f"{s.id}  {s.language}  {s.get('published') or 'undated':<10}  "
                     f"{s.get('publisher') or '?'}  {s.title}" + (f" ({s.title_en})" if s.get("title_en") else ""))
    return "\n".join(lines) or "no sources"


def render_audit(d: m.FindingList, lang: str = "en") -> str:
    counts: dict[str, int] = {}
    for f in d.findings:
        counts[f.kind.value] = counts.get(f.kind.value, 0) + 1
    lines = [f"{len(d.findings)} findings" + (f" in release {d.kb_version}" if d.get("kb_version") else "")
             + (": " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda x: -x[1])) if counts else "")]
    for f in d.findings:
        claims = ", ".join(c.id for c in f.claims)
        lines.append(f"[{f.kind.value}] {f.id}  claims: {claims}")
        expl = _pick(f.explanation, lang)
        if expl:
            lines.append(f"    {_short(expl, 160)}")
    if d.get("without"):
        lines += render_without(d.get("without"), lang)
    if d.findings:
        lines.append("(counted: findings, and a claim can have several; the /audit page's legend counts claims, "
                     "each once by its status)")
    return "\n".join(lines)


def render_without(w: dict[str, Any], lang: str = "en") -> list[str]:
    """The ``without`` block of an audit: what was withdrawn with the removed sources, and why."""
    wd = w.get("withdrawn") or []
    reasons: dict[str, int] = {}
    for x in wd:
        reasons[x["reason"]] = reasons.get(x["reason"], 0) + 1
    lines = ["", f"without {', '.join(w['sources'])}: {w.get('removed_claims', 0)} claims removed, {len(wd)} findings withdrawn"
             + (" (" + ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in sorted(reasons.items())) + ")" if reasons else "")]
    for x in wd:
        if x["reason"] != "claim_removed":
            lines.append(f"  withdrawn [{x['kind']}] {x['id']}  rested on {', '.join(x['depended_on'])}"
                         + ("  (a re-audit would pair the claim with another claim of the partner's group)" if x.get("repairable") else ""))
    for c in w.get("status_changes") or []:
        lines.append(f"  status of {c['claim']}: {c['from']} -> {c['to']}")
    if w.get("limits"):
        lines.append("  note: " + _pick(w["limits"], lang))
    return lines


def render_check(d: m.CheckAnswer, lang: str = "en") -> str:
    """A checked text: what is wrong in it first, then each claim with its status, the finding that decided
    it and a correction (or, for an unclear one, why the checker abstained)."""
    zh = lang == "zh"
    lines = [_pick(d.summary, lang), ""]
    if d.wrong:
        lines.append(_t("check_wrong", lang))
        lines += [f"  - {w.zh if zh else w.en}" for w in d.wrong]
        lines.append("")

    def status(s: str) -> str:          # a status by its name; in Chinese by its label
        return (_t("check_unclear_status", lang) if s == "unclear" else label("finding", s, lang)) if zh else s
    for c in d.claims:
        lines.append(_t("check_claim", lang, status=status(c.status.value), quote=c.quote, id=c.id,
                        confidence=f"{c.confidence:.2f}"))
        if c.status.value == "unclear":
            for r in c.get("unclear_because") or []:
                lines.append("    " + _t("check_unclear", lang, reason=r.zh if zh else r.en)
                             + (_t("check_audit_alone", lang, status=status(c.audit_status.value)) if c.get("audit_status") else ""))
        label_ = _pick(c.get("attribute_label"), lang) or c.attribute
        lines.append(f"    {c.get('subject_label') or c.subject}: {label_} = {c.get('value_text') or c.value}")
        top = next((f for f in c.findings if f.kind == c.status), None)
        if top is not None:
            lines.append(f"    {_pick(top.explanation, lang)}")
            lines.append("    " + _t("check_proof", lang, id=top.id))
        elif c.get("reason"):
            lines.append(f"    {_pick(c.reason, lang)}")
        if c.correction:
            lines.append("    " + _t("check_correction", lang, text=_pick(c.correction, lang)))
    if d.not_understood:
        lines += ["", _t("check_not_understood", lang)]
        lines += [f"    [{x.span[0]}:{x.span[1]}] {x.quote[:120]}" for x in d.not_understood]
    return "\n".join(lines)


def render_gaps(d: m.AuditGaps, lang: str = "en") -> str:
    reasons = ", ".join(f"{k} {v}" for k, v in d.reasons.items())
    lines = [f"{d.unverifiable} of {d.claims} claims unverifiable in release {d.kb_version}"
             + (f" ({reasons})" if reasons else ""),
             "missing reference facts, most claims first:"]
    for g in d.gaps:
        lines.append(f"  {g.count:3}  {g.subject} {g.attribute}  ({', '.join(g.claims[:6])}"
                     + (" ..." if len(g.claims) > 6 else "") + ")")
    return "\n".join(lines)


def render_versions(d: m.Versions) -> str:
    lines = []
    for r in d.versions:
        c = ", ".join(f"{k} {v}" for k, v in (r.get("counts") or {}).items())
        latest = "  (latest)" if r.name == d.get("latest") else ""
        lines.append(f"{r.name}  {r.date}{latest}" + (f"  [{c}]" if c else ""))
        if r.note:
            lines.append(f"    {_short(r.note, 140)}")
    return "\n".join(lines)


def _item_text(x: Any) -> str:
    if isinstance(x, dict):
        ident = (x.get("id") or x.get("key") or x.get("fact") or x.get("rule") or x.get("conclusion_id")
                 or x.get("claim") or "")
        if "from" in x and "to" in x and not isinstance(x["from"], (dict, list)):
            ident = f"{x.get('type', '')} {ident}: {x['from']} → {x['to']}".strip()
            return _short(ident, 140)
        cause = x.get("cause") or x.get("reason") or x.get("change") or ""
        if isinstance(cause, dict):
            cause = _pick(cause, "en") if ("en" in cause or "zh" in cause) else json.dumps(cause, ensure_ascii=False)
        return _short(f"{ident}" + (f": {cause}" if cause else "") if ident or cause else json.dumps(x, ensure_ascii=False), 140)
    return _short(x, 140)


def render_diff(d: m.Diff) -> str:
    lines = [f"{d.from_} → {d.to}"]
    for key in ("added", "revised", "retired", "rules", "conclusions"):
        val = d.get(key)
        if isinstance(val, dict):
            items = [f"{k}: {v if not isinstance(v, list) else len(v)}" for k, v in val.items()]
            lines.append(f"{key}: " + ("; ".join(items) if items else "none"))
            continue
        lines.append(f"{key}: {len(val)}")
        lines += [f"  - {_item_text(x)}" for x in val[:20]]
        if len(val) > 20:
            lines.append(f"  ... {len(val) - 20} more")
    return "\n".join(lines)
