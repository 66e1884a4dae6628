"""Explanations: proof trees enriched with labels, quotes and citations; why-not analysis; summaries.

A proof tree comes from the provenance graph (:mod:`engine.provenance`); this module adds what a
reader or a chatbot needs at every node: the rule's description, the values it used, the quoted
sentence or the reference citation, and the claims that state the same figure in the sources.
"""
from __future__ import annotations

import weakref
from typing import Any, Iterable

from ..reasoning import matcher
from ..kb.ids import bare
from ..kb.store import ReleaseView
from ..kb.labels import fact_label
from ..kb.notes import Note
from ..reasoning.provenance import ancestor_graph, proof_sizes, proof_tree
from ..reasoning.reasoner import Derivation
from ..reasoning.rules import RuleSet



def tree(d: Derivation, fact: str, view: ReleaseView, ruleset: RuleSet,
         corroboration: dict[str, list[dict]] | None = None) -> dict[str, Any]:
    """The enriched proof tree of ``fact`` (shortest proof first, shared sub-proofs once), read from the
    part of the provenance graph that ``fact`` rests on."""
    g = ancestor_graph(d.facts, d.firings, d.given, fact)
    raw = proof_tree(g, fact, d.facts, proof_sizes(g))
    return _enrich(raw, d, view, ruleset, corroboration or {}, {})


#: per release view: the labels of given records (keyed by the record's identity, kept with it) and the
#: rule citations (keyed by fact id) that every proof tree of the release repeats; reference records
#: are shared by every question's session and never changed, so their label is computed once
_MEMO: "weakref.WeakKeyDictionary[ReleaseView, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_MEMO_SIZE = 65536


def _memo(view: ReleaseView) -> dict[Any, Any]:
    found = _MEMO.get(view)
    if found is None:
        found = _MEMO.setdefault(view, {})
    return found


def _label(f: dict[str, Any], view: ReleaseView, given: bool) -> dict[str, str]:
    """``fact_label`` of a record; a given record's label is remembered with the record itself."""
    if not given:
        return fact_label(f, view, view.kb.vocab)
    memo = _memo(view)
    hit = memo.get(id(f))
    if hit is not None and hit[0] is f:
        return dict(hit[1])
    label = fact_label(f, view, view.kb.vocab)
    if len(memo) < _MEMO_SIZE:
        memo[id(f)] = (f, dict(label))
    return label


def _worded(view: ReleaseView, kind: str, text: str) -> str:
    """A reference fact's note (``kind`` "ref_note") or a derived record's basis ("basis") as a :class:`Note`:
    its English text, and its Chinese text from the ``labels.<kind>`` cases of the vocabulary (keyed by the
    English text; a text without a case stays as it is). Computed once per release and text."""
    memo = _memo(view)
    key = (kind, text)
    hit = memo.get(key)
    if hit is None:
        wording = view.kb.vocab.wording
        hit = text
        if kind in wording.labels:
            worded = wording.label({"t": kind, kind.split("_")[-1]: text}, view.kb.vocab)
            if worded["en"] == text:
                hit = Note(text, worded["zh"])
        if len(memo) < _MEMO_SIZE:
            memo[key] = hit
    return hit


