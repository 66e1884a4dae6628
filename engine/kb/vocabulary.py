"""The vocabulary: entities and their aliases, attributes with types and units, enums, qualifiers.

It is the schema claims and reference facts are checked against, and the lexicon the question parser
matches aliases with. Values are normalised here so every other module compares canonical numbers.
Its ``cues`` section is read by :mod:`.cues`, its ``findings`` and ``labels`` templates by :mod:`.wording`.

A value's checking and normalisation against this schema is :mod:`.values` (the methods here delegate
to it); the normalised quantity, :class:`Interval`, is :mod:`.interval` (still importable from here).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import short, Issue, ValidationError
from ..core.yamlio import LineDict, load_file
from . import values
from .cues import check_cue_keys, load_cues
from .interval import Interval
from .wording import Wording

UNITLESS_OK = ("count", "ratio", "params")
#: ``name_zh``: the entity's name in a Chinese answer, where its English name carries English words (a qualifier);
#: ``in_texts: false``: a value only reference lists name (FP8 among a GPU's tensor-core precisions), which the
#: lexicon does not read in texts and questions (``named_in``: a yes/no question still names it)
ENTITY_FIELDS = ("name", "name_zh", "aliases", "catalog", "family", "variants", "requires", "presented_as", "in_texts")
VALUE_TYPES = ("quantity", "boolean", "enum", "enums", "entity", "entities", "text")


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
        self.cues: dict[str, dict[str, tuple[str, ...]]] = load_cues(data.get("cues"), path, issues)
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
            if not isinstance(spec.get("in_texts", True), bool):
                issues.append(Issue(f"entity {eid}: in_texts must be true or false, got {short(spec['in_texts'])}", path,
                                    ents.line_of(eid), "in_texts", ("true", "false")))
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
        check_cue_keys(self, data.get("cues"), issues)
        # how findings and engine records are worded (templates, checked here)
        self.wording = Wording.load(data.get("findings"), data.get("labels"), path, set(self.attributes), issues,
                                    data.get("finding_premise"))
        if issues:
            raise ValidationError(f"{path}: invalid vocabulary", issues)
        self._alias_index: dict[str, str] | None = None

    @classmethod
    def load(cls, path: str | Path, display: str | None = None, root: str | Path | None = None) -> "Vocabulary":
        name = display or str(path)
        return cls(load_file(path, name, root), name)

    # -- lookups -----------------------------------------------------------------------------
    def kind_of(self, eid: str) -> str | None:
        ent = self.entities.get(eid)
        return ent["kind"] if ent else None

    def attribute_label(self, attribute: str, lang: str = "en", qualifiers: dict[str, Any] | None = None) -> str:
        """An attribute's name in ``lang``, worded for the qualifiers that change what it names (a
        qualifier's ``when_true``: "dense FP16 tensor throughput" with sparsity is "FP16 tensor throughput
        with sparsity"); the attribute itself when unknown."""
        a = self.attributes.get(attribute)
        if a is None:
            return attribute
        text = a.zh if lang == "zh" else a.en
        for q, v in (qualifiers or {}).items():
            w = (self.qualifiers.get(q) or {}).get("when_true") if v is True else None
            if w and w.get(lang):
                text = w[lang].replace("{attribute}", text.replace(w.get("drop") or "\0", ""))
        return text

    def names_size(self, eid: str, gb: float) -> bool:
        """Whether an entity's name states this memory size ("NVIDIA A100 80GB" states 80, "H100 NVL 94GB" 94):
        how a text's size picks a variant of the GPU it names."""
        return re.search(rf"(?<![0-9]){int(gb)}\s*g", str(self.entities.get(eid, {}).get("name", "")).lower()) is not None

    def label(self, eid: str, lang: str = "en") -> str:
        """An entity's name (in a Chinese answer its ``name_zh`` when it has one); the id when unknown."""
        ent = self.entities.get(eid)
        if not ent:
            return str(eid)
        return (ent.get("name_zh") or ent["name"]) if lang == "zh" else ent["name"]

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

    def named_only(self, eid: str | None) -> bool:
        """Whether ``eid`` is a GPU the vocabulary names only to keep its figures apart (``catalog: false``: another
        maker's accelerator), which the reference tier has no figures of."""
        spec = self.entities.get(eid or "", {})
        return spec.get("kind") == "gpu" and spec.get("catalog") is False

    def aliases(self) -> dict[str, str]:
        """Lower-cased alias (English and Chinese) → entity id; longest aliases win on overlap."""
        if self._alias_index is None:
            idx: dict[str, str] = {}
            for eid, spec in self.entities.items():
                if spec.get("in_texts") is False:
                    continue
                names = {spec["name"], eid.split(":", 1)[1]}
                for lang_aliases in (spec.get("aliases") or {}).values():
                    names.update(lang_aliases or [])
                for n in names:
                    if n:
                        idx.setdefault(str(n).lower(), eid)
            self._alias_index = idx
        return self._alias_index

    def named_in(self, low: str, kind: str) -> list[str]:
        """The entities of ``kind`` the lexicon does not read in texts (``in_texts: false``) whose name or alias the
        lower-cased text uses as a word, in the order named."""
        found = []
        for eid, spec in self.entities.items():
            if spec.get("kind") != kind or spec.get("in_texts") is not False:
                continue
            words = {spec["name"], eid.split(":", 1)[1]} | {a for v in (spec.get("aliases") or {}).values() for a in v or []}
            hits = [m.start() for w in words if w for m in re.finditer(rf"(?<![a-z0-9]){re.escape(str(w).lower())}(?![a-z0-9])", low)]
            if hits:
                found.append((min(hits), eid))
        return [eid for _, eid in sorted(found)]

    def unit_factor(self, dimension: str, unit: str | None) -> float | None:
        units = self.units.get(dimension, {})
        if unit is None or unit == "":
            # counts, ratios and parameter counts may omit the unit (1, x and 1 respectively)
            return 1.0 if dimension in UNITLESS_OK and units else None
        return units.get(str(unit))

    def canonical_unit(self, dimension: str) -> str:
        return next(iter(self.units[dimension]))

    # -- values (checked and normalised by :mod:`.values`) ---------------------------------------
    def parse_quantity(self, value: Any, unit: Any, dimension: str, where: dict) -> tuple[Interval | None, list[Issue]]:
        """Turn a number, ``[lo, hi]`` or ``">= 24"`` in ``unit`` into an Interval in the canonical unit."""
        return values.parse_quantity(self, value, unit, dimension, where)

    def check_value(self, attribute: str, value: Any, unit: Any, where: dict) -> tuple[Any, list[Issue]]:
        """Validate ``value`` against the attribute's type; return its normalised form and issues."""
        return values.check_value(self, attribute, value, unit, where)

    def check_entity(self, eid: Any, kinds: tuple[str, ...], field: str, where: dict) -> list[Issue]:
        """Issues when ``eid`` is not an entity of one of ``kinds`` (any kind when empty)."""
        return values.check_entity(self, eid, kinds, field, where)

    def check_qualifiers(self, quals: Any, where: dict) -> tuple[dict, list[Issue]]:
        """Validate a qualifiers mapping; quantities become Intervals under the same key."""
        return values.check_qualifiers(self, quals, where)
