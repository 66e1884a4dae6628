"""What the CLI prints when ``--json`` is not given: each answer of the API as readable text.

Every function takes the API's JSON object for one command (the same one ``--json`` prints) and returns
its text, so the CLI, the tests and any other front end render an answer the same way.
"""
from __future__ import annotations

import json
from typing import Any


def print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2))


def _num(x: Any, digits: int = 2) -> str:
    if isinstance(x, bool) or x is None:
        return "-" if x is None else str(x).lower()
    if isinstance(x, (int, float)):
        return f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}"
    return str(x)


def _short(text: Any, width: int = 100) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= width else s[: width - 1] + "…"


def _pick(value: Any, lang: str) -> str:
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("en") or next(iter(value.values()), ""))
    return "" if value is None else str(value)


def _scenario_text(s: dict[str, Any]) -> str:
    what = s.get("model") or (f"{s['params'] / 1e9:g}B params" if isinstance(s.get("params"), (int, float)) else "?")
    hw = s.get("gpu") or s.get("instance") or s.get("family") or (f"{s.get('vram_gb')} GB GPU" if s.get("vram_gb") else "?")
    parts = [f"{s.get('method', '?')} of {what} on {hw}"]
    if s.get("gpus"):
        parts.append(f"× {s['gpus']}")
    extras = [f"{k}={s[k]}" for k in ("precision", "optimizer", "zero", "seq_len", "batch", "lora_rank") if s.get(k) is not None]
    extras += [k for k in ("gradient_checkpointing", "flash_attention") if s.get(k)]
    return " ".join(parts) + (f" ({', '.join(extras)})" if extras else "")


MEMORY_ROWS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "model_states", "total")


def render_sizing(a: dict[str, Any], lang: str = "en") -> str:
    lines = []
    verdict = a.get("verdict")
    mark = {"fits": "FITS", "does_not_fit": "DOES NOT FIT"}.get(verdict, str(verdict))
    lines.append(f"Verdict: {mark} — {_scenario_text(a.get('scenario') or {})}  [release {a.get('kb_version')}]")
    m = a.get("memory") or {}
    lines.append(f"Memory ({m.get('unit', 'GB')}):")
    for key in MEMORY_ROWS:
        if key in m:
            lines.append(f"  {key.replace('_', ' '):<22}{_num(m[key]):>12}")
    lines.append(f"  {'per GPU: model states':<22}{_num(m.get('per_gpu_model_states')):>12}")
    lines.append(f"  {'per GPU: total':<22}{_num(m.get('per_gpu_total')):>12}")
    cap = a.get("capacity") or {}
    basis = ", ".join(str(x) for x in (cap.get("gpu"), cap.get("basis")) if x)
    lines.append(f"Capacity: {_num(cap.get('per_gpu'))} {cap.get('unit', 'GB')} usable per GPU × {cap.get('gpus')}"
                 + (f" ({basis})" if basis else ""))
    mg = a.get("min_gpus")
    if mg is None:
        lines.append("Minimum GPUs: none of this GPU fits" + (f" ({a['min_gpus_reason']})" if a.get("min_gpus_reason") else ""))
    else:
        lines.append(f"Minimum GPUs: {mg}" + (f" with ZeRO-{a['min_gpus_zero']}" if a.get("min_gpus_zero") else ""))
    recs = a.get("recommendations") or []
    if recs:
        lines.append("Recommendations:")
        for r in recs[:5]:
            change = ", ".join(f"{k}={v}" for k, v in (r.get("change") or {}).items())
            fit = "" if "fits" not in r else ("fits" if r["fits"] else "still does not fit")
            need = f", needs {_num(r['need_gb'])} GB" if r.get("need_gb") is not None else ""
            lines.append(f"  {r.get('rank', '-')}. {r.get('action')}" + (f" ({change})" if change else "")
                         + (f": {fit}{need}" if fit else ""))
    if a.get("contradictions"):
        lines.append(f"Disagreeing claims: {len(a['contradictions'])}")
    summary = a.get("summary") or {}
    if summary:
        lines.append("")
        lines.append(_pick(summary, lang))
    if a.get("conclusion_id"):
        lines.append("")
        lines.append(f"Explain: gpukb explain {a['conclusion_id']}")
    return "\n".join(lines)


