"""What the KB knows, listed: its GPUs (GET /v1/gpus[/<id>]), instance sizes (GET /v1/instances[/<id>]) and
models (GET /v1/models[/<id>]), each entry with every reference fact, its citation and the values recorded
as unknown with their reasons; and the priced options of the cheapest-instance answer (POST /v1/cheapest)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .base import OMIT, Model, spec
from .vocab import Bilingual, Verdict


@dataclass(kw_only=True)
class Price(Model):
    """An hourly list price: the value in its own currency (never converted), the region and the date it
    was read, and the reference fact that states it."""

    value: float = spec(minimum=0)
    currency: Literal["USD", "CNY"]
    unit: str
    region: str | None = OMIT
    as_of: str | None = OMIT
    fact: str = OMIT
    citation: str = OMIT


@dataclass(kw_only=True)
class EntryFact(Model):
    """A reference fact about the entry, with its citation."""

    id: str
    key: str
    attribute: str
    attribute_label: Bilingual
    value: Any
    text: str
    qualifiers: dict[str, Any]
    citation: str
    confidence: str
    unit: str = OMIT
    note: str = OMIT
    via: str = spec(OMIT, "The entity the fact is stated of, when it is another (the family of an instance, "
                          "the umbrella of a GPU variant).")


@dataclass(kw_only=True)
class EntryUnknown(Model):
    """A value recorded as absent: not published by the vendor, or not applicable to the entry, and why."""

    attribute: str
    attribute_label: Bilingual
    kind: Literal["not_published", "not_applicable"]
    reason: str
    citation: str
    qualifiers: dict[str, Any] = OMIT
    via: str = OMIT


@dataclass(kw_only=True)
class GpuItem(Model):
    """A GPU the KB knows, with its main figures as text."""

    id: str
    name: str
    label: str
    specs: dict[str, str]
    facts: int = spec(minimum=0)
    unknowns: int = spec(minimum=0)
    variants: list[str] = OMIT
    umbrella: str = OMIT


@dataclass(kw_only=True)
class InstanceItem(Model):
    """An instance size the KB knows: its provider, family, GPUs, main figures and list prices."""

    id: str
    name: str
    label: str
    provider: str | None
    family: str | None
    gpu: list[str]
    specs: dict[str, str]
    prices: list[Price]
    price_note: str = OMIT


@dataclass(kw_only=True)
class ModelItem(Model):
    """A model the KB knows: its parameter count and shape."""

    id: str
    name: str
    label: str
    params: float | None
    specs: dict[str, str]
    facts: int = spec(minimum=0)


@dataclass(kw_only=True)
class GpuList(Model):
    """Every GPU the KB knows."""

    kb_version: str
    gpus: list[GpuItem]


@dataclass(kw_only=True)
class InstanceList(Model):
    """Every instance size the KB knows (of one provider, carrying one GPU, when asked)."""

    kb_version: str
    instances: list[InstanceItem]
    filters: dict[str, str] = OMIT


@dataclass(kw_only=True)
class ModelList(Model):
    """Every model the KB knows."""

    kb_version: str
    models: list[ModelItem]


@dataclass(kw_only=True)
class _Entry(Model):
    id: str
    name: str
    label: str
    aliases: list[str]
    kb_version: str
    facts: list[EntryFact]
    unknowns: list[EntryUnknown]
    fact_count: int = spec(minimum=0)
    unknown_count: int = spec(minimum=0)


@dataclass(kw_only=True)
class GpuDetail(_Entry):
    """One GPU: every reference fact with its citation, the unknowns with their reasons, the attributes
    that have neither, and the instance sizes that carry it."""

    kind: Literal["gpu"]
    missing: list[str]
    instances: list[str]
    variants: list[str] = OMIT
    umbrella: str = OMIT


@dataclass(kw_only=True)
class InstanceDetail(_Entry):
    """One instance size: its facts (and its family's), unknowns, provider, GPUs and list prices."""

    kind: Literal["instance"]
    provider: str | None
    family: str | None
    gpu: list[str]
    prices: list[Price]
    price_note: str = OMIT


@dataclass(kw_only=True)
class ModelDetail(_Entry):
    """One model: its facts and unknowns."""

    kind: Literal["model"]
    params: float | None


@dataclass(kw_only=True)
class PricedOption(Model):
    """An instance size sized for the scenario, with its list prices (or why it has none)."""

    instance: str
    provider: str | None
    gpu: list[str]
    verdict: Verdict | None
    prices: list[Price]
    need_gb: float | None = OMIT
    usable_gb_per_gpu: float | None = OMIT
    gpus: int | None = OMIT
    conclusion_id: str = OMIT
    price_note: str = OMIT
    error: str = OMIT
