"""Reuse keys of the audit: a digest of what each claim's audit reads, so a re-audit redoes only the claims
whose input changed and reuses the rest (:func:`audit_run.run_audit` with ``previous=``).

A claim's findings, status and corroboration are a function of the rules and vocabulary (``base``), the
reference facts its unit reaches (each as the audit reads it: content, citation, confidence), the claim itself (content, version, review mark, its source's date and
context), the claims it rests on (:attr:`Unit.rests`) and its value group as the claim-vs-claim rules
read it: the group's record, the pairs it is compared in, and the records of the groups it is compared
with together with the claims those name (``rep``, ``rep2``). Other claims of the same group or unit do
not enter it: the rules join a claim with another only through groups and the claims it rests on
(:data:`.units.CLAIM_JOINS`).

The rules read a group's sources only to tell a group of one source from a group of several, and
whether two groups compared are of the same one source (rules/audit/claims.yaml: ``n_sources == 1``,
``n_sources > 1``, and ``sources`` compared under those guards; ``tests/test_audit_keys.py`` checks that
they read nothing more); a claim is named against another group's ``rep2`` only when its source is that
group's ``rep_source``. So a group is keyed as "one source" or "several" (:func:`group_view`), a group it
is compared with by whether the two are of the same one source (:func:`partner_view`): one more source
in a group changes neither what its members nor the claims compared with it are audited with, and only
the new claim is audited.
"""
from __future__ import annotations

import hashlib
from typing import Any

from ..kb.store import Fact, ReleaseView
from .blocks import reachable_reference
from .units import Unit


def reach(view: ReleaseView, claims: list[Fact]) -> list[Fact]:
    """:func:`audit_blocks.reachable_reference` of ``claims``, asked of one claim per distinct reading: it
    reads a claim's subject, attribute, value, qualifiers and its source's context, and gives the union
    over the claims, so the thousands of claims of a large unit that restate a few figures cost a few
    (a test compares the two on every unit)."""
    sources = view.kb.sources
    one: dict[tuple, Fact] = {}
    for c in claims:
        src = sources.get(c.source or "")
        sig = (c.subject, c.attribute, repr(c.value), c.unit, c.modality, repr(sorted(c.qualifiers.items())),
               tuple(src.about) if src else ())
        one.setdefault(sig, c)
    return reachable_reference(view, list(one.values()))


def claim_digests(view: ReleaseView, claims: list[Fact]) -> dict[str, bytes]:
    """Claim id -> a digest of the claim as the audit reads it (content, version, review mark, and its
    source's date and context)."""
    out = {}
    sources = view.kb.sources
    for c in claims:
        src = sources.get(c.source or "")
        out[c.id] = hashlib.sha256(repr((c.key, sorted(c.as_dict().items(), key=lambda kv: kv[0]), c.pending,
                                         src.published if src else None, tuple(src.about) if src else ())).encode()).digest()
    return out


def group_view(g: dict[str, Any]) -> dict[str, Any]:
    """A group record as its members' audit reads it: whether it has one source or several, not which."""
    out = {k: v for k, v in g.items() if k not in ("sources", "n_sources")}
    out["n_sources"] = 1 if g.get("n_sources") == 1 else "several"
    return out


def same_source(g: dict[str, Any], h: dict[str, Any]) -> bool:
    """Whether groups ``g`` and ``h`` are both of the same one source."""
    return g.get("n_sources") == 1 and h.get("n_sources") == 1 and g.get("sources") == h.get("sources")


def partner_view(g: dict[str, Any], h: dict[str, Any]) -> dict[str, Any]:
    """Group ``h`` as the audit of group ``g``'s members reads it: its record without its sources and
    ``rep2`` (read per claim: :func:`claim_keys`), and whether both are groups of the same one source."""
    out = {k: v for k, v in h.items() if k not in ("sources", "n_sources", "rep2")}
    out["same_source"] = same_source(g, h)
    return out


def _group_digests(units: list[Unit], digests: dict[str, bytes]) -> tuple[dict[str, bytes], dict[str, dict]]:
    """Group id -> a digest of the group (:func:`group_view`), the pairs it is compared in and the groups
    it is compared with (:func:`partner_view`, with the claims they name), for every group a unit owns;
    and group id -> source -> the ``rep2`` of the partners whose ``rep_source`` is that source (a claim of
    that source is named against ``rep2``: rules/audit/claims.yaml, audit.claims.member)."""
    def one(view: dict[str, Any]) -> bytes:
        h = hashlib.sha256(repr(sorted(view.items())).encode())
        rid = view.get("rep")
        h.update(digests.get(rid, b"-") if rid else b"0")
        return h.digest()

    out: dict[str, bytes] = {}
    rep2: dict[str, dict] = {}
    seen: dict[tuple[int, bool], bytes] = {}    # a partner's digest depends on it and on same_source only

    def partner(g: dict[str, Any], h: dict[str, Any], same: bool) -> bytes:
        key = (id(h), same)           # the view is built once per partner and reading (most pairs repeat one)
        found = seen.get(key)
        if found is None:
            found = seen[key] = one(partner_view(g, h))
        return found

    for u in units:
        by_gid = {g["gid"]: g for g in u.context_groups}
        by_gid.update((g["gid"], g) for g in u.groups)
        partners: dict[str, list[str]] = {}
        for a, b in u.pairs:
            partners.setdefault(a, []).append(b)
        reverse: dict[str, list[str]] = {}     # a sample group compared here in reverse: whether it finds
        for a, b in u.reverse:                 # something is part of this group's result (BlockResult.fired)
            reverse.setdefault(b, []).append(a)
        for g in u.groups:
            own = group_view(g)
            h = hashlib.sha256(one(own) + (digests.get(g.get("rep2"), b"-") if g.get("rep2") else b"0"))
            one_src, srcs = g.get("n_sources") == 1, g.get("sources")     # same_source(g, partner), inline
            named: dict[Any, list] = {}
            for b in sorted(partners.get(g["gid"], ())):
                hb = by_gid[b]
                h.update(b.encode() + partner(g, hb, one_src and hb.get("n_sources") == 1 and hb.get("sources") == srcs))
                named.setdefault(hb.get("rep_source"), []).append((b, hb.get("rep2")))
            if named:
                rep2[g["gid"]] = named
            for a in sorted(reverse.get(g["gid"], ())):
                ha = by_gid[a]
                h.update(b"~" + a.encode() + partner(g, ha, one_src and ha.get("n_sources") == 1 and ha.get("sources") == srcs))
            out[g["gid"]] = h.digest()
    return out, rep2