def render_fact(a: dict[str, Any], lang: str = "en") -> str:
    f = a.get("fact") or {}
    lines = [f"Fact: {f.get('subject')} {f.get('attribute')} = {f.get('value')}"
             + (f" {f['unit']}" if f.get("unit") else "") + f"  [release {a.get('kb_version', '?')}]"]
    if a.get("summary"):
        lines.append(_pick(a["summary"], lang))
    for key, val in a.items():
        if key in ("kind", "fact", "summary", "kb_version", "lang") or not isinstance(val, list):
            continue
        lines.append(f"{key.replace('_', ' ').capitalize()}: {len(val)}")
        for item in val[:5]:
            if isinstance(item, dict):
                ident = item.get("id") or item.get("fact") or item.get("citation") or ""
                text = item.get("quote") or item.get("citation") or item.get("gloss_en") or ""
                lines.append(f"  - {ident}" + (f" ({item['source']})" if item.get("source") else "")
                             + (f": {_short(text)}" if text and text != ident else ""))
            else:
                lines.append(f"  - {_short(item)}")
    return "\n".join(lines)


def render_choice(a: dict[str, Any], lang: str = "en") -> str:
    """A comparison, an instance choice or an inverse answer: the answer, then each candidate sized."""
    zh = lang == "zh"
    lines = [_pick(a.get("answer"), lang)]
    rows = a.get("options") or a.get("tried") or [x for x in (a.get("fits"), a.get("first_not_fitting")) if x]
    for o in rows:
        what = o.get("gpu") or o.get("instance") or o.get("family") or o.get("value")
        verdict = {"fits": "放得下" if zh else "fits", "does_not_fit": "放不下" if zh else "does not fit"}.get(o.get("verdict"), o.get("error") or "?")
        lines.append(f"  {what}: {verdict}  {_num(o.get('need_gb'))} / {_num(o.get('usable_gb_per_gpu'))} GB"
                     + (f"  [{o['conclusion_id'][:24]}…]" if o.get("conclusion_id") else ""))
    for x in a.get("assumed") or []:
        alt = ", ".join(x.get("alternatives") or [])
        lines.append(f"假定 {x['text']} 为 {x['value']}（也可以是：{alt}）" if zh else f"Assumed {x['text']} means {x['value']} (alternatives: {alt})")
    return "\n".join(lines)


def render_answer(a: dict[str, Any], lang: str = "en") -> str:
    kind = a.get("kind")
    if kind == "sizing" or (kind is None and "verdict" in a):
        return render_sizing(a, lang)
    if kind == "fact":
        return render_fact(a, lang)
    if kind in ("comparison", "instance_choice", "inverse"):
        return render_choice(a, lang)
    lines = [f"Not understood ({kind})." if kind else "No answer."]
    for key in ("answer", "message", "error"):
        if a.get(key):
            lines.append(_pick(a[key], lang))
    if a.get("missing"):
        lines.append("Missing: " + ", ".join(map(str, a["missing"])))
    if a.get("examples"):
        lines.append("Try:")
        lines += [f"  {e}" for e in a["examples"]]
    return "\n".join(lines)


def render_claims(d: dict[str, Any]) -> str:
    claims = d.get("claims") or []
    lines = [f"{len(claims)} claims in release {d.get('kb_version')}"]
    for c in claims:
        status = c.get("audit")
        status = status.get("status") if isinstance(status, dict) else status
        value = c.get("value")
        value = ", ".join(map(str, value)) if isinstance(value, list) else value
        unit = f" {c['unit']}" if c.get("unit") else ""
        lines.append(f"{c.get('id')}@{c.get('version')}  {c.get('subject')}  {c.get('attribute')} = {_short(value, 60)}{unit}"
                     + (f"  [{status}]" if status else ""))
        lines.append(f"    “{_short(c.get('quote'), 90)}”")
    return "\n".join(lines)


