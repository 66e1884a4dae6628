"""What the page templates show, shaped from the engine's answers: proof trees, memory bars,
recommendations, citations, and the small formatting helpers the templates call. Pure functions of
their inputs and the UI language; no request state except through the `url` helpers passed in."""
from __future__ import annotations

import re
from typing import Any, Callable

from markupsafe import Markup, escape

from gpukb.engine.core.terms import MEMORY_COMPONENTS, label
from gpukb.engine.kb.ids import bare

from .i18n import LANGS, catalog, fmt_number, html_lang, t, tm, verbatim

_CITE_MARK = re.compile(r"\[(\d{1,3})\]")
MEMORY_PARTS = tuple(k for k in MEMORY_COMPONENTS if k != "adapters")


def claim_id(fact_id: str) -> str:
    """S001-C005@1 → S001-C005."""
    return bare(fact_id)


def params_text(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return str(n)
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= div:
            return f"{n / div:.3g}{unit}"
    return f"{n:.3g}"


def strip_prefix(v: Any) -> Any:
    if isinstance(v, str) and ":" in v and re.match(r"^[a-z_]+:", v):
        return v.split(":", 1)[1]
    return v


def change_text(change: dict[str, Any] | None, lang: str = "en") -> Markup:
    """A recommended change in words: "23 GPUs, ZeRO-3", "precision fp16"; values are kept verbatim."""
    if not change:
        return Markup("")
    parts = []
    for k, v in change.items():
        v = strip_prefix(v)
        field = tm("field." + k, lang) if "field." + k in catalog().ui else verbatim(k.replace("_", " "))
        if k == "gpus":
            parts.append(tm("change.gpus", lang, n=v))
        elif k == "zero":
            parts.append(verbatim(f"ZeRO-{v}"))
        elif v is True:
            parts.append(tm("change.on", lang, what=field))
        else:
            parts.append(field + Markup(" ") + verbatim(v))
    return Markup(escape(t("word.and", lang))).join(parts)


def _is_cjk(ch: str) -> bool:
    return ("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\u3000" <= ch <= "\u303f"
            or "\uff00" <= ch <= "\uffef")


def text_lang(text: Any) -> str:
    """zh-Hans when at least a fifth of the text is CJK, else en (lang attributes of mixed content)."""
    s = str(text or "").replace(" ", "")
    cjk = sum(1 for ch in s if _is_cjk(ch))
    return "zh-Hans" if cjk and cjk * 5 >= len(s) else "en"


def quote_lang(text: Any) -> str:
    """A quoted sentence of a source: zh-Hans as soon as it has any CJK character."""
    return "zh-Hans" if any(_is_cjk(ch) for ch in str(text or "")) else "en"


def with_cite_links(text: str, prefix: str = "cite-") -> Markup:
    """Escape `text` and turn its [n] citation marks into links to #cite-n."""
    out = []
    pos = 0
    for m in _CITE_MARK.finditer(text):
        out.append(escape(text[pos:m.start()]))
        n = m.group(1)
        out.append(Markup('<a class="cite" href="#{p}{n}" aria-label="[{n}]">[{n}]</a>').format(p=prefix, n=n))
        pos = m.end()
    out.append(escape(text[pos:]))
    return Markup("").join(out)


# -- proof trees ---------------------------------------------------------------------------------------

def _anchor(fact: str) -> str:
    return "n-" + re.sub(r"[^A-Za-z0-9_-]", "-", str(fact))


def _fmt_value(v: Any) -> str:
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return f"{int(v):,}" if abs(v) >= 1e4 else str(int(v))
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt_value(x) for x in v)
    return str(strip_prefix(v)) if isinstance(v, str) else str(v)


