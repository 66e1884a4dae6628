"""Why a claim stays unverifiable, and the curator's to-do list of the reference facts that would decide
the most claims (``gpukb audit --gaps``, ``GET /v1/audit/gaps``), built here as its typed model
(:class:`gpukb.engine.models.audit.AuditGaps`); the faces only serialise it.

The reasons are a small closed set, named with their wording in both languages in
:mod:`gpukb.engine.core.terms` (``UNVERIFIABLE_REASONS``); each reason names the fact (subject and attribute) that would decide
the claim, so gaps can be counted.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..kb.store import Fact, ReleaseView
from ..core.terms import label
from ..models.audit import AuditGaps, Gap

ADVICE_MODALITIES = ("recommendation",)
TEXT_TYPES = ("text",)
SCOPE_KEYS = ("model", "params", "method", "instance", "gpus")


def reason(c: Fact, findings: list[dict[str, Any]], view: ReleaseView) -> dict[str, Any]:
    """The reason an unverifiable claim could not be decided, with what would decide it."""
    vocab = view.kb.vocab
    attr = vocab.attributes.get(c.attribute)
    code = "no_reference"
    needs: dict[str, Any] = {"subject": c.subject, "attribute": c.attribute}
    by_detail = {f.get("detail") for f in findings if f.get("kind") == "unverifiable"}
    not_in_catalog = view.ref(c.subject, "in_catalog")
    if not_in_catalog is not None and not_in_catalog.value is False:
        code, needs = "not_in_catalog", {"subject": c.subject, "attribute": "in_catalog"}
    elif attr is not None and attr.type in TEXT_TYPES:
        code = "not_expressible"
    elif "open_world" in by_detail or any(f.get("kind") == "unverifiable" and f.get("basis") == "reference"
                                          and f.get("scope_differences") is None for f in findings
                                          if view.ref(c.subject, c.attribute) is not None):
        code = "open_world"
    elif c.modality in ADVICE_MODALITIES or (attr is not None and attr.enum == "verdict" and c.attribute == "cost_effectiveness"):
        code = "advice"
    elif c.modality in ("verdict", "estimate") and not any(k in c.qualifiers for k in SCOPE_KEYS):
        code = "workload"
        needs = {"subject": c.subject, "attribute": c.attribute, "qualifiers": list(SCOPE_KEYS[:3])}
    return {"code": code, "en": label("reason", code, "en"), "zh": label("reason", code, "zh"), "decided_by": needs}


def gaps(statuses: dict[str, dict[str, Any]], view: ReleaseView) -> AuditGaps:
    """The reference facts missing for unverifiable claims, by subject and attribute, most claims first."""
    rows: dict[tuple[str, str], list[str]] = defaultdict(list)
    reasons: dict[str, int] = defaultdict(int)
    for cid, st in sorted(statuses.items()):
        why = st.get("reason")
        if st.get("status") != "unverifiable" or not why:
            continue
        reasons[why["code"]] += 1
        if why["code"] in ("no_reference", "open_world"):
            rows[(why["decided_by"]["subject"], why["decided_by"]["attribute"])].append(cid)
    vocab = view.kb.vocab
    out = [Gap.of(subject=s, attribute=a, subject_label=vocab.label(s),
                  attribute_label={"en": vocab.attributes[a].en, "zh": vocab.attributes[a].zh} if a in vocab.attributes
                  else {"en": a, "zh": a}, claims=ids, count=len(ids))
           for (s, a), ids in rows.items()]
    out.sort(key=lambda r: (-r.count, r.subject, r.attribute))
    return AuditGaps.of(kb_version=view.name, gaps=out, reasons=dict(sorted(reasons.items())),
                        unverifiable=sum(reasons.values()), claims=len(statuses))
