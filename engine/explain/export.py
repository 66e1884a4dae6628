"""Exports of an explanation tree: the tree walk they share, and indented plain text.

Graphviz DOT is :mod:`.export_dot`, W3C PROV-JSON :mod:`.export_prov`; both read the tree through the
helpers here.

The input is the JSON-serialisable proof tree built for an answer: each node has ``fact``, ``type`` and
``label`` (``{"en": ..., "zh": ...}``); a derived node adds ``rule``, ``rule_description``, ``values``,
``alternatives`` and ``premises``; a given node adds ``given``, ``tier`` (claim | reference | input) and,
for claims, ``source``/``quote``/``span``, for reference facts ``citation``/``confidence``. A node
with ``shared: true`` stands for a sub-proof given in full elsewhere in the same tree.

All functions are pure: they read the tree and return a new value. Whatever node of a fact carries
its full proof, the first occurrence of the fact in depth-first order is the one expanded, so a
sub-proof is never printed twice.
"""
from __future__ import annotations

import json
from typing import Any, Iterator, Mapping


__all__ = ["to_text", "tree_facts"]

_WORDS = {
    "en": {"values": "values", "reference": "reference", "input": "input", "see_above": "see above",
           "not_included": "proof not shown", "alternatives": "other proofs"},
    "zh": {"values": "取值", "reference": "参考", "input": "输入", "see_above": "见上",
           "not_included": "未给出证明", "alternatives": "其他证明"},
}


# --------------------------------------------------------------------------- tree helpers


def _key(node: Mapping[str, Any]) -> str:
    try:
        return str(node["fact"])
    except (KeyError, TypeError):
        raise ValueError(f"explanation node without a 'fact' key: {node!r:.200}") from None


def _walk(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every node of the tree, depth-first pre-order (shared markers included)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.get("premises") or []))


def tree_facts(tree: Mapping[str, Any]) -> list[str]:
    """The distinct fact keys of the tree, in first-seen (depth-first pre-order) order.

    >>> a = {"fact": "a", "shared": True}
    >>> tree_facts({"fact": "c", "premises": [{"fact": "a"}, {"fact": "b", "premises": [a]}]})
    ['c', 'a', 'b']
    """
    seen: dict[str, None] = {}
    for node in _walk(tree):
        seen.setdefault(_key(node), None)
    return list(seen)


def _full_nodes(tree: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """For each fact, the node carrying the most information: its first non-shared node if any."""
    best: dict[str, Mapping[str, Any]] = {}
    for node in _walk(tree):
        k = _key(node)
        if k not in best or (best[k].get("shared") and not node.get("shared")):
            best[k] = node
    return best


def _kind(node: Mapping[str, Any]) -> str:
    """claim | reference | input | derived (shared-only nodes are classified by their type)."""
    if node.get("rule"):
        return "derived"
    tier = node.get("tier")
    if tier in ("claim", "reference", "input"):
        return tier
    typ = node.get("type")
    if typ == "claim" or node.get("quote") is not None:
        return "claim"
    if typ in ("ref", "reference") or node.get("citation"):
        return "reference"
    if node.get("given") or typ == "scenario":
        return "input"
    return "derived"


def _pick(text: Any, lang: str, default: str = "") -> str:
    """The ``lang`` variant of a ``{"en": ..., "zh": ...}`` text, falling back to English, then any."""
    if text is None:
        return default
    if isinstance(text, Mapping):
        for k in (lang, "en"):
            if text.get(k) not in (None, ""):
                return str(text[k])
        for v in text.values():
            if v not in (None, ""):
                return str(v)
        return default
    return str(text)


def _label(node: Mapping[str, Any], lang: str) -> str:
    return _pick(node.get("label"), lang, default=_key(node))


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e16:
            return str(int(v))
        return f"{v:.6g}"
    if isinstance(v, (int, str)):
        return str(v)
    return json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)


def _span(node: Mapping[str, Any]) -> str | None:
    span = node.get("span")
    if isinstance(span, (list, tuple)) and len(span) == 2:
        return f"{span[0]}:{span[1]}"
    return None


def _values(node: Mapping[str, Any]) -> str:
    vals = node.get("values") or {}
    return ", ".join(f"{k}={_fmt_value(v)}" for k, v in vals.items())


def _one_line(s: str) -> str:
    return " ".join(s.splitlines())


# --------------------------------------------------------------------------- text


def _text_line(node: Mapping[str, Any], lang: str) -> str:
    w = _WORDS.get(lang, _WORDS["en"])
    kind = _kind(node)
    label = _label(node, lang)
    if kind == "derived":
        line = f"{label} [{node['rule']}]"
        if node.get("values"):
            line += f" ({w['values']}: {_values(node)})"
        desc = _pick(node.get("rule_description"), lang)
        if desc:
            line += f" — {desc}"
        if node.get("alternatives"):
            line += f" ({w['alternatives']}: {node['alternatives']})"
    elif kind == "claim" and node.get("quote") is not None:
        line = f"“{node['quote']}” — {node.get('source') or '?'}"
        if _span(node):
            line += f" [{_span(node)}]"
    elif kind == "reference":
        line = f"{w['reference']}: {label}"
        if node.get("citation"):
            line += f" — {node['citation']}"
        if node.get("confidence"):
            line += f" ({node['confidence']})"
    elif kind == "input":
        line = f"{w['input']}: {label}"
    else:
        line = label
    return _one_line(line)


def to_text(tree: Mapping[str, Any], lang: str = "en") -> str:
    """An indented plain-text proof; each sub-proof is expanded once, later as ``(see above: <fact>)``.

    >>> tree = {"fact": "c", "type": "t", "label": {"en": "C", "zh": "丙"}, "rule": "r@1",
    ...         "values": {"x": 2.0}, "premises": [{"fact": "a", "type": "scenario", "label": {"en": "A"},
    ...         "given": True, "tier": "input"}, {"fact": "a", "shared": True, "label": {"en": "A"}}]}
    >>> print(to_text(tree))
    C [r@1] (values: x=2)
    ├─ input: A
    └─ A (see above: a)
    """
    w = _WORDS.get(lang, _WORDS["en"])
    full = _full_nodes(tree)
    printed: set[str] = set()
    lines: list[str] = []

    def visit(node: Mapping[str, Any], lead: str, cont: str) -> None:
        k = _key(node)
        n = full[k]
        if k in printed:
            lines.append(f"{lead}{_one_line(_label(n, lang))} ({w['see_above']}: {k})")
            return
        printed.add(k)
        if n.get("shared"):  # no full version anywhere in this tree
            lines.append(f"{lead}{_one_line(_label(n, lang))} ({w['not_included']}: {k})")
            return
        lines.append(lead + _text_line(n, lang))
        premises = list(n.get("premises") or [])
        for i, p in enumerate(premises):
            last = i == len(premises) - 1
            visit(p, cont + ("└─ " if last else "├─ "), cont + ("   " if last else "│  "))

    visit(tree, "", "")
    return "\n".join(lines)
