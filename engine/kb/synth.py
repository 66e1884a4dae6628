"""Synthetic KBs for scale tests: generated sources whose claims speak about the real entities.

``make_synthetic_kb(out, claims=N, seed=S)`` writes a KB directory with the same layout as kb/: the real
vocabulary, reference tier and watch list, and generated sources and claim files. Each claim is one
generated sentence of its source (so quote and span are exact). A controlled share of the claims
agrees with the reference tier, contradicts it, or restates another source's verdict for a different
scope, so an audit of the synthetic KB does real work.
"""
from __future__ import annotations

import random
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from .loader import load_kb
from .names import known
from ..core.paths import BUNDLED_KB

PER_SOURCE = 200
RATES = {"agree": 0.45, "wrong": 0.2, "verdict": 0.25, "memory": 0.1}
TASKS = ["training", "fine_tuning", "pretraining", "inference", "production_training", "cv_training"]
VERDICTS = ["sufficient", "insufficient", "suitable", "unsuitable", "not_recommended", "ample"]
METHODS = ["full", "lora", "qlora"]


def _spec_facts(kb) -> list:
    view = kb.release()
    return [f for f in view.reference
            if f.attribute in ("memory_gb", "fp32_tflops", "memory_bandwidth", "ecc", "nvlink", "bf16_native",
                               "network_bandwidth", "vcpu", "host_memory_gb", "gpu_count", "tdp_w")
            and not f.qualifiers and f.subject.split(":")[0] in ("gpu", "instance")]


