"""gpukb as a Python library: open a KB and ask it what the CLI and the HTTP API answer, as typed models.

Every method returns the model the API serialises (:mod:`gpukb.engine.models`), checked against its
declared shape where the engine makes it; ``.to_json()`` gives the API's JSON object back. Bad input
raises :class:`gpukb.engine.core.errors.BadInput` (its ``issues`` name each field and what is allowed).

>>> import gpukb
>>> kb = gpukb.open()
>>> a = kb.ask("why not T4 for 13B full fine-tune")
>>> a.kind, a.verdict.value
('sizing', 'does_not_fit')
>>> a.memory.per_gpu_total > a.capacity.per_gpu
True
>>> why = kb.explain(a.conclusion_id)
>>> why.kind, why.holds
('sizing', True)
>>> q = kb.query(model="llama-2-7b", method="qlora", gpu="T4")
>>> q.verdict.value
'fits'
>>> c = kb.check("The NVIDIA T4 has 16 GB of GDDR6 memory.")
>>> [(x.attribute, x.status.value) for x in c.claims if x.attribute == "memory_gb"]
[('memory_gb', 'supported')]
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from gpukb.engine import models
from gpukb.engine.core.paths import DEFAULT_KB, DEFAULT_RULES
from gpukb.engine.service import GpuKB

__all__ = ["KB", "open"]


class KB:
    """A loaded KB (sources, claims, reference tier, rules); thread-safe, answers cached."""

    def __init__(self, state: GpuKB) -> None:
        self._state = state

    def ask(self, question: str, lang: str | None = None, kb_version: str | None = None) -> models.Asked:
        """A question in English or Chinese: a sizing, fact, fact-comparison, comparison, instance-choice or
        inverse answer (``kind`` says which), or what the question is missing."""
        return self._state.ask(question, lang, kb_version)

    def query(self, **fields: Any) -> models.SizingAnswer:
        """The sizing answer of a scenario given as the API's query fields (``model`` or ``params``,
        ``method``, ``gpu``, ``precision``, ``gpus``, ``seq_len``, ``batch``, ...; see ``gpukb query --help``)."""
        return self._state.query(fields)

    def check(self, text: str, lang: str | None = None, kb_version: str | None = None) -> models.CheckAnswer:
        """The claims a text states, each judged against the reference tier with its evidence."""
        return self._state.check(text, lang, kb_version)

    def audit(self, source: str | None = None, kind: str | None = None,
              kb_version: str | None = None) -> models.FindingList:
        """The audit of the bundled articles' claims: findings and each claim's status."""
        return self._state.audit(source, kind, kb_version)

    def explain(self, conclusion_id: str, lang: str = "en") -> models.Explanation:
        """The proof tree of a conclusion id (a sizing ``Q-`` id, a finding ``A-`` id or a fact id)."""
        return self._state.explain(conclusion_id, "json", lang)

    @property
    def releases(self) -> list[str]:
        """The KB's releases, oldest first (``kb_version`` takes any of them)."""
        return self._state.kb.release_names()


def open(kb_dir: str | Path | None = None, rules_dir: str | Path | None = None) -> KB:  # noqa: A001
    """Load and validate a KB (default: the bundled one, or ``$GPUKB_KB`` / ``$GPUKB_RULES``)."""
    return KB(GpuKB(kb_dir or DEFAULT_KB, rules_dir or DEFAULT_RULES))
