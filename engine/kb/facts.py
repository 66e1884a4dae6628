"""Engine records: the flat dicts the reasoner asserts, built from KB facts and scenarios.

durable_rules matches scalar fields only, so a KB fact becomes a record with its value spread over
``value``/``vstr``/``v0``/``lo``/``hi`` and its qualifiers flattened to ``q_<key>`` fields.
"""
from __future__ import annotations

import json
from typing import Any

from .store import Fact
from .vocabulary import Interval, Vocabulary


def _canon(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "|".join(sorted(map(str, v)))
    if isinstance(v, Interval):
        return json.dumps([v.lo, v.hi, v.lo_strict, v.hi_strict])
    return str(v)


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
    if f.tier != "claim":
        r["inh"] = 1 if r["skind"] == "gpu" and "family" in attr.inherited_by else 0
        r["closed"] = 1 if attr.closed else 0
    for k, v in sorted(f.qualifiers.items()):
        if k == "task" and isinstance(v, list):
            # a task carries its ancestors ("fine_tuning>training") so a general claim about training
            # overlaps a claim about one kind of training, while two different kinds do not overlap
            v = [">".join(vocab.enum_chain("task", t)) for t in v]
        if isinstance(v, Interval):
            r[f"q_{k}_lo"], r[f"q_{k}_hi"] = v.lo, v.hi
        else:
            r[f"q_{k}"] = "|".join(sorted(map(str, v))) if isinstance(v, list) else v
        sig.append(f"{k}={_canon(v)}")
    r["qsig"] = ";".join(sig)
    return r


GROUP_FIELDS = ("subject", "attribute", "value", "vstr", "lo", "hi", "vkind", "polarity", "modality", "qsig",
                "q_task", "q_gpu")


def group_records(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group claim records by subject, attribute, scope, modality and value; sets each claim's ``gid``."""
    groups: dict[tuple, dict[str, Any]] = {}
    for c in claims:
        key = (c["subject"], c["attribute"], c.get("qsig"), c.get("modality"), c.get("vstr"))
        g = groups.get(key)
        if g is None:
            g = {"t": "cgroup", "gid": f"G{len(groups)}", **{k: c.get(k) for k in GROUP_FIELDS},
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


#: a bucket of at most this many groups is compared pair by pair (every bucket of the bundled KB is);
#: a larger one against bounded representatives (see :func:`group_pairs`)
PAIRWISE_LIMIT = 128
#: representatives of other scopes each group of a large bucket is compared with
OTHER_SCOPE_REPS = 16


def group_pairs(groups: list[dict[str, Any]], limit: int = PAIRWISE_LIMIT) -> list[dict[str, Any]]:
    """The ordered pairs of value groups the claim-vs-claim rules compare (``cpair`` records).

    Groups are compared within a *bucket*: the verdicts about one subject (a memory verdict may meet a
    suitability verdict), else one subject and attribute. A bucket of at most ``limit`` groups is
    compared pair by pair. In a larger bucket each group is compared with the representatives of its
    own scope (the groups with the lowest and the highest figure, and the first group of each value and
    verdict polarity) and with a fixed number of representatives of other scopes. A group that
    contradicts some group of its own scope contradicts one of its scope's representatives (the most
    distant figure, or the first group of the other value), so its status is the one pairwise
    comparison gives, with the finding named against a representative; differences of scope are looked
    for among the fixed sample only. The comparisons then grow with the number of groups instead of its
    square.
    """
    buckets: dict[tuple, list[dict[str, Any]]] = {}
    for g in groups:
        key = (g["subject"], "verdict") if g.get("polarity") is not None else (g["subject"], g["attribute"])
        buckets.setdefault(key, []).append(g)
    out: list[dict[str, Any]] = []
    done: set[tuple[str, str]] = set()

    def pair(a: dict[str, Any], b: dict[str, Any]) -> None:
        if a is not b and (a["gid"], b["gid"]) not in done:
            done.add((a["gid"], b["gid"]))
            out.append({"t": "cpair", "fk": f"pair:{a['gid']}:{b['gid']}", "a": a["gid"], "b": b["gid"]})

    for members in buckets.values():
        if len(members) <= limit:
            for a in members:
                for b in members:
                    pair(a, b)
            continue
        by_scope: dict[Any, list[dict[str, Any]]] = {}
        for g in members:
            by_scope.setdefault((g.get("attribute"), g.get("qsig")), []).append(g)
        scope_reps: dict[Any, list[dict[str, Any]]] = {}
        for scope, gs in by_scope.items():
            reps: dict[str, dict[str, Any]] = {}
            with_lo = [g for g in gs if g.get("lo") is not None]
            with_hi = [g for g in gs if g.get("hi") is not None]
            if with_lo:
                low = min(with_lo, key=lambda g: (g["lo"], g["gid"]))
                reps[low["gid"]] = low
            if with_hi:
                high = max(with_hi, key=lambda g: (g["hi"], g["gid"]))
                reps[high["gid"]] = high
            seen: set[Any] = set()
            for g in gs:
                k = (g.get("vstr"), g.get("polarity"), g.get("modality"))
                if k not in seen:
                    seen.add(k)
                    reps[g["gid"]] = g
            scope_reps[scope] = list(reps.values())
        sample: list[dict[str, Any]] = []
        kinds: set[Any] = set()
        for g in members:                 # one group per value or polarity and attribute, in order, up to the cap
            k = (g.get("attribute"), g.get("vstr") if g.get("polarity") is None else g.get("polarity"))
            if k not in kinds and len(sample) < OTHER_SCOPE_REPS:
                kinds.add(k)
                sample.append(g)
        for g in members:
            for r in scope_reps[(g.get("attribute"), g.get("qsig"))] + sample:
                pair(g, r)
                pair(r, g)
    return out
