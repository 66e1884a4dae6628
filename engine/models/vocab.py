"""The enums and small shared types of the answer models. Every enum's members are read from gpukb's
one closed vocabulary (:mod:`gpukb.engine.core.terms` and the store's modalities),
so the models, the OpenAPI document and the CLI's choices cannot drift from what the engine uses."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from ..core import terms
from ..kb.loader import MODALITIES
from .base import OMIT, Model, Named, str_enum

Lang = str_enum("Lang", terms.LANGS, "A language of summaries and labels.")
Method = str_enum("Method", terms.METHODS, "A training or serving method.")
Precision = str_enum("Precision", terms.PRECISIONS, "A number format of weights or compute.")
Optimizer = str_enum("Optimizer", terms.OPTIMIZERS, "An optimizer.")
Offload = str_enum("Offload", terms.OFFLOADS, "CPU offload of full training: none, ZeRO-Offload of the optimizer "
                   "states and gradients, or of the parameters too.")
FindingKind = str_enum("FindingKind", terms.FINDING_KINDS, "The audit's nine kinds of finding (most severe "
                       "first); a claim's status is one of them.")
UnverifiableReason = str_enum("UnverifiableReason", terms.UNVERIFIABLE_REASONS, "Why a claim is unverifiable.")
Verdict = str_enum("Verdict", terms.LABELS["verdict"], "Whether the scenario fits the GPU memory.")
SolveTarget = str_enum("SolveTarget", terms.SOLVE_TARGETS, "What an inverse question or POST /v1/solve looks "
                       "for: the largest model, batch or sequence length that fits.")
Modality = str_enum("Modality", MODALITIES, "What kind of statement a claim is.")

#: ``[start, end)`` in Unicode code points of the text quoted.
Span = Annotated[list[int], Named("Span", {
    "type": "array", "description": "[start, end) in Unicode code points of the source text.",
    "prefixItems": [{"type": "integer", "minimum": 0}, {"type": "integer", "minimum": 0}],
    "minItems": 2, "maxItems": 2})]


@dataclass(kw_only=True)
class Bilingual(Model):
    """A text in English and Chinese."""

    en: str
    zh: str


@dataclass(kw_only=True)
class Label(Model):
    """A label in English and, where there is one, Chinese."""

    en: str = OMIT
    zh: str = OMIT
