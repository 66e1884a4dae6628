"""A finding's explanation in English and Chinese, from data: its rule's ``explain`` template when it
has one, else the first ``findings`` case of the vocabulary (kb/vocabulary.yaml) that fits it; and the
sentence it adds about its claim's premise (``finding_premise``).

The placeholders (:data:`gpukb.engine.core.terms.FINDING_FIELDS`) are computed here, each only when a
template names it.
"""
from __future__ import annotations

from typing import Any, Callable

from ..kb.labels import fact_label, shown_value
from .inputs import not_applicable, scoped_variant_figures
from ..kb.ids import bare
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval
from ..kb.wording import Template
from ..reasoning.reasoner import Derivation
from ..core.terms import LANGS, label as term_label


def explanation(rule_template: dict[str, str] | None, f: dict[str, Any], c: Fact, other: Fact | None,
                d: Derivation, view: ReleaseView) -> dict[str, str]:
    """The explanation of finding ``f`` of claim ``c`` (``other``: the fact it names, if any)."""
    if rule_template:
        return {lang: rule_template[lang].format_map(_Context(f, c, other, d, view, lang, None)) for lang in LANGS}
    vocab = view.kb.vocab

    def vendor() -> bool:
        return other is not None and view.ref(other.subject, "vendor") is not None
    value = f.get("value")
    case = vocab.wording.finding_template({
        "basis": f["basis"], "kind": f["fkind"], "other": other is not None, "via": bool(f.get("via")),
        "value": isinstance(value, (int, float)) and not isinstance(value, bool), "attribute": c.attribute,
        "vendor": vendor})
    if case is None:
        return {lang: f["fkind"] for lang in LANGS}
    return {lang: case.text(lang).format_map(_Context(f, c, other, d, view, lang, case)) for lang in LANGS}


def premise_sentence(view: ReleaseView, premise: Fact, status: str) -> dict[str, str]:
    """What a finding adds about the premise its claim rests on (the vocabulary's ``finding_premise``)."""
    t = view.kb.vocab.wording.premise
    if t is None:
        return {lang: "" for lang in LANGS}
    return {lang: t.text(lang).format(premise=premise.id, premise_quote=premise.quote, premise_status=status,
                                      premise_status_label=term_label("finding", status, lang)) for lang in LANGS}


def scope_text(f: Fact) -> str:
    """A fact's qualifiers in one line ("method=lora; model=llama-2-7b"), or "no stated scope"."""
    parts = []
    for k, v in f.qualifiers.items():
        if isinstance(v, Interval):
            v = v.text()
        elif isinstance(v, list):
            v = ", ".join(str(x).split(":")[-1] for x in v)
        parts.append(f"{k}={str(v).split(':')[-1] if isinstance(v, str) and k != 'condition' else v}")
    return "; ".join(parts) or "no stated scope"


