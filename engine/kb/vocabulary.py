"""The vocabulary: entities and their aliases, attributes with types and units, enums, qualifiers.

It is the schema claims and reference facts are checked against, and the lexicon the question parser
matches aliases with. Values are normalised here so every other module compares canonical numbers.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import short, Issue, ValidationError
from ..yamlio import LineDict, load_file

UNITLESS_OK = ("count", "ratio", "params")
ENTITY_FIELDS = ("name", "aliases", "catalog", "family", "variants", "requires", "presented_as")
VALUE_TYPES = ("quantity", "boolean", "enum", "enums", "entity", "entities", "text")
_BOUND = re.compile(r"^\s*(>=|<=|>|<|≥|≤)\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")
_NUMBER_TEXT = re.compile(r"^\s*[~≈]?\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")


@dataclass(frozen=True)
class Interval:
    """A normalised quantity: a number is lo == hi; a bound leaves one side open-ended (None)."""

    lo: float | None
    hi: float | None
    lo_strict: bool = False
    hi_strict: bool = False

    @property
    def kind(self) -> str:
        if self.lo is not None and self.hi is not None:
            return "number" if self.lo == self.hi else "range"
        return "bound"

    def point(self) -> float | None:
        """A representative number: the value, the range's midpoint, or the bound's limit."""
        if self.lo is not None and self.hi is not None:
            return (self.lo + self.hi) / 2
        return self.lo if self.lo is not None else self.hi

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "lo": self.lo, "hi": self.hi}
        if self.lo_strict or self.hi_strict:
            d["lo_strict"], d["hi_strict"] = self.lo_strict, self.hi_strict
        return d

    def text(self, unit: str = "") -> str:
        u = f" {unit}" if unit and unit != "1" else ""
        if self.kind == "number":
            return f"{_fmt(self.lo)}{u}"
        if self.kind == "range":
            return f"{_fmt(self.lo)}–{_fmt(self.hi)}{u}"
        if self.lo is not None:
            return f"{'>' if self.lo_strict else '≥'} {_fmt(self.lo)}{u}"
        return f"{'<' if self.hi_strict else '≤'} {_fmt(self.hi)}{u}"


def _fmt(x: float | None) -> str:
    if x is None:
        return "?"
    if abs(x) >= 1e6:
        return f"{x:.3g}"
    return f"{x:.4g}" if x != int(x) else str(int(x))


@dataclass(frozen=True)
class Attribute:
    name: str
    type: str
    dimension: str | None
    enum: str | None
    kinds: tuple[str, ...]
    applies_to: tuple[str, ...]
    en: str
    zh: str
    # kinds of subject that take this attribute's value from the GPU they carry (a family has its GPU's ECC)
    inherited_by: tuple[str, ...] = ()
    # a reference list of this attribute is complete (a closed world): an item it lacks is false, not unknown
    closed: bool = False


CUE_GROUPS = ("method", "precision", "intent", "scale", "generality",
              # the claim extractor's: attribute words, unit spellings, negation, bounds, hedges, verdicts,
              # the verbs that tie a GPU to an instance, of a requirement, of having a feature, of advice
              "attribute", "unit", "negation", "bound", "approx", "verdict", "carries", "require", "possess", "advice",
              # which verdict attribute a verdict is about (by the resource its clause names), and the words
              # that make a verdict an open question ("whether GN7 is enough")
              "verdict_attribute", "open_question",
              # the words that state what hardware is designed or positioned for (its role)
              "role",
              # words for a task beyond its enum labels, a bottleneck and what names it, a technique's effect
              "task", "bottleneck", "bottleneck_cue", "effect",
              # the words that make a general concept what a statement naming no product is about
              "topic",
              # the words before a product's name that make it what another is compared with ("低于 A100")
              "comparison",
              # the words of each host interface (host_link enum)
              "host_link")


def _load_cues(raw: Any, path: str, issues: list[Issue]) -> dict[str, dict[str, tuple[str, ...]]]:
    """The question parser's cue words: group -> value -> regular expressions over lower-cased text.

    They are data (the words people use for a method, a precision or a kind of question, in English and
    Chinese); each pattern is compiled here so a broken one is reported with its file and line.
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {g: {} for g in CUE_GROUPS}
    if raw is None:
        return out
    if not isinstance(raw, dict):
        issues.append(Issue("cues must be a mapping of groups", path, 1, "cues", CUE_GROUPS))
        return out
    for group, values in raw.items():
        line = raw.line_of(group) if hasattr(raw, "line_of") else None
        if group not in CUE_GROUPS:
            issues.append(Issue(f"unknown cue group {short(group)}", path, line, "cues", CUE_GROUPS))
            continue
        if not isinstance(values, dict):
            issues.append(Issue(f"cues.{group} must map values to lists of patterns", path, line, f"cues.{group}"))
            continue
        for value, patterns in values.items():
            vline = values.line_of(value) if hasattr(values, "line_of") else line
            if not isinstance(patterns, list) or not all(isinstance(x, str) and x for x in patterns):
                issues.append(Issue(f"cues.{group}.{value} must be a list of patterns (text)", path, vline, f"cues.{group}.{value}"))
                continue
            for pat in patterns:
                try:
                    re.compile(pat)
                except re.error as exc:
                    issues.append(Issue(f"cues.{group}.{value}: bad pattern {short(pat)}: {exc}", path, vline, f"cues.{group}.{value}"))
            out[group][str(value)] = tuple(patterns)
    return out


