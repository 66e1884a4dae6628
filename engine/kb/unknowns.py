"""Values the vendor does not publish or that do not apply, recorded as unknowns with their reason (so 'not
known' differs from 'missing'), and reference facts that restate another fact, checked to agree with it."""
from __future__ import annotations

from ..core import ranges
from ..core.errors import Issue, short
from ..core.yamlio import LineDict
from .ids import REF_ID
from .store import Fact, Unknown
from .vocabulary import Interval, Vocabulary

UNKNOWN_FIELDS = {"subject", "attribute", "kind", "reason", "citation", "qualifiers"}
#: why a reference value is absent: the vendor does not publish it, or it does not apply to the subject
UNKNOWN_KINDS = ("not_published", "not_applicable")


def load_unknowns(items: list, fname: str, vocab: Vocabulary, issues: list[Issue]) -> list[Unknown]:
    """The ``unknowns:`` of a reference file: values the vendor does not publish, or that do not apply."""
    out: list[Unknown] = []
    for item in items:
        if not isinstance(item, LineDict):
            issues.append(Issue("each unknown must be a mapping", fname, getattr(items, "line", 0)))
            continue
        bad = False
        for k in sorted(set(item) - UNKNOWN_FIELDS, key=str):
            issues.append(Issue(f"unknown field {short(k)}", fname, item.line_of(k), str(k), UNKNOWN_FIELDS))
            bad = True
        subject, attribute, kind = item.get("subject"), item.get("attribute"), item.get("kind")
        skind = vocab.kind_of(subject) if isinstance(subject, str) else None
        if skind is None:
            issues.append(Issue(f"unknown subject {short(subject)}", fname, item.line_of("subject"), "subject"))
            bad = True
        spec = vocab.attributes.get(attribute) if isinstance(attribute, str) else None
        if spec is None:
            issues.append(Issue(f"unknown attribute {short(attribute)}", fname, item.line_of("attribute"), "attribute",
                                sorted(vocab.attributes)))
            bad = True
        elif skind is not None and skind not in spec.applies_to:
            issues.append(Issue(f"attribute {attribute} does not apply to a {skind}", fname, item.line_of("attribute"),
                                "attribute", list(spec.applies_to)))
            bad = True
        if kind not in UNKNOWN_KINDS:
            issues.append(Issue(f"unknown kind {short(kind)}", fname, item.line_of("kind"), "kind", UNKNOWN_KINDS))
            bad = True
        for key in ("reason", "citation"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                issues.append(Issue(f"an unknown needs a {key}", fname, item.line, key))
                bad = True
        quals = item.get("qualifiers") or {}
        if not isinstance(quals, dict):
            issues.append(Issue(f"qualifiers must be a mapping, got {short(quals)}", fname, item.line_of("qualifiers"),
                                "qualifiers"))
            bad = True
        if not bad:
            out.append(Unknown(subject, attribute, kind, item["reason"].strip(), item["citation"].strip(),
                               tuple(sorted((str(k), str(v)) for k, v in quals.items())), fname, item.line))
    return out


def check_unknowns(unknowns: list[Unknown], facts: list[Fact], issues: list[Issue]) -> None:
    """An attribute is either known or recorded as unknown, never both; and recorded once."""
    known = {(f.subject, f.attribute, tuple(sorted((str(k), str(v)) for k, v in (f.qualifiers or {}).items())))
             for f in facts if f.tier == "reference"}
    seen: dict[tuple, Unknown] = {}
    for u in unknowns:
        key = (u.subject, u.attribute, u.qualifiers)
        if key in seen:
            o = seen[key]
            issues.append(Issue(f"{u.subject} {u.attribute} is recorded as unknown twice (also {o.file}:{o.line})",
                                u.file, u.line, "subject"))
        elif key in known:
            issues.append(Issue(f"{u.subject} {u.attribute} has a reference value and is also recorded as unknown",
                                u.file, u.line, "attribute"))
        seen[key] = u


def restates(item: LineDict, fname: str, issues: list[Issue]) -> tuple[str, ...]:
    """The ``restates`` ids of a reference fact (one id or a list); checked against the tier later."""
    raw = item.get("restates")
    if raw is None:
        return ()
    ids = [raw] if isinstance(raw, str) else raw
    if not isinstance(ids, list) or not all(isinstance(x, str) and REF_ID.match(x) for x in ids):
        issues.append(Issue(f"restates must be a reference id or a list of them, got {short(raw)}", fname,
                            item.line_of("restates"), "restates"))
        return ()
    return tuple(ids)


def check_restates(facts: list[Fact], issues: list[Issue]) -> None:
    """A fact restates another only when that one exists, is about the same attribute and agrees with its value."""
    ref = {f.id: f for f in facts if f.tier == "reference"}
    for f in facts:
        for rid in f.restates:
            o = ref.get(rid)
            if o is None or o.id == f.id:
                issues.append(Issue(f"{f.id} restates {rid}, which is not another reference fact", f.file, f.line,
                                    "restates", sorted(ref)[:20]))
            elif o.attribute != f.attribute or not values_agree(f, o):
                issues.append(Issue(f"{f.id} restates {rid}, but they differ ({f.attribute}={short(f.value)} vs "
                                    f"{o.attribute}={short(o.value)}): a restatement says the same thing", f.file, f.line, "restates"))


def values_agree(a: Fact, b: Fact) -> bool:
    """Does ``b``'s value fall within ``a``'s (an interval within an interval, an item of a list, equality)?"""
    if isinstance(a.norm, Interval) and isinstance(b.norm, Interval):
        return ranges.contains(a.norm.lo, a.norm.hi, b.norm.lo, b.norm.hi)
    if isinstance(a.value, list):
        if isinstance(b.value, list):
            return ranges.subset([str(v) for v in b.value], [str(v) for v in a.value])
        return b.value in a.value
    return a.value == b.value
