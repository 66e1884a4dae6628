"""Reference look-ups behind fact questions: one product's value of an attribute, and the same attribute
compared across several products ("Which has more memory, the A100 or the H100?").

A product named generically ("A100") stands for each of its variants, each shown with its value; a
comparison is decided only when every variant of one product is beyond every variant of the others, so a
tie or an overlap is said, never hidden by picking one variant.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..catalog import inventory as inv
from ..core.errors import BadInput
from ..kb.interval import Interval
from ..kb.lexicon import Match, cue_patterns, resolve_variant
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Vocabulary
from ..models.ask import ComparedFact, FactComparisonAnswer, FactValue, Support
from ..models.sizing import Assumed

if TYPE_CHECKING:
    from ..core.session import Session

#: the kinds a compared product may be, in the order a question's subject is preferred (an instance or a
#: family named beside its GPU is what the question is about)
_KINDS = ("instance", "family", "gpu")


def reference_of(view: ReleaseView, vocab: Vocabulary, subject: str, attribute: str) -> tuple[Fact | None, Fact | None]:
    """(the reference fact stating ``subject``'s ``attribute``, the fact it is carried through or None).

    A variant has its generic product's value when only that is stated (the A100's bandwidth class); a
    family or instance with one GPU has that GPU's value of an attribute the GPU passes on (ECC, BF16).
    """
    ref = view.ref(subject, attribute)
    if ref is None and vocab.generic(subject) != subject:
        ref = view.ref(vocab.generic(subject), attribute)
    attr = vocab.attributes.get(attribute)
    if ref is None and attr is not None and vocab.kind_of(subject) in attr.inherited_by:
        carried = view.ref(subject, "gpu")
        if carried is not None and isinstance(carried.value, list) and len(carried.value) == 1:
            return view.ref(carried.value[0], attribute), carried
    return ref, None


def references_of(view: ReleaseView, vocab: Vocabulary, subject: str, attribute: str) -> list[tuple[Fact, Fact | None]]:
    """Every reference value of ``subject``'s ``attribute`` as (fact, the fact it is carried through): the
    unqualified one, or, when the vendor states it only per configuration (the H800's bandwidth for SXM and
    for PCIe), the best fact of each configuration, so no configuration's value stands for all of them."""
    ref, via = reference_of(view, vocab, subject, attribute)
    if ref is None or not ref.qualifiers:
        return [(ref, via)] if ref is not None else []
    configs = {repr(sorted(f.qualifiers.items())): f.qualifiers for f in view.by_subject_attr.get((ref.subject, attribute), [])
               if f.tier == "reference" and f.qualifiers}
    found = [view.ref(ref.subject, attribute, dict(configs[k])) for k in sorted(configs)]
    return [(f, via) for f in found if f is not None]


def configuration(qualifiers: dict[str, Any] | None, lang: str = "en") -> str:
    """A configuration in a few words ("SXM", "sparsity"), empty for none; the date a value was read comes last.

    >>> configuration({"form_factor": "SXM", "sparsity": True})
    'SXM, sparsity'
    >>> configuration({"region": "ap-guangzhou", "as_of": "2023-06-30"})
    'ap-guangzhou, as of 2023-06-30'
    >>> configuration({"region": "ap-guangzhou", "as_of": "2023-06-30"}, "zh")
    'ap-guangzhou, 截至 2023-06-30'
    """
    read = "截至" if lang == "zh" else "as of"
    return ", ".join(f"{read} {v}" if k == "as_of" else str(v) if isinstance(v, str) else k if v is True else f"{k} {v}"
                     for k, v in sorted((qualifiers or {}).items(), key=lambda kv: (kv[0] == "as_of", kv[0])))


def attribute_for(view: ReleaseView, subject: str, attribute: str) -> str:
    """The attribute a question asks of ``subject``: for an hourly price, the currency the instance has a
    reference price in, else the one its recorded unknown names (prices are never converted)."""
    if attribute not in inv.PRICE_ATTRIBUTES:
        return attribute
    ordered = [attribute] + [a for a in inv.PRICE_ATTRIBUTES if a != attribute]
    found = [a for a in ordered if view.ref(subject, a) is not None] or \
            [a for a in ordered if any(u.subject == subject and u.attribute == a for u in view.kb.unknowns)]
    return found[0] if found else attribute


