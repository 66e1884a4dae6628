"""Engine records: the flat dicts the reasoner asserts, built from KB facts and scenarios.

durable_rules matches scalar fields only, so a KB fact becomes a record with its value spread over
``value``/``vstr``/``v0``/``lo``/``hi`` and its qualifiers flattened to ``q_<key>`` fields (the flat forms
and their parsing back are :mod:`.qualifiers`).
"""
from __future__ import annotations

import hashlib
from typing import Any

from .store import Fact
from .qualifiers import canon as _canon, flat_chain, flat_list
from .variants import is_variant_span
from .vocabulary import Interval, Vocabulary


def record(f: Fact, vocab: Vocabulary) -> dict[str, Any]:
    """The reasoner's record of a claim or reference fact."""
    attr = vocab.attributes[f.attribute]
    r: dict[str, Any] = {"t": "claim" if f.tier == "claim" else "ref", "fk": f.key, "fid": f.id,
                         "subject": f.subject, "attribute": f.attribute, "approx": 1 if f.approx else 0,
                         "modality": f.modality}
    if isinstance(f.norm, Interval):
        r.update(value=f.norm.point(), lo=f.norm.lo, hi=f.norm.hi, vkind=f.norm.kind,
                 unit=vocab.canonical_unit(attr.dimension), vstr=_canon(f.norm))
    else:
        r.update(value=f.value, vstr=_canon(f.value), vkind=attr.type if attr.type != "boolean" else "boolean")
        if isinstance(f.value, list) and f.value:
            r["v0"] = str(f.value[0])
        if attr.type in ("entity", "entities"):
            vals = f.value if isinstance(f.value, list) else [f.value]
            r["vgen"] = sorted({vocab.generic(v) for v in vals})
        if isinstance(f.value, list):
            # enum items up to their broadest ancestor ("dev_test" is light training), so a list that names
            # a narrower kind of what the reference lists agrees with it
            r["vup"] = sorted({vocab.enum_chain(attr.enum, str(v))[-1] for v in f.value}) if attr.type == "enums" \
                else list(f.value)
        if attr.type == "enum" and attr.enum == "verdict":
            r["polarity"] = vocab.polarity(str(f.value))
    if f.tier == "claim":
        r["source"] = f.source
        if f.rests_on:
            r["rests_on"] = f.rests_on
    else:
        r["conf"] = f.confidence
        r["citation"] = f.citation
    sig = []
    r["skind"] = vocab.kind_of(f.subject)
    r["spres"] = vocab.entities.get(f.subject, {}).get("presented_as")   # the real family a made-up name poses as
    if f.tier != "claim":
        r["inh"] = 1 if r["skind"] == "gpu" and "family" in attr.inherited_by else 0
        r["closed"] = 1 if attr.closed else 0
        if is_variant_span(f, vocab):
            r["vspan"] = 1               # the span of a generic product's variants' figures (engine/kb/variants.py)
    for k, v in sorted(f.qualifiers.items()):
        if k == "condition" and vocab.general_condition(v):
            r["q_condition"] = v             # shown, but a claim meant in general is not narrowed by it
            continue
        if k == "task" and isinstance(v, list):
            # a task carries its ancestors ("fine_tuning>training") so a general claim about training
            # overlaps a claim about one kind of training, while two different kinds do not overlap
            v = [flat_chain(vocab.enum_chain("task", t)) for t in v]
        if isinstance(v, Interval):
            r[f"q_{k}_lo"], r[f"q_{k}_hi"] = v.lo, v.hi
        else:
            r[f"q_{k}"] = flat_list(v) if isinstance(v, list) else v
        sig.append(f"{k}={_canon(v)}")
    r["qsig"] = ";".join(sig)
    return r


GROUP_FIELDS = ("subject", "attribute", "value", "vstr", "lo", "hi", "vkind", "polarity", "modality", "qsig",
                "q_task", "q_gpu", "as_verdicts")


def group_records(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group claim records by subject, attribute, scope, modality and value; sets each claim's ``gid``."""
    groups: dict[tuple, dict[str, Any]] = {}
    for c in claims:
        key = (c["subject"], c["attribute"], c.get("qsig"), c.get("modality"), c.get("vstr"))
        g = groups.get(key)
        if g is None:
            # the id depends on the group's content only, so it is the same in any block or batch
            gid = "G" + hashlib.sha1(repr(key).encode("utf-8")).hexdigest()[:12]
            g = {"t": "cgroup", "gid": gid, **{k: c.get(k) for k in GROUP_FIELDS},
                 "_sources": {}, "pub": c.get("pub") or ""}
            groups[key] = g
        g["_sources"].setdefault(c.get("source"), c["fid"])
        g["pub"] = max(g["pub"], c.get("pub") or "")
        c["gid"] = g["gid"]
    out = []
    for g in groups.values():
        srcs = g.pop("_sources")
        names = sorted(srcs)
        first = names[0]
        g.update(sources="|".join(names), n_sources=len(names), rep=srcs[first], rep_source=first,
                 rep2=srcs[names[1]] if len(names) > 1 else None)
        g["fk"] = f"group:{g['gid']}"
        out.append({k: v for k, v in g.items() if v is not None})
    return out