def tree_view(node: dict[str, Any] | None, lang: str = "en", open_depth: int = 2) -> dict[str, Any] | None:
    """The proof tree, shaped for the template: labels in `lang`, anchors, leaves and their quotes."""
    if not node:
        return None
    seen: set[str] = set()

    def label_of(n: dict[str, Any]) -> tuple[str, str]:
        lab = n.get("label") or {}
        if isinstance(lab, str):
            return lab, text_lang(lab)
        text = lab.get(lang) or lab.get("en") or lab.get("zh") or str(n.get("fact", ""))
        return text, (html_lang(lang) if lab.get(lang) else text_lang(text))

    def walk(n: dict[str, Any], depth: int) -> dict[str, Any]:
        fact = str(n.get("fact", ""))
        text, tlang = label_of(n)
        premises = n.get("premises") or []
        shared = bool(n.get("shared")) or (fact in seen and bool(fact))
        out: dict[str, Any] = {
            "fact": fact, "type": n.get("type"), "label": text, "label_lang": tlang,
            "tier": n.get("tier"), "depth": depth, "open": depth < open_depth,
            "anchor": None, "ref": None, "shared": shared,
        }
        if shared:
            out["ref"] = _anchor(fact)
            out["leaf"] = True
            return out
        if fact:
            seen.add(fact)
            out["anchor"] = _anchor(fact)
        desc = n.get("rule_description") or {}
        out.update(
            rule=n.get("rule"),
            rule_description=(desc.get(lang) or desc.get("en")) if isinstance(desc, dict) else desc,
            vals=[(k, _fmt_value(v)) for k, v in (n.get("values") or {}).items()],
            cites=[{"id": c.get("id"), "citation": c.get("citation"), "confidence": c.get("confidence")}
                   for c in (n.get("cites") or [])],
            citation=n.get("citation"), confidence=n.get("confidence"), note=n.get("note"),
            source=n.get("source"), quote=n.get("quote"),
            claim=claim_id(fact) if n.get("tier") == "claim" else None,
            stated_by=[{"id": c.get("id"), "source": c.get("source"), "quote": c.get("quote"),
                        "gloss_en": c.get("gloss_en")} for c in (n.get("stated_by") or [])],
            given=bool(n.get("given")),
        )
        out["premises"] = [walk(p, depth + 1) for p in premises]
        out["leaf"] = not out["premises"]
        return out

    return walk(node, 0)


# -- answers -----------------------------------------------------------------------------------------

def memory_bars(answer: dict[str, Any], lang: str, component_label: Callable[[str], str]) -> dict[str, Any]:
    """Rows of the memory chart: each with GB and a width proportional to GB (percent of the largest).
    `component_label` names a memory component (the vocabulary's labels)."""
    mem = answer.get("memory") or {}
    cap = answer.get("capacity") or {}
    rows = []
    for key in MEMORY_PARTS:
        v = mem.get(key)
        if v is None:
            continue
        label = component_label(key)
        if key == "overhead":
            label += t("answer.cuda_context", lang)
        rows.append({"key": key, "label": label[:1].upper() + label[1:], "gb": float(v), "kind": "part"})
    total = float(mem.get("total") or sum(r["gb"] for r in rows))
    label = t("answer.total", lang)
    rows.append({"key": "total", "label": label[:1].upper() + label[1:], "gb": total, "kind": "total"})
    per_gpu = mem.get("per_gpu_total")
    scen = answer.get("scenario") or {}
    gpus = cap.get("gpus") or 1
    if per_gpu is not None and (abs(float(per_gpu) - total) > 1e-6 or gpus > 1):
        rows.append({"key": "per_gpu_total", "label": t("answer.per_gpu", lang, n=gpus, zero=scen.get("zero")),
                     "gb": float(per_gpu), "kind": "total"})
    reserved = mem.get("per_gpu_reserved")
    if reserved is not None and per_gpu is not None and abs(float(reserved) - float(per_gpu)) > 1e-6:
        rows.append({"key": "per_gpu_reserved", "label": t("answer.per_gpu_reserved", lang), "gb": float(reserved),
                     "kind": "total"})
    if cap.get("per_gpu") is not None:
        rows.append({"key": "capacity", "label": t("answer.capacity", lang, gpu=cap.get("gpu") or "GPU"),
                     "gb": float(cap["per_gpu"]), "kind": "capacity"})
    scale = max([r["gb"] for r in rows] + [1e-9])
    for r in rows:
        r["pct"] = max(0.0, min(100.0, 100.0 * r["gb"] / scale))
        r["width"] = f"{r['pct']:.2f}%"
    return {"rows": rows, "scale": scale, "per_gpu": per_gpu, "capacity": cap.get("per_gpu")}


