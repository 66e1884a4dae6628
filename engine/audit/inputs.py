"""What the audit rules are given: the engine records of claims (with the context each is judged in)
and of reference facts (with the family size tables, per-variant figures and documented effects the
rules read). The sizing scenario of each claim whose scope can be computed (so the rules can compare the
claim with gpukb's own computation for that scope) is :mod:`.audit_scenarios`; the run and the
read-back are in :mod:`.audit`.
"""
from __future__ import annotations

import re
import weakref
from collections import defaultdict
from typing import Any

from ..core import ranges
from ..kb import facts as factrec
from ..kb.lexicon import per_vocabulary
from ..kb import qualifiers as qual
from ..kb.store import Fact, ReleaseView
from ..kb.variants import is_variant_span, variant_figures
from ..kb.vocabulary import Interval
from .functions import qdiff, stated_tolerance


# -- records -----------------------------------------------------------------------------------

def claim_records(view: ReleaseView, claims: list[Fact]) -> list[dict[str, Any]]:
    """The engine records of claims: the fact, its source's date and the context it is judged in."""
    vocab = view.kb.vocab
    out = []
    for f in claims:
        r = factrec.record(f, vocab)
        src = view.kb.sources.get(f.source or "")
        r["pub"] = (src.published or "") if src else ""
        r.update(claim_context(view, f))
        out.append(r)
    return out


def reference_records(view: ReleaseView, refs: list[Fact]) -> list[dict[str, Any]]:
    """The engine records of reference facts, with the sizes, variants and effects the rules read."""
    return fact_records(view, refs) + context_records(view, refs)


_RECORDS: "weakref.WeakKeyDictionary[Any, dict[str, dict[str, Any]]]" = weakref.WeakKeyDictionary()


def fact_records(view: ReleaseView, refs: list[Fact]) -> list[dict[str, Any]]:
    """The records of reference facts themselves, one object per fact version for the life of the vocabulary:
    every audit run asserts them unchanged, so the reasoner may keep their text (``shared``)."""
    vocab = view.kb.vocab
    cache = per_vocabulary(_RECORDS, vocab, lambda v: {})
    out = []
    for f in refs:
        r = cache.get(f.key)
        if r is None:
            r = cache[f.key] = factrec.record(f, vocab)
        out.append(r)
    return out


def context_records(view: ReleaseView, refs: list[Fact]) -> list[dict[str, Any]]:
    """The sizes, variants, effects and not-applicable facts the rules read beside the reference facts."""
    return size_records(view, refs) + variant_records(refs) + variant_span_records(view, refs) + \
        [effect_record(view)] + na_records(view, {f.subject for f in refs})


def not_applicable(view: ReleaseView) -> dict[tuple[str, str], Any]:
    """(subject, attribute) -> the unknown that says the attribute does not apply to the subject (no FP8
    tensor-core mode on an Ampere card, no NVLink on an L4); a generic GPU gets one when every one of its
    variants has it (A100 from A100-40GB and A100-80GB). Unknowns narrowed by qualifiers are left out."""
    kb = view.kb
    memo = kb.__dict__.get("_not_applicable")
    if memo is None:
        memo = {(u.subject, u.attribute): u for u in kb.unknowns if u.kind == "not_applicable" and not u.qualifiers}
        for g, spec in kb.vocab.entities.items():
            variants = [str(v) for v in spec.get("variants") or ()]
            if variants:
                for attr in {a for (s, a) in memo if s == variants[0]}:
                    if all((v, attr) in memo for v in variants):
                        memo.setdefault((g, attr), memo[(variants[0], attr)])
        kb.__dict__["_not_applicable"] = memo
    return memo


