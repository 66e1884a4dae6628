"""Rule files: loading, schema validation and the compiled form the reasoner runs.

A rule file (YAML, under rules/) holds ``rules:``, each with an id, version, description (en, zh), the
reference facts it cites, patterns (``when``), an optional guard (``if``) and a derived-fact template
(``derive``). Fact types and their fields are declared in ``rules/types.yaml``. Conditions and values
are written in gpukb's expression language (:mod:`engine.expr`); nothing is evaluated as Python.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import expr, jsontext
from ..core.errors import Issue, ValidationError
from ..core.files import read_bytes, tree_files
from ..kb.ids import bare, ref_head
from ..core.yamlio import LineDict, load_file
from ..kb.wording import check_template
from .lift import tighten
from .durable_json import compile_condition, definition  # noqa: F401  (definition: API of this module)
from ..core.terms import FINDING_FIELDS

RESERVED_FIELDS = {"id", "sid", "t", "fk", "$s"}
RULE_FIELDS = {"id", "version", "description", "cites", "when", "if", "derive", "priority", "group", "label", "explain", "compares"}
#: what an audit rule's finding compares a stated memory need with (``compares``): gpukb's total for the run,
#: the quantity whose estimates were measured against published runs, or a part of it (weights, gradients)
COMPARES = ("total", "part")
#: what a rule's ``explain`` template may name (see :data:`gpukb.engine.core.terms.FINDING_FIELDS`)
EXPLAIN_FIELDS = FINDING_FIELDS
PATTERN_FIELDS = {"bind", "type", "where", "absent"}


@dataclass
class FactType:
    name: str
    fields: dict[str, dict]
    base: bool             # supplied by gpukb (claims, reference facts, scenarios), not derived


@dataclass
class Condition:
    text: str
    node: tuple
    durable: dict | None   # compiled durable_rules condition, or None when evaluated by gpukb


@dataclass
class Pattern:
    bind: str
    type: str
    conditions: list[Condition]
    line: int
    absent: bool = False   # the rule holds only when NO such fact exists (base fact types only)
    lifted: list[Condition] = field(default_factory=list)   # guard conjuncts durable_rules tests here (lift.py)
    members: list[tuple[str, dict]] = field(default_factory=list)   # member patterns joined after this one (lift.py)


@dataclass
class Rule:
    id: str
    version: int
    description: dict[str, str]
    cites: list[str]
    patterns: list[Pattern]
    guard: list[Condition]
    derive_type: str
    derive: dict[str, tuple]          # field -> parsed expression
    derive_text: dict[str, str]
    file: str
    line: int
    group: str = ""
    label: dict[str, str] | None = None   # what the derived fact says in words (en, zh): a recommendation's action
    explain: dict[str, str] | None = None  # a finding's explanation (en, zh), with {placeholders} of EXPLAIN_FIELDS
    compares: str | None = None            # what a finding's computed value is (COMPARES), when it is a memory need

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"


@dataclass
class RuleSet:
    """Every rule of a rules directory, validated, with its fact types."""

    rules: list[Rule]
    types: dict[str, FactType]
    root: Path
    digest: str
    by_key: dict[str, Rule] = field(default_factory=dict)

    def __post_init__(self):
        self.by_key = {r.key: r for r in self.rules}

    def get(self, rule_id: str) -> Rule | None:
        if rule_id in self.by_key:
            return self.by_key[rule_id]
        for r in self.rules:
            if r.id == rule_id:
                return r
        return None

    def producers(self, fact_type: str) -> list[Rule]:
        return [r for r in self.rules if r.derive_type == fact_type]


def load_rules(root: str | Path, cited_ids: set[str] | None = None) -> RuleSet:
    """Load and validate every rule file under ``root``; raise ValidationError listing all problems.

    ``cited_ids`` (reference fact ids of the KB), when given, are checked against each rule's ``cites``.
    """
    root = Path(root)
    issues: list[Issue] = []
    if not root.is_dir():
        raise ValidationError(f"rules directory {root} not found", [Issue("rules directory not found", str(root))])

    def rel(p: Path) -> str:
        try:
            return str(p.relative_to(root.parent))
        except ValueError:
            return str(p)

    # regular files only, none outside the directory (a FIFO or an escaping symlink is refused here)
    names = [name for name, _ in tree_files(root, rel(root)) if name.endswith(".yaml")]
    types = _load_types(root / "types.yaml", rel(root / "types.yaml"), issues, root)
    rules: list[Rule] = []
    files = [root / name for name in names if name != "types.yaml"]
    digest = hashlib.sha256()
    for p in [root / "types.yaml"] + files:
        if p.exists():
            digest.update(rel(p).encode() + b"\0" + read_bytes(p, root, rel(p)))
    for path in files:
        data = load_file(path, rel(path), root)
        if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
            issues.append(Issue("expected a mapping with a 'rules' list", rel(path), 1, "rules"))
            continue
        for item in data["rules"]:
            r = _load_rule(item, rel(path), types, issues, cited_ids, group=path.parent.name if path.parent != root else path.stem)
            if r is not None:
                rules.append(r)
    seen: dict[str, Rule] = {}
    for r in rules:
        if r.key in seen:
            issues.append(Issue(f"duplicate rule {r.key} (also {seen[r.key].file}:{seen[r.key].line})", r.file, r.line, "id"))
        seen[r.key] = r
    # a pattern over a type nothing supplies or derives can never match
    produced = {t for t, ft in types.items() if ft.base} | {r.derive_type for r in rules}
    for r in rules:
        for p in r.patterns:
            if p.type not in produced:
                issues.append(Issue(f"rule {r.id} can never match: no rule derives a {p.type!r} fact", r.file, p.line, "when.type", sorted(produced)))
    if len(rules) > 400:
        issues.append(Issue(f"{len(rules)} rules: durable_rules holds about 480 per ruleset; split the rules", str(root)))
    if issues:
        raise ValidationError(f"the rules in {root} have {len(issues)} problem(s)", issues)
    return RuleSet(rules, types, root, digest.hexdigest()[:16])


def _load_types(path: Path, fname: str, issues: list[Issue], root: Path | None = None) -> dict[str, FactType]:
    data = load_file(path, fname, root)
    out: dict[str, FactType] = {}
    items = data.get("types") if isinstance(data, dict) else None
    if not isinstance(items, dict):
        issues.append(Issue("expected a 'types' mapping", fname, 1, "types"))
        return out
    for name, spec in items.items():
        line = items.line_of(name) if isinstance(items, LineDict) else 0
        if not isinstance(spec, dict) or not isinstance(spec.get("fields"), dict):
            issues.append(Issue(f"type {name!r} needs a 'fields' mapping", fname, line, "fields"))
            continue
        for f in spec["fields"]:
            if f in RESERVED_FIELDS:
                issues.append(Issue(f"field name {f!r} is reserved", fname, line, "fields", sorted(RESERVED_FIELDS)))
        out[str(name)] = FactType(str(name), {str(k): dict(v or {}) for k, v in spec["fields"].items()}, bool(spec.get("base", False)))
    return out


def _load_rule(item: Any, fname: str, types: dict[str, FactType], issues: list[Issue],
               cited_ids: set[str] | None, group: str) -> Rule | None:
    if not isinstance(item, LineDict):
        issues.append(Issue("each rule must be a mapping", fname, getattr(item, "line", 0)))
        return None
    line = item.line
    n_before = len(issues)
    for k in sorted(set(item) - RULE_FIELDS, key=str):
        issues.append(Issue(f"unknown field {k!r}", fname, item.line_of(k), str(k), RULE_FIELDS))
    rid = item.get("id")
    if not isinstance(rid, str) or not rid:
        issues.append(Issue("missing rule id", fname, line, "id"))
        return None
    ver = item.get("version")
    if isinstance(ver, bool) or not isinstance(ver, int) or ver < 1:
        issues.append(Issue(f"version must be a positive integer, got {ver!r}", fname, item.line_of("version"), "version"))
    desc = item.get("description")
    if not isinstance(desc, dict) or not all(isinstance(desc.get(l), str) and desc.get(l) for l in ("en", "zh")):
        issues.append(Issue("description needs 'en' and 'zh' texts", fname, item.line_of("description"), "description"))
    cites = item.get("cites") or []
    if not isinstance(cites, list):
        issues.append(Issue("cites must be a list of reference fact ids", fname, item.line_of("cites"), "cites"))
        cites = []
    if cited_ids is not None:
        for c in cites:
            if bare(c) not in cited_ids:
                close = sorted(x for x in cited_ids if ref_head(x) == ref_head(c))[:10]
                issues.append(Issue(f"rule {rid} cites unknown reference fact {c!r}", fname, item.line_of("cites"), "cites",
                                    close or "the id of a reference fact in kb/reference/"))
    when = item.get("when")
    if not isinstance(when, list) or not when:
        issues.append(Issue("'when' must be a non-empty list of patterns", fname, item.line_of("when"), "when"))
        return None
    if isinstance(when[0], dict) and when[0].get("absent"):
        issues.append(Issue("the first pattern cannot be absent", fname, item.line_of("when"), "when"))
    patterns: list[Pattern] = []
    bound: dict[str, str] = {}
    for p in when:
        pl = getattr(p, "line", line)
        if not isinstance(p, dict):
            issues.append(Issue("a pattern must be a mapping with bind, type, where", fname, pl, "when"))
            continue
        for k in sorted(set(p) - PATTERN_FIELDS, key=str):
            issues.append(Issue(f"unknown pattern field {k!r}", fname, p.line_of(k), str(k), PATTERN_FIELDS))
        b, t = p.get("bind"), p.get("type")
        if not isinstance(b, str) or not b.isidentifier() or b in bound or b in RESERVED_FIELDS:
            issues.append(Issue(f"bind {b!r} must be a new identifier (not id, sid, t, fk)", fname, p.line_of("bind"), "bind"))
            continue
        if t not in types:
            issues.append(Issue(f"unknown fact type {t!r}", fname, p.line_of("type"), "type", sorted(types)))
            continue
        conds: list[Condition] = []
        where = p.get("where")
        texts = [] if where is None else (list(where) if isinstance(where, list) else [where])
        for text in texts:
            try:
                node = expr.parse(text)
            except expr.ExprError as exc:
                issues.append(Issue(f"bad condition {text!r}: {exc}", fname, p.line_of("where"), "where"))
                continue
            for conj in _conjuncts(node):
                errs = _check_names(conj, types, bound, own=(b, types[t]))
                if errs:
                    issues += [Issue(e, fname, p.line_of("where"), "where") for e in errs]
                    continue
                never = _never_matches(conj, types[t])
                if never:
                    issues.append(Issue(f"rule {rid} can never match: {never}", fname, p.line_of("where"), "where"))
                    continue
                conds.append(Condition(expr.unparse(conj), conj, compile_condition(conj, set(bound))))
        absent = p.get("absent", False)
        if not isinstance(absent, bool):
            issues.append(Issue("absent must be true or false", fname, p.line_of("absent"), "absent"))
            absent = False
        if absent and not types[t].base:
            base = sorted(n for n, ft in types.items() if ft.base)
            issues.append(Issue(f"absent patterns may only test base facts, not {t!r}: a derived fact could appear after the rule fired",
                                fname, p.line_of("absent"), "absent", base))
        if absent and any(c.durable is None for c in conds):
            issues.append(Issue("an absent pattern's conditions must be simple comparisons (no functions)", fname, p.line_of("where"), "where"))
        if not absent:
            bound[b] = t
        patterns.append(Pattern(b, t, conds, pl, absent))
    guard: list[Condition] = []
    g = item.get("if")
    for text in ([] if g is None else (list(g) if isinstance(g, list) else [g])):
        try:
            node = expr.parse(text)
        except expr.ExprError as exc:
            issues.append(Issue(f"bad guard {text!r}: {exc}", fname, item.line_of("if"), "if"))
            continue
        errs = _check_names(node, types, bound, own=None)
        issues += [Issue(e, fname, item.line_of("if"), "if") for e in errs]
        if not errs:
            guard += [Condition(expr.unparse(c), c, None) for c in _conjuncts(node)]
    if len(issues) == n_before:
        tighten(patterns, guard, types, Condition)
    d = item.get("derive")
    if not isinstance(d, dict) or "type" not in d or not isinstance(d.get("set"), dict):
        issues.append(Issue("'derive' needs a 'type' and a 'set' mapping of field: expression", fname, item.line_of("derive"), "derive"))
        return None
    dtype = d["type"]
    if dtype not in types:
        issues.append(Issue(f"unknown fact type {dtype!r}", fname, d.line_of("type"), "derive.type", sorted(types)))
        return None
    if types[dtype].base:
        issues.append(Issue(f"{dtype!r} facts come from the KB and cannot be derived", fname, d.line_of("type"), "derive.type",
                            sorted(n for n, ft in types.items() if not ft.base)))
    derive: dict[str, tuple] = {}
    derive_text: dict[str, str] = {}
    for fname_, text in d["set"].items():
        fl = d["set"].line_of(fname_) if isinstance(d["set"], LineDict) else d.line
        if fname_ not in types[dtype].fields:
            issues.append(Issue(f"unknown field {fname_!r} for {dtype}", fname, fl, "derive.set", sorted(types[dtype].fields)))
            continue
        try:
            node = expr.parse(text)
        except expr.ExprError as exc:
            issues.append(Issue(f"bad expression for {fname_}: {exc}", fname, fl, "derive.set"))
            continue
        errs = _check_names(node, types, bound, own=None)
        issues += [Issue(e, fname, fl, f"derive.set.{fname_}") for e in errs]
        derive[str(fname_)] = node
        derive_text[str(fname_)] = str(text)
    missing = [f for f, spec in types[dtype].fields.items() if spec.get("required") and f not in derive]
    if missing:
        issues.append(Issue(f"derive of {dtype} lacks required field(s) {', '.join(missing)}", fname, item.line_of("derive"), "derive.set"))
    label = item.get("label")
    if label is not None and not (isinstance(label, dict) and all(isinstance(label.get(l), str) and label.get(l)
                                                                  for l in ("en", "zh"))):
        issues.append(Issue("label needs 'en' and 'zh' texts, e.g. {en: use FlashAttention, zh: 使用 FlashAttention}",
                            fname, item.line_of("label"), "label"))
    explain = item.get("explain")
    if explain is not None:
        if not (isinstance(explain, dict) and all(isinstance(explain.get(l), str) and explain.get(l) for l in ("en", "zh"))):
            issues.append(Issue("explain needs 'en' and 'zh' templates, e.g. {en: '{own_subject} has {own}', zh: '...'}",
                                fname, item.line_of("explain"), "explain"))
        else:
            for lang in ("en", "zh"):
                check_template(explain[lang], FINDING_FIELDS, f"explain.{lang}", fname, item.line_of("explain"), issues)
    compares = item.get("compares")
    if compares is not None and compares not in COMPARES:
        issues.append(Issue(f"compares must be one of {', '.join(COMPARES)}, got {compares!r}", fname,
                            item.line_of("compares"), "compares", list(COMPARES)))
    if len(issues) > n_before:
        return None
    return Rule(rid, ver, dict(desc), [str(c) for c in cites], patterns, guard, dtype, derive, derive_text,
                fname, line, group, dict(label) if isinstance(label, dict) else None,
                dict(explain) if isinstance(explain, dict) else None, compares)


def _conjuncts(node: tuple) -> list[tuple]:
    if node[0] == "and":
        return _conjuncts(node[1]) + _conjuncts(node[2])
    return [node]


def _check_names(node: tuple, types: dict[str, FactType], bound: dict[str, str], own) -> list[str]:
    """Names must be fields of the pattern's own type (bare) or binding.field of an earlier pattern."""
    errs = []
    for path in expr.names(node):
        if len(path) == 1:
            if own is None:
                errs.append(f"name {path[0]!r} must be written binding.field (bindings: {', '.join(bound) or 'none'})")
            elif path[0] not in own[1].fields and path[0] != "fk":
                errs.append(f"unknown field {path[0]!r} of {own[1].name} (fields: {', '.join(sorted(own[1].fields))})")
            continue
        b, f = path[0], path[1]
        if own is not None and b == own[0]:
            t = own[1]
        elif b in bound:
            t = types[bound[b]]
        else:
            errs.append(f"unknown binding {b!r} (bound so far: {', '.join(bound) or 'none'})")
            continue
        if f not in t.fields and f != "fk":  # every fact has its key, fk
            errs.append(f"unknown field {f!r} of {t.name} (fields: {', '.join(sorted(t.fields))})")
    return errs


