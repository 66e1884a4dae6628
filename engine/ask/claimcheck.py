"""Questions that ask whether a statement is true ("Is it true that the T4 supports BF16?", "有人说 T4 不适合
训练，对吗？"): the statement is checked as a text (:func:`..text.check.check_answer`) and the answer is its
status, evidence and correction. The asking words are the vocabulary's ``claim_check`` cues."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..kb.lexicon import cue_patterns
from ..kb.vocabulary import Vocabulary
from ..models.ask import ClaimCheckAnswer
from ..text import check as text_check
from ..text.tokens import aligned_lower

if TYPE_CHECKING:
    from ..core.session import Session

#: statuses that say the statement is right
AGREES = ("supported",)


def statement_of(question: str, vocab: Vocabulary) -> str | None:
    """The statement a question asks to verify, with the asking words taken off; None when the question
    asks nothing of the kind (a plain "Does the T4 support BF16?" is a fact question).

    A ``lead`` ("is it true that", "有人说") makes a question a check by itself; a ``reported`` lead ("an
    article says", "X 说") only together with a ``tail`` ("…, right?", "对吗？")."""
    cues: dict[str, list] = {}
    for group, rx in cue_patterns(vocab).get("claim_check", ()):
        cues.setdefault(group, []).append(rx)
    text = question.strip()
    low = aligned_lower(text)               # the cues are lower case; offsets stay the text's
    lead = next((m for rx in cues.get("lead", ()) if (m := rx.match(low))), None)
    tail = next((m for rx in cues.get("tail", ()) if (m := rx.search(low))), None)
    if lead is None and tail is not None:
        lead = next((m for rx in cues.get("reported", ()) if (m := rx.match(low, 0, tail.start()))), None)
    if lead is None and tail is None:
        return None
    start = lead.end() if lead is not None else 0
    end = tail.start() if tail is not None and tail.start() >= start else len(text)
    statement = text[start:end].strip(" \t,，:：?？")      # "Is it true that X?": X, not a question
    return statement or None


def answer(state: Session, statement: str, lang: str, kb_version: str | None,
           head: dict[str, Any]) -> ClaimCheckAnswer | None:
    """The check of ``statement`` as an answer of kind ``claim_check`` (``head``: its first fields, the
    question asked); None when the statement holds no claim gpukb can check (the question is then
    answered as any other)."""
    checked = text_check.check_answer(state, statement, lang, kb_version)
    claims = checked.claims
    if not claims:
        return None
    wrong = checked.wrong
    zh = lang == "zh"
    summary = checked.summary.zh if zh else checked.summary.en
    if wrong:
        said = ("说法有误：" + "；".join(w.zh for w in wrong)) if zh else ("Not as stated: " + " ".join(w.en for w in wrong))
    elif all(c.status in AGREES for c in claims):
        said = ("说法与参考资料一致：" if zh else "Yes, as far as the reference goes: ") + summary
    else:
        said = ("gpukb 无法确认或否定：" if zh else "gpukb can neither confirm nor refute it: ") + summary
    return ClaimCheckAnswer.of(**head, kind="claim_check", statement=statement, check=checked, answer=said)
