"""Names the KB does and does not know: the closest known names to an unknown one, and the one sentence
``ask``, ``query``, ``check`` and the MCP tools give for it ("gpukb knows no GPU called X; known ones are ...,
closest names first"), and the product names in a text that no vocabulary entry matches."""
from __future__ import annotations

import difflib
from bisect import bisect_right
from itertools import accumulate
import re
from typing import Any, Iterable

from ..core.casefold import lower_aligned
from ..core.errors import BadInput, Issue, NotFound
from .vocabulary import Vocabulary

#: the entity kinds listed, and the word an answer uses for each
KINDS = ("gpu", "instance", "model")
WORDS = {"gpu": "GPU", "instance": "instance", "model": "model", "family": "instance family"}
WORDS_ZH = {"gpu": "GPU", "instance": "实例规格", "model": "模型", "family": "实例族"}
SHOWN_NAMES = 10



def known(vocab: Vocabulary, kind: str) -> list[str]:
    """The entity ids of a kind the catalog knows (not the names only a source used), in vocabulary order."""
    return [e for e in vocab.entities_of(kind) if vocab.entities[e].get("catalog", True)]


def name_of(eid: str) -> str:
    return eid.split(":", 1)[1] if ":" in eid else eid


def closest(vocab: Vocabulary, kind: str, text: str) -> list[str]:
    """Every known name of a kind, the closest to ``text`` first (difflib's ratio over names and aliases)."""
    t = str(text).strip().lower()

    def score(eid: str) -> float:
        spec = vocab.entities[eid]
        names = {name_of(eid), spec.get("name") or ""}
        for aliases in (spec.get("aliases") or {}).values():
            names.update(aliases or [])
        return max(difflib.SequenceMatcher(None, t, str(n).lower()).ratio() for n in names if n)
    ids = known(vocab, kind)
    return [name_of(e) for e in sorted(ids, key=lambda e: (-score(e), name_of(e).lower()))]


def _said(text: str) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= 60 else t[:60] + "..."


def unknown_text(vocab: Vocabulary, kind: str, text: str, lang: str = "en") -> str:
    """The sentence for a name the KB does not know, with the known ones, closest first."""
    names = closest(vocab, kind, text)
    if lang == "zh":
        shown = "、".join(names[:SHOWN_NAMES]) + (f" 等（共 {len(names)} 个）" if len(names) > SHOWN_NAMES else "")
        return f"gpukb 不认识名为 {_said(text)} 的{WORDS_ZH.get(kind, kind)}；已知的有 {shown}（最接近的在前）"
    shown = ", ".join(names[:SHOWN_NAMES]) + (f", ... ({len(names)} in all)" if len(names) > SHOWN_NAMES else "")
    return f"gpukb knows no {WORDS.get(kind, kind)} called {_said(text)}; known ones are {shown} (closest names first)"


def unknown_issue(vocab: Vocabulary, kind: str, text: str, field: str | None = None) -> Issue:
    """An input issue for an unknown name: the sentence, and every known name (closest first) as allowed."""
    return Issue(unknown_text(vocab, kind, text), field=field or kind, allowed=closest(vocab, kind, text))


