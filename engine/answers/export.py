"""Exports of an explanation tree: indented plain text, Graphviz DOT and W3C PROV-JSON.

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
import textwrap
import unicodedata
from typing import Any, Iterator, Mapping
from urllib.parse import quote as _urlquote

from prov.constants import PROV_LABEL, PROV_TYPE
from prov.model import PROV, Literal, ProvDocument

__all__ = ["to_text", "to_dot", "to_prov", "tree_facts", "GPUKB_NS", "SRC_NS", "FACT_NS", "RULE_NS"]

GPUKB_NS = "https://gpukb.example/ns#"
SRC_NS = "https://gpukb.example/source/"
FACT_NS = "https://gpukb.example/fact/"
RULE_NS = "https://gpukb.example/rule/"

_DOT_WRAP = 40
_WORDS = {
    "en": {"values": "values", "reference": "reference", "input": "input", "see_above": "see above",
           "not_included": "proof not shown", "alternatives": "other proofs"},
    "zh": {"values": "取值", "reference": "参考", "input": "输入", "see_above": "见上",
           "not_included": "未给出证明", "alternatives": "其他证明"},
}
_PROV_KIND = {"claim": "Claim", "reference": "ReferenceFact", "input": "Input", "derived": "DerivedFact"}


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


# --------------------------------------------------------------------------- DOT


def _clean(s: Any) -> str:
    """Text safe to embed: no lone surrogates, newlines normalised, other control characters dropped."""
    s = str(s).encode("utf-8", "replace").decode("utf-8")
    s = s.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    s = s.replace("\u2028", "\n").replace("\u2029", "\n")
    return "".join(c for c in s if c == "\n" or unicodedata.category(c) not in ("Cc", "Cs"))


def _dot_id(s: str) -> str:
    """A quoted DOT id."""
    s = _clean(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"'


def _dot_label(*parts: str) -> str:
    """A quoted DOT label string: each part wrapped, literal backslashes, quotes and ``&`` kept as text."""
    lines: list[str] = []
    for part in parts:
        for raw in _clean(part).split("\n"):
            lines.extend(textwrap.wrap(raw, _DOT_WRAP, replace_whitespace=False, drop_whitespace=True) or [""])
    body = "\\n".join(
        ln.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;") for ln in lines)
    return f'"{body}"'


def _dot_attrs(**attrs: str) -> str:
    return "[" + ", ".join(f"{k}={v}" for k, v in attrs.items()) + "]"


def to_dot(tree: Mapping[str, Any], lang: str = "en") -> str:
    """A Graphviz digraph: one node per distinct fact, a small box per rule firing between premises and conclusion.

    Claims are notes showing their quote; every statement sits on one line ending with ``;``.

    >>> print(to_dot({"fact": "a", "type": "scenario", "label": {"en": 'say "hi"'}, "given": True, "tier": "input"}))
    digraph proof {
      graph [rankdir=BT, fontname="Helvetica"];
      node [fontname="Helvetica", fontsize=10];
      edge [arrowsize=0.6];
      "fact:a" [shape=parallelogram, label="say \\"hi\\""];
    }
    """
    full = _full_nodes(tree)
    out = ["digraph proof {",
           '  graph [rankdir=BT, fontname="Helvetica"];',
           '  node [fontname="Helvetica", fontsize=10];',
           "  edge [arrowsize=0.6];"]
    edges: dict[tuple[str, str], None] = {}
    for k in tree_facts(tree):
        n = full[k]
        fid = _dot_id(f"fact:{k}")
        label = _label(n, lang)
        kind = _kind(n)
        if n.get("shared"):  # only a marker for this fact: show what is known
            attrs = dict(shape="box", style="dashed", label=_dot_label(label))
        elif kind == "claim":
            where = f"{n.get('source') or '?'}" + (f" [{_span(n)}]" if _span(n) else "")
            text = f"“{n['quote']}”" if n.get("quote") is not None else label
            attrs = dict(shape="note", label=_dot_label(text, where), tooltip=_dot_label(label))
        elif kind == "reference":
            conf = f"({n['confidence']})" if n.get("confidence") else ""
            cite = " ".join(x for x in (str(n.get("citation") or ""), conf) if x)
            attrs = dict(shape="component", label=_dot_label(label, cite) if cite else _dot_label(label))
        elif kind == "input":
            attrs = dict(shape="parallelogram", label=_dot_label(label))
        else:
            attrs = dict(shape="box", style="rounded", label=_dot_label(label))
        out.append(f"  {fid} {_dot_attrs(**attrs)};")
        if n.get("rule") and not n.get("shared"):
            rid = _dot_id(f"firing:{k}")
            attrs = dict(shape="box", style="filled", fillcolor='"#eeeeee"', fontsize="8", height="0.2",
                         label=_dot_label(str(n["rule"])))
            tip = "; ".join(x for x in (_pick(n.get("rule_description"), lang), _values(n)) if x)
            if tip:
                attrs["tooltip"] = _dot_label(tip)
            out.append(f"  {rid} {_dot_attrs(**attrs)};")
            for p in n.get("premises") or []:
                edges.setdefault((_dot_id(f"fact:{_key(p)}"), rid), None)
            edges.setdefault((rid, fid), None)
    out.extend(f"  {a} -> {b};" for a, b in edges)
    out.append("}")
    return "\n".join(out)


# --------------------------------------------------------------------------- PROV


def _local(s: Any) -> str:
    """A qualified-name local part: the key itself where that is safe, percent-encoded elsewhere."""
    return _urlquote(str(s), safe="-._~@:/")


def _labels(text: Any) -> list[tuple[Any, Any]]:
    if isinstance(text, Mapping):
        return [(PROV_LABEL, Literal(str(v), langtag=str(lang))) for lang, v in text.items() if v is not None]
    return [(PROV_LABEL, str(text))] if text is not None else []


def _json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)


def to_prov(tree: Mapping[str, Any], sources: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The tree as W3C PROV-JSON (built with ``prov``), returned as a plain dict.

    Entities: every fact (``fact:``; prov:type gpukb:Claim / gpukb:ReferenceFact / gpukb:Input /
    gpukb:DerivedFact), every source a claim of the tree quotes (``src:``, gpukb:Source; metadata from
    ``sources``), every rule (``rule:``, prov:Plan). A claim wasDerivedFrom its source (a prov:Quotation
    carrying gpukb:quote and gpukb:span). Each derivation step is an activity (gpukb:RuleFiring) that
    used its premises and is associated with agent gpukb:engine under the rule's plan; the derived
    entity wasGeneratedBy it and wasDerivedFrom each premise. Labels, data and values are strings.
    """
    doc = ProvDocument()
    g = doc.add_namespace("gpukb", GPUKB_NS)
    src_ns = doc.add_namespace("src", SRC_NS)
    fact_ns = doc.add_namespace("fact", FACT_NS)
    rule_ns = doc.add_namespace("rule", RULE_NS)
    engine = doc.agent(g["engine"], [(PROV_TYPE, PROV["SoftwareAgent"]), (PROV_LABEL, "gpukb rules engine")])

    full = _full_nodes(tree)
    keys = tree_facts(tree)
    src_ids: dict[str, Any] = {}
    rule_ids: dict[str, Any] = {}

    def source(sid: str) -> Any:
        if sid not in src_ids:
            meta = sources.get(sid) or {}
            attrs: list[tuple[Any, Any]] = [(PROV_TYPE, g["Source"]), (g["sourceId"], sid)]
            if meta.get("title") is not None:
                attrs.append((PROV_LABEL, str(meta["title"])))
            for f in ("publisher", "published", "url"):
                if meta.get(f) is not None:
                    attrs.append((g[f], str(meta[f])))
            src_ids[sid] = doc.entity(src_ns[_local(sid)], attrs).identifier
        return src_ids[sid]

    def rule(n: Mapping[str, Any]) -> Any:
        rid = str(n["rule"])
        if rid not in rule_ids:
            attrs = [(PROV_TYPE, PROV["Plan"]), (g["ruleId"], rid)] + _labels(n.get("rule_description"))
            rule_ids[rid] = doc.entity(rule_ns[_local(rid)], attrs).identifier
        return rule_ids[rid]

    ent = {k: fact_ns[_local(k)] for k in keys}
    for k in keys:
        n = full[k]
        kind = _kind(n)
        attrs: list[tuple[Any, Any]] = [(PROV_TYPE, g[_PROV_KIND[kind]]), (g["factKey"], k)]
        attrs += _labels(n.get("label"))
        if n.get("type") is not None:
            attrs.append((g["factType"], str(n["type"])))
        if n.get("data"):
            attrs.append((g["data"], _json(n["data"])))
        for f in ("source", "quote", "citation", "confidence"):
            if n.get(f) is not None:
                attrs.append((g[f], str(n[f])))
        if _span(n):
            attrs.append((g["span"], _span(n)))
        doc.entity(ent[k], attrs)
        if kind == "claim" and n.get("source") is not None:
            rel: list[tuple[Any, Any]] = [(PROV_TYPE, PROV["Quotation"])]
            if n.get("quote") is not None:
                rel.append((g["quote"], str(n["quote"])))
            if _span(n):
                rel.append((g["span"], _span(n)))
            doc.wasDerivedFrom(ent[k], source(str(n["source"])), other_attributes=rel)

    for k in keys:
        n = full[k]
        if not n.get("rule") or n.get("shared"):
            continue
        act_attrs: list[tuple[Any, Any]] = [(PROV_TYPE, g["RuleFiring"]), (g["rule"], str(n["rule"]))]
        if n.get("values"):
            act_attrs.append((g["values"], _json(n["values"])))
        if n.get("alternatives"):
            act_attrs.append((g["alternatives"], str(n["alternatives"])))
        act = doc.activity(g[f"firing-{_local(k)}"], other_attributes=act_attrs)
        doc.wasAssociatedWith(act, engine, rule(n))
        doc.wasGeneratedBy(ent[k], act)
        for pk in dict.fromkeys(_key(p) for p in n.get("premises") or []):
            doc.used(act, ent[pk])
            doc.wasDerivedFrom(ent[k], ent[pk], activity=act)
    return json.loads(doc.serialize(format="json"))