def render_sources(d: dict[str, Any]) -> str:
    lines = []
    for s in d.get("sources") or []:
        lines.append(f"{s.get('id')}  {s.get('language')}  {s.get('published') or 'undated':<10}  "
                     f"{s.get('publisher') or '?'}  {s.get('title')}" + (f" ({s['title_en']})" if s.get("title_en") else ""))
    return "\n".join(lines) or "no sources"


def render_audit(d: dict[str, Any], lang: str = "en") -> str:
    findings = d.get("findings") or []
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.get("kind")] = counts.get(f.get("kind"), 0) + 1
    lines = [f"{len(findings)} findings" + (f" in release {d['kb_version']}" if d.get("kb_version") else "")
             + (": " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda x: -x[1])) if counts else "")]
    for f in findings:
        claims = ", ".join(str(c.get("id")) for c in f.get("claims") or [])
        lines.append(f"[{f.get('kind')}] {f.get('id')}  claims: {claims}")
        expl = _pick(f.get("explanation"), lang)
        if expl:
            lines.append(f"    {_short(expl, 160)}")
    if d.get("without"):
        lines += render_without(d["without"], lang)
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


def render_check(d: dict[str, Any], lang: str = "en") -> str:
    """A checked text: each claim with its status, the finding that decided it and a correction."""
    lines = [d["summary"][lang], ""]
    for c in d["claims"]:
        lines.append(f"[{c['status']}] \u201c{c['quote']}\u201d  ({c['id']}, confidence {c['confidence']:.2f})")
        lines.append(f"    {c['subject_label']}: {c['attribute_label'][lang]} = {c['value_text']}")
        top = next((f for f in c["findings"] if f["kind"] == c["status"]), None)
        if top is not None:
            lines.append(f"    {top['explanation'][lang]}")
            lines.append(f"    proof: gpukb explain {top['id']}")
        elif c.get("reason"):
            lines.append(f"    {c['reason'][lang]}")
        if c.get("correction"):
            lines.append(f"    correction: {c['correction'][lang]}")
    if d["not_understood"]:
        lines += ["", "not understood:" if lang == "en" else "未能解析："]
        lines += [f"    [{x['span'][0]}:{x['span'][1]}] {x['quote'][:120]}" for x in d["not_understood"]]
    return "\n".join(lines)


def render_gaps(d: dict[str, Any], lang: str = "en") -> str:
    reasons = ", ".join(f"{k} {v}" for k, v in (d.get("reasons") or {}).items())
    lines = [f"{d.get('unverifiable', 0)} of {d.get('claims', 0)} claims unverifiable in release {d.get('kb_version')}"
             + (f" ({reasons})" if reasons else ""),
             "missing reference facts, most claims first:"]
    for g in d.get("gaps") or []:
        lines.append(f"  {g['count']:3}  {g['subject']} {g['attribute']}  ({', '.join(g['claims'][:6])}"
                     + (" ..." if len(g["claims"]) > 6 else "") + ")")
    return "\n".join(lines)


def render_versions(d: dict[str, Any]) -> str:
    lines = []
    for r in d.get("versions") or []:
        counts = r.get("counts") or {}
        c = ", ".join(f"{k} {v}" for k, v in counts.items())
        latest = "  (latest)" if r.get("name") == d.get("latest") else ""
        lines.append(f"{r.get('name')}  {r.get('date')}{latest}" + (f"  [{c}]" if c else ""))
        if r.get("note"):
            lines.append(f"    {_short(r['note'], 140)}")
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


def render_diff(d: dict[str, Any]) -> str:
    lines = [f"{d.get('from')} → {d.get('to')}"]
    for key in ("added", "revised", "retired", "rules", "conclusions"):
        val = d.get(key)
        if isinstance(val, dict):
            items = [f"{k}: {v if not isinstance(v, list) else len(v)}" for k, v in val.items()]
            lines.append(f"{key}: " + ("; ".join(items) if items else "none"))
            continue
        val = val or []
        lines.append(f"{key}: {len(val)}")
        lines += [f"  - {_item_text(x)}" for x in val[:20]]
        if len(val) > 20:
            lines.append(f"  ... {len(val) - 20} more")
    return "\n".join(lines)