def missing_reason(view: ReleaseView, subject: str, attribute: str) -> str | None:
    """Why the reference tier has no value: for a price, the recorded unknown's reason (English, with its Chinese)."""
    return inv.price_note(view, subject) if attribute in inv.PRICE_ATTRIBUTES else None


def compared_subjects(matches: list[Match], attribute: str, masked: str, vocab: Vocabulary) -> list[str]:
    """The products a fact question compares: two or more distinct ones of one kind the attribute applies
    to, in the order named (a variant named by its size is that variant); else an empty list."""
    spec = vocab.attributes.get(attribute)
    if spec is None:
        return []
    for kind in _KINDS:
        if kind not in spec.applies_to:
            continue
        named = list(dict.fromkeys(resolve_variant(m, masked, vocab) for m in matches if m.kind == kind))
        if len(named) > 1:
            return named
    return []


def asked_fact(low: str, matches: list[Match], vocab: Vocabulary) -> tuple[str | None, str | None, str | None]:
    """(attribute, subject, first attribute keyword seen): the first keyword rule with a fitting entity, skipping an
    attribute whose words the question uses in another sense (cues.question_fact_not: "cost-effective")."""
    seen: str | None = None
    cues = cue_patterns(vocab)
    for attr, rx in cues["question_fact"] + cues["question_fact_fallback"]:
        spec = vocab.attributes.get(attr)
        if spec is None or not rx.search(low) or any(a == attr and n.search(low) for a, n in cues["question_fact_not"]):
            continue
        seen = seen or attr
        # an instance or family named beside its GPU is what the question is about ("the A100s in GT4")
        for m in sorted(matches, key=lambda m: (m.kind not in ("instance", "family"), m.start)):
            if m.kind in spec.applies_to:
                return attr, m.eid, seen
    return None, None, seen


def asked_values(low: str, matches: list[Match], subject: str, attribute: str, vocab: Vocabulary) -> list[str]:
    """The values a yes/no question asks a closed list attribute for ("Does the H100 support FP8?": precision:fp8),
    in the order named: the entities of the attribute's kind the question names besides its subject (a closed
    list that lacks one says no)."""
    spec = vocab.attributes.get(attribute)
    kinds = spec.kinds if spec is not None and spec.type == "entities" and spec.closed else ()
    named = sorted([(m.start, m.eid) for m in matches if m.kind in kinds and m.eid != subject] +
                   [(low.find(vocab.entities[e]["name"].lower()), e) for k in kinds for e in vocab.named_in(low, k)])
    return list(dict.fromkeys(e for _, e in named))


def asked_order(low: str, vocab: Vocabulary) -> str | None:
    """"more" or "less" when the question asks which is larger or smaller (cues.question_order)."""
    hits = [(m.start(), order) for order, pats in (vocab.cues.get("question_order") or {}).items()
            for p in pats for m in [re.search(p, low)] if m]
    return min(hits)[1] if hits else None


def _bounds(f: Fact) -> tuple[float, float] | None:
    """A reference value as a closed range of numbers (a yes/no value as 0/1), or None when it is not one."""
    if isinstance(f.value, bool):
        return (float(f.value), float(f.value))
    n = f.norm
    if isinstance(n, Interval) and n.lo is not None and n.hi is not None:
        return (n.lo, n.hi)
    return None


def _leader(groups: list[tuple[str, list[tuple[float, float]]]], order: str) -> tuple[str | None, bool]:
    """(the product whose every value is on the asked side of every other product's, strictly or not)."""
    for name, mine in groups:
        others = [b for n, bs in groups if n != name for b in bs]
        if order == "more":
            weak = all(m[0] >= o[1] for m in mine for o in others)
            strict = all(m[0] > o[1] for m in mine for o in others)
        else:
            weak = all(m[1] <= o[0] for m in mine for o in others)
            strict = all(m[1] < o[0] for m in mine for o in others)
        if strict or (weak and any(m != o for m in mine for o in others)):
            return name, strict
    return None, False