def na_records(view: ReleaseView, subjects: set[str]) -> list[dict[str, Any]]:
    """The ``na`` records of the subjects (and their generic names) whose reference facts are given: what
    the vendor says does not apply to them (rule audit.ref.not_applicable)."""
    vocab = view.kb.vocab
    wanted = subjects | {vocab.generic(s) for s in subjects}
    return [{"t": "na", "fk": na_key(s, a), "fid": na_key(s, a), "subject": s, "attribute": a,
             "citation": u.citation} for (s, a), u in sorted(not_applicable(view).items()) if s in wanted]


def na_key(subject: str, attribute: str) -> str:
    """The key of a not-applicable record: ``NA-T4-fp8_tensor_tflops``."""
    return f"NA-{subject.split(':', 1)[-1]}-{attribute}"


def _holds(claim: Interval, v: float, tol: float = 0.1) -> bool:
    """Does the value ``v`` satisfy the claimed interval? Within 10% of an inclusive end; a strict end
    (\"more than 16\") excludes the value itself."""
    if claim.lo is not None:
        if claim.lo_strict and v <= claim.lo:
            return False
        if not claim.lo_strict and v < claim.lo - abs(claim.lo) * tol:
            return False
    if claim.hi is not None:
        if claim.hi_strict and v >= claim.hi:
            return False
        if not claim.hi_strict and v > claim.hi + abs(claim.hi) * tol:
            return False
    return True


def _agrees(c: Fact, r: Fact) -> bool:
    """Does a claimed figure agree with a reference figure within the rounding it is written with, as the
    rule audit.ref.quantity.agrees compares them (stated_tolerance)?"""
    a, b = c.norm, r.norm
    tol = stated_tolerance(a.lo, a.hi, 1 if c.approx else 0, b.lo, b.hi, 1 if r.approx else 0)
    return ranges.agrees(a.lo, a.hi, b.lo, b.hi, tol)


def _only(f: Fact | None) -> str | None:
    """The one GPU a fact of a family's GPUs names, else None (a family with several GPUs, or no fact)."""
    return str(f.value[0]) if f is not None and isinstance(f.value, list) and len(f.value) == 1 else None


def _source_gpu(view: ReleaseView, source: str | None, family: str) -> Fact | None:
    """The claim of ``source`` that gives ``family`` its GPU (the latest of them), if any."""
    idx = view.__dict__.get("_source_gpus")
    if idx is None:
        idx = {}
        for f in sorted(view.claims, key=lambda f: f.id):
            if f.attribute == "gpu" and f.subject.startswith("family:"):
                idx[(f.source, f.subject)] = f
        view.__dict__["_source_gpus"] = idx
    return idx.get((source, family))


def _variant_scope(view: ReleaseView, variants: list[str], c: Fact) -> dict[str, Any]:
    """The claim's qualifiers that scope its variants' reference figures of its attribute (``sparsity``
    for a throughput); other qualifiers (a family, a task) do not choose among a variant's figures."""
    keys = {k for v in variants for f in view.by_subject_attr.get((v, c.attribute), []) if f.tier == "reference"
            for k in f.qualifiers}
    return {k: v for k, v in c.qualifiers.items() if k in keys}


