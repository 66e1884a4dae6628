"""Reference look-ups behind fact questions: one product's value of an attribute, and the same attribute
compared across several products ("Which has more memory, the A100 or the H100?").

A product named generically ("A100") stands for each of its variants, each shown with its value; a
comparison is decided only when every variant of one product is beyond every variant of the others, so a
tie or an overlap is said, never hidden by picking one variant.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..kb.interval import Interval
from ..kb.lexicon import Match, resolve_variant
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Vocabulary
from ..models.ask import ComparedFact, FactComparisonAnswer, FactValue, Support

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


def configuration(qualifiers: dict[str, Any] | None) -> str:
    """A configuration in a few words ("SXM", "sparsity"), empty for none.

    >>> configuration({"form_factor": "SXM", "sparsity": True})
    'SXM, sparsity'
    """
    return ", ".join(str(v) if isinstance(v, str) else k if v is True else f"{k} {v}" for k, v in sorted((qualifiers or {}).items()))


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
            found = references_of(view, vocab, eid, attribute)
            if not found:
                facts.append(value_of(None, None, eid, attribute, vocab))
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
                facts.append(value_of(ref, via, eid, attribute, vocab))
        compared.append(ComparedFact.of(named=subject, facts=facts))
        groups.append((subject, [b for b in bounds if b is not None]))
    leader, strict = _leader(groups, order or "more") if numeric and len(units) == 1 else (None, False)
    summary = {x: _text(vocab, attr, compared, numbers, leader, strict, order, x) for x in ("en", "zh")}
    return FactComparisonAnswer.of(**head, attribute=attribute, compared=compared, order=order or "more",
                                   leader=leader, strict=strict if leader else False, support=support,
                                   answer=summary[lang], summary=summary)


def value_of(ref: Fact | None, via: Fact | None, subject: str, attribute: str, vocab: Vocabulary) -> FactValue:
    """The answer's value of ``subject``'s ``attribute`` from reference fact ``ref`` (entities by their names,
    with its configuration when it is stated per one), or that the reference tier has none."""
    if ref is None:
        return FactValue.of(subject=subject, attribute=attribute, value=None, text="not in the reference tier")
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
          strict: bool, order: str | None, lang: str) -> str:
    """The answer sentence: each product's value with its citation number, then which one leads."""
    zh = lang == "zh"
    parts = []
    for c in compared:
        for f in c.facts:
            marks = ", ".join(str(numbers[k]) for k in (f.get("id"), f.get("via")) if k in numbers)
            text = f.text if f.value is not None else ("参考层中没有" if zh else "not in the reference tier")
            config = configuration(f.get("qualifiers"))
            parts.append(f"{vocab.label(f.subject, lang)}" + (f" ({config})" if config else "")
                         + f"{'：' if zh else ': '}{text}" + (f" [{marks}]" if marks else ""))
    name = attr.zh if zh else attr.en
    head = (f"{name}对比：" if zh else f"{name[:1].upper()}{name[1:]} compared: ") + ("；" if zh else "; ").join(parts)
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