def compare(state: Session, subjects: list[str], attribute: str, order: str | None, view: ReleaseView,
            lang: str, head: dict[str, Any]) -> FactComparisonAnswer:
    """Each product's reference value of ``attribute`` with its citation, and which is larger (or smaller,
    when ``order`` is "less") when the values decide it."""
    vocab = state.kb.vocab
    attr = vocab.attributes[attribute]
    numbers: dict[str, int] = {}          # each reference fact's citation number, in the order cited
    support: list[Support] = []
    compared: list[ComparedFact] = []
    groups: list[tuple[str, list[tuple[float, float]]]] = []
    numeric = True
    units: set[str | None] = set()
    for subject in subjects:
        facts, bounds = [], []
        for eid in vocab.sized_variants(subject) or [subject]:
            asked = attribute_for(view, eid, attribute)
            found = references_of(view, vocab, eid, asked)
            if not found:
                facts.append(value_of(None, None, eid, asked, vocab, missing_reason(view, eid, asked)))
                numeric = False
            for ref, via in found:
                for r in [ref] + ([via] if via is not None else []):
                    if r.key not in numbers:
                        numbers[r.key] = len(numbers) + 1
                        support.append(cited(r))
                b = _bounds(ref)
                numeric = numeric and b is not None
                units.add(ref.unit if not isinstance(ref.value, bool) else "bool")
                bounds.append(b)
                facts.append(value_of(ref, via, eid, asked, vocab))
        compared.append(ComparedFact.of(named=subject, facts=facts))
        groups.append((subject, [b for b in bounds if b is not None]))
    leader, strict = _leader(groups, order or "more") if numeric and len(units) == 1 else (None, False)
    unconverted = sorted(u for u in units if u) if numeric and len(units) > 1 else []
    summary = {x: _text(vocab, attr, compared, numbers, leader, strict, order, x, unconverted) for x in ("en", "zh")}
    return FactComparisonAnswer.of(**head, attribute=attribute, compared=compared, order=order or "more",
                                   leader=leader, strict=strict if leader else False, support=support,
                                   answer=summary[lang], summary=summary)


def value_of(ref: Fact | None, via: Fact | None, subject: str, attribute: str, vocab: Vocabulary,
             reason: str | None = None) -> FactValue:
    """The answer's value of ``subject``'s ``attribute`` from reference fact ``ref`` (entities by their names,
    with its configuration when it is stated per one), or that the reference tier has none (and why, when known)."""
    if ref is None:
        extra_reason: dict[str, Any] = {"reason": reason} if reason else {}
        return FactValue.of(subject=subject, attribute=attribute, value=None, text="not in the reference tier", **extra_reason)
    value = [v.split(":")[-1] if isinstance(v, str) else v for v in ref.value] if isinstance(ref.value, list) else ref.value
    extra: dict[str, Any] = {"via": via.key} if via is not None else {}
    if ref.qualifiers:
        extra["qualifiers"] = dict(ref.qualifiers)
    return FactValue.of(subject=subject, attribute=attribute, value=value, unit=ref.unit,
                        text=ref.value_text(vocab), id=ref.key, **extra)


def cited(ref: Fact) -> Support:
    """A reference fact as the support of an answer: its id, citation and confidence."""
    return Support.of(type="reference", id=ref.key, citation=ref.citation, confidence=ref.confidence)