def claim_context(view: ReleaseView, c: Fact) -> dict[str, Any]:
    """The family a claim speaks in the context of (its subject, its family qualifier, else what its
    source is about) and that family's vendor, for the rules that compare products with their context."""
    src = view.kb.sources.get(c.source or "")
    about = [a for a in (src.about if src else ()) if a.startswith("family:")]
    named = [f for f in (c.subject if c.subject.startswith("family:") else None,
                         c.qualifiers.get("family") if isinstance(c.qualifiers.get("family"), str) else None) if f]
    fam = (named or about or [None])[0]
    out: dict[str, Any] = {}
    if fam:
        out["ctx_family"] = fam
    for f in named + about:                 # the vendor of the first family the catalog knows
        vendor, listed = view.ref(f, "vendor"), view.ref(f, "in_catalog")
        if vendor is not None and listed is not None and listed.value:
            out["ctx_vendor"] = vendor.value
            break
    # the GPU the claim is about, and whether the claim itself names it (1) or only its source's subject does (0)
    gpu, stated = None, 1
    if c.subject.startswith("gpu:"):
        gpu = c.subject
    elif isinstance(c.qualifiers.get("gpu"), str):
        gpu = c.qualifiers["gpu"]
    elif fam:
        carried = view.ref(fam, "gpu")
        if carried is None and view.ref(fam, "in_catalog") is not None:
            # a name the catalog does not list: judged on the hardware its own source gives it
            carried = _source_gpu(view, c.source, fam)
            if carried is not None:
                out["ctx_gpu_by"] = carried.id
        gpu = _only(carried)
        stated = 1 if (c.subject == fam or c.qualifiers.get("family") == fam) else 0
    if gpu:
        out["ctx_gpu"], out["ctx_stated"] = gpu, stated
    else:
        out.pop("ctx_gpu_by", None)
    variants = view.kb.vocab.entities.get(c.subject, {}).get("variants") if c.subject.startswith("gpu:") else None
    if variants:
        out["gpu_variants"] = [str(v) for v in variants]
    # a figure claimed for a generic GPU: which of its variants have it (the V100's 16 GB card is not
    # "more than 16 GB", its 32 GB card is); a figure qualified as the variants' own figures are
    # ("624 TFLOPS with sparsity") is read against each variant's figure of that scope, when the generic
    # GPU has none of its own
    scope = _variant_scope(view, [str(v) for v in variants or ()], c)
    if variants and not (scope and view.ref(c.subject, c.attribute, scope) is not None):
        refs = [view.ref(str(v), c.attribute, scope) for v in variants]
        if isinstance(c.norm, Interval) and all(r is not None and isinstance(r.norm, Interval)
                                                and r.norm.point() is not None for r in refs):
            held = [r.key for r in refs if _holds(c.norm, r.norm.point())]
            missed = [r.key for r in refs if r.key not in held]
            out["var_n"], out["var_held"] = len(refs), len(held)
            out["var_key"] = (missed or held)[0]
            if scope:
                out["var_scoped"] = 1
        elif isinstance(c.value, str) and refs and all(r is not None and isinstance(r.value, str) for r in refs) \
                and view.ref(c.subject, c.attribute) is None:
            # a text value of a generic GPU ("the A100 uses HBM2e"): which variants have it (40GB: HBM2, 80GB: HBM2e)
            held = [r.key for r in refs if r.value.lower() == c.value.lower()]
            missed = [r.key for r in refs if r.key not in held]
            out["var_n"], out["var_held"], out["var_key"], out["var_text"] = len(refs), len(held), (missed or held)[0], 1
    # the figure of one version of the product ("144 GB" of the GH200's HBM3e version, a fact with a condition):
    # a claim that does not name the version is right of that one, whatever the other versions have
    # (not when the product's unconditioned figure agrees: that one is the claim's, as the rules compare them)
    if isinstance(c.norm, Interval) and "condition" not in c.qualifiers:
        refs = [r for r in view.by_subject_attr.get((c.subject, c.attribute), []) if r.tier == "reference"
                and isinstance(r.norm, Interval) and r.norm.point() is not None]
        held = [r.key for r in refs if "condition" in r.qualifiers and _holds(c.norm, r.norm.point())]
        if held and not any(_agrees(c, r) for r in refs if "condition" not in r.qualifiers):
            out["ver_key"] = held[0]
    cmp = [str(x) for x in c.qualifiers.get("compared_to") or []]
    if len(cmp) == 1:
        other = cmp[0] if cmp[0].startswith("gpu:") else _only(view.ref(cmp[0], "gpu")) if cmp[0].startswith("family:") else None
        if other:
            out["cmp_gpu"] = other
    if out.get("ctx_gpu") and out.get("cmp_gpu"):
        # how many times the claim's GPU has the other's figure, for each figure that bounds training speed
        ratios, keys, others = [], [], []
        for m in view.kb.vocab.speed_figures():
            a, b = view.ref(out["ctx_gpu"], m), view.ref(out["cmp_gpu"], m)
            if a is None or b is None or a.qualifiers or b.qualifiers:
                continue
            lo_a, lo_b = getattr(a.norm, "lo", None), getattr(b.norm, "lo", None)
            if lo_a and lo_b:
                ratios.append(lo_a / lo_b)
                keys.append(a.key)
                others.append(b.id)
        if ratios:
            out["cmp_ratios"], out["cmp_keys"], out["cmp_others"] = ratios, keys, others
    # the verdicts a bottleneck claim amounts to (host memory named as a bottleneck: not enough host memory)
    views = view.kb.vocab.verdict_views(c.attribute, c.value)
    if views:
        out["as_verdicts"] = views
    # the GPU figures that measure the resources a claim names (a bottleneck of GPU memory -> memory_gb)
    measures, unmeasured = view.kb.vocab.measures(c.attribute, c.value)
    if measures:
        out["measures"], out["unmeasured"] = measures, unmeasured
    # the instance roles each task of the claim calls for; a cluster or multi-machine scale makes training large-scale
    vocab = view.kb.vocab
    large = c.qualifiers.get("scale") in ("cluster", "multi_node")
    condition = str(c.qualifiers.get("condition") or "").lower()
    said = {role for role, patterns in (vocab.cues.get("scale") or {}).items()
            if condition and any(re.search(p, condition) for p in patterns)}
    sets = []
    for t in c.qualifiers.get("task") or []:
        roles = vocab.task_roles(str(t))
        if large and "large_scale_training" in roles:
            roles = ("large_scale_training",)
        elif len(said) == 1 and set(roles) > said:      # the condition says which scale of training
            roles = tuple(said)
        if roles:
            sets.append(qual.flat_list(roles))      # read back by all_covered/none_covered
    if sets:
        out["task_roles"] = sets
    # the hardware capabilities the techniques a claim relies on need (NVLink needs nvlink, RDMA rdma)
    mentioned = [c.subject] + [str(x) for x in c.qualifiers.get("techniques") or []]
    if isinstance(c.value, list):
        mentioned += [str(x) for x in c.value]
    needs = sorted({vocab.entities[e]["requires"] for e in mentioned if e in vocab.entities and vocab.entities[e].get("requires")})
    if needs:
        out["needs_hw"] = needs
    return out