def make_synthetic_kb(out: str | Path, claims: int, seed: int = 0, base: str | Path | None = None,
                      progress=None) -> dict[str, Any]:
    """Write a synthetic KB with about ``claims`` claims to ``out``; returns counts."""
    if claims < 1 or claims > 2_000_000:
        raise ValueError("claims must be between 1 and 2,000,000")
    base = Path(base) if base else BUNDLED_KB
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty")
    rng = random.Random(seed)
    kb = load_kb(base)
    specs = _spec_facts(kb)
    families = [e for e in kb.vocab.entities_of("family") if kb.vocab.entities[e].get("catalog", True)]
    gpus = [e for e in known(kb.vocab, "gpu") if not kb.vocab.entities[e].get("variants")]
    (out / "sources").mkdir(parents=True)
    (out / "claims").mkdir()
    shutil.copytree(base / "reference", out / "reference")
    shutil.copy(base / "vocabulary.yaml", out / "vocabulary.yaml")
    if (base / "watchlist.yaml").exists():
        shutil.copy(base / "watchlist.yaml", out / "watchlist.yaml")
    sources = _write_sources(out, kb, rng, claims, start=0, specs=specs, families=families, gpus=gpus,
                             topical=False, progress=progress)
    made = sum(s.pop("_n") for s in sources)
    (out / "sources" / "sources.yaml").write_text(yaml.safe_dump({"sources": sources}, sort_keys=False), encoding="utf-8")
    versions = yaml.safe_load((base / "versions.yaml").read_text(encoding="utf-8"))
    rel = versions["releases"]
    rel[0]["adds"] = {"sources": [s["id"] for s in sources]}
    for r in rel[1:]:
        r.pop("adds", None)
    for r in rel:       # revisions and retirements of the bundled sources' claims do not apply to synthetic ones
        for key in ("revises", "retires"):
            if r.get(key):
                r[key] = [x for x in r[key] if not re.match(r"S\d{3,4}-C", str(x))]
    (out / "versions.yaml").write_text(yaml.safe_dump(versions, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return {"out": str(out), "sources": len(sources), "claims": made, "seed": seed}


def _write_sources(out: Path, kb, rng: random.Random, claims: int, start: int, specs, families, gpus,
                   topical: bool, progress=None) -> list[dict[str, Any]]:
    """Write sources ``S<start>``... holding ``claims`` generated claims; their ``sources.yaml`` entries
    (with the count of claims under ``_n``). A topical source is about one family, as an article is:
    its specifications are of that family's GPU and sizes and its verdicts about that family."""
    n_sources = max(1, -(-claims // PER_SOURCE))
    width = 3 if start + n_sources <= 1000 else 4
    sources, made = [], 0
    for si in range(start, start + n_sources):
        sid = f"S{si:0{width}d}"
        want = min(PER_SOURCE, claims - made)
        s_specs, s_families = specs, families
        if topical:
            fam = rng.choice(families)
            about = {fam} | {f.subject for f in kb.release().reference if f.attribute == "family" and f.value == fam}
            ref = kb.release().ref(fam, "gpu")
            about |= set(ref.value if isinstance(ref.value, list) else [ref.value]) if ref is not None else set()
            s_specs = [f for f in specs if f.subject in about] or specs
            s_families = [fam]
        lines, items = [], []
        pos = 0
        for ci in range(want):
            kind = rng.choices(list(RATES), weights=list(RATES.values()))[0]
            item, sentence = _claim(kind, rng, s_specs, s_families, gpus, kb)
            sentence = f"{sentence} (#{si}.{ci})"
            item.update(id=f"{sid}-C{ci + 1:04d}", version=1, quote=sentence, span=[pos, pos + len(sentence)],
                        modality=item.get("modality", "spec"), gloss_en=sentence)
            lines.append(sentence)
            pos += len(sentence) + 1
            items.append(item)
        text = "\n".join(lines) + "\n"
        fname = f"{sid}.txt"
        (out / "sources" / fname).write_text(text, encoding="utf-8")
        (out / "claims" / f"{sid}.yaml").write_text(
            yaml.safe_dump({"source": sid, "claims": items}, allow_unicode=True, sort_keys=False), encoding="utf-8")
        sources.append({"id": sid, "file": fname, "title": f"Synthetic source {sid}", "publisher": "gpukb synth",
                        "published": None, "language": "en", "_n": want})
        made += want
        if progress:
            progress(made, claims)
    return sources


def add_synthetic_sources(kb_dir: str | Path, out: str | Path, claims: int, seed: int = 1, topical: bool = True,
                          progress=None) -> dict[str, Any]:
    """Copy the synthetic KB ``kb_dir`` to ``out`` and add sources holding ``claims`` more claims to its
    first release (what an incremental audit is measured with); ``topical`` sources are each about one
    family, as real articles are, else their claims are spread over every entity."""
    kb_dir, out = Path(kb_dir), Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty")
    shutil.copytree(kb_dir, out)
    kb = load_kb(out)
    rng = random.Random(seed)
    specs = _spec_facts(kb)
    families = [e for e in kb.vocab.entities_of("family") if kb.vocab.entities[e].get("catalog", True)]
    gpus = [e for e in known(kb.vocab, "gpu") if not kb.vocab.entities[e].get("variants")]
    listed = yaml.safe_load((out / "sources" / "sources.yaml").read_text(encoding="utf-8"))
    start = 1 + max(int(s["id"][1:]) for s in listed["sources"])
    new = _write_sources(out, kb, rng, claims, start, specs, families, gpus, topical, progress)
    made = sum(s.pop("_n") for s in new)
    listed["sources"] += new
    (out / "sources" / "sources.yaml").write_text(yaml.safe_dump(listed, sort_keys=False), encoding="utf-8")
    versions = yaml.safe_load((out / "versions.yaml").read_text(encoding="utf-8"))
    versions["releases"][0]["adds"]["sources"] += [s["id"] for s in new]
    (out / "versions.yaml").write_text(yaml.safe_dump(versions, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return {"out": str(out), "sources": len(new), "claims": made, "seed": seed}


def _claim(kind: str, rng: random.Random, specs, families, gpus, kb) -> tuple[dict, str]:
    vocab = kb.vocab
    if kind in ("agree", "wrong") and specs:
        f = rng.choice(specs)
        attr = vocab.attributes[f.attribute]
        if attr.type == "boolean":
            value = f.value if kind == "agree" else (not f.value)
            return ({"subject": f.subject, "attribute": f.attribute, "value": value},
                    f"{vocab.label(f.subject)} {attr.en}: {'yes' if value else 'no'}.")
        x = f.norm.point()
        if kind == "wrong":
            x = x * rng.choice([0.5, 0.6, 1.5, 2.0, 3.0])
        x = round(x, 3)
        unit = vocab.canonical_unit(attr.dimension)
        item = {"subject": f.subject, "attribute": f.attribute, "value": x}
        if unit != "1":
            item["unit"] = unit
        return item, f"{vocab.label(f.subject)} has {attr.en} of {x} {unit}."
    if kind == "verdict":
        subj = rng.choice(families)
        task = rng.choice(TASKS)
        verdict = rng.choice(VERDICTS)
        attr = rng.choice(["suitability", "memory_verdict"])
        quals: dict[str, Any] = {"task": [task], "gpu": rng.choice(gpus)}
        if rng.random() < 0.5:
            quals["method"] = "method:" + rng.choice(METHODS)
            quals["params"] = float(rng.choice([1e9, 3e9, 7e9, 13e9, 30e9, 70e9]))
        return ({"subject": subj, "attribute": attr, "value": verdict, "qualifiers": quals, "modality": "verdict"},
                f"{vocab.label(subj)} is {verdict} for {task} ({attr}).")
    method = rng.choice(METHODS)
    params = float(rng.choice([1e9, 3e9, 7e9, 13e9, 30e9]))
    lo = round(params * rng.choice([2, 4, 8, 16, 20]) / 1e9, 1)
    return ({"subject": "concept:llm-full-finetune" if method == "full" else "concept:llm-peft",
             "attribute": "memory_required", "value": f">= {lo}", "unit": "GB",
             "qualifiers": {"method": f"method:{method}", "params": params}, "modality": "estimate"},
            f"{method} fine-tuning of a {params / 1e9:g}B model needs at least {lo} GB.")