def _text(vocab: Vocabulary, attr: Any, compared: list[ComparedFact], numbers: dict[str, int], leader: str | None,
          strict: bool, order: str | None, lang: str, unconverted: list[str] | None = None) -> str:
    """The answer sentence: each product's value with its citation number, then which one leads."""
    zh = lang == "zh"
    parts = []
    for c in compared:
        for f in c.facts:
            marks = ", ".join(str(numbers[k]) for k in (f.get("id"), f.get("via")) if k in numbers)
            reason = f.get("reason")
            text = f.text if f.value is not None else (getattr(reason, "zh", reason).rstrip("。") if zh and reason else
                                                       reason.rstrip(".") if reason else
                                                       "参考层中没有" if zh else "not in the reference tier")
            config = configuration(f.get("qualifiers"), lang)
            parts.append(f"{vocab.label(f.subject, lang)}" + (f" ({config})" if config else "")
                         + f"{'：' if zh else ': '}{text}" + (f" [{marks}]" if marks else ""))
    name = attr.zh if zh else attr.en
    if len({f.attribute for c in compared for f in c.facts}) > 1:      # a price in USD beside one in CNY: no currency
        name = re.sub(r"\s*[(（][^()（）]*[)）]$", "", name)
    head = (f"{name}对比：" if zh else f"{name[:1].upper()}{name[1:]} compared: ") + ("；" if zh else "; ").join(parts)
    if leader is None and unconverted:       # USD/h beside CNY/h: both prices are given, neither is called cheaper
        money = all(f.attribute in inv.PRICE_ATTRIBUTES for c in compared for f in c.facts)
        kind = ("币种" if zh else "currencies") if money else ("单位" if zh else "units")
        return (f"{head}。数值的{kind}不同（{'、'.join(unconverted)}），gpukb 不做换算，因此不判断谁更高或更低。" if zh else
                f"{head}. The values are in different {kind} ({' and '.join(unconverted)}), which gpukb never converts, "
                "so neither is called higher or lower.")
    if leader is None:
        tail = ("这些数值无法判断谁更高或更低（变体之间重叠、相同，或参考层缺少数值）。" if zh else
                "The values do not say which is higher or lower (variants overlap or tie, or a value is missing).")
        return f"{head}。{tail}" if zh else f"{head}. {tail}"
    who = vocab.label(leader, lang)
    more, several = (order or "more") == "more", len(compared) > 2
    if zh:
        word = ("最高" if several else "更高") if more else ("最低" if several else "更低")
        if not strict:
            word = "不低于其他产品" if more else "不高于其他产品"
        return f"{head}。{who} 的{name}{word}" + ("。" if strict else "（部分变体相同）。")
    if strict:
        word = ("highest" if several else "higher") if more else ("lowest" if several else "lower")
        return f"{head}. {who} has the {word} {name}."
    return f"{head}. {who} has {name} at least as {'high' if more else 'low'} as the others' (equal for some variants)."


#: how many instances a GPU's price answer lists: the cheapest priced ones, else a few unpriced with their reasons
GPU_PRICE_LISTED, GPU_UNPRICED_LISTED = 8, 4


def gpu_prices(state: Session, gpu: str, view: ReleaseView, lang: str, head: dict[str, Any]) -> FactComparisonAnswer:
    """"How much does an A100 cost?": the KB prices renting, so the answer compares the hourly list prices of the
    instances that carry the GPU (any of its variants when the name is generic), cheapest first within a currency
    (never converted), and says so in a note; without any price, a few of them with the reason each has none."""
    vocab = view.kb.vocab
    carriers = inv.carriers(view, gpu)
    priced = sorted((min((p["currency"], p["value"]) for p in ps), e) for e in carriers if (ps := inv.prices(view, e)))
    subjects = [e for _, e in priced][:GPU_PRICE_LISTED] or sorted(carriers)[:GPU_UNPRICED_LISTED]
    if not subjects:
        raise BadInput(f"the KB knows no instance that carries the {vocab.label(gpu)}")
    attribute = next(iter(inv.PRICE_ATTRIBUTES))
    out = compare(state, subjects, attribute, "less", view, lang, {**head, "kind": "fact_comparison"})
    note = vocab.wording.note("gpu_price_instances", vocab, gpu=vocab.label(gpu), priced=len(priced), total=len(carriers))
    said = {"en": f"{note}. {out.summary.en}", "zh": f"{note.zh}。{out.summary.zh}"}
    return out.replace(assumed=[Assumed.of(field="subject", value=gpu, text=note)], answer=said[lang],
                       summary=out.summary.replace(**said))