def _never_matches(node: tuple, ftype: FactType) -> str | None:
    """Detect a condition that no fact of this type can satisfy (a literal outside a field's values)."""
    if node[0] == "cmp" and node[1] == "==":
        a, b = node[2], node[3]
        if a[0] == "lit" and b[0] == "name":
            a, b = b, a
        if a[0] == "name" and len(a[1]) == 1 and b[0] == "lit":
            values = ftype.fields.get(a[1][0], {}).get("values")
            if values is not None and b[1] not in values:
                return f"{a[1][0]} == {b[1]!r}, but {ftype.name}.{a[1][0]} is one of {', '.join(map(str, values))}"
    if node[0] == "cmp" and node[2][0] == "lit" and node[3][0] == "lit":
        try:
            if not expr.evaluate(node, {}):
                return f"{expr.unparse(node)} is always false"
        except expr.ExprError:
            return None
    return None


#: json.dumps(x, sort_keys=True, ensure_ascii=False, default=str) without building an encoder per call
_KEY_ENCODE = jsontext.encoder(sort_keys=True, default=str)


def fact_key(ftype: str, values: dict[str, Any]) -> str:
    """Deterministic id of a derived fact: its type and a hash of its field values."""
    blob = _KEY_ENCODE([ftype, values])
    return f"D-{ftype}-{hashlib.sha1(blob.encode('utf-8')).hexdigest()[:10]}"
