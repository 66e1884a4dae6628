"""What the KB knows: its GPUs, instance sizes and models, listed and one by one with every reference fact,
its citation, and the values recorded as unknown with their reasons (``gpukb gpus|instances|models``,
``GET /v1/gpus[/<id>]``, ``/v1/instances[/<id>]``, ``/v1/models[/<id>]``). Each answer is built here as its
typed model (:mod:`gpukb.engine.models.inventory`); the faces only serialise it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import BadInput, Issue, short
from ..kb.store import Fact, ReleaseView, Unknown
from ..kb.vocabulary import Interval, Vocabulary
from ..kb.names import known, name_of, resolve
from ..models.base import OMIT
from ..models.inventory import (EntryFact, EntryUnknown, GpuDetail, GpuItem, GpuList, InstanceDetail, InstanceItem,
                                InstanceList, ModelDetail, ModelItem, ModelList)

if TYPE_CHECKING:
    from ..core.session import Session


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


# -- facts of an entity -------------------------------------------------------------------------------------

def _label(vocab: Vocabulary, attribute: str) -> dict[str, str]:
    attr = vocab.attributes.get(attribute)
    return {"en": attr.en, "zh": attr.zh} if attr else {"en": attribute, "zh": attribute}


def _fact_entry(f: Fact, vocab: Vocabulary, via: str | None = None) -> EntryFact:
    return EntryFact.of(id=f.id, key=f.key, attribute=f.attribute, attribute_label=_label(vocab, f.attribute),
                        value=f.value, text=f.value_text(vocab), unit=OMIT if f.unit is None else f.unit,
                        qualifiers={k: (v.as_dict() if isinstance(v, Interval) else v) for k, v in f.qualifiers.items()},
                        citation=f.citation or "", confidence=f.confidence or "", note=f.note or OMIT, via=via or OMIT)


def _unknown_entry(u: Unknown, vocab: Vocabulary, via: str | None = None) -> EntryUnknown:
    return EntryUnknown.of(attribute=u.attribute, kind=u.kind, reason=u.reason, citation=u.citation,
                           qualifiers=dict(u.qualifiers), attribute_label=_label(vocab, u.attribute), via=via or OMIT)


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
    """Why the KB has no price for an instance: the recorded unknown's reason, else that none is published
    (a :class:`~gpukb.engine.kb.notes.Note`: English, with its Chinese from ``labels.note`` of the vocabulary)."""
    reasons = [u.reason for u in view.kb.unknowns if u.subject == instance and u.attribute in PRICE_ATTRIBUTES]
    vocab = view.kb.vocab
    return vocab.wording.note("price_unpublished", vocab, reason=reasons[0] if reasons else None)


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


def _specs(view: ReleaseView, eid: str, attributes: tuple[str, ...]) -> dict[str, str]:
    return {a: t for a in attributes for t in [_short(view, eid, a)] if t is not None}


def _own_facts(view: ReleaseView, eid: str) -> int:
    return sum(1 for f in view.reference if f.subject == eid)


def _gpu_names(view: ReleaseView, eid: str) -> tuple[list[str] | Any, str | Any]:
    """A GPU's variants and its umbrella as names (OMIT when it has none)."""
    vocab = view.kb.vocab
    spec = vocab.entities[eid]
    variants = [name_of(v) for v in spec["variants"]] if spec.get("variants") else OMIT
    return variants, name_of(vocab.generic(eid)) if vocab.generic(eid) != eid else OMIT


def _params(view: ReleaseView, eid: str) -> float | None:
    p = view.ref(eid, "params")
    return float(p.norm.point()) if p is not None and isinstance(p.norm, Interval) and p.norm.point() else None


def gpu_item(view: ReleaseView, eid: str) -> GpuItem:
    variants, umbrella = _gpu_names(view, eid)
    return GpuItem.of(id=eid, name=name_of(eid), label=view.kb.vocab.label(eid), variants=variants, umbrella=umbrella,
                      specs=_specs(view, eid, GPU_SUMMARY), facts=_own_facts(view, eid),
                      unknowns=len(unknowns_of(view.kb, eid)))


def instance_item(view: ReleaseView, eid: str) -> InstanceItem:
    fam = family_of(view, eid)
    ps = prices(view, eid)
    return InstanceItem.of(id=eid, name=name_of(eid), label=view.kb.vocab.label(eid), provider=provider_of(view, eid),
                           family=name_of(fam) if fam else None, gpu=[name_of(g) for g in gpus_of(view, eid)],
                           specs=_specs(view, eid, INSTANCE_SUMMARY), prices=ps,
                           price_note=OMIT if ps else price_note(view, eid))


def model_item(view: ReleaseView, eid: str) -> ModelItem:
    return ModelItem.of(id=eid, name=name_of(eid), label=view.kb.vocab.label(eid), params=_params(view, eid),
                        specs=_specs(view, eid, MODEL_SUMMARY), facts=_own_facts(view, eid))