class Vocabulary:
    """Entities, attributes, units, enums and qualifiers read from kb/vocabulary.yaml."""

    def __init__(self, data: dict, path: str = "kb/vocabulary.yaml"):
        self.path = path
        issues: list[Issue] = []
        if not isinstance(data, dict):
            raise ValidationError(f"{path}: expected a mapping", [Issue("expected a mapping at top level", path, 1)])
        for key in ("kinds", "units", "enums", "attributes", "qualifiers", "entities"):
            if key not in data:
                issues.append(Issue(f"missing section '{key}'", path, 1))
        if issues:
            raise ValidationError(f"{path}: invalid vocabulary", issues)
        self.kinds: set[str] = set(data["kinds"])
        self.cues: dict[str, dict[str, tuple[str, ...]]] = _load_cues(data.get("cues"), path, issues)
        self.units: dict[str, dict[str, float]] = {d: {str(u): float(f) for u, f in us.items()} for d, us in data["units"].items()}
        self.enums: dict[str, dict[str, dict]] = {n: dict(vals or {}) for n, vals in data["enums"].items()}
        self.entities: dict[str, dict] = {}
        self.attributes: dict[str, Attribute] = {}
        self.qualifiers: dict[str, dict] = dict(data["qualifiers"])
        ents: LineDict = data["entities"]
        for eid, spec in ents.items():
            line = ents.line_of(eid)
            kind, _, name = str(eid).partition(":")
            if kind not in self.kinds or not name:
                issues.append(Issue(f"entity id {short(eid)} must be '<kind>:<name>'", path, line, "entities", self.kinds))
                continue
            if not isinstance(spec, dict):
                issues.append(Issue(f"entity {eid} must be a mapping", path, line, "entities"))
                continue
            for k in spec:
                if k not in ENTITY_FIELDS:
                    hint = " (an unquoted comma inside a {...} value splits it; quote the value)" if spec[k] is None else ""
                    issues.append(Issue(f"unknown field {k!r} of entity {eid}{hint}", path, line, "entities", ENTITY_FIELDS))
            spec = dict(spec)
            spec["kind"] = kind
            spec.setdefault("name", name)
            spec.setdefault("catalog", True)
            self.entities[eid] = spec
        attrs: LineDict = data["attributes"]
        for name, spec in attrs.items():
            line = attrs.line_of(name)
            t = spec.get("type")
            if t not in VALUE_TYPES:
                issues.append(Issue(f"attribute {name!r} has unknown type {t!r}", path, line, "type", VALUE_TYPES))
                continue
            if t == "quantity" and spec.get("dimension") not in self.units:
                issues.append(Issue(f"attribute {name!r} has unknown dimension", path, line, "dimension", set(self.units)))
            if t in ("enum", "enums") and spec.get("enum") not in self.enums:
                issues.append(Issue(f"attribute {name!r} names an unknown enum", path, line, "enum", set(self.enums)))
            kinds = spec.get("kind") or []
            kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
            inherited = spec.get("inherited_by") or ()
            inherited = (inherited,) if isinstance(inherited, str) else tuple(inherited)
            for k in inherited:
                if k not in self.kinds:
                    issues.append(Issue(f"attribute {name!r}: inherited_by names unknown kind {k!r}", path, line,
                                        "inherited_by", self.kinds))
            closed = spec.get("closed", False)
            if not isinstance(closed, bool):
                issues.append(Issue(f"attribute {name!r}: closed must be true or false, got {closed!r}"
                                    " (in YAML write true/false without quotes)", path, line, "closed", ("true", "false")))
                closed = False
            self.attributes[name] = Attribute(name, t, spec.get("dimension"), spec.get("enum"), kinds,
                                              tuple(spec.get("applies_to") or ()), spec.get("en", name), spec.get("zh", name),
                                              inherited, closed)
        role_names = set(self.enums.get("role") or {})
        for enum_name, entries in self.enums.items():
            for value, spec in (entries or {}).items():
                for r in (spec or {}).get("roles") or () if isinstance(spec, dict) else ():
                    if r not in role_names:
                        issues.append(Issue(f"enum {enum_name} value {value}: unknown role {short(r)}", path,
                                            None, "roles", sorted(role_names)))
                verdict = spec.get("verdict") if isinstance(spec, dict) else None
                if verdict is not None and (verdict not in self.attributes or self.attributes[verdict].enum != "verdict"):
                    issues.append(Issue(f"enum {enum_name} value {value}: verdict {short(verdict)} is not a verdict attribute",
                                        path, None, "verdict", sorted(a for a, x in self.attributes.items() if x.enum == "verdict")))
                measure = spec.get("measure") if isinstance(spec, dict) else None
                if measure is not None and (measure not in self.attributes or self.attributes[measure].type != "quantity"):
                    issues.append(Issue(f"enum {enum_name} value {value}: measure {short(measure)} is not a quantity attribute",
                                        path, None, "measure", sorted(a for a, x in self.attributes.items() if x.type == "quantity")))
        for eid, spec in self.entities.items():
            req = spec.get("requires")
            if req is not None and (req not in self.attributes or self.attributes[req].type != "boolean"):
                issues.append(Issue(f"entity {eid}: requires names {short(req)}, not a yes/no attribute", path,
                                    ents.line_of(eid), "requires",
                                    sorted(a for a, x in self.attributes.items() if x.type == "boolean")))
            for ref in (spec.get("family"),) + tuple(spec.get("variants") or ()):
                if ref and ref not in self.entities:
                    issues.append(Issue(f"entity {eid} refers to unknown entity {ref}", path, ents.line_of(eid)))
            shown = spec.get("presented_as")      # an uncatalogued name built as a variant of a real family
            if shown is not None and (self.entities.get(shown, {}).get("kind") != spec["kind"] or spec.get("catalog")):
                issues.append(Issue(f"entity {eid}: presented_as must name a known entity of kind {spec['kind']}, "
                                    f"on a name with catalog: false (got {short(shown)})", path, ents.line_of(eid),
                                    "presented_as", sorted(e for e, x in self.entities.items() if x.get("kind") == spec["kind"])))
        self._check_cue_keys(data.get("cues"), issues)
        if issues:
            raise ValidationError(f"{path}: invalid vocabulary", issues)
        self._alias_index: dict[str, str] | None = None

    def _check_cue_keys(self, raw: Any, issues: list[Issue]) -> None:
        """The extractor's cue groups are keyed by names the vocabulary defines: attributes, units
        ("dimension:unit"), verdicts and bound operators."""
        allowed = {
            "attribute": set(self.attributes),
            "unit": {f"{d}:{u}" for d, us in self.units.items() for u in us},
            "verdict": set(self.enums.get("verdict") or {}),
            "bound": {">=", "<=", ">", "<"},
            "negation": {"before", "after"},
            "verdict_attribute": {a for a, spec in self.attributes.items() if spec.enum == "verdict"},
            "open_question": {"cue"}, "role": {"verb"}, "generality": set(self.enums.get("generality") or {}),
            "approx": {"hedge"}, "carries": {"verb"}, "require": {"verb"}, "possess": {"verb"}, "advice": {"verb", "use", "not_before", "not_after"}, "comparison": {"before"}, "host_link": set(self.enums.get("host_link") or {}),
            "task": set(self.enums.get("task") or {}), "bottleneck": set(self.enums.get("bottleneck") or {}),
            "bottleneck_cue": {"cue", "table_header", "hypothetical"}, "effect": set(self.enums.get("effect") or {}),
            "topic": {eid for eid, spec in self.entities.items() if spec.get("kind") == "concept"},
        }
        for group, names in allowed.items():
            for key in self.cues.get(group) or {}:
                if key not in names:
                    line = None
                    if isinstance(raw, dict) and hasattr(raw.get(group), "line_of"):
                        line = raw[group].line_of(key)
                    issues.append(Issue(f"cues.{group}: unknown key {short(key)}", self.path, line,
                                        f"cues.{group}", sorted(names)))

    @classmethod
    def load(cls, path: str | Path, display: str | None = None, root: str | Path | None = None) -> "Vocabulary":
        name = display or str(path)
        return cls(load_file(path, name, root), name)

    # -- lookups -----------------------------------------------------------------------------
    def kind_of(self, eid: str) -> str | None:
        ent = self.entities.get(eid)
        return ent["kind"] if ent else None

    def label(self, eid: str) -> str:
        ent = self.entities.get(eid)
        return ent["name"] if ent else str(eid)

    def enum_label(self, enum: str, value: str, lang: str = "en") -> str:
        spec = self.enums.get(enum, {}).get(value) or {}
        return spec.get(lang) or spec.get("en") or value

    def enum_chain(self, enum: str, value: str) -> list[str]:
        """The value followed by its ancestors (``parent`` links) in an enum."""
        out = [value]
        while True:
            parent = (self.enums.get(enum, {}).get(out[-1]) or {}).get("parent")
            if not parent or parent in out:
                return out
            out.append(parent)

    def sized_variants(self, eid: str) -> list[str]:
        """The sized variants of a generic entity ("gpu:A100" -> A100-40GB, A100-80GB), smallest first."""
        variants = [str(v) for v in self.entities.get(eid, {}).get("variants") or []]

        def size(v: str) -> float:
            m = re.search(r"(\d+)gb$", v.lower())
            return float(m.group(1)) if m else math.inf
        return sorted(variants, key=lambda v: (size(v), v))

    def task_roles(self, task: str) -> tuple[str, ...]:
        """The instance roles a task may call for (``roles`` on the task enum), inherited from its parents."""
        for t in self.enum_chain("task", task):
            roles = (self.enums.get("task", {}).get(t) or {}).get("roles")
            if roles:
                return tuple(roles)
        return ()

    def measures(self, attribute: str, values: Any) -> tuple[list[str], int]:
        """The GPU figures that measure the enum ``values`` of ``attribute`` (``measure`` in the
        vocabulary: GPU memory -> memory_gb), and how many of the values have none."""
        attr = self.attributes.get(attribute)
        if attr is None or attr.enum is None or not isinstance(values, list):
            return [], 0
        spec = self.enums.get(attr.enum, {})
        got = [(spec.get(str(v)) or {}).get("measure") for v in values]
        return sorted({m for m in got if m}), sum(1 for m in got if not m)

    def verdict_views(self, attribute: str, values: Any) -> list[str]:
        """The verdict attributes a bottleneck claim amounts to, negatively (``verdict`` on the bottleneck
        enum: host memory named as a bottleneck says host memory is not enough)."""
        if attribute != "bottleneck" or not isinstance(values, list):
            return []
        spec = self.enums.get("bottleneck", {})
        return sorted({(spec.get(str(v)) or {}).get("verdict") for v in values} - {None})

    def speed_figures(self) -> list[str]:
        """The GPU figures that bound training speed: the ``measure`` of each bottleneck whose figure is
        a throughput or a bandwidth (FP16 tensor, FP32, memory bandwidth; not memory capacity)."""
        out = []
        for spec in (self.enums.get("bottleneck") or {}).values():
            m = (spec or {}).get("measure")
            a = self.attributes.get(m) if m else None
            if a is not None and a.dimension in ("compute", "bandwidth") and m not in out:
                out.append(m)
        return sorted(out)

    def general_condition(self, text: Any) -> bool:
        """Does a free-text condition only say that a claim holds in general (cues.generality)?"""
        t = str(text or "").strip().lower()
        return bool(t) and any(re.search(p, t) for p in (self.cues.get("generality") or {}).get("general", ()))

    def polarity(self, verdict: str) -> int:
        return int((self.enums.get("verdict", {}).get(verdict) or {}).get("polarity", 0))

    def generic(self, eid: str) -> str:
        """The generic entity a variant belongs to (gpu:A100-40GB → gpu:A100), else the entity itself."""
        if not hasattr(self, "_parents"):
            self._parents = {v: e for e, spec in self.entities.items() for v in spec.get("variants") or ()}
        return self._parents.get(eid, eid)

    def entities_of(self, kind: str) -> list[str]:
        return [e for e, s in self.entities.items() if s["kind"] == kind]

    def aliases(self) -> dict[str, str]:
        """Lower-cased alias (English and Chinese) → entity id; longest aliases win on overlap."""
        if self._alias_index is None:
            idx: dict[str, str] = {}
            for eid, spec in self.entities.items():
                names = {spec["name"], eid.split(":", 1)[1]}
                for lang_aliases in (spec.get("aliases") or {}).values():
                    names.update(lang_aliases or [])
                for n in names:
                    if n:
                        idx.setdefault(str(n).lower(), eid)
            self._alias_index = idx
        return self._alias_index

    def unit_factor(self, dimension: str, unit: str | None) -> float | None:
        units = self.units.get(dimension, {})
        if unit is None or unit == "":
            # counts, ratios and parameter counts may omit the unit (1, x and 1 respectively)
            return 1.0 if dimension in UNITLESS_OK and units else None
        return units.get(str(unit))

    def canonical_unit(self, dimension: str) -> str:
        return next(iter(self.units[dimension]))

    # -- values --------------------------------------------------------------------------------
    def parse_quantity(self, value: Any, unit: Any, dimension: str, where: dict) -> tuple[Interval | None, list[Issue]]:
        """Turn a number, ``[lo, hi]`` or ``">= 24"`` in ``unit`` into an Interval in the canonical unit."""
        issues: list[Issue] = []
        factor = self.unit_factor(dimension, None if unit is None else str(unit))
        if factor is None:
            if unit is None:
                issues.append(Issue(f"a {dimension} quantity needs a unit", field="unit", allowed=set(self.units[dimension]), **where))
            else:
                issues.append(Issue(f"unknown unit {short(unit)} for a {dimension} quantity", field="unit", allowed=set(self.units[dimension]), **where))
            return None, issues

        def num(x: Any) -> float | None:
            if isinstance(x, bool):
                return None
            if isinstance(x, (int, float)):
                return float(x) if math.isfinite(x) else None
            if isinstance(x, str):
                m = _NUMBER_TEXT.match(x)
                if m:
                    return float(m.group(1))
            return None

        if isinstance(value, list):
            if len(value) != 2 or num(value[0]) is None or num(value[1]) is None:
                issues.append(Issue("a range must be [low, high] with two numbers", field="value", **where))
                return None, issues
            lo, hi = num(value[0]), num(value[1])
            if lo > hi:
                issues.append(Issue(f"range [{lo}, {hi}] has low > high", field="value", **where))
                return None, issues
            return Interval(lo * factor, hi * factor), issues
        if isinstance(value, str):
            m = _BOUND.match(value)
            if m:
                op = {"≥": ">=", "≤": "<="}.get(m.group(1), m.group(1))
                x = float(m.group(2)) * factor
                if op.startswith(">"):
                    return Interval(x, None, lo_strict=(op == ">")), issues
                return Interval(None, x, hi_strict=(op == "<")), issues
        x = num(value)
        if x is None:
            got = type(value).__name__
            hint = "; in YAML remove the quotes" if isinstance(value, str) and _looks_numeric(value) else ""
            issues.append(Issue(f"expected a number, a range [lo, hi] or a bound like '>= 24', got {got} {short(value)}{hint}", field="value", **where))
            return None, issues
        return Interval(x * factor, x * factor), issues

    def check_value(self, attribute: str, value: Any, unit: Any, where: dict) -> tuple[Any, list[Issue]]:
        """Validate ``value`` against the attribute's type; return its normalised form and issues."""
        attr = self.attributes[attribute]
        t = attr.type
        if t == "quantity":
            return self.parse_quantity(value, unit, attr.dimension, where)
        issues: list[Issue] = []
        if t == "boolean":
            if not isinstance(value, bool):
                issues.append(Issue(f"expected true or false, got {short(value)}", field="value", allowed=["true", "false"], **where))
            return value, issues
        if t == "text":
            if not isinstance(value, str) or not value.strip():
                issues.append(Issue(f"expected a non-empty string, got {short(value)}", field="value", **where))
            return value, issues
        if t in ("enum", "enums"):
            allowed = set(self.enums[attr.enum])
            vals = value if t == "enums" else [value]
            if t == "enums" and not isinstance(value, list):
                issues.append(Issue(f"expected a list of {attr.enum} values", field="value", allowed=allowed, **where))
                return None, issues
            for v in vals:
                if not isinstance(v, str) or v not in allowed:
                    issues.append(Issue(f"unknown {attr.enum} value {short(v)}", field="value", allowed=allowed, **where))
            return (list(value) if t == "enums" else value), issues
        # entity / entities
        vals = value if t == "entities" else [value]
        if t == "entities" and not isinstance(value, list):
            issues.append(Issue("expected a list of entity ids", field="value", **where))
            return None, issues
        for v in vals:
            issues += self.check_entity(v, attr.kinds, "value", where)
        return (list(value) if t == "entities" else value), issues

    def check_entity(self, eid: Any, kinds: tuple[str, ...], field: str, where: dict) -> list[Issue]:
        if not isinstance(eid, str) or eid not in self.entities:
            allowed = {e for e in self.entities if not kinds or self.kind_of(e) in kinds}
            return [Issue(f"unknown entity {short(eid)}", field=field, allowed=allowed, **where)]
        if kinds and self.kind_of(eid) not in kinds:
            return [Issue(f"{eid} is a {self.kind_of(eid)}, expected a {' or '.join(kinds)}", field=field, **where)]
        return []

    def check_qualifiers(self, quals: Any, where: dict) -> tuple[dict, list[Issue]]:
        """Validate a qualifiers mapping; quantities become Intervals under the same key."""
        if quals is None:
            return {}, []
        if not isinstance(quals, dict):
            return {}, [Issue("qualifiers must be a mapping", field="qualifiers", **where)]
        out: dict[str, Any] = {}
        issues: list[Issue] = []
        for key, val in quals.items():
            w = dict(where)
            if not isinstance(key, str):
                issues.append(Issue(f"qualifier names are text, got {short(key)}", field="qualifiers", allowed=set(self.qualifiers), **w))
                continue
            if isinstance(quals, LineDict):
                w["line"] = quals.line_of(key)
            spec = self.qualifiers.get(key)
            if spec is None:
                issues.append(Issue(f"unknown qualifier {short(key)}", field="qualifiers", allowed=set(self.qualifiers), **w))
                continue
            t = spec["type"]
            kinds = spec.get("kind") or ()
            kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
            if t == "quantity":
                iv, errs = self.parse_quantity(val, spec.get("unit", "1") if spec["dimension"] in ("count", "params") else None, spec["dimension"], w)
                issues += [Issue(e.message, e.file, e.line, f"qualifiers.{key}", e.allowed) for e in errs]
                out[key] = iv
            elif t in ("entity", "entities"):
                vals = val if isinstance(val, list) else [val]
                if t == "entity" and isinstance(val, list):
                    issues.append(Issue("expected one entity id, got a list", field=f"qualifiers.{key}", **w))
                for v in vals:
                    issues += self.check_entity(v, kinds, f"qualifiers.{key}", w)
                out[key] = list(vals) if t == "entities" else val
            elif t in ("enum", "enums"):
                vals = val if isinstance(val, list) else [val]
                allowed = set(self.enums[spec["enum"]])
                for v in vals:
                    if not isinstance(v, str) or v not in allowed:
                        issues.append(Issue(f"unknown {spec['enum']} value {short(v)}", field=f"qualifiers.{key}", allowed=allowed, **w))
                out[key] = list(vals) if t == "enums" else val
            else:
                if not isinstance(val, str):
                    issues.append(Issue(f"expected text, got {short(val)}", field=f"qualifiers.{key}", **w))
                out[key] = val
        return out, issues


def _looks_numeric(s: str) -> bool:
    return bool(_NUMBER_TEXT.match(s))