def effect_record(view: ReleaseView) -> dict[str, Any]:
    """What the reference tier says each technique, method or tool does: the entities with a documented
    effect (and the key of that fact), and those whose effect is limited on a single GPU."""
    subjects, keys, single = [], [], []
    for f in sorted(view.reference, key=lambda f: f.id):
        if f.attribute == "effect" and not f.qualifiers and f.subject not in subjects:
            subjects.append(f.subject)
            keys.append(f.key)
            if "limited_on_single_gpu" in (f.value or []):
                single.append(f.subject)
    return {"t": "effects", "fk": "effects", "subjects": subjects, "keys": keys, "single_gpu_limited": single}


def variant_records(refs: list[Fact]) -> list[dict[str, Any]]:
    """One ``variants`` record per subject and quantity attribute that the reference gives only per
    variant (every fact qualified, e.g. by form factor): a claim that names no variant holds when every
    variant agrees, depends on the variant when some do."""
    by: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    plain: set[tuple[str, str]] = set()
    for f in refs:
        if not isinstance(f.norm, Interval):
            continue
        if f.qualifiers:
            by[(f.subject, f.attribute)].append(f)
        else:
            plain.add((f.subject, f.attribute))
    out = []
    for (subj, attr), facts in sorted(by.items()):
        if (subj, attr) in plain or len(facts) < 2:
            continue
        facts.sort(key=lambda f: f.id)
        out.append({"t": "variants", "fk": f"variants:{subj}:{attr}", "subject": subj, "attribute": attr,
                    "values": [f.norm.point() for f in facts], "keys": [f.key for f in facts],
                    "scopes": [";".join(f"{k}={v}" for k, v in sorted(f.qualifiers.items())) for f in facts],
                    "n": len(facts)})
    return out


