"""gpukb's typed answer models: one dataclass per answer of the HTTP API (and of the CLI's ``--json``),
from which the OpenAPI document's component schemas are generated (:mod:`.schema`).

:data:`ANSWERS` names the model of each answer. Every answer's producer (the sizing, catalog, knowledge,
explanation, check, ask, solve, audit, ClaimReview and audit-gaps answers, /health and the error body)
constructs its model itself (:meth:`Model.of` or :meth:`Model.build`, strictly, so a field an answer
lacks, misnames or adds fails where the answer is made; the audit's findings one at a time as they are
read, :class:`.base.Items`); the faces serialise it once with ``.to_json()``."""
from __future__ import annotations

from typing import Any

from .ask import (AskAnswer, Candidate, ClaimCheckAnswer, ComparedFact, ComparisonAnswer, FactAnswer, FactComparisonAnswer, GpuChoiceAnswer, InstanceChoiceAnswer, InverseAnswer,
                  UnknownAnswer)
from .audit import AuditGaps, ClaimReview, ClaimStatus, Finding, FindingList, Gap
from .base import OMIT, Model, ModelError, to_json
from .check import CHECK_BODY, CheckAnswer, CheckedClaim
from .explain import Explanation, ProvDocument
from .inventory import (GpuDetail, GpuList, InstanceDetail, InstanceList, ModelDetail, ModelList, Price,
                        PricedOption)
from .query import CHEAPEST_BODY, QUERY_BODY, SOLVE_BODY
from .knowledge import Claim, ClaimDetail, ClaimList, Diff, Release, Source, SourceDetail, SourceList, Versions
from .service import Error, Health, Issue
from .sizing import Asked, Memory, Recommendation, Scenario, SizingAnswer, Summary
from .vocab import FindingKind, Lang, Method, Modality, Offload, Optimizer, Precision, Verdict

#: The model of every answer, by the name the API and the CLI use for it.
ANSWERS: dict[str, Any] = {
    "health": Health, "error": Error, "ask": AskAnswer, "query": SizingAnswer, "solve": InverseAnswer,
    "check": CheckAnswer, "explain": Explanation, "prov": ProvDocument, "claims": ClaimList,
    "claim": ClaimDetail, "sources": SourceList, "source": SourceDetail, "audit": FindingList,
    "claimreview": ClaimReview, "gaps": AuditGaps, "versions": Versions, "diff": Diff,
    "gpus": GpuList, "gpu": GpuDetail, "instances": InstanceList, "instance": InstanceDetail,
    "models": ModelList, "model": ModelDetail, "cheapest": InstanceChoiceAnswer,
}

#: The request bodies of the API (POST /v1/query, /v1/solve, /v1/check, /v1/cheapest), by operation.
BODIES: dict[str, Any] = {"query": QUERY_BODY, "solve": SOLVE_BODY, "check": CHECK_BODY, "cheapest": CHEAPEST_BODY}



__all__ = ["ANSWERS", "BODIES", "OMIT", "Model", "ModelError", "to_json",
           "AskAnswer", "Asked", "AuditGaps", "Candidate", "CheckAnswer", "CheckedClaim", "Claim", "ClaimDetail", "ClaimList",
           "ClaimCheckAnswer", "ClaimReview", "ClaimStatus", "ComparedFact", "ComparisonAnswer", "Diff", "Error", "Explanation", "FactAnswer", "FactComparisonAnswer", "Finding",
           "FindingKind", "FindingList", "Gap", "GpuDetail", "GpuList", "Health", "InstanceDetail", "InstanceList", "GpuChoiceAnswer", "InstanceChoiceAnswer", "InverseAnswer", "Issue", "Lang",
           "Memory", "Method", "Modality", "ModelDetail", "ModelList", "Offload", "Optimizer", "Precision", "Price", "PricedOption", "ProvDocument", "Recommendation",
           "Release", "Scenario", "SizingAnswer", "Source", "SourceDetail", "SourceList", "Summary", "UnknownAnswer",
           "Verdict", "Versions"]
