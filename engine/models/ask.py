"""The other answers of /v1/ask (a fact, a comparison, an instance choice, an inverse question, or not
understood) and of POST /v1/solve; :data:`AskAnswer` tells them apart by ``kind``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .base import OMIT, Model, spec
from .check import CheckAnswer
from .inventory import PricedOption, Price
from .schema import Variants
from .sizing import Asked, Assumed, Contradiction, SizingAnswer, Summary
from .vocab import FindingKind, Label, SolveTarget, Span, Verdict


@dataclass(kw_only=True)
class FactValue(Model):
    """The fact asked about: subject, attribute, value (with its unit) and the fact that states it."""

    subject: str
    attribute: str
    value: Any
    unit: str | None = OMIT
    id: str = OMIT
    text: str = OMIT
    via: str = OMIT
    qualifiers: dict[str, Any] = spec(OMIT, "The configuration the value is stated for (form factor, sparsity), "
                                            "when the vendor states it per configuration.")
    reason: str = spec(OMIT, "Why the reference tier has no value, when it records why (a price not published).")


@dataclass(kw_only=True)
class Support(Model):
    """A fact that supports the answer: a reference fact with its citation and confidence, or a claim."""

    id: str
    type: str = OMIT
    citation: str = OMIT
    confidence: str = OMIT
    source: str = OMIT
    quote: str = OMIT
    span: Span = OMIT
    status: FindingKind = OMIT
    value: Any = OMIT


@dataclass(kw_only=True)
class FactAnswer(Asked):
    """A fact question answered from the reference tier, with the claims that disagree."""

    kind: Literal["fact"]
    fact: FactValue
    asks: list[str] = spec(OMIT, "The values a yes/no question asks a list for (\"Does the H100 support FP8?\": FP8).")
    holds: bool = spec(OMIT, "For a yes/no question: whether the cited list holds every value asked (a closed list "
                             "that lacks one says no).")
    kb_version: str = OMIT
    conclusion_id: str | None = OMIT
    support: list[Support] = OMIT
    contradictions: list[Contradiction] = OMIT
    summary: Summary = OMIT


@dataclass(kw_only=True)
class ComparedFact(Model):
    """One product a fact comparison names, with its value (or each variant's value, when they differ)."""

    named: str = spec(description="The product as the question named it (a generic one stands for its variants).")
    facts: list[FactValue]


@dataclass(kw_only=True)
class FactComparisonAnswer(Asked):
    """One attribute of several products from the reference tier, and which is higher or lower when every
    value of one product is beyond every value of the others."""

    kind: Literal["fact_comparison"]
    attribute: str
    compared: list[ComparedFact]
    answer: str = spec()     # required here (optional in Asked)
    order: Literal["more", "less"] = spec(OMIT, "What the question asks for: the higher value (the default) or the lower.")
    leader: str | None = spec(OMIT, "The product whose values are all on the asked side of the others'; null when "
                                    "the values do not decide (a tie, variants that overlap, a missing value, text values).")
    strict: bool = spec(OMIT, "True when the leader's values are strictly beyond the others' (false: equal for some variants).")
    assumed: list[Assumed] = spec(OMIT, "What the answer took the question to mean (a price asked of a GPU: the "
                                         "instances that carry it).")
    support: list[Support] = OMIT
    summary: Summary = OMIT
    kb_version: str = OMIT


@dataclass(kw_only=True)
class Candidate(Model):
    """One GPU, instance or value sized: its verdict, need and capacity, or why it could not be sized."""

    verdict: Verdict | None = OMIT
    need_gb: float | None = OMIT
    usable_gb_per_gpu: float | None = OMIT
    gpus: int | None = OMIT
    min_gpus: int | None = OMIT
    conclusion_id: str = OMIT
    summary: Summary = OMIT
    gpu: str = OMIT
    instance: str = OMIT
    family: str = OMIT
    value: float = OMIT
    error: str = OMIT


@dataclass(kw_only=True)
class ComparisonAnswer(Asked):
    """Each compared GPU, instance or family sized side by side, and the difference that decides."""

    kind: Literal["comparison"]
    options: list[Candidate]
    answer: str = spec()     # required here (optional in Asked)
    compared: Literal["gpu", "instance", "family"] = OMIT
    assumed: list[Assumed] = OMIT
    best: str | None = OMIT
    deciding: Label = OMIT
    kb_version: str = OMIT


@dataclass(kw_only=True)
class InstanceChoiceAnswer(Asked):
    """The smallest instance size that fits, and why each smaller one does not."""

    kind: Literal["instance_choice"]
    tried: list[Candidate]
    answer: str = spec()     # required here (optional in Asked)
    family: str | None = OMIT
    choice: str | None = OMIT
    text: Label = OMIT
    kb_version: str = OMIT
    ranking: Literal["size", "price"] = spec(OMIT, "How sizes were ranked: smallest first (the default) or by "
                                                     "hourly list price within each currency.")
    providers: list[str] = spec(OMIT, "The cloud providers searched (price ranking).")
    price: Price | None = spec(OMIT, "The chosen size's price (price ranking).")
    cheapest: list[PricedOption] = spec(OMIT, "The cheapest fitting size in each currency (prices are never "
                                              "converted between currencies).")
    ranked: list[PricedOption] = spec(OMIT, "Every fitting size: priced ones by price within each currency, then "
                                            "those without a price in the KB.")
    not_fitting: list[PricedOption] = OMIT
    scenario: dict[str, Any] = OMIT
    note: Label = OMIT


@dataclass(kw_only=True)
class GpuChoiceAnswer(Asked):
    """A run asked about with no GPU named: the memory it needs, the smallest GPUs that hold it on one card, and
    when none does, the fewest cards of the largest ones. Every candidate links to its own sizing proof."""

    kind: Literal["gpu_choice"]
    tried: list[Candidate]
    answer: str = spec()     # required here (optional in Asked)
    need_gb: float | None = spec(OMIT, "The memory the run needs on one GPU, as sized on the chosen GPU (or, when no "
                                       "GPU holds it, on the largest one).")
    choice: str | None = spec(OMIT, "The catalogued GPU with the least memory that holds the run on one card; null "
                                    "when none does.")
    fitting: list[str] = spec(OMIT, "Every GPU of the chosen one's memory size that holds the run too.")
    fewest: list[Candidate] = spec(OMIT, "When no single GPU holds the run: the fewest cards of each of the largest "
                                         "GPUs (min_gpus).")
    notes: list[str] = spec(OMIT, "What the sizing of the need assumed where the question is silent (precision, "
                                  "seq_len, batch, ...), as the sizing answer of that GPU states it.")
    text: Label = OMIT
    kb_version: str = OMIT


@dataclass(kw_only=True)
class InverseAnswer(Asked):
    """The largest batch, sequence length or model that fits, and the first value that does not."""

    kind: Literal["inverse"]
    target: SolveTarget
    answer: str = spec()     # required here (optional in Asked)
    largest: float | None = OMIT
    fits: Candidate = OMIT
    first_not_fitting: Candidate | None = OMIT
    checked: list[Candidate] = OMIT
    assumed: list[Assumed] = OMIT
    text: Label = OMIT
    kb_version: str = OMIT


@dataclass(kw_only=True)
class UnknownAnswer(Asked):
    """A question that was not understood: what was read from it, what is missing, and examples."""

    kind: Literal["unknown"]
    understood: dict[str, Any] = OMIT
    missing: list[str] = OMIT
    examples: list[str] = OMIT
    kb_version: str = OMIT


@dataclass(kw_only=True)
class ClaimCheckAnswer(Asked):
    """A question asking whether a statement is true, answered by checking the statement: its claims'
    statuses, evidence and corrections (the answer of ``gpukb check`` on the statement alone)."""

    kind: Literal["claim_check"]
    statement: str = spec(description="The statement checked: the question without its asking words.")
    check: CheckAnswer
    answer: str = spec()     # required here (optional in Asked)
    kb_version: str = OMIT


AskAnswer = Variants("AskAnswer", "kind", {
    "sizing": SizingAnswer, "fact": FactAnswer, "fact_comparison": FactComparisonAnswer, "comparison": ComparisonAnswer,
    "instance_choice": InstanceChoiceAnswer, "gpu_choice": GpuChoiceAnswer, "inverse": InverseAnswer,
    "claim_check": ClaimCheckAnswer,
    "unknown": UnknownAnswer,
}, description="The answer to a question, by kind.")
