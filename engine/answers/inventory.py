"""What the KB knows: its GPUs, instance sizes and models, listed and one by one with every reference fact,
its citation, and the values recorded as unknown with their reasons (``gpukb gpus|instances|models``,
``GET /v1/gpus[/<id>]``, ``/v1/instances[/<id>]``, ``/v1/models[/<id>]``).

It also words the answer to a name the KB does not know ("gpukb knows no GPU called X; known ones are
..., closest names first"), the one sentence ``ask``, ``query``, ``check`` and the MCP tools give.
"""
from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Any, Iterable

from ..errors import BadInput, Issue, NotFound, short
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval, Vocabulary

if TYPE_CHECKING:
    from .service import GpuKB

#: the entity kinds listed, and the word an answer uses for each
KINDS = ("gpu", "instance", "model")
WORDS = {"gpu": "GPU", "instance": "instance", "model": "model", "family": "instance family"}
WORDS_ZH = {"gpu": "GPU", "instance": "实例规格", "model": "模型", "family": "实例族"}

#: the attributes every GPU entry has, as a fact or as a recorded unknown (issue #32)
GPU_ATTRIBUTES = ("architecture", "compute_capability", "process_node", "memory_gb", "memory_type",
                  "memory_bandwidth", "usable_memory", "fp64_tflops", "fp32_tflops", "tf32_tensor_tflops",
                  "bf16_tensor_tflops", "fp16_tensor_tflops", "fp8_tensor_tflops", "int8_tops", "int4_tops",
                  "bf16_native", "nvlink", "mig_max_instances", "pcie_generation", "tdp_w", "ecc", "launch_year")
#: the figures a list shows per entry
GPU_SUMMARY = ("architecture", "memory_gb", "memory_type", "memory_bandwidth", "bf16_tensor_tflops",
               "fp8_tensor_tflops", "tdp_w", "launch_year")
INSTANCE_SUMMARY = ("gpu_count", "vcpu", "host_memory_gb", "gpu_memory_total_gb")
MODEL_SUMMARY = ("params", "layers", "hidden_size", "heads", "kv_heads")
PRICE_ATTRIBUTES = {"price_hourly_usd": "USD", "price_hourly_cny": "CNY"}
SHOWN_NAMES = 10


# -- names ----------------------------------------------------------------------------------------------------

def known(vocab: Vocabulary, kind: str) -> list[str]:
    """The entity ids of a kind the catalog knows (not the names only a source used), in vocabulary order."""
    return [e for e in vocab.entities_of(kind) if vocab.entities[e].get("catalog", True)]


def name_of(eid: str) -> str:
    return eid.split(":", 1)[1] if ":" in eid else eid


def closest(vocab: Vocabulary, kind: str, text: str) -> list[str]:
    """Every known name of a kind, the closest to ``text`` first (difflib's ratio over names and aliases)."""
    t = str(text).strip().lower()

    def score(eid: str) -> float:
        spec = vocab.entities[eid]
        names = {name_of(eid), spec.get("name") or ""}
        for aliases in (spec.get("aliases") or {}).values():
            names.update(aliases or [])
        return max(difflib.SequenceMatcher(None, t, str(n).lower()).ratio() for n in names if n)
    ids = known(vocab, kind)
    return [name_of(e) for e in sorted(ids, key=lambda e: (-score(e), name_of(e).lower()))]


def _said(text: str) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= 60 else t[:60] + "..."


def unknown_text(vocab: Vocabulary, kind: str, text: str, lang: str = "en") -> str:
    """The sentence for a name the KB does not know, with the known ones, closest first."""
    names = closest(vocab, kind, text)
    if lang == "zh":
        shown = "、".join(names[:SHOWN_NAMES]) + (f" 等（共 {len(names)} 个）" if len(names) > SHOWN_NAMES else "")
        return f"gpukb 不认识名为 {_said(text)} 的{WORDS_ZH.get(kind, kind)}；已知的有 {shown}（最接近的在前）"
    shown = ", ".join(names[:SHOWN_NAMES]) + (f", ... ({len(names)} in all)" if len(names) > SHOWN_NAMES else "")
    return f"gpukb knows no {WORDS.get(kind, kind)} called {_said(text)}; known ones are {shown} (closest names first)"


def unknown_issue(vocab: Vocabulary, kind: str, text: str, field: str | None = None) -> Issue:
    """An input issue for an unknown name: the sentence, and every known name (closest first) as allowed."""
    return Issue(unknown_text(vocab, kind, text), field=field or kind, allowed=closest(vocab, kind, text))


