"""Answers do not depend on the Python they run on.

The digest covers the audit of the bundled KB (every claim's status and every finding) and a fixed,
seeded set of a few hundred sizing questions. Within one run it must be stable (computed twice); with
``GPUKB_DIGEST_DIR`` set (CI sets it), each Python writes its digest there and the test compares it with
the digests of the Pythons that ran before it, so one run over 3.11, 3.12 and 3.13 checks all three.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import random
from pathlib import Path

import pytest

from gpukb.engine.core.errors import BadInput

N_QUESTIONS = 240
GPUS = ["T4", "A10", "A100-40GB", "A100-80GB", "V100-32GB", "H100-80GB", "L4"]
MODELS = ["llama-2-7b", "llama-2-13b", "llama-2-70b", "qwen2.5-7b"]


def _scenarios(vocab_gpus: list[str], models: list[str]) -> list[dict]:
    rng = random.Random(20261203)
    out = []
    for _ in range(N_QUESTIONS):
        body: dict = {"method": rng.choice(["full", "lora", "qlora", "inference", "pretrain"]),
                      "gpu": rng.choice(vocab_gpus)}
        if rng.random() < 0.5:
            body["model"] = rng.choice(models)
        else:
            body["params"] = rng.choice([0.35, 1.3, 3, 7, 13, 34, 70])
        if rng.random() < 0.3:
            body["gpus"] = rng.choice([1, 2, 4, 8])
        out.append(body)
    return out


def _digest(kb) -> tuple[str, int]:
    h = hashlib.sha256()
    audit = kb.audit(fmt=None).to_json()
    h.update(json.dumps(audit, sort_keys=True, ensure_ascii=False, default=str).encode())
    answered = 0
    for body in _scenarios(GPUS, MODELS):
        try:
            a = kb.query(dict(body)).to_json()
        except BadInput as exc:
            h.update(("error:" + exc.message).encode())
            continue
        answered += 1
        keep = {k: a.get(k) for k in ("conclusion_id", "verdict", "memory", "capacity", "min_gpus")}
        keep["recommendations"] = [(r.get("action"), r.get("fits")) for r in a.get("recommendations", [])]
        h.update(json.dumps(keep, sort_keys=True, default=str).encode())
    return h.hexdigest(), answered


def test_answers_are_deterministic_and_the_same_on_every_python(gpukb):
    first, answered = _digest(gpukb)
    assert answered >= N_QUESTIONS // 2, f"only {answered} of {N_QUESTIONS} scenarios were answerable"
    gpukb._cache.clear()
    again, _ = _digest(gpukb)
    assert first == again, "the same questions gave different answers within one run"
    folder = os.environ.get("GPUKB_DIGEST_DIR")
    if not folder:
        return
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    mine = f"python-{platform.python_version()}"
    (d / f"{mine}.digest").write_text(first + "\n")
    others = {p.stem: p.read_text().strip() for p in d.glob("*.digest") if p.stem != mine}
    differing = {k: v for k, v in others.items() if v != first}
    assert not differing, f"{mine} gives {first[:12]}, but {', '.join(f'{k} gave {v[:12]}' for k, v in differing.items())}"