def carriers(view: ReleaseView, gpu: str) -> list[str]:
    """The instance sizes that carry ``gpu`` (or, for a generic name, any of its variants), in catalog order."""
    vocab = view.kb.vocab
    want = {gpu, *vocab.entities[gpu].get("variants", [])}
    out = []
    for e in known(vocab, "instance"):
        carried = set(gpus_of(view, e))
        if want & (carried | {vocab.generic(x) for x in carried}):
            out.append(e)
    return out


def listing(state: Session, kind: str, provider: str | None = None, gpu: str | None = None,
            kb_version: str | None = None) -> GpuList | InstanceList | ModelList:
    """Every GPU, instance size (of one provider, carrying one GPU) or model the release knows."""
    view = state.view(kb_version)
    vocab = view.kb.vocab
    if kind == "gpu":
        return GpuList.of(kb_version=view.name, gpus=[gpu_item(view, e) for e in known(vocab, "gpu")])
    if kind == "model":
        return ModelList.of(kb_version=view.name, models=[model_item(view, e) for e in known(vocab, "model")])
    want_p = resolve_provider(view, provider) if provider else None
    carrying = set(carriers(view, resolve(vocab, "gpu", gpu, "gpu", BadInput))) if gpu else None
    items = []
    for e in known(vocab, "instance"):
        if want_p and provider_of(view, e) != want_p:
            continue
        if carrying is not None and e not in carrying:
            continue
        items.append(instance_item(view, e))
    items.sort(key=lambda i: (i.provider or "~", i.family or "", _num(view, i.id, "gpu_count"),
                              _num(view, i.id, "vcpu"), i.name))
    filters = {k: v for k, v in (("provider", want_p), ("gpu", gpu)) if v} if want_p or gpu else OMIT
    return InstanceList.of(kb_version=view.name, instances=items, filters=filters)


def _num(view: ReleaseView, subject: str, attr: str) -> float:
    f = view.ref(subject, attr)
    return float(f.norm.point()) if f is not None and isinstance(f.norm, Interval) and f.norm.point() is not None else float("inf")


# -- one entry ------------------------------------------------------------------------------------------

def entry(state: Session, kind: str, name: str, kb_version: str | None = None
          ) -> GpuDetail | InstanceDetail | ModelDetail:
    """One GPU, instance size or model: every reference fact with its citation, the unknowns with their
    reasons, and (for a GPU) the attributes of issue #32 that have neither."""
    view = state.view(kb_version)
    vocab, kb = view.kb.vocab, view.kb
    eid = resolve(vocab, kind, name, "id")
    spec = vocab.entities[eid]
    head = {"kind": kind, "id": eid, "name": name_of(eid), "label": vocab.label(eid),
            "aliases": sorted({a for v in (spec.get("aliases") or {}).values() for a in (v or [])}),
            "kb_version": view.name}
    facts = [_fact_entry(f, vocab) for f in _facts(view, eid)]
    unknowns = [_unknown_entry(u, vocab) for u in unknowns_of(kb, eid)]
    own = {f.attribute for f in facts}
    if kind == "gpu":
        generic = vocab.generic(eid)
        if generic != eid:          # what the umbrella states holds for each of its variants
            facts += [_fact_entry(f, vocab, generic) for f in _facts(view, generic) if f.attribute not in own]
            unknowns += [_unknown_entry(u, vocab, generic) for u in unknowns_of(kb, generic) if u.attribute not in own]
        have = {f.attribute for f in facts if not f.qualifiers.get("sparsity")} | {u.attribute for u in unknowns}
        variants, umbrella = _gpu_names(view, eid)
        return GpuDetail.of(**head, variants=variants, umbrella=umbrella, facts=facts, unknowns=unknowns,
                            missing=[a for a in GPU_ATTRIBUTES if a not in have] if not spec.get("variants") else [],
                            instances=[name_of(i) for i in known(vocab, "instance")
                                       if eid in gpus_of(view, i) or generic in gpus_of(view, i) and generic != eid],
                            fact_count=len(facts), unknown_count=len(unknowns))
    if kind == "instance":
        fam = family_of(view, eid)
        if fam:
            facts += [_fact_entry(f, vocab, fam) for f in _facts(view, fam) if f.attribute not in own]
        ps = prices(view, eid)
        return InstanceDetail.of(**head, provider=provider_of(view, eid), family=name_of(fam) if fam else None,
                                 gpu=[name_of(g) for g in gpus_of(view, eid)], prices=ps,
                                 price_note=OMIT if ps else price_note(view, eid), facts=facts, unknowns=unknowns,
                                 fact_count=len(facts), unknown_count=len(unknowns))
    return ModelDetail.of(**head, params=_params(view, eid), facts=facts, unknowns=unknowns,
                          fact_count=len(facts), unknown_count=len(unknowns))
