"""Natural-language questions (English or Chinese): parsed, then answered as a sizing or a fact answer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import BadInput, Issue
from ..kb.store import ReleaseView
from ..kb.notes import Note, in_lang
from . import choice, claimcheck, facts
from . import price as ask_price
from . import parser as ap
from ..kb import names
from .parser import parse_question
from ..catalog import inventory as inv
from ..catalog.sources import claim_brief
from ..sizing.answer import query
from ..models import scenario as scen
from ..models.ask import FactAnswer, Support, UnknownAnswer
from ..models.base import OMIT
from ..models.sizing import Alternative, Asked, Contradiction, SizingAnswer

if TYPE_CHECKING:
    from ..core.session import Session


def ask(state: Session, q: str, lang: str | None = None, kb_version: str | None = None) -> Asked:
    """Answer an English or Chinese question: a sizing answer, a fact answer, or what is missing, built as
    the model of its kind (:data:`gpukb.engine.models.ask.AskAnswer`)."""
    if lang is not None and lang not in ("en", "zh"):
        raise BadInput(f"unknown language {lang!r}", [Issue(f"unknown language {lang!r}", field="lang", allowed=["en", "zh"])])
    view = state.view(kb_version)
    parsed = parse_question(q, state.kb.vocab, lang)
    lang = lang or parsed.lang
    base = {"question": q, "lang": lang, "kb_version": view.name, "parsed": parsed.as_dict()}
    statement = claimcheck.statement_of(q, state.kb.vocab)
    checked = claimcheck.answer(state, statement, lang, kb_version, base) if statement else None
    out = _unknown_names(checked or _ask(state, q, parsed, base, view, lang), q, state.kb.vocab, lang)
    return in_lang(out, lang)     # a Chinese answer says its notes in Chinese


#: what a question can lack (the parser's words), and the note that says it (labels.note of the vocabulary)
_MISSING = {ap.MISSING_WORKLOAD: "missing_workload", ap.MISSING_HARDWARE: "missing_hardware",
            ap.MISSING_LOOKUP: "missing_lookup", ap.MISSING_SUBJECT: "missing_subject"}


def _notes(missing: list[Any], vocab: Any) -> list[Any]:
    """What a question lacks as notes (English, with their Chinese)."""
    return [vocab.wording.note(_MISSING[x], vocab) if x in _MISSING else x for x in missing]


def _unknown_names(out: Asked, q: str, vocab: Any, lang: str) -> Asked:
    """Names the question uses that the KB does not know, said in the answer (first when it could not answer)."""
    from .parser import _normalise
    from ..kb.lexicon import match_entities
    norm, low = _normalise(q)
    found = names.unknown_mentions(norm, vocab, [(m.start, m.end) for m in match_entities(low, vocab)])
    if not found:
        return out
    said = "; ".join(names.unknown_text(vocab, x["kind"], x["text"], lang) for x in found)
    if lang == "zh":                # each name's sentence in the answer's language
        found = [{**x, "message": names.unknown_text(vocab, x["kind"], x["text"], lang)} for x in found]
    out = out.replace(unknown_names=found)
    if out.get("kind") == "unknown":
        return out.replace(missing=[x["message"] for x in found] + list(out.get("missing") or []),
                           answer=said + ("。" if lang == "zh" else "."))
    if out.get("kind") == "gpu_choice" and any(x["kind"] == "gpu" for x in found):
        # the GPU asked about is unknown: say so first, then what the run needs on the GPUs the KB knows
        return out.replace(answer=(f"{said}。不知道它的显存，下面是在已知 GPU 上的结论：" if lang == "zh"
                                   else f"{said}. Not knowing its memory, here is the run on the GPUs gpukb knows: ")
                           + out.answer)
    if isinstance(out.get("answer"), str):
        return out.replace(answer=out.answer + (f"（注意：{said}。）" if lang == "zh" else f" (Note: {said}.)"))
    return out


def _unknown(base: dict[str, Any], parsed: Any, missing: list[Any], answer: str = OMIT) -> UnknownAnswer:
    """A question the engine cannot answer as asked: what it understood, what is missing, and examples."""
    return UnknownAnswer.of(**base, kind="unknown", understood=parsed.understood, missing=missing,
                            examples=parsed.examples, answer=answer)


def _priced_gpu(parsed: Any) -> str | None:
    """The GPU a price question names when it names no instance or family (the KB prices instances), else None."""
    u = parsed.understood or {}
    if parsed.kind != "unknown" or u.get("fact_keyword") not in inv.PRICE_ATTRIBUTES:
        return None
    kinds = [(e.get("kind"), e.get("id")) for e in u.get("entities") or []]
    gpus = [i for k, i in kinds if k == "gpu"]
    return gpus[0] if gpus and not any(k in ("instance", "family") for k, _ in kinds) else None


def _assumed(parsed: Any, out: Asked) -> Asked:
    """An answer with the defaults the parser assumed."""
    assumed = parsed.understood.get("assumed")
    return out.replace(assumed=assumed) if assumed else out


def _ask(state: Session, q: str, parsed: Any, base: dict[str, Any], view: ReleaseView, lang: str) -> Asked:
    if parsed.kind == "instance_choice" and not parsed.missing and not parsed.scenario.get("family") \
            and ask_price.wants_price(q):
        try:
            out = ask_price.cheapest(state, parsed.scenario, ask_price.providers_named(
                parsed.understood.get("entities") or [], view), view, lang, base)
        except BadInput as exc:
            return _unknown(base, parsed, [exc.message], exc.message)
        return _assumed(parsed, out)
    if parsed.kind == "sizing" and not parsed.missing:
        # the answer and its alternative readings in one engine session: the reference facts once
        with state.staged(view):
            return _sizing(state, parsed, base, view, lang)
    if parsed.kind in ("comparison", "instance_choice", "gpu_choice", "inverse") and not parsed.missing:
        try:
            if parsed.kind == "gpu_choice":
                out = choice.gpu_choice(state, parsed.scenario, view, lang, base, parsed.ask_min_gpus)
            elif parsed.kind == "comparison":
                out = choice.compare(state, parsed.scenario, parsed.compared, view, lang, base)
            elif parsed.kind == "instance_choice":
                out = choice.instance_choice(state, parsed.scenario, view, lang, base)
            else:
                out = choice.inverse(state, parsed.scenario, parsed.target or "params", view, lang, base)
        except BadInput as exc:
            return _unknown(base, parsed, [exc.message], exc.message)
        return _assumed(parsed, out)
    if parsed.kind == "fact_comparison" and parsed.fact:
        return facts.compare(state, parsed.compared["subjects_compared"], parsed.fact["attribute"],
                             parsed.fact.get("order"), view, lang, {**base, "kind": "fact_comparison"})
    gpu = _priced_gpu(parsed)
    if gpu is not None:                     # "How much does an A100 cost?": the instances that carry it, priced
        try:
            return facts.gpu_prices(state, gpu, view, lang, base)
        except BadInput as exc:
            return _unknown(base, parsed, [exc.message], exc.message)
    if parsed.kind == "fact" and parsed.fact:
        subject = parsed.fact["subject"]
        return fact(state, subject, facts.attribute_for(view, subject, parsed.fact["attribute"]), view, lang,
                    {**base, "kind": "fact"}, parsed.fact.get("asks"))
    missing = _notes(parsed.missing or [ap.MISSING_LOOKUP], state.kb.vocab)
    return _unknown(base, parsed, missing,
                    "我没能理解这个问题。缺少：" + "、".join(in_lang(missing, lang)) if lang == "zh"
                    else "I could not answer this question. Missing: " + ", ".join(missing))


def _sizing(state: Session, parsed: Any, base: dict[str, Any], view: ReleaseView, lang: str) -> Asked:
    """The sizing answer of a parsed question, with the other readings it could have (the sizing
    capability's answer with the question's fields first)."""
    body = {k: v for k, v in parsed.scenario.items()}
    try:
        ans = query(state, {**body, "kb_version": view.name})
    except BadInput as exc:
        missing: list[Any] = [str(i) for i in exc.issues] or [exc.message]
        zh = getattr(exc.message, "zh", None)
        if zh is not None:          # the refusal's reason in Chinese (its issues say it in English only)
            missing[0] = Note(missing[0], zh)
        return _unknown(base, parsed, missing)
    fields = {**base, **dict(ans.values()), "negated": parsed.negated}
    if parsed.negated and ans.verdict == "fits":
        fields["note"] = {"en": "The question asks why not, but it does fit.", "zh": "问题问为什么不行，但实际上放得下。"}
    fields["answer"] = getattr(ans.summary, lang)
    fields["alternatives"] = alternatives(state, parsed, body, view)
    if parsed.understood.get("assumed"):
        fields["assumed"] = parsed.understood["assumed"]
    return SizingAnswer.of(**fields)


OTHER_METHODS = ("full", "lora", "qlora", "inference")


def alternatives(state: Session, parsed: Any, body: dict[str, Any], view: ReleaseView) -> list[Alternative]:
    """Other readings of an ambiguous question, each sized with its own conclusion: the methods a question
    that names none could mean, and the other cards a generic GPU name could be."""
    out: list[Alternative] = []
    readings: list[tuple[str, Any]] = []
    if "method" not in parsed.scenario:
        readings += [("method", m) for m in OTHER_METHODS if m != "full"]
    for x in parsed.understood.get("assumed") or []:
        readings += [(x["field"], alt) for alt in x.get("alternatives") or []]
    sized = []
    for field, value in readings:          # each reading's verdict; all of them in one engine run
        try:
            s, notes = scen.normalise({k: v for k, v in {**body, field: value}.items() if k != "kb_version"},
                                      state.kb.vocab, view)
        except BadInput:
            continue
        sized.append((field, value, s, notes))
    for (field, value, s, _), r in zip(sized, state.run_scenarios([(s, n) for _, _, s, n in sized], view, "probe")):
        v = r.one("verdict")
        if v is None or r.one("capacity") is None:
            continue                       # a reading the KB cannot size (the query would say so)
        out.append(Alternative.of(field=field, value=value, verdict=v["verdict"], conclusion_id=scen.conclusion_id(s, view.name)))
    return out


def fact(state: Session, subject: str, attribute: str, view: ReleaseView, lang: str,
         head: dict[str, Any], asks: list[str] | None = None) -> FactAnswer:
    """A fact answer: the reference value, its citation, and the source claims for and against it
    (``head``: the answer's first fields, its kind and the question asked); ``asks``: the values a yes/no
    question asks a list for ("Does the H100 support FP8?"), answered yes or no from the cited list."""
    vocab = state.kb.vocab
    found = facts.references_of(view, vocab, subject, attribute)     # per configuration when stated so
    ref, via = found[0] if found else (None, None)
    attr = vocab.attributes.get(attribute)
    audit = state.audit_result(view.name)
    claims = [c for c in view.claims if c.subject == subject and c.attribute == attribute]
    support, disagree = [], []
    for c in claims:
        st = audit.status_of(c.id)["status"] if audit else "unverifiable"
        item = {**claim_brief(c), "status": st, "value": c.value_text(vocab)}
        if st == "supported":
            support.append(Support.of(type="claim", **item))
        else:
            disagree.append(Contradiction.of(**item))
    reason = facts.missing_reason(view, subject, attribute) if ref is None else None
    value = facts.value_of(ref, via, subject, attribute, vocab, reason)
    yes_no: dict[str, Any] = {}
    if ref is not None and asks and isinstance(ref.value, list):
        yes_no = {"asks": [vocab.label(a) for a in asks], "holds": all(a in ref.value for a in asks)}
    if ref is not None:
        conf_zh = {"high": "高", "medium": "中", "low": "低"}.get(str(ref.confidence), str(ref.confidence))
        text_en = text_zh = ref.value_text(vocab)
        if isinstance(ref.value, bool):
            text_en, text_zh = ("yes", "是") if ref.value else ("no", "否")
        if ref.qualifiers:                  # a value stated for one configuration says which
            text_en, text_zh = (f"{t} ({facts.configuration(ref.qualifiers, lg)})"
                                for t, lg in ((text_en, "en"), (text_zh, "zh")))
        answer_en = f"{vocab.label(subject)} {attr.en if attr else attribute}: {text_en} [1: {ref.citation}, {ref.confidence} confidence]."
        answer_zh = f"{vocab.label(subject, 'zh')} 的{attr.zh if attr else attribute}：{text_zh} [1：{ref.citation}，置信度{conf_zh}]。"
        if via is not None:
            gpu = vocab.label(via.value[0])
            answer_en = (f"{vocab.label(subject)} carries the {gpu} [2: {via.citation}], so its {attr.en} is the {gpu}'s: "
                         f"{text_en} [1: {ref.citation}, {ref.confidence} confidence].")
            gpu_zh = vocab.label(via.value[0], "zh")
            answer_zh = (f"{vocab.label(subject, 'zh')} 搭载的是 {gpu_zh} [2：{via.citation}]，因此其{attr.zh}与 {gpu_zh} 相同：{text_zh}"
                         f" [1：{ref.citation}，置信度{conf_zh}]。")
        if ref.note:
            answer_en += f" Note: {ref.note}"
        support_ref = [facts.cited(r) for r in ([ref] if via is None else [ref, via])]
        for other, _ in found[1:]:          # the other configurations' values, each cited
            n, said = len(support_ref) + 1, f"{other.value_text(vocab)} ({facts.configuration(other.qualifiers)})"
            said_zh = f"{other.value_text(vocab)} ({facts.configuration(other.qualifiers, 'zh')})"
            answer_en += f" Also {said} [{n}: {other.citation}]."
            answer_zh += f"另有 {said_zh} [{n}：{other.citation}]。"
            support_ref.append(facts.cited(other))
        if yes_no:                          # a yes/no question about a list: its answer first, then the list
            lacking = [vocab.label(a) for a in asks or [] if a not in ref.value]
            answer_en = ("Yes. " if yes_no["holds"] else f"No: {' and '.join(lacking)} is not in the list. ") + answer_en
            answer_zh = ("是。" if yes_no["holds"] else f"否：列表中没有 {'、'.join(lacking)}。") + answer_zh
    else:
        answer_en = f"The reference tier has no {attr.en if attr else attribute} for {vocab.label(subject)}."
        answer_zh = f"参考层中没有 {vocab.label(subject, 'zh')} 的{attr.zh if attr else attribute}。"
        if reason:                          # why: a price the provider's stored pages do not give
            answer_en = f"{answer_en[:-1]}: {reason.rstrip('.')}."
            answer_zh = f"{answer_zh[:-1]}：{getattr(reason, 'zh', reason).rstrip('。')}。"
        support_ref = []
    if disagree:
        answer_en += f" {len(disagree)} source claim(s) say otherwise or cannot be confirmed."
        answer_zh += f" 有 {len(disagree)} 条来源说法与此不同或无法确认。"
    return FactAnswer.of(**head, **yes_no, conclusion_id=f"{ref.key}" if ref is not None else None, fact=value,
                         support=support_ref + support, contradictions=disagree,
                         answer=answer_en if lang == "en" else answer_zh, summary={"en": answer_en, "zh": answer_zh})