def variant_span_records(view: ReleaseView, refs: list[Fact]) -> list[dict[str, Any]]:
    """One ``vfigures`` record per span of a generic product's variants' figures among ``refs``
    (R-A100-memory_gb, 40-80 GB): those figures as the rules compare them, ``[lo, hi, approx, qsig, key]``
    each (audit.ref.variant_span.*: a single figure said of the product must be one of them)."""
    vocab = view.kb.vocab
    spans = [f for f in refs if is_variant_span(f, vocab)]
    if not spans:
        return []
    wanted = {v for f in spans for v in vocab.entities[f.subject]["variants"]}
    near = [f for f in refs if f.subject in wanted]
    out = []
    for f in spans:
        figs = fact_records(view, variant_figures(near, vocab, f.subject, f.attribute))
        out.append({"t": "vfigures", "fk": f"vfigures:{f.key}", "span": f.key, "subject": f.subject,
                    "attribute": f.attribute, "figures": [[r["lo"], r["hi"], r["approx"], r["qsig"], r["fk"]] for r in figs],
                    "n": len(figs)})
    return out


def scoped_variant_figures(view: ReleaseView, c: Fact) -> list[Fact]:
    """The figures of the variants of a claim's generic product for its attribute that are in the claim's
    scope (as the rules' ``variant_figure`` reads them), for the explanation that names them."""
    vocab = view.kb.vocab
    figs = variant_figures([f for v in vocab.entities.get(c.subject, {}).get("variants") or ()
                            for f in view.by_subject_attr.get((str(v), c.attribute), [])], vocab, c.subject, c.attribute)
    sig = factrec.record(c, vocab)["qsig"]
    return [f for f in figs if not qdiff(factrec.record(f, vocab)["qsig"], sig)]


def size_records(view: ReleaseView, reference: list[Fact] | None = None) -> list[dict[str, Any]]:
    """One ``sizes`` record per family and quantity attribute of its sizes: the values over every size
    (from the reference tier, or the part of it given), so the rules can say whether a family-level
    figure holds for all, some or none of them."""
    refs = view.reference if reference is None else reference
    members: dict[str, list[str]] = defaultdict(list)
    for f in refs:
        if f.attribute == "family" and isinstance(f.value, str) and not f.qualifiers:
            members[f.value].append(f.subject)
    by_size: dict[tuple[str, str], Fact] = {}
    for f in refs:
        if f.subject.startswith("instance:") and isinstance(f.norm, Interval) and not f.qualifiers:
            by_size.setdefault((f.subject, f.attribute), f)
    # a size with a share of a GPU (vGPU) is an exception of scope for what a GPU gives each size: "GN7 has
    # 16 GB per card" is said of its full cards (the sizes without a figure of their own inherit it)
    shares = {s for ss in members.values() for s in ss
              for f in [view.ref(s, "gpu_fraction")] if f is not None and isinstance(f.norm, Interval) and (f.norm.point() or 1) < 1}
    vocab = view.kb.vocab
    out = []
    for fam, sizes in sorted(members.items()):
        attrs = sorted({a for (s, a) in by_size if s in sizes})
        whole = [s for s in sizes if s not in shares]
        for a in attrs:
            spec = vocab.attributes.get(a)
            per_card = spec is not None and "instance" in spec.inherited_by and bool(whole)
            facts = [(s, by_size[(s, a)]) for s in sorted(whole if per_card else sizes) if (s, a) in by_size]
            if not facts:
                continue
            out.append({"t": "sizes", "fk": f"sizes:{fam}:{a}", "subject": fam, "attribute": a,
                        "values": [f.norm.point() for _, f in facts], "keys": [f.key for _, f in facts],
                        "sizes": [s for s, _ in facts], "n": len(facts)})
    return out