def resolve(vocab: Vocabulary, kind: str, text: Any, field: str | None = None, missing: type = NotFound) -> str:
    """The entity id a name, alias or id of ``kind`` stands for; ``missing`` (NotFound or BadInput) naming
    the closest known ones otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise BadInput(f"expected a {WORDS[kind]} name", [Issue(f"expected a {WORDS[kind]} name", field=field or kind)])
    t = text.strip()
    for cand in (t, f"{kind}:{t}"):
        if vocab.kind_of(cand) == kind:
            return cand
    eid = vocab.aliases().get(t.lower())
    if eid is None:
        eid = next((e for e in vocab.entities_of(kind) if name_of(e).lower() == t.lower()), None)
    if eid is None and kind == "model":
        eid = catalogued_model(t, vocab)       # "Qwen2-7B-Instruct", "Llama-2-7b-chat-hf": the model it tunes
    if eid is None or vocab.kind_of(eid) != kind or not vocab.entities[eid].get("catalog", True):
        issue = unknown_issue(vocab, kind, t, field)
        raise missing(issue.message, [issue])
    return eid


#: words a repository adds to a model's name for its chat / instruction-tuned weights ("Qwen2-7B-Instruct",
#: "Llama-2-7b-chat-hf"): the same architecture, so the same memory
TUNED_WORDS = frozenset({"instruct", "chat", "hf", "it", "base"})
#: and for weight-only quantized checkpoints (GPTQ, AWQ), whose precision a caller must take from elsewhere
QUANTIZED_WORDS = frozenset({"gptq", "awq", "int4", "int8"})


def catalogued_model(name: str, vocab: Vocabulary, words: frozenset[str] = TUNED_WORDS) -> str | None:
    """The catalogued model a model or Hugging Face repository name is, or is a variant of (its name followed by
    ``words``: "Qwen/Qwen2-7B-Instruct" is Qwen2-7B); None when there is none."""
    aliases = vocab.aliases()
    for cand in (name.lower(), name.split("/")[-1].lower()):
        if cand in aliases:
            return aliases[cand]
    parts = name.split("/")[-1].lower().split("-")
    while len(parts) > 1 and parts[-1] in words:
        parts = parts[:-1]
        found = aliases.get("-".join(parts))
        if found:
            return found
    return None


# -- names a text uses that the KB does not know -------------------------------------------------------------

#: a name's edges are ASCII letters, digits and joiners only: a name written right after or before Chinese
#: text ("从RTX 4060Ti开始") is still a word of its own
_GPU_SHAPE = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?:(?:nvidia|tesla|geforce|amd|instinct)\s+)?"
    r"((?:rtx|gtx)\s?-?\d{4}(?:\s?(?:ti|super))?|rtx\s?(?:pro\s?)?\d{4}|[a-z]{1,2}\d{2,4}[a-z]{0,2}(?:-\d{2,3}\s?gb?)?)"
    r"(?![A-Za-z0-9_.\-])", re.I)
_INSTANCE_SHAPE = re.compile(
    r"(?<![A-Za-z0-9_.\-])((?:ecs\.)?[a-z]{1,6}\d{0,2}[a-z]{0,4}(?:-[a-z0-9]+)*\.\d{0,3}(?:x?large|medium|small|metal)"
    r"\d{0,4}|[a-z]\d-(?:highgpu|megagpu|ultragpu|standard)-\d+g?)(?![A-Za-z0-9_\-])", re.I)
_MODEL_SHAPE = re.compile(r"(?<![A-Za-z0-9_.\-])([a-z][a-z0-9.]*(?:-[a-z0-9.]+)*-\d+(?:\.\d+)?[bm])(?![A-Za-z0-9_\-])", re.I)
#: GPU-shaped words that are no product (precisions, sizes, ZeRO stages, units)
_NOT_GPU = {"fp", "bf", "tf", "nf", "int", "sm", "cc", "gen", "ddr", "hbm", "gddr", "usd", "cny", "zero", "top",
            "tops", "w", "gb", "q", "lr", "bs", "ep", "gn", "gi", "gt", "bn", "ps", "ms", "us", "hz"}


#: NVIDIA's Grace superchips ("GB200", "GB300"), whose letters are otherwise a unit's
_SUPERCHIP = re.compile(r"GB\d{3}")


def unknown_mentions(text: str, vocab: Vocabulary, known_spans: Iterable[tuple[int, int]] = ()) -> list[dict[str, Any]]:
    """Product names in ``text`` shaped like a GPU, an instance size or a model that the KB does not know:
    ``[{"kind", "text", "span", "message", "closest"}]``. ``known_spans`` are the spans of names already
    recognised (never reported)."""
    whole = sorted(known_spans)         # a recognised name covering the word: not unknown
    starts, reach = [a for a, _ in whole], list(accumulate((b for _, b in whole), max))   # furthest end so far
    spans: list[tuple[int, int]] = []   # the words reported so far
    aliases = vocab.aliases()
    out: list[dict[str, Any]] = []

    def taken(s: int, e: int) -> bool:
        i = bisect_right(starts, s)      # some recognised name starting at or before s reaches past e
        return (i > 0 and reach[i - 1] >= e) or any(s < b and a < e for a, b in spans)

    def add(kind: str, m: re.Match, group: int = 1) -> None:
        s, e = m.span(group)
        word = m.group(group)
        # a known name is not reported, unless it names an accelerator the tier has no figures of (vocab.named_only)
        if taken(s, e) or (word.lower() in aliases and not vocab.named_only(aliases[word.lower()])) or \
                f"{kind}:{word}" in vocab.entities:
            return
        if kind == "gpu" and (any(name_of(x).lower() == word.lower() for x in vocab.entities)):
            return
        spans.append((s, e))
        names = closest(vocab, kind, word)
        out.append({"kind": kind, "text": word, "span": [s, e], "message": unknown_text(vocab, kind, word),
                    "closest": names[:SHOWN_NAMES]})

    for m in _INSTANCE_SHAPE.finditer(text):
        add("instance", m)
    for m in _MODEL_SHAPE.finditer(text):
        add("model", m)
    for m in _GPU_SHAPE.finditer(text):
        word = m.group(1)
        compact = word.replace(" ", "")
        if re.fullmatch(r"[a-z]{1,2}\d{2,4}[a-z]{0,2}(?:-\d{2,3}gb?)?", compact, re.I):
            # a bare letters+digits word is a GPU name only when it reads like one: capitals ("B300") or
            # a vendor or GPU word around it; never a precision, a parameter count or a ZeRO stage
            if re.match(r"[a-z]+", compact, re.I).group(0).lower() in _NOT_GPU and not _SUPERCHIP.fullmatch(compact):
                continue
            around = text[max(0, m.start() - 12):m.end() + 14].lower()
            if not (word[:1].isupper() or re.search(r"gpu|card|显卡|卡|nvidia|amd|英伟达", around)):
                continue
        add("gpu", m)
    out.sort(key=lambda x: x["span"])
    return out


def name_unknowns_in_check(text: str, skipped: list[dict[str, Any]], claim_spans: list[tuple[int, int]],
                           vocab: Vocabulary) -> list[dict[str, Any]]:
    """The passages a check did not understand, each naming the products in it the KB does not know
    (reason "gpukb knows no GPU called X"); a name outside every passage and every claim's quote (a
    sentence that stated something else) becomes a passage of its own, so no unknown product is skipped
    silently."""
    low = lower_aligned(text)
    from ..kb.lexicon import match_entities
    # an accelerator the vocabulary names but the reference tier has no figures of is still named as unknown
    found = unknown_mentions(text, vocab, [(m.start, m.end) for m in match_entities(low, vocab)
                                           if not vocab.named_only(m.eid)])
    if not found:
        return skipped
    out = [dict(x) for x in skipped]
    for m in found:
        s, e = m["span"]
        reason = f"gpukb knows no {WORDS[m['kind']]} called {_said(m['text'])}"
        home = next((x for x in out if x["span"][0] <= s and e <= x["span"][1]), None)
        if home is not None:
            generic = home.get("reason") == "no statement gpukb can check"
            home["reason"] = reason if generic else f"{home['reason']}; {reason}"
        elif not any(a <= s and e <= b for a, b in claim_spans):
            out.append({"span": [s, e], "quote": text[s:e], "reason": reason})
    out.sort(key=lambda x: x["span"])
    return out