def claim_keys(view: ReleaseView, units: list[Unit], refs: list[list[Fact]], base: str,
               claim_recs: dict[str, dict[str, Any]], digests: dict[str, bytes] | None = None,
               inner: dict[str, bytes] | None = None, earlier: tuple[dict, dict] | None = None) -> dict[str, str]:
    """Claim id -> the key of its audit (see the module docstring); ``refs``: each unit's reachable
    reference facts, ``claim_recs``: the claims' records with their group ids; ``digests``: the
    :func:`claim_digests` of claims of this view already known (a re-plan lends those of the claims it
    did not change), completed here with the others.

    ``inner`` receives, claim by claim, the digest of what its key reads but the reference facts (its
    claim, group, partners and premises). ``earlier``: the ``inner`` digests and keys of an earlier
    plan under the same rules, vocabulary and reference tier (a re-plan: :func:`audit_delta.replan`). A
    claim whose inner digest is the earlier one keeps its earlier key even if its unit now reaches more
    or other reference facts: its unit's reachable reference is a part of one tier, each part enough
    for the claims it was reached from (:mod:`.blocks`), and the claim, what it is compared with and
    what it rests on are as they were, so its audit with either part is its audit with the whole tier
    (a claim of a spread source no longer re-audits the other claims of every unit it joins)."""
    digests = {} if digests is None else digests
    everything = {c.id: c for u in units for c in u.claims + u.context_claims if c.id not in digests}
    digests.update(claim_digests(view, list(everything.values())))
    for u in units:                   # claims a group names that no unit holds (none, normally)
        for rid in (i for g in u.groups + u.context_groups for i in (g.get("rep"), g.get("rep2")) if i):
            if rid not in digests and rid in view.facts:
                digests.update(claim_digests(view, [view.facts[rid]]))
    groups, rep2 = _group_digests(units, digests)
    old_inner, old_keys = earlier if earlier is not None else ({}, {})
    # a reference fact as the audit reads it, not only its id and version: its citation and confidence
    # are worded in findings, and a KB may correct them without a new version
    ref_digests = claim_digests(view, list({id(f): f for r in refs for f in r}.values()))
    out: dict[str, str] = {}
    for u, r in zip(units, refs):
        unit_base = None
        for c in u.claims:
            gid = claim_recs[c.id]["gid"]
            k = hashlib.sha256(digests[c.id] + groups[gid])
            for b, rid in rep2.get(gid, {}).get(c.source, ()):
                k.update(b.encode() + (digests.get(rid, b"-") if rid else b"0"))
            for rid in u.rests.get(c.id, ()):
                k.update(rid.encode() + digests.get(rid, b"-"))
            mine = k.digest()
            if inner is not None:
                inner[c.id] = mine
            if c.id in old_keys and old_inner.get(c.id) == mine:
                out[c.id] = old_keys[c.id]
                continue
            if unit_base is None:
                h = hashlib.sha256(base.encode())
                for f in r:
                    h.update(f.key.encode() + ref_digests[f.id])
                unit_base = h.digest()
            out[c.id] = hashlib.sha256(unit_base + mine).hexdigest()[:24]
    return out


def sub_unit(u: Unit, ids: set[str], facts: dict[str, Fact], claim_recs: dict[str, dict[str, Any]]) -> Unit:
    """The part of unit ``u`` that audits only its claims in ``ids``: their groups and those groups'
    pairs; the groups they are compared with and the claims they rest on as context."""
    claims = [c for c in u.claims if c.id in ids]
    gids = {claim_recs[c.id]["gid"] for c in claims}
    by_gid = {g["gid"]: g for g in u.context_groups}
    by_gid.update((g["gid"], g) for g in u.groups)
    pairs = [p for p in u.pairs if p[0] in gids]
    reverse = [p for p in u.reverse if p[1] in gids]
    ctx = list(dict.fromkeys([b for _, b in pairs if b not in gids] + [a for a, _ in reverse]))
    need = dict.fromkeys(i for c in claims for i in u.rests.get(c.id, ()) if i not in ids)
    return Unit(claims, [g for g in u.groups if g["gid"] in gids], pairs, [by_gid[g] for g in ctx],
                [facts[i] for i in need if i in facts], {c.id: u.rests[c.id] for c in claims if c.id in u.rests},
                reverse, u.sampled)
