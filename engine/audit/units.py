"""Units of the audit: the claims audited together with the groups they are compared with, and the batches
(one engine run each) they travel in."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from ..kb.store import Fact, ReleaseView

from . import blocks
from .blocks import bucket


#: the audit rules that join two claims (or their groups), and how :func:`units` provides for each: a
#: test fails when a rule joining claims is added without being listed here
CLAIM_JOINS = {
    # claim-vs-claim comparisons run on value groups (cgroup, cpair): a group's unit holds the groups it
    # is paired with, as context when another unit owns them
    "audit.claims.quantity.contradiction": "pairs", "audit.claims.quantity.scope": "pairs",
    "audit.claims.value.contradiction": "pairs", "audit.claims.verdict.contradiction": "pairs",
    "audit.claims.verdict.scope": "pairs", "audit.claims.agreement": "pairs",
    "audit.claims.member": "pairs", "policy.claims": "pairs",
    "audit.claims.bottleneck.contradiction": "pairs", "audit.claims.bottleneck.contradicted": "pairs",
    # a claim and its source's claims of the GPU of the same subject (the family's GPU, a product's vendor)
    "audit.context.refuted_premise": "source_gpu", "audit.context.refuted_derivation": "source_gpu",
    "audit.product.exists.misattributed": "source_gpu", "audit.product.exists.renamed": "source_gpu",
    # a GPU specification stated for a family, and the source's claim of the family's GPU
    "audit.context.premise": "source_gpu",
    # a premise a curator recorded
    "audit.context.curated": "rests_on", "audit.context.refuted_reason": "rests_on",
    # a recommended instance, and the source's claims of the GPU of the products it names
    "audit.product.recommended.misnamed": "source_gpu", "audit.product.recommended.unlisted_misnamed": "source_gpu",
}


#: a batch (one engine run) holds whole units up to about this many claims
BATCH_CLAIMS = 1500
#: ... and up to about this many pairs of groups (what a run's memory grows with: the findings each pair
#: derives and the proofs kept; at 50,000 the 100,000-claim synthetic audit peaked at 2.6 GB, at 12,000
#: at 2.0 GB)
BATCH_PAIRS = 12_000


@dataclass
class Unit:
    """Claims audited together: their groups, the pairs those groups are compared in, and the context
    owned by other units (groups they are compared with; claims they rest on)."""

    claims: list[Fact]
    groups: list[dict[str, Any]]
    #: (group id, group id): what the rules compare (:func:`.blocks.pair_records`)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    context_groups: list[dict[str, Any]] = field(default_factory=list)
    context_claims: list[Fact] = field(default_factory=list)
    #: claim id -> the ids of the claims it rests on, whichever unit owns them (what a part of the
    #: unit audited alone takes as context: :func:`audit_keys.sub_unit`)
    rests: dict[str, list[str]] = field(default_factory=dict)
    #: pairs (sample group, group of this unit) compared here for the sample group's unit: which of them
    #: find something is what that unit is given (:func:`with_reverse`)
    reverse: list[tuple[str, str]] = field(default_factory=list)
    #: a unit of a large bucket's sample groups: audited after the other units, with the reverse pairs
    #: that found something there (:func:`with_reverse`)
    sampled: bool = False


def units(view: ReleaseView, claims: list[Fact], claim_recs: list[dict[str, Any]], groups: list[dict[str, Any]],
          pairs: list[tuple[str, str]], limit: int | None = None, everything: list[Fact] | None = None,
          samples: set[str] | None = None) -> list[Unit]:
    """The units of an audit, in a stable order.

    A unit is a bucket of value groups (one subject's verdicts, or one subject and attribute) or, in a
    bucket of more than ``limit`` groups, the groups of one scope. It holds its groups' claims, the
    pairs its groups are compared in (the other group is context when another unit owns it) and, as
    context, the claims its claims rest on: the source's claims of the GPU of the claim's subject, of
    its family qualifier and of the products it recommends, and a curated ``rests_on``. The rules then
    find in each unit what they find in one run over every claim (a test compares the two).
    ``everything``: every claim of the release, when ``claims`` are only those of some whole buckets
    (a re-plan, :func:`audit_delta.replan`): the claims they rest on are looked for among all.

    ``samples``: the ids of the sample groups of large buckets (:func:`.blocks.group_pairs`). A bucket's
    sample groups form a unit of their own (``sampled``), and their pairs in reverse (sample group,
    another group) are compared in the other group's unit (``reverse``), which says which of them
    found something; the sample unit is then audited with those only (:func:`with_reverse`). So a
    sample group's audit reads the groups it has a finding against, not every group of its bucket:
    a group added to a bucket re-audits a sample group only when the two have a finding.
    """
    limit = blocks.PAIRWISE_LIMIT if limit is None else limit
    size: dict[tuple, int] = {}
    for g in groups:
        size[bucket(g)] = size.get(bucket(g), 0) + 1
    samples = samples or set()
    by_gid = {g["gid"]: g for g in groups}
    out: dict[tuple, Unit] = {}
    unit_of: dict[str, Unit] = {}       # group id -> its unit
    for g in groups:
        b = bucket(g)
        large = size[b] > limit
        key = b if not large else b + (("sample",) if g["gid"] in samples else (blocks.scope_of(g),))
        u = unit_of[g["gid"]] = out.setdefault(key, Unit([], []))
        u.groups.append(g)
        u.sampled = u.sampled or (large and g["gid"] in samples)
    facts = {c.id: c for c in (claims if everything is None else everything)}
    owner: dict[str, Unit] = {}
    for c, r in zip(claims, claim_recs):
        u = owner[c.id] = unit_of[r["gid"]]
        u.claims.append(c)
    for p in pairs:
        ga, gb = p
        u, w = unit_of[ga], unit_of[gb]
        if u is w:
            u.pairs.append(p)
        elif ga in samples and gb not in samples:    # a sample group's pair in reverse
            w.reverse.append(p)
            w.context_groups.append(by_gid[ga])
        else:
            u.pairs.append(p)
            u.context_groups.append(by_gid[gb])
    source_gpu: dict[tuple[str | None, str], list[str]] = {}
    for c in claims if everything is None else everything:
        if c.attribute == "gpu":
            source_gpu.setdefault((c.source, c.subject), []).append(c.id)
    for u in out.values():
        need: dict[str, None] = {}
        for c in u.claims:
            named = [c.subject]
            fam = c.qualifiers.get("family")
            if isinstance(fam, str):
                named.append(fam)
            if c.attribute == "recommended_instance":
                named += [e for e in (c.value if isinstance(c.value, list) else [c.value]) if isinstance(e, str)]
            mine: dict[str, None] = {}
            for e in named:
                mine.update(dict.fromkeys(source_gpu.get((c.source, e), ())))
            if c.rests_on:
                mine[c.rests_on] = None
            if mine:
                u.rests[c.id] = [i for i in mine if i in facts]
                need.update(mine)
        u.context_claims = [facts[i] for i in need if i in facts and owner.get(i) is not u]
        seen: set[str] = set()
        u.context_groups = [g for g in u.context_groups if not (g["gid"] in seen or seen.add(g["gid"]))]
    return [out[k] for k in sorted(out, key=lambda k: min(c.id for c in out[k].claims))]


def with_reverse(u: Unit, fired: dict[str, set[str]], by_gid: dict[str, dict[str, Any]]) -> Unit:
    """A sample unit (``sampled``) completed with its groups' pairs in reverse that found something in
    the other units (``fired``: sample group id -> the ids of those groups); what is audited and keyed."""
    own = {g["gid"] for g in u.groups}
    more = [(r, h) for r in sorted(own) for h in sorted(fired.get(r, ()))]
    known = {g["gid"] for g in u.context_groups} | own
    ctx = list(u.context_groups) + [by_gid[h] for h in dict.fromkeys(h for _, h in more) if h not in known]
    return Unit(u.claims, u.groups, u.pairs + more, ctx, u.context_claims, u.rests, sampled=True)


def by_subject(parts: list[Unit]) -> list[Unit]:
    """The units in the order of their buckets' subjects (a stable sort: a unit's parts stay together),
    so the units a batch holds reach much the same reference facts and the batch asserts fewer of them
    (a quarter fewer at 10,000 claims than in the order of the claims' ids). Which batch a unit travels
    in changes nothing it finds (:func:`units`)."""
    return sorted(parts, key=lambda u: min((str(g["subject"]) for g in u.groups), default=""))


def batches(parts: list[Unit], size: int | None = None, pairs: int | None = None) -> list[list[Unit]]:
    """Units packed in order into batches of about ``size`` claims and ``pairs`` pairs of groups (a unit
    is never split), so a KB of small units is not audited in hundreds of tiny engine runs, nor a
    pair-heavy one in runs that hold too much at once."""
    size = BATCH_CLAIMS if size is None else size
    pairs = BATCH_PAIRS if pairs is None else pairs
    out: list[list[Unit]] = []
    n = m = 0
    for u in parts:
        w = len(u.pairs) + len(u.reverse)
        if not out or n + len(u.claims) > size or (m + w > pairs and out[-1]):
            out.append([])
            n = m = 0
        out[-1].append(u)
        n += len(u.claims)
        m += w
    return out
