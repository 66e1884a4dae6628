"""Human labels (English and Chinese) for facts, used by proof trees, summaries and pages (the wording
is data: the ``labels`` templates of kb/vocabulary.yaml, see :mod:`.wording`)."""
from __future__ import annotations

from typing import Any

from ..core.terms import label as term_label
from .store import Fact, ReleaseView
from .vocabulary import Vocabulary


def fact_label(f: dict[str, Any], view: ReleaseView | None, vocab: Vocabulary) -> dict[str, str]:
    """A one-line English and Chinese description of an engine record, by the ``labels`` template of
    its type in the vocabulary (kb/vocabulary.yaml); ``value_text`` is a fact's value as written."""
    def value_text() -> str:
        kbf = view.facts.get(f.get("fid")) if view is not None else None
        return kbf.value_text(vocab) if kbf is not None else str(f.get("value"))
    return vocab.wording.label(f, vocab, {"value_text": value_text})


def shown_value(f: Fact, vocab: Vocabulary, lang: str) -> str:
    """A fact's value as a sentence in ``lang`` shows it: in Chinese a yes/no value by the terms' labels
    ("是"/"否"), not as a program's true/false."""
    if isinstance(f.value, bool) and lang == "zh":
        return term_label("boolean", "true" if f.value else "false", lang)
    return f.value_text(vocab)