def scenario_rows(scenario: dict[str, Any] | None, lang: str) -> list[tuple[Markup, Markup]]:
    """A scenario's (label, value) pairs in words: the labels of server/i18n.yaml (``field.*``), on/off for
    switches, the method's label; other values verbatim. Keys without a label keep their name."""
    rows = []
    for k, v in (scenario or {}).items():
        if v is None:
            continue
        name = tm("field." + k, lang) if "field." + k in catalog().ui else verbatim(k.replace("_", " "))
        if isinstance(v, bool):
            value = tm("word.on" if v else "word.off", lang)
        elif k == "method":
            value = escape(label("method", v, lang))
        elif k == "params":
            value = verbatim(params_text(v))
        else:
            value = verbatim(strip_prefix(v))
        rows.append((name, value))
    return rows


def recommendations_view(recs: list[dict[str, Any]], lang: str) -> list[dict[str, Any]]:
    out = []
    for r in recs or []:
        action = r.get("action") or ""
        words = (r.get("label") or {}).get(lang) or action.replace("_", " ")   # the rule's own label
        label = escape(words[:1].upper() + words[1:])
        change = r.get("change") or {}
        if action == "family" and change.get("family"):
            label = tm("action.family_to", lang, family=verbatim(strip_prefix(change["family"])))
            if r.get("also"):
                label += Markup(" ") + tm("action.also", lang, others=verbatim(t("word.and", lang).join(r["also"])))
        out.append({**r, "label": label, "change_text": change_text(change, lang)})
    return out




def citations_view(cites: list[dict[str, Any]], audit_href: Callable, conclusion_href: Callable) -> list[dict[str, Any]]:
    out = []
    for i, c in enumerate(cites or [], 1):
        item = {"n": i, **c}
        if c.get("type") == "quote":
            item["href"] = audit_href(c.get("source"), c.get("claim") or "")
        elif c.get("fact"):
            item["href"] = conclusion_href(c["fact"])
        out.append(item)
    return out


def answer_view(a: dict[str, Any], ui_lang: str, component_label: Callable[[str], str],
                audit_href: Callable, conclusion_href: Callable) -> dict[str, Any]:
    """What the answer partial needs, computed once here instead of in the template."""
    lang = a.get("lang") if a.get("lang") in LANGS else "en"
    other = "zh" if lang == "en" else "en"
    v: dict[str, Any] = {"kind": a.get("kind"), "lang": lang, "other": other, "raw": a,
                         "question": a.get("question"), "conclusion_id": a.get("conclusion_id")}
    summary = a.get("summary") or {}
    if a.get("kind") == "sizing":
        v["verdict"] = a.get("verdict")
        v["fits"] = a.get("verdict") == "fits"
        v["bars"] = memory_bars(a, ui_lang, component_label)
        v["recs"] = recommendations_view(a.get("recommendations") or [], ui_lang)
        v["citations"] = citations_view(summary.get("citations") or [], audit_href, conclusion_href)
        v["tree"] = tree_view((a.get("explanation") or {}).get("tree"), lang)
        v["why_not"] = a.get("why_not")
        v["contradictions"] = a.get("contradictions") or []
        v["scenario"] = a.get("scenario") or {}
    elif a.get("kind") in ("comparison", "instance_choice", "gpu_choice", "inverse"):
        rows = a.get("options") or a.get("tried") or [x for x in (a.get("fits"), a.get("first_not_fitting")) if x]
        v["options"] = [{"name": str(o.get("gpu") or o.get("instance") or o.get("family") or o.get("value")),
                         "verdict": o.get("verdict"), "need_gb": o.get("need_gb"), "usable_gb": o.get("usable_gb_per_gpu"),
                         "href": conclusion_href(o["conclusion_id"]) if o.get("conclusion_id") else None,
                         "error": o.get("error")} for o in rows]
        v["text"] = a.get("text") or a.get("deciding") or {}
        v["assumed"] = a.get("assumed") or []
    elif a.get("kind") == "fact_comparison":
        v["compared"] = [{"subject": f.get("subject"), "text": f.get("text"), "id": f.get("id"),
                          "leader": c.get("named") == a.get("leader")}
                         for c in a.get("compared") or [] for f in c.get("facts") or []]
        v["support"] = a.get("support") or []
    elif a.get("kind") == "fact":
        v["fact"] = a.get("fact") or {}
        v["support"] = a.get("support") or []
        v["contradictions"] = a.get("contradictions") or []
    v["summary"] = {k: summary.get(k) for k in LANGS if summary.get(k)}
    v["caveats"] = summary.get("caveats") or []
    return v


def number(value: Any, lang: str = "en", digits: int | None = None) -> str:
    return fmt_number(value, lang, digits)