def _enrich(node: dict, d: Derivation, view: ReleaseView, ruleset: RuleSet, corr: dict,
            labels: dict[str, dict[str, str]]) -> dict:
    """``node`` with what a reader needs; ``labels``: the labels of this tree's facts so far (a fact that
    many steps rest on, such as the scenario, appears at each of them)."""
    f = d.facts.get(node["fact"], {})
    label = labels.get(node["fact"])
    if label is None:
        label = labels[node["fact"]] = _label(f, view, bool(node.get("given")) and f.get("t") == "ref")
    out: dict[str, Any] = {"fact": node["fact"], "type": f.get("t"), "label": dict(label)}
    if node.get("shared"):
        out["shared"] = True
        return out
    out["data"] = {k: v for k, v in f.items() if k not in ("t", "fk") and not k.startswith("q_") and v is not None}
    if isinstance(out["data"].get("basis"), str):
        out["data"]["basis"] = _worded(view, "basis", out["data"]["basis"])
    if node.get("given"):
        out["given"] = True
        t = f.get("t")
        kbf = view.facts.get(f.get("fid")) if t in ("claim", "ref") else None
        if t == "claim" and kbf is not None:
            out.update(tier="claim", source=kbf.source, quote=kbf.quote, span=list(kbf.span or []),
                       gloss_en=kbf.gloss_en)
        elif t == "ref" and kbf is not None:
            out.update(tier="reference", citation=kbf.citation, confidence=kbf.confidence)
            if kbf.note:
                out["note"] = _worded(view, "ref_note", kbf.note)
            stated = corr.get(kbf.id)
            if stated:
                out["stated_by"] = stated
        elif t == "na":             # the vendor says it does not apply: a reference statement, cited
            out.update(tier="reference", citation=f.get("citation"), confidence="high")
        else:
            out["tier"] = "input"
        return out
    rule = ruleset.get(node["rule"])
    out["rule"] = node["rule"]
    if rule is not None:
        out["rule_description"] = dict(rule.description)
        out["rule_file"] = f"{rule.file}:{rule.line}"
        if rule.cites:
            out["cites"] = [_cite(view, c) for c in rule.cites]
    out["values"] = node.get("values", {})
    out["alternatives"] = node.get("alternatives", 0)
    out["premises"] = [_enrich(p, d, view, ruleset, corr, labels) for p in node.get("premises", [])]
    return out


def _cite(view: ReleaseView, fid: str) -> dict[str, Any]:
    """A rule's citation of a reference fact (computed once per release and id; a copy is returned)."""
    memo = _memo(view)
    key = ("cite", fid)
    hit = memo.get(key)
    if hit is None:
        hit = _cited(view, fid)
        if len(memo) < _MEMO_SIZE:
            memo[key] = hit
    out = dict(hit)
    if "label" in out:
        out["label"] = dict(out["label"])
    return out


def _cited(view: ReleaseView, fid: str) -> dict[str, Any]:
    f = view.facts.get(bare(fid))
    if f is None:
        return {"id": fid, "missing_in_release": view.name}
    return {"id": f.key, "label": fact_label({"t": "ref", "fid": f.id, "subject": f.subject, "attribute": f.attribute,
                                               "value": f.value}, view, view.kb.vocab),
            "citation": f.citation, "confidence": f.confidence}


def walk(t: dict) -> Iterable[dict]:
    """Every node of a proof tree, depth first, each before its premises."""
    stack = [t]
    while stack:
        node = stack.pop()
        yield node
        premises = node.get("premises")
        if premises:
            stack.extend(reversed(premises))


def leaves(t: dict) -> list[dict]:
    """Given facts of a tree, first occurrence of each."""
    seen, out = set(), []
    for n in walk(t):
        if n.get("given") and n["fact"] not in seen:
            seen.add(n["fact"])
            out.append(n)
    return out


# ---------------------------------------------------------------------------------------------
# why-not

def why_not(d: Derivation, ruleset: RuleSet, target_type: str, want: dict[str, Any], qid: str | None = None,
            limit: int = 8) -> list[dict[str, Any]]:
    """For a fact that was not derived, the rules that could derive it and where each one stopped.

    A candidate is any rule deriving ``target_type`` whose template does not contradict ``want`` (a
    literal template value must equal the wanted one). For each candidate the facts of the derivation
    are matched against its patterns in order; the report names the first condition that failed
    together with the values it read, and the facts that were bound up to that point.
    """
    out = []
    defaults = matcher.defaults_of(ruleset.types)
    for rule in ruleset.producers(target_type):
        lit_ok = True
        for k, v in want.items():
            node = rule.derive.get(k)
            if node is not None and node[0] == "lit" and node[1] != v:
                lit_ok = False
        if not lit_ok:
            continue
        out.append(matcher.first_failure(rule, d.facts.values(), defaults, qid))
        if len(out) >= limit:
            break
    return out


