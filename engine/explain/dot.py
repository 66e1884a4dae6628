"""An explanation tree as a Graphviz DOT digraph: one node a fact, edges from premises to conclusions.

A sub-proof shared within the tree is drawn once (the first occurrence carries it, as in the text
export of :mod:`.export`); labels are wrapped and stripped of control characters so any KB text is
safe inside DOT's quoted strings.
"""
from __future__ import annotations

import textwrap
import unicodedata
from typing import Any, Mapping

from .export import _full_nodes, _key, _kind, _label, _pick, _span, _values, tree_facts

__all__ = ["to_dot"]

_DOT_WRAP = 40


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
