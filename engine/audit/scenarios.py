"""Which claims the audit can recompute, and how: a sizing scenario (a query body) for each claim whose
scope names a method, a model size and (for verdicts) hardware, with probes at the ends of a range,
and the ``check`` records that hand those scenarios to the rules. The records of the claims and
reference facts themselves are :mod:`.audit_inputs`.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from ..core.errors import BadInput
from ..kb.store import Fact, ReleaseView
from ..kb.vocabulary import Interval
from ..models import scenario as scen
from .blocks import catalog_models

__all__ = ["CHECKED_ATTRS", "CONCEPT_METHOD", "PROBES", "check_scenarios", "probe_sizes", "task_method", "check_records"]

CHECKED_ATTRS = {"memory_verdict", "suitability", "memory_required", "min_gpus", "max_params"}
CONCEPT_METHOD = {"concept:llm-full-finetune": "full", "concept:llm-peft": "lora", "concept:llm-pretrain": "pretrain"}


# -- checkable claims → scenarios -------------------------------------------------------------

def check_scenarios(view: ReleaseView, claims: list[Fact] | None = None) -> list[tuple[Fact, str, dict[str, Any]]]:
    """For each claim whose scope names a method, a model size and (for verdicts) hardware, the
    query bodies that reproduce that scope: (claim, pick, body). A range of sizes is checked at the
    end that would refute the claim (the largest size for "it fits", the smallest for "it does not")."""
    vocab = view.kb.vocab
    out = []
    for c in view.claims if claims is None else claims:
        if c.attribute not in CHECKED_ATTRS:
            continue
        q = c.qualifiers
        method = (q.get("method") or "").split(":")[-1] or CONCEPT_METHOD.get(c.subject) or task_method(q.get("task"), vocab)
        techniques = set(q.get("techniques") or [])
        open_bits = False
        weights = c.attribute == "memory_required" and list(q.get("component") or ()) == ["weights"]
        # a model's need with no method stated: sized for its least and its most demanding use
        open_use = c.attribute == "memory_required" and not method and not weights
        if weights or open_use:
            method = "inference"      # the weights: params x bytes of the stated precision, whatever the use
        polarity = vocab.polarity(str(c.value)) if c.attribute in ("memory_verdict", "suitability") else 0
        # "70B in FP16 fits on one A100": a use left open at a stated precision is sized for its least demanding use
        least_use = not method and polarity > 0 and bool(q.get("precision")) and not q.get("task")
        if least_use:
            method = "inference"
        if method == "lora" and ({"technique:quantization", "software:bitsandbytes"} & techniques):
            method = "qlora"
            # quantized, but to how many bits? bitsandbytes loads a base in 8 or in 4 bits
            open_bits = not q.get("precision")
        if method not in scen.METHODS:
            continue
        sizes: list[tuple[str, dict]] = []
        for m in q.get("model") or []:
            if view.ref(m, "params") is not None:
                sizes.append((m.split(":")[1], {"model": m}))
        if c.subject.startswith("model:") and view.ref(c.subject, "params") is not None and not sizes:
            sizes.append((c.subject.split(":")[1], {"model": c.subject}))
        top = None
        if c.attribute == "max_params" and isinstance(c.norm, Interval) and (c.norm.hi or c.norm.lo):
            # "it trains models up to X": X must fit
            top = c.norm.hi or c.norm.lo
            sizes = [(f"{top / 1e9:g}B", {"params": top})]
        p = q.get("params")
        if not sizes and isinstance(p, Interval):
            if polarity > 0 and p.hi is not None:
                sizes.append((f"{p.hi / 1e9:g}B", {"params": p.hi}))
            elif p.lo is not None:
                sizes.append((f"{p.lo / 1e9:g}B", {"params": p.lo}))
        if not sizes and polarity != 0:
            # the claim leaves the model open: probe the smallest and the largest model of the catalog;
            # if the verdict differs between them the claim depends on a scope it does not state
            sizes = probe_sizes(view, [m for m in q.get("model") or [] if view.ref(m, "params") is None],
                                sequence=q.get("seq_len"))
            least_use = False     # "FP16 weights fit on a 24 GB A10": which model's, the two probes tell
        if not sizes:
            continue
        hw: dict[str, Any] = {}
        if q.get("gpu"):
            hw = {"gpu": q["gpu"]}
        elif c.subject.startswith("gpu:"):
            hw = {"gpu": c.subject}
        elif c.subject.startswith("family:") and view.ref(c.subject, "gpu") is not None:
            hw = {"family": c.subject}
        elif q.get("instance"):
            hw = {"instance": q["instance"]}
        elif c.subject.startswith("instance:"):
            hw = {"instance": c.subject}       # an instance size: its GPUs (or its share of one)
        if not hw:
            if c.attribute in ("memory_verdict", "suitability", "min_gpus", "max_params"):
                continue
            hw = {"vram_gb": 80}  # memory needs do not depend on the card; any capacity will do
        body: dict[str, Any] = {"method": method, **hw}
        if q.get("optimizer") and method != "inference":
            body["optimizer"] = q["optimizer"].split(":")[1]
        precs = [x.split(":")[1] for x in q.get("precision") or []]
        if precs and method not in ("qlora",) and precs[0] in scen.PRECISIONS:
            body["precision"] = precs[0]
        if "technique:gradient_checkpointing" in techniques and method != "inference":
            body["gradient_checkpointing"] = True
        if method == "qlora":
            # what practitioners run: QLoRA's paper and PEFT's prepare_model_for_kbit_training turn
            # gradient checkpointing on for k-bit training
            body["gradient_checkpointing"] = True
        if "technique:flash_attention" in techniques:
            body["flash_attention"] = True
        b = q.get("batch")
        if isinstance(b, Interval) and (b.hi or b.lo):
            body["batch"] = int(b.hi or b.lo)
        g = q.get("gpus")
        if isinstance(g, Interval) and (g.lo or g.hi):
            body["gpus"] = int(g.lo or g.hi)
        s = q.get("seq_len")
        if isinstance(s, Interval) and (s.lo or s.hi):
            # checked at the end that would refute the claim: the longest for "it fits", the shortest
            # for "it does not"
            n = s.hi if polarity > 0 and s.hi else (s.lo or s.hi)
            body["seq_len"] = int(min(max(n, 1), 1_048_576))
        if c.attribute == "memory_required" and open_bits:
            # a need for a quantized base that leaves the bit width open: sized at 8 bits and at 4
            for pick, size in sizes:
                eight = {k: v for k, v in body.items() if k != "gradient_checkpointing"}
                out.append((c, f"probe:most {pick} int8", {**eight, **size, "method": "lora", "precision": "int8"}))
                out.append((c, f"probe:least {pick} nf4", {**body, **size}))
            continue
        if open_use:
            # no precision stated either: the lightest common way to serve it, 4-bit weights
            light = body if body.get("precision") else {**body, "precision": "int4"}
            heavy = _heaviest(body)
            for pick, size in sizes:
                out.append((c, f"probe:lightest {pick} inference", {**light, **size}))
                out.append((c, f"probe:heaviest {pick} {heavy['method']}", {**heavy, **size}))
            continue
        if c.attribute == "max_params" and not q.get("method") and method in ("full", "lora", "qlora"):
            # a largest trainable model with no method stated: it depends on the method when full
            # training and QLoRA (the most and the least demanding) disagree
            qlora = {**{k: v for k, v in body.items() if k not in ("precision", "optimizer")},
                     "method": "qlora", "gradient_checkpointing": True}
            for pick, size in sizes:
                out.append((c, f"probe:most {pick} full", {**body, **size, "method": "full"}))
                out.append((c, f"probe:least {pick} qlora", {**qlora, **size}))
            if c.modality == "recommendation" and top:
                # a recommended cap is too cautious when a clearly larger model (25% more) fits the least
                # demanding method
                above = top * 1.25
                out.append((c, f"probe:above {above / 1e9:g}B qlora", {**qlora, "params": above}))
            continue
        for pick, size in sizes:
            out.append((c, f"probe:least-use {pick} inference" if least_use else pick, {**body, **size}))
    return out


def probe_sizes(view: ReleaseView, families: list[str] | None = None,
                sequence: Any = None) -> list[tuple[str, dict[str, Any]]]:
    """The smallest and the largest model of the catalog (by parameter count), as probe picks; within
    the named model families ("ResNet" = resnet-50, resnet-101) when the catalog has members of them,
    and among the sequence models trained for the sequence length the claim names (``sequence``, see
    :func:`.blocks.catalog_models`)."""
    models = catalog_models(view, families, sequence=sequence)
    if len(models) == 1 and families:
        models = models * 2
    if len(models) < 2:
        return []
    return [(f"probe:smallest {models[0][1].split(':')[1]}", {"model": models[0][1]}),
            (f"probe:largest {models[-1][1].split(':')[1]}", {"model": models[-1][1]})]


def task_method(tasks: Any, vocab) -> str | None:
    """The method a claim means when it names only a task: inference for serving, full training for a
    kind of training (what a claim of "training" a named model means unless it names LoRA or QLoRA)."""
    names = [str(t) for t in (tasks or [])]
    if names and all(set(vocab.task_roles(t)) == {"inference"} for t in names):
        return "inference"      # serving, or a task whose only role is inference (RAG application work)
    if any("training" in vocab.enum_chain("task", t) and t != "pretraining" for t in names):
        return "full"
    return None


#: a check's pick prefix -> its ``probe`` number (rules/types.yaml): the catalog's smallest and largest
#: model, the most and the least demanding training method, a model 25% above a recommended cap
PROBES = {"probe:smallest": 1, "probe:largest": 2, "probe:most": 3, "probe:least": 4, "probe:above": 5,
          "probe:heaviest": 6, "probe:lightest": 7, "probe:least-use": 8}


def check_records(view: ReleaseView, checked: list[Fact]) -> list[dict[str, Any]]:
    """A ``check`` record for each claim of ``checked`` whose scope can be computed (and each probe of
    it), followed by the sizing scenarios they name, each once."""
    vocab = view.kb.vocab
    records: list[dict[str, Any]] = []
    scenarios: dict[str, dict] = {}
    for c, pick, body in check_scenarios(view, checked):
        try:
            s, _ = scen.normalise(body, vocab, view)
        except BadInput:
            continue
        qid = "chk-" + hashlib.sha1(json.dumps(s, sort_keys=True, default=str).encode()).hexdigest()[:12]
        if qid not in scenarios:
            rec = scen.record(s, qid, purpose="audit")
            rec["has_arch"] = int(all(view.ref(s.get("model"), a) is not None for a in ("layers", "hidden_size", "heads"))) if s.get("model") else 0
            scenarios[qid] = rec
        probe = PROBES.get(pick.split(" ", 1)[0], 0)
        records.append({"t": "check", "fk": f"check:{c.id}:{pick}", "claim": c.id, "qid": qid, "pick": pick, "probe": probe})
    return records + list(scenarios.values())


def _heaviest(body: dict[str, Any]) -> dict[str, Any]:
    """The most demanding training of a model served as ``body`` says: full fine-tuning (at FP32 when that is
    the stated precision, else mixed precision), or for a quantized model QLoRA (4-bit) or LoRA over 8 bits."""
    base = {k: v for k, v in body.items() if k not in ("method", "precision")}
    prec = body.get("precision")
    if prec in ("int4", "nf4"):
        return {**base, "method": "qlora", "gradient_checkpointing": True}
    if prec == "int8":
        return {**base, "method": "lora", "precision": "int8"}
    return {**base, "method": "full", **({"precision": "fp32"} if prec == "fp32" else {})}
