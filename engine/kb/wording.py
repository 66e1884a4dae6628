"""Wording as data: how the audit words a finding and how a proof tree labels an engine record.

Both are templates in English and Chinese in kb/vocabulary.yaml, checked when the vocabulary loads
(errors name the file, the line and what is allowed):

- ``findings:`` a list of cases, the first whose ``when`` holds words a finding (a rule's own
  ``explain`` template, when it has one, comes first). ``when`` may test the finding's ``basis``, its
  ``kinds``, whether it names an ``other`` fact, a linking fact (``via``), a computed ``value``, the
  ``attributes`` of the claim and whether the other fact's ``vendor`` is known; ``words`` gives the
  ``{word}`` of each kind. Placeholders: :data:`gpukb.engine.core.terms.FINDING_FIELDS`.
- ``finding_premise:`` the sentence a finding adds when its claim rests on a premise (the source's
  claim of a family's GPU, a curated ``rests_on``). Placeholders: :data:`PREMISE_FIELDS`.
- ``labels:`` per record type (``t``), a template or a list of cases, the first whose ``when`` holds
  (``has``: fields set, ``any``: one of them set, ``equals``: field values, ``number``: numeric
  fields). Placeholders name the record's fields (``a|b``: the first that is set), the named ``parts``
  of the label (sub-templates with cases of their own) or ``value_text`` (a fact's value as written);
  a format spec is Python's (``{bpp:g}``) or one of :data:`NAMED_SPECS` (``{gb:gb}``, ``{gpu:name}``).

>>> w = Wording.load(None, {"hardware": {"en": "{gpus} × {gpu}", "zh": "{gpus} 张 {gpu}"}}, "v.yaml", set(), [])
>>> w.label({"t": "hardware", "gpus": 2, "gpu": "T4"}, None)
{'en': '2 × T4', 'zh': '2 张 T4'}
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..core.errors import Issue, short
from ..core.yamlio import LineDict
from ..core.terms import FINDING_FIELDS, FINDING_KINDS, LABELS, LANGS, gb, params_text
from .label_cases import NOTES_KEPT, CaseIndex, note_key
from .notes import NOTE_KEYS, Note

#: what the sentence a finding adds about its claim's premise may name (``finding_premise``)
PREMISE_FIELDS = ("premise", "premise_quote", "premise_status", "premise_status_label")
FINDING_WHEN = ("basis", "kinds", "other", "via", "value", "attributes", "vendor")
LABEL_WHEN = ("has", "any", "equals", "number")
BASES = ("reference", "claims", "derivation")
#: format specs with a meaning of gpukb's: gigabytes, a parameter count, an entity's name, an
#: attribute's label, a method's or a memory component's label (in the template's language)
NAMED_SPECS = ("gb", "params", "name", "attribute", "method", "component")
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\|[A-Za-z_][A-Za-z0-9_]*)*$")
_FORMATTER = string.Formatter()


@dataclass(frozen=True)
class Template:
    """One case: when it applies, and its English and Chinese text (``words``: a kind's ``{word}``)."""

    when: dict[str, Any]
    en: str
    zh: str
    line: int | None = None
    words: dict[str, dict[str, str]] = field(default_factory=dict)

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class LabelSpec:
    """A record type's label: named parts (each a list of cases) and the cases of the label itself."""

    parts: tuple[tuple[str, tuple[Template, ...]], ...]
    cases: tuple[Template, ...]


def placeholders(text: str) -> list[tuple[str, str, str | None]]:
    """The placeholders of a template as (name, format spec, conversion); ValueError if malformed."""
    return [(name, spec or "", conv) for _, name, spec, conv in _FORMATTER.parse(text) if name is not None]


def check_template(text: Any, allowed: tuple[str, ...] | None, where: str, fname: str, line: int | None,
                   issues: list[Issue], specs: bool = False) -> bool:
    """Check one template: text, well-formed braces, known placeholders (``allowed``; None: any field
    name) and, with ``specs``, format specs that are Python's or :data:`NAMED_SPECS`."""
    if not isinstance(text, str) or not text:
        issues.append(Issue(f"{where} needs a text", fname, line, where))
        return False
    try:
        marks = placeholders(text)
    except ValueError as exc:
        issues.append(Issue(f"{where}: malformed template {short(text)}: {exc} (write {{{{ and }}}} for braces)",
                            fname, line, where))
        return False
    ok = True
    bad = sorted({n for n, _, _ in marks if (n not in allowed if allowed is not None else not _FIELD.match(n))})
    if bad:
        issues.append(Issue(f"{where} names unknown placeholder(s) {', '.join(bad)}", fname, line, where,
                            allowed if allowed is not None else "field names, a|b for the first that is set"))
        ok = False
    for name, spec, conv in marks:
        if conv is not None or (spec and not specs) or (spec and spec not in NAMED_SPECS and not _python_spec(spec)):
            issues.append(Issue(f"{where}: placeholder {{{name}}} has a format it cannot take ({short(spec or '!' + str(conv))})",
                                fname, line, where, NAMED_SPECS + ("a Python format spec such as g, .2f",) if specs else None))
            ok = False
    return ok


def _python_spec(spec: str) -> bool:
    try:
        format(1.5, spec)
        return True
    except (ValueError, TypeError):
        return False


def _case(raw: Any, allowed_when: tuple[str, ...], fields: tuple[str, ...] | None, where: str, fname: str,
          issues: list[Issue], check_when: Callable[[str, Any], str | None], specs: bool) -> Template | None:
    """One case of a ``findings`` or ``labels`` list, checked."""
    line = getattr(raw, "line", None)
    if not isinstance(raw, dict):
        issues.append(Issue(f"{where} must be a mapping with en and zh templates", fname, line, where))
        return None
    n = len(issues)
    for k in raw:
        if k not in ("when", "en", "zh", "words"):
            issues.append(Issue(f"{where}: unknown field {short(k)}", fname, line, where, ("when", "en", "zh", "words")))
    when = raw.get("when") or {}
    if not isinstance(when, dict):
        issues.append(Issue(f"{where}.when must be a mapping", fname, line, f"{where}.when", allowed_when))
        when = {}
    for k, v in when.items():
        if k not in allowed_when:
            issues.append(Issue(f"{where}.when: unknown test {short(k)}", fname, line, f"{where}.when", allowed_when))
        else:
            err = check_when(k, v)
            if err:
                issues.append(Issue(f"{where}.when.{k}: {err}", fname, line, f"{where}.when.{k}"))
    words = raw.get("words") or {}
    if not isinstance(words, dict) or any(k not in FINDING_KINDS or not isinstance(w, dict)
                                          or any(not isinstance(w.get(lang), str) for lang in LANGS)
                                          for k, w in words.items()):
        issues.append(Issue(f"{where}.words must map finding kinds to {{en, zh}} words", fname, line,
                            f"{where}.words", FINDING_KINDS))
        words = {}
    for lang in LANGS:
        check_template(raw.get(lang), fields, f"{where}.{lang}", fname, line, issues, specs)
    if len(issues) > n:
        return None
    return Template(dict(when), raw["en"], raw["zh"], line, {k: dict(w) for k, w in words.items()})


def _finding_when(attributes: set[str]) -> Callable[[str, Any], str | None]:
    def check(key: str, value: Any) -> str | None:
        if key == "basis":
            return None if value in BASES else f"must be one of {', '.join(BASES)}"
        if key == "kinds":
            ok = isinstance(value, list) and all(v in FINDING_KINDS for v in value)
            return None if ok else f"must be a list of finding kinds ({', '.join(FINDING_KINDS)})"
        if key == "attributes":
            bad = [v for v in value if v not in attributes] if isinstance(value, list) else [value]
            return None if not bad else f"unknown attribute(s) {', '.join(map(str, bad))}"
        return None if isinstance(value, bool) else "must be true or false"
    return check


def _label_when(key: str, value: Any) -> str | None:
    if key == "equals":
        return None if isinstance(value, dict) else "must map field names to values"
    return None if isinstance(value, list) and all(isinstance(v, str) for v in value) else "must be a list of field names"


class Wording:
    """The finding and label templates of a vocabulary."""

    def __init__(self, findings: list[Template], labels: dict[str, LabelSpec], premise: Template | None = None):
        self.findings = findings
        self.labels = labels
        self.premise = premise
        self._indexes: dict[int, CaseIndex] = {}    # id of a tuple of cases -> its index (label_cases.py)

    @classmethod
    def load(cls, findings: Any, labels: Any, fname: str, attributes: set[str], issues: list[Issue],
             premise: Any = None) -> "Wording":
        """Read and check the ``findings``, ``labels`` and ``finding_premise`` sections (each may be absent)."""
        cases: list[Template] = []
        if findings is not None and not isinstance(findings, list):
            issues.append(Issue("findings must be a list of cases (when, en, zh)", fname, getattr(findings, "line", None), "findings"))
        for i, raw in enumerate(findings if isinstance(findings, list) else []):
            t = _case(raw, FINDING_WHEN, FINDING_FIELDS, f"findings[{i}]", fname, issues, _finding_when(attributes), False)
            if t is not None:
                cases.append(t)
        specs: dict[str, LabelSpec] = {}
        if labels is not None and not isinstance(labels, dict):
            issues.append(Issue("labels must map record types to templates", fname, getattr(labels, "line", None), "labels"))
            labels = {}
        for rtype, raw in (labels or {}).items():
            spec = _label_spec(str(rtype), raw, fname, issues, labels.line_of(rtype) if hasattr(labels, "line_of") else None)
            if spec is not None:
                specs[str(rtype)] = spec
        if labels is not None:
            _check_notes(specs.get("note"), fname, labels.line_of("note") if hasattr(labels, "line_of") and "note" in labels else None,
                         issues)
        prem = None
        if premise is not None:
            prem = _case(premise, (), PREMISE_FIELDS, "finding_premise", fname, issues, lambda k, v: None, False)
        return cls(cases, specs, prem)

    # -- findings ------------------------------------------------------------------------------
    def finding_template(self, facts: Mapping[str, Any]) -> Template | None:
        """The first ``findings`` case whose ``when`` holds of ``facts`` (basis, kind, other, via, value,
        attribute; vendor may be a function, asked only when a case tests it)."""
        for t in self.findings:
            if all(_finding_holds(k, v, facts) for k, v in t.when.items()):
                return t
        return None

    # -- notes ---------------------------------------------------------------------------------
    def note(self, key: str, vocab: Any = None, **fields: Any) -> Note:
        """The note ``key`` (one of :data:`NOTE_KEYS`) with its fields, in English and Chinese (remembered
        per vocabulary, key and fields when every field is a string, an int or None)."""
        memo, mkey = self.__dict__.setdefault("_notes", {}), note_key(key, vocab, fields)
        hit = memo.get(mkey) if mkey is not None else None
        if hit is not None and hit[0] is vocab:
            return hit[1]
        text = self.label({**fields, "t": "note", "key": key}, vocab)
        note = Note(text["en"], text["zh"])
        if mkey is not None and len(memo) < NOTES_KEPT:
            memo[mkey] = (vocab, note)
        return note

    # -- labels --------------------------------------------------------------------------------
    def label(self, rec: Mapping[str, Any], vocab: Any, derived: Mapping[str, Callable[[], Any]] | None = None
              ) -> dict[str, str]:
        """A record's label in English and Chinese, by the template of its type (its type when none)."""
        spec = self.labels.get(str(rec.get("t")))
        if spec is None:
            return {"en": str(rec.get("t")), "zh": str(rec.get("t"))}
        out = {}
        for lang in LANGS:
            fmt = _LabelFormatter(vocab, lang)
            values = _Fields(rec, derived or {})
            for name, part_cases in spec.parts:
                case = self._cases(part_cases).first(values)
                values.parts[name] = fmt.vformat(case.text(lang), (), values) if case is not None else ""
            case = self._cases(spec.cases).first(values)
            out[lang] = fmt.vformat(case.text(lang), (), values) if case is not None else str(rec.get("t"))
        return out

    def _cases(self, cases: tuple[Template, ...]) -> CaseIndex:
        indexes = self.__dict__.setdefault("_indexes", {})      # (a Wording unpickled from a snapshot)
        index = indexes.get(id(cases))
        if index is None or index.cases is not cases:
            index = indexes[id(cases)] = CaseIndex(cases)
        return index


def _check_notes(spec: LabelSpec | None, fname: str, line: int | None, issues: list[Issue]) -> None:
    """Every note the engine states has a case in ``labels.note``."""
    keyed = {str(t.when.get("equals", {}).get("key")) for t in (spec.cases if spec else ())}
    missing = [k for k in NOTE_KEYS if k not in keyed]
    if missing:
        issues.append(Issue(f"labels.note has no case for the note(s) {', '.join(missing)}", fname, line, "labels.note",
                            NOTE_KEYS))


def _label_spec(rtype: str, raw: Any, fname: str, issues: list[Issue], line: int | None) -> LabelSpec | None:
    where = f"labels.{rtype}"
    n = len(issues)
    parts: list[tuple[str, tuple[Template, ...]]] = []
    if isinstance(raw, dict) and "parts" in raw:
        named = raw["parts"]
        if not isinstance(named, dict):
            issues.append(Issue(f"{where}.parts must map part names to cases", fname, line, f"{where}.parts"))
            named = {}
        for pname, pcases in named.items():
            if not _FIELD.match(str(pname)) or "|" in str(pname):
                issues.append(Issue(f"{where}.parts: bad part name {short(pname)}", fname, line, f"{where}.parts"))
                continue
            got = _label_cases(pcases, f"{where}.parts.{pname}", fname, issues)
            parts.append((str(pname), tuple(got)))
        if "cases" in raw:
            raw = raw["cases"]
        else:
            rest = LineDict({k: v for k, v in raw.items() if k != "parts"})
            rest.line = raw.line if hasattr(raw, "line") else line
            raw = rest
    cases = _label_cases(raw, where, fname, issues)
    if len(issues) > n:
        return None
    return LabelSpec(tuple(parts), tuple(cases))


def _label_cases(raw: Any, where: str, fname: str, issues: list[Issue]) -> list[Template]:
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for i, item in enumerate(items):
        w = f"{where}[{i}]" if isinstance(raw, list) else where
        t = _case(item, LABEL_WHEN, None, w, fname, issues, _label_when, True)
        if t is not None:
            out.append(t)
    return out


def _finding_holds(key: str, want: Any, facts: Mapping[str, Any]) -> bool:
    if key == "kinds":
        return facts.get("kind") in want
    if key == "attributes":
        return facts.get("attribute") in want
    got = facts.get(key)
    if callable(got):
        got = got()
    return got == want if key == "basis" else bool(got) == want


class _Fields(Mapping):
    """A record's fields for a label template: its parts, derived values, then the record (None if unset)."""

    def __init__(self, rec: Mapping[str, Any], derived: Mapping[str, Callable[[], Any]]):
        self.rec, self.derived, self.parts = rec, derived, {}

    def get(self, name: str, default: Any = None) -> Any:
        for n in name.split("|"):
            v = self._one(n)
            if v or n == name.split("|")[-1]:
                return v
        return default

    def _one(self, n: str) -> Any:
        if n in self.parts:
            return self.parts[n]
        if n in self.derived:
            return self.derived[n]()
        return self.rec.get(n)

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def __iter__(self):
        return iter(self.rec)

    def __len__(self) -> int:
        return len(self.rec)


class _LabelFormatter(string.Formatter):
    """Formats label templates: field lookups through :class:`_Fields`, gpukb's named format specs."""

    def __init__(self, vocab: Any, lang: str):
        self.vocab, self.lang = vocab, lang

    def vformat(self, format_string: str, args: Any, kwargs: Any) -> str:
        """:meth:`string.Formatter.vformat` with each template parsed once (labels are formatted for
        every node of every proof tree): the same text, without the per-call parse and recursion."""
        parts = _parsed(format_string)
        if parts is None:                       # nested or positional fields: the general path
            return super().vformat(format_string, args, kwargs)
        out = []
        for literal, name, spec, conversion in parts:
            if literal:
                out.append(literal)
            if name is not None:
                out.append(self.format_field(self.convert_field(kwargs.get(name), conversion), spec))
        return "".join(out)

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, str]:
        return kwargs.get(field_name), field_name

    def get_value(self, key: Any, args: Any, kwargs: Any) -> Any:
        return kwargs.get(key)

    def format_field(self, value: Any, spec: str) -> str:
        zh = self.lang == "zh"
        if spec == "gb":
            return gb(value)
        if spec == "params":
            return params_text(value, self.lang)
        if spec == "name":
            return self.vocab.label(value, self.lang) if isinstance(value, str) and value in self.vocab.entities else str(value)
        if spec == "attribute":
            a = self.vocab.attributes.get(value) if self.vocab is not None else None
            return (a.zh if zh else a.en) if a is not None else str(value)
        if spec in ("method", "component"):
            pair = LABELS[spec].get(value)
            return (pair[1] if zh else pair[0]) if pair else str(value)
        return format(value, spec)


_PARSED: dict[str, tuple[tuple[str, str | None, str, str | None], ...] | None] = {}
_FORMATTER = string.Formatter()


def _parsed(text: str) -> tuple[tuple[str, str | None, str, str | None], ...] | None:
    """A label template's (literal, field, spec, conversion) parts, parsed once; None when a field is
    positional or its spec holds braces (formatted by :class:`string.Formatter` itself)."""
    try:
        return _PARSED[text]
    except KeyError:
        pass
    parts = tuple(_FORMATTER.parse(text))
    simple = all(name is None or (name != "" and not name.isdigit() and "{" not in (spec or "") and "}" not in (spec or ""))
                 for _, name, spec, _ in parts)
    found = tuple((lit, name, spec or "", conv) for lit, name, spec, conv in parts) if simple else None
    if len(_PARSED) < 4096:                     # templates come from the vocabulary: a bounded set
        _PARSED[text] = found
    return found