def resolve(vocab: Vocabulary, kind: str, text: Any, field: str | None = None, missing: type = NotFound) -> str:
    """The entity id a name, alias or id of ``kind`` stands for; ``missing`` (NotFound or BadInput) naming
    the closest known ones otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise BadInput(f"expected a {WORDS[kind]} name", [Issue(f"expected a {WORDS[kind]} name", field=field or kind)])
    t = text.strip()
    for cand in (t, f"{kind}:{t}"):
        if vocab.kind_of(cand) == kind:
            return cand
    eid = vocab.aliases().get(t.lower())
    if eid is None:
        eid = next((e for e in vocab.entities_of(kind) if name_of(e).lower() == t.lower()), None)
    if eid is None or vocab.kind_of(eid) != kind or not vocab.entities[eid].get("catalog", True):
        issue = unknown_issue(vocab, kind, t, field)
        raise missing(issue.message, [issue])
    return eid


# -- names a text uses that the KB does not know -------------------------------------------------------------

_GPU_SHAPE = re.compile(
    r"(?<![\w.\-])(?:(?:nvidia|tesla|geforce|amd|instinct)\s+)?"
    r"((?:rtx|gtx)\s?-?\d{4}(?:\s?(?:ti|super))?|rtx\s?(?:pro\s?)?\d{4}|[a-z]{1,2}\d{2,4}[a-z]{0,2}(?:-\d{2,3}\s?gb?)?)"
    r"(?![\w.\-])", re.I)
_INSTANCE_SHAPE = re.compile(
    r"(?<![\w.\-])((?:ecs\.)?[a-z]{1,6}\d{0,2}[a-z]{0,4}(?:-[a-z0-9]+)*\.\d{0,3}(?:x?large|medium|small|metal)"
    r"\d{0,4}|[a-z]\d-(?:highgpu|megagpu|ultragpu|standard)-\d+g?)(?![\w\-])", re.I)
_MODEL_SHAPE = re.compile(r"(?<![\w.\-])([a-z][a-z0-9.]*(?:-[a-z0-9.]+)*-\d+(?:\.\d+)?[bm])(?![\w\-])", re.I)
#: GPU-shaped words that are no product (precisions, sizes, ZeRO stages, units)
_NOT_GPU = {"fp", "bf", "tf", "nf", "int", "sm", "cc", "gen", "ddr", "hbm", "gddr", "usd", "cny", "zero", "top",
            "tops", "w", "gb", "q", "lr", "bs", "ep", "gn", "gi", "gt", "bn", "ps", "ms", "us", "hz"}


def unknown_mentions(text: str, vocab: Vocabulary, known_spans: Iterable[tuple[int, int]] = ()) -> list[dict[str, Any]]:
    """Product names in ``text`` shaped like a GPU, an instance size or a model that the KB does not know:
    ``[{"kind", "text", "span", "message", "closest"}]``. ``known_spans`` are the spans of names already
    recognised (never reported)."""
    whole = list(known_spans)           # a recognised name covering the word: not unknown
    spans: list[tuple[int, int]] = []   # the words reported so far
    aliases = vocab.aliases()
    out: list[dict[str, Any]] = []

    def taken(s: int, e: int) -> bool:
        return any(a <= s and e <= b for a, b in whole) or any(s < b and a < e for a, b in spans)

    def add(kind: str, m: re.Match, group: int = 1) -> None:
        s, e = m.span(group)
        word = m.group(group)
        if taken(s, e) or word.lower() in aliases or f"{kind}:{word}" in vocab.entities:
            return
        if kind == "gpu" and (any(name_of(x).lower() == word.lower() for x in vocab.entities)):
            return
        spans.append((s, e))
        names = closest(vocab, kind, word)
        out.append({"kind": kind, "text": word, "span": [s, e], "message": unknown_text(vocab, kind, word),
                    "closest": names[:SHOWN_NAMES]})

    for m in _INSTANCE_SHAPE.finditer(text):
        add("instance", m)
    for m in _MODEL_SHAPE.finditer(text):
        add("model", m)
    for m in _GPU_SHAPE.finditer(text):
        word = m.group(1)
        compact = word.replace(" ", "")
        if re.fullmatch(r"[a-z]{1,2}\d{2,4}[a-z]{0,2}(?:-\d{2,3}gb?)?", compact, re.I):
            # a bare letters+digits word is a GPU name only when it reads like one: capitals ("B300") or
            # a vendor or GPU word around it; never a precision, a parameter count or a ZeRO stage
            if re.match(r"[a-z]+", compact, re.I).group(0).lower() in _NOT_GPU:
                continue
            around = text[max(0, m.start() - 12):m.end() + 14].lower()
            if not (word[:1].isupper() or re.search(r"gpu|card|显卡|卡|nvidia|amd|英伟达", around)):
                continue
        add("gpu", m)
    out.sort(key=lambda x: x["span"])
    return out


# -- facts of an entity -------------------------------------------------------------------------------------

def _fact_entry(f: Fact, vocab: Vocabulary, via: str | None = None) -> dict[str, Any]:
    attr = vocab.attributes.get(f.attribute)
    d: dict[str, Any] = {"id": f.id, "key": f.key, "attribute": f.attribute,
                         "attribute_label": {"en": attr.en, "zh": attr.zh} if attr else {"en": f.attribute, "zh": f.attribute},
                         "value": f.value, "text": f.value_text(vocab)}
    if f.unit is not None:
        d["unit"] = f.unit
    d["qualifiers"] = {k: (v.as_dict() if isinstance(v, Interval) else v) for k, v in f.qualifiers.items()}
    d["citation"] = f.citation or ""
    d["confidence"] = f.confidence or ""
    if f.note:
        d["note"] = f.note
    if via:
        d["via"] = via
    return d


def _unknown_entry(u: Any, vocab: Vocabulary, via: str | None = None) -> dict[str, Any]:
    attr = vocab.attributes.get(u.attribute)
    d = {**u.as_dict(), "attribute_label": {"en": attr.en, "zh": attr.zh} if attr else {"en": u.attribute, "zh": u.attribute}}
    d.pop("subject", None)
    if via:
        d["via"] = via
    return d


def _facts(view: ReleaseView, subject: str) -> list[Fact]:
    order = list(view.kb.vocab.attributes)
    rank = {a: i for i, a in enumerate(order)}
    return sorted((f for f in view.reference if f.subject == subject),
                  key=lambda f: (rank.get(f.attribute, len(rank)), bool(f.qualifiers), f.id))


def unknowns_of(state_kb: Any, subject: str) -> list[Any]:
    return [u for u in state_kb.unknowns if u.subject == subject]


def _short(view: ReleaseView, subject: str, attribute: str) -> str | None:
    f = view.ref(subject, attribute)
    if f is None:
        vocab = view.kb.vocab
        if vocab.generic(subject) != subject:
            f = view.ref(vocab.generic(subject), attribute)
    return f.value_text(view.kb.vocab) if f is not None else None


def provider_of(view: ReleaseView, instance: str) -> str | None:
    """The cloud vendor of an instance size (its family's ``vendor``), as a bare name ("aws")."""
    vocab = view.kb.vocab
    fam = view.ref(instance, "family")
    family = fam.value if fam is not None else vocab.entities.get(instance, {}).get("family")
    if not family:
        return None
    v = view.ref(family, "vendor")
    return name_of(v.value) if v is not None and isinstance(v.value, str) else None


def family_of(view: ReleaseView, instance: str) -> str | None:
    fam = view.ref(instance, "family")
    family = fam.value if fam is not None else view.kb.vocab.entities.get(instance, {}).get("family")
    return family if isinstance(family, str) else None


def gpus_of(view: ReleaseView, instance: str) -> list[str]:
    """The GPU entity ids an instance carries (its own ``gpu`` fact, else its family's)."""
    for subj in (instance, family_of(view, instance)):
        if subj:
            f = view.ref(subj, "gpu")
            if f is not None:
                return [str(v) for v in (f.value if isinstance(f.value, list) else [f.value])]
    return []


def prices(view: ReleaseView, instance: str) -> list[dict[str, Any]]:
    """The instance's list prices, one per currency and region, lowest first within a currency."""
    out = []
    for attr, currency in PRICE_ATTRIBUTES.items():
        for f in view.by_subject_attr.get((instance, attr), []):
            if f.tier != "reference" or not isinstance(f.norm, Interval) or f.norm.point() is None:
                continue
            out.append({"value": float(f.norm.point()), "currency": currency, "unit": f.unit or f"{currency}/h",
                        "region": f.qualifiers.get("region"), "as_of": f.qualifiers.get("as_of"),
                        "fact": f.key, "citation": f.citation or ""})
    out.sort(key=lambda p: (p["currency"], p["value"]))
    return out


def price_note(view: ReleaseView, instance: str) -> str:
    """Why the KB has no price for an instance: the recorded unknown's reason, else that none is published."""
    reasons = [u.reason for u in view.kb.unknowns if u.subject == instance and u.attribute in PRICE_ATTRIBUTES]
    base = "the price is not published in the KB"
    return f"{base}: {reasons[0]}" if reasons else base


# -- lists -------------------------------------------------------------------------------------------------

def _providers(view: ReleaseView) -> list[str]:
    vocab = view.kb.vocab
    return sorted({p for i in known(vocab, "instance") for p in [provider_of(view, i)] if p})


def resolve_provider(view: ReleaseView, text: str) -> str:
    """A provider's bare name ("aws") from a name or alias ("AWS", "Tencent Cloud", "阿里云")."""
    vocab = view.kb.vocab
    allowed = _providers(view)
    t = str(text).strip()
    eid = t if t in vocab.entities else vocab.aliases().get(t.lower()) or f"vendor:{t.lower()}"
    if vocab.kind_of(eid) == "vendor" and name_of(eid) in allowed:
        return name_of(eid)
    msg = f"gpukb knows no cloud provider called {short(t)}; known ones are {', '.join(allowed)}"
    raise BadInput(msg, [Issue(msg, field="provider", allowed=allowed)])


def gpu_item(view: ReleaseView, eid: str) -> dict[str, Any]:
    vocab, kb = view.kb.vocab, view.kb
    spec = vocab.entities[eid]
    d: dict[str, Any] = {"id": eid, "name": name_of(eid), "label": vocab.label(eid)}
    if spec.get("variants"):
        d["variants"] = [name_of(v) for v in spec["variants"]]
    if vocab.generic(eid) != eid:
        d["umbrella"] = name_of(vocab.generic(eid))
    d["specs"] = {a: t for a in GPU_SUMMARY for t in [_short(view, eid, a)] if t is not None}
    d["facts"] = sum(1 for f in view.reference if f.subject == eid)
    d["unknowns"] = len(unknowns_of(kb, eid))
    return d


def instance_item(view: ReleaseView, eid: str) -> dict[str, Any]:
    vocab = view.kb.vocab
    fam = family_of(view, eid)
    d: dict[str, Any] = {"id": eid, "name": name_of(eid), "label": vocab.label(eid),
                         "provider": provider_of(view, eid), "family": name_of(fam) if fam else None,
                         "gpu": [name_of(g) for g in gpus_of(view, eid)]}
    d["specs"] = {a: t for a in INSTANCE_SUMMARY for t in [_short(view, eid, a)] if t is not None}
    ps = prices(view, eid)
    d["prices"] = ps
    if not ps:
        d["price_note"] = price_note(view, eid)
    return d


def model_item(view: ReleaseView, eid: str) -> dict[str, Any]:
    vocab = view.kb.vocab
    d: dict[str, Any] = {"id": eid, "name": name_of(eid), "label": vocab.label(eid)}
    p = view.ref(eid, "params")
    d["params"] = float(p.norm.point()) if p is not None and isinstance(p.norm, Interval) and p.norm.point() else None
    d["specs"] = {a: t for a in MODEL_SUMMARY for t in [_short(view, eid, a)] if t is not None}
    d["facts"] = sum(1 for f in view.reference if f.subject == eid)
    return d


def listing(state: GpuKB, kind: str, provider: str | None = None, gpu: str | None = None,
            kb_version: str | None = None) -> dict[str, Any]:
    """Every GPU, instance size (of one provider, carrying one GPU) or model the release knows."""
    view = state.view(kb_version)
    vocab = view.kb.vocab
    if kind == "gpu":
        return {"kb_version": view.name, "gpus": [gpu_item(view, e) for e in known(vocab, "gpu")]}
    if kind == "model":
        return {"kb_version": view.name, "models": [model_item(view, e) for e in known(vocab, "model")]}
    want_p = resolve_provider(view, provider) if provider else None
    want_g: set[str] | None = None
    if gpu:
        g = resolve(vocab, "gpu", gpu, "gpu", BadInput)
        want_g = {g, *vocab.entities[g].get("variants", [])}
    items = []
    for e in known(vocab, "instance"):
        if want_p and provider_of(view, e) != want_p:
            continue
        carried = set(gpus_of(view, e))
        if want_g is not None and not want_g & (carried | {vocab.generic(x) for x in carried}):
            continue
        items.append(instance_item(view, e))
    items.sort(key=lambda d: (d["provider"] or "~", d["family"] or "", _num(view, d["id"], "gpu_count"),
                              _num(view, d["id"], "vcpu"), d["name"]))
    out: dict[str, Any] = {"kb_version": view.name, "instances": items}
    if want_p or gpu:
        out["filters"] = {k: v for k, v in (("provider", want_p), ("gpu", gpu)) if v}
    return out


def _num(view: ReleaseView, subject: str, attr: str) -> float:
    f = view.ref(subject, attr)
    return float(f.norm.point()) if f is not None and isinstance(f.norm, Interval) and f.norm.point() is not None else float("inf")


# -- one entry ------------------------------------------------------------------------------------------

def entry(state: GpuKB, kind: str, name: str, kb_version: str | None = None) -> dict[str, Any]:
    """One GPU, instance size or model: every reference fact with its citation, the unknowns with their
    reasons, and (for a GPU) the attributes of issue #32 that have neither."""
    view = state.view(kb_version)
    vocab, kb = view.kb.vocab, view.kb
    eid = resolve(vocab, kind, name, "id")
    spec = vocab.entities[eid]
    aliases = sorted({a for v in (spec.get("aliases") or {}).values() for a in (v or [])})
    facts = [_fact_entry(f, vocab) for f in _facts(view, eid)]
    unknowns = [_unknown_entry(u, vocab) for u in unknowns_of(kb, eid)]
    d: dict[str, Any] = {"kind": kind, "id": eid, "name": name_of(eid), "label": vocab.label(eid), "aliases": aliases,
                         "kb_version": view.name}
    if kind == "gpu":
        d.update(gpu_item(view, eid))
        generic = vocab.generic(eid)
        if generic != eid:          # what the umbrella states holds for each of its variants
            own = {f["attribute"] for f in facts}
            facts += [_fact_entry(f, vocab, generic) for f in _facts(view, generic) if f.attribute not in own]
            unknowns += [_unknown_entry(u, vocab, generic) for u in unknowns_of(kb, generic)
                         if u.attribute not in own]
        have = {f["attribute"] for f in facts if not f["qualifiers"].get("sparsity")} | {u["attribute"] for u in unknowns}
        d["missing"] = [a for a in GPU_ATTRIBUTES if a not in have] if not spec.get("variants") else []
        d["instances"] = [name_of(i) for i in known(vocab, "instance")
                          if eid in gpus_of(view, i) or generic in gpus_of(view, i) and generic != eid]
    elif kind == "instance":
        d.update(instance_item(view, eid))
        fam = family_of(view, eid)
        if fam:
            own = {f["attribute"] for f in facts}
            facts += [_fact_entry(f, vocab, fam) for f in _facts(view, fam) if f.attribute not in own]
    else:
        d.update(model_item(view, eid))
    d["facts"], d["unknowns"] = facts, unknowns
    d["fact_count"], d["unknown_count"] = len(facts), len(unknowns)
    d.pop("specs", None)
    return d


def name_unknowns_in_check(text: str, skipped: list[dict[str, Any]], claim_spans: list[tuple[int, int]],
                           vocab: Vocabulary) -> list[dict[str, Any]]:
    """The passages a check did not understand, each naming the products in it the KB does not know
    (reason "gpukb knows no GPU called X"); a name outside every passage and every claim's quote (a
    sentence that stated something else) becomes a passage of its own, so no unknown product is skipped
    silently."""
    low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    from .lexicon import match_entities
    found = unknown_mentions(text, vocab, [(m.start, m.end) for m in match_entities(low, vocab)])
    if not found:
        return skipped
    out = [dict(x) for x in skipped]
    for m in found:
        s, e = m["span"]
        reason = f"gpukb knows no {WORDS[m['kind']]} called {_said(m['text'])}"
        home = next((x for x in out if x["span"][0] <= s and e <= x["span"][1]), None)
        if home is not None:
            generic = home.get("reason") == "no statement gpukb can check"
            home["reason"] = reason if generic else f"{home['reason']}; {reason}"
        elif not any(a <= s and e <= b for a, b in claim_spans):
            out.append({"span": [s, e], "quote": text[s:e], "reason": reason})
    out.sort(key=lambda x: x["span"])
    return out