class _Context(dict):
    """The placeholders of one finding in one language, each computed when a template first names it."""

    def __init__(self, f: dict[str, Any], c: Fact, other: Fact | None, d: Derivation, view: ReleaseView,
                 lang: str, case: Template | None):
        super().__init__()
        self.f, self.c, self.other, self.d, self.view, self.lang, self.case = f, c, other, d, view, lang, case
        self.vocab = view.kb.vocab
        self.own = view.facts.get(bare(f.get("evidence") or ""))
        self.via = view.facts.get(bare(f.get("via") or ""))

    def __missing__(self, name: str) -> str:
        value = _FIELDS[name](self)
        self[name] = value
        return value

    # -- helpers -------------------------------------------------------------------------------
    def na(self) -> Any:
        """The unknown that says the claim's attribute does not apply to its subject (its reason is the
        vendor's wording, in English)."""
        return not_applicable(self.view).get((self.c.subject, self.c.attribute))

    def labelled(self, x: Fact | None) -> str:
        """A fact's value, an enum list in the language's labels."""
        if x is None:
            return "?"
        a = self.vocab.attributes.get(x.attribute)
        if a is not None and a.enum and isinstance(x.value, list):
            return ("、" if self.lang == "zh" else ", ").join(self.vocab.enum_label(a.enum, str(v), self.lang) for v in x.value)
        return shown_value(x, self.vocab, self.lang)

    def written(self, x: Fact | None) -> str:
        """A fact's value as written; in Chinese a yes/no value by its label ("是"/"否")."""
        return "?" if x is None else shown_value(x, self.vocab, self.lang)

    def attr(self, x: Fact | None) -> str:
        if x is None or x.attribute not in self.vocab.attributes:
            return "?"
        return self.vocab.attribute_label(x.attribute, self.lang, x.qualifiers)

    def name(self, x: Fact | None) -> str:
        return self.vocab.label(x.subject) if x is not None else "?"

    def cite(self, x: Fact | None) -> str:
        if x is None or not x.citation:
            return "?"
        if self.lang == "zh":           # the confidence's label: engine/terms.py
            return f"{x.citation}（置信度{term_label('confidence', x.confidence, 'zh')}）"
        return f"{x.citation} ({x.confidence} confidence)"

    def word(self) -> str:
        w = (self.case.words if self.case is not None else {}).get(self.f["fkind"])
        return w[self.lang] if w else self.f["fkind"]

    def computed(self) -> str:
        v = self.f.get("value")
        return f"{v:.3g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else "?"

    def sizing(self) -> str:
        ev = self.d.facts.get(self.f.get("evidence") or "", {})
        return fact_label(ev, self.view, self.vocab)[self.lang] if ev else "?"

    def variant_figures(self) -> str:
        """Each variant of the claim's generic product with its figure of the claim's attribute (in the
        claim's scope) and citation: "NVIDIA A100 40GB: 40 GB [...]; NVIDIA A100 80GB: 80 GB [...]"."""
        zh = self.lang == "zh"
        parts = []
        for f in scoped_variant_figures(self.view, self.c):
            scope = f" ({scope_text(f)})" if f.qualifiers else ""
            parts.append(f"{self.name(f)}{scope}{'：' if zh else ': '}{self.written(f)} [{f.citation}]")
        return ("；" if zh else "; ").join(parts) or "?"

    def vendor(self) -> str:
        v = self.view.ref(self.other.subject, "vendor") if self.other is not None else None
        return self.vocab.label(v.value) if v is not None else "?"


_FIELDS: dict[str, Callable[[_Context], str]] = {
    "subject": lambda x: x.vocab.label(x.c.subject),
    "attribute": lambda x: x.attr(x.c),
    "claim": lambda x: x.labelled(x.c),
    "claim_text": lambda x: x.written(x.c),
    "source": lambda x: str(x.c.source),
    "scope": lambda x: scope_text(x.c),
    "context": lambda x: x.vocab.label(x.f.get("context") or x.c.subject),
    "own": lambda x: x.labelled(x.own),
    "own_subject": lambda x: x.name(x.own),
    "own_attribute": lambda x: x.attr(x.own),
    "own_cite": lambda x: x.cite(x.own),
    "other": lambda x: x.labelled(x.other),
    "other_text": lambda x: x.written(x.other),
    "other_subject": lambda x: x.name(x.other),
    "other_attribute": lambda x: x.attr(x.other),
    "other_cite": lambda x: x.cite(x.other),
    "other_source": lambda x: str(x.other.source) if x.other is not None else "?",
    "other_scope": lambda x: scope_text(x.other) if x.other is not None else "?",
    "via_subject": lambda x: x.name(x.via),
    "via_cite": lambda x: x.cite(x.via),
    "via_note": lambda x: f" [{x.via.citation}]" if x.via is not None else "",
    "vendor": lambda x: x.vendor(),
    "computed": lambda x: x.computed(),
    "sizing": lambda x: x.sizing(),
    "pick": lambda x: str(x.f.get("detail")),
    "differences": lambda x: ", ".join(x.f.get("detail") or []) or "scope",
    "verdict": lambda x: x.vocab.enum_label("verdict", str(x.c.value), x.lang),
    "purpose": lambda x: ("、" if x.lang == "zh" else ", ").join(
        x.vocab.enum_label("effect", str(p), x.lang) for p in x.c.qualifiers.get("purpose") or []) or "?",
    "word": lambda x: x.word(),
    "na_reason": lambda x: x.na().reason if x.na() else "?",
    "na_cite": lambda x: x.na().citation if x.na() else "?",
    "variant_figures": lambda x: x.variant_figures(),
}
