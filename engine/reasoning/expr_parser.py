"""The expression language's grammar: text tokenised and parsed into tuple trees.

A node is a tuple whose first item names its kind: ``("lit", v)``, ``("name", path)``, ``("list",
items)``, ``("neg", x)``, ``("not", x)``, ``("and"|"or", a, b)``, ``("bin", op, a, b)``, ``("cmp", op,
a, b)`` and ``("call", name, args)``. A call names a function of the table the parser is given (its
arity checked here, at load time); the grammar itself is in :mod:`.expr`'s docstring.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping

from .expr_functions import ExprError

__all__ = ["Parser", "MAX_DEPTH"]


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>==|!=|<=|>=|[-+*/<>(),.\[\]])
""", re.VERBOSE)

_CONSTS = {"true": True, "false": False, "null": None}


def _tokens(text: str) -> list[tuple[str, Any, int]]:
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ExprError(f"unexpected character {text[pos]!r} (column {pos + 1})")
        kind = m.lastgroup
        val = m.group(kind)
        if kind == "num":
            num = float(val) if any(ch in val for ch in ".eE") else int(val)
            if isinstance(num, float) and not math.isfinite(num):
                raise ExprError(f"number {val} is out of range (column {pos + 1})")
            if isinstance(num, int) and num.bit_length() > 64:
                raise ExprError(f"number {val[:20]}... is out of range (column {pos + 1})")
            out.append(("num", num, pos + 1))
        elif kind == "str":
            out.append(("str", re.sub(r"\\(.)", r"\1", val[1:-1]), pos + 1))
        elif kind == "name":
            out.append(("kw" if val in ("and", "or", "not", "in") else "name", val, pos + 1))
        elif kind == "op":
            out.append(("op", val, pos + 1))
        pos = m.end()
    out.append(("end", None, len(text) + 1))
    return out


MAX_DEPTH = 60


class Parser:
    """Recursive descent over the tokens of one expression; calls are checked against ``functions``
    (name -> (function, fewest and most arguments)) as they are read."""

    def __init__(self, text: str, functions: Mapping[str, tuple[Callable[..., Any], int, int]]):
        self.toks = _tokens(text)
        self.functions = functions
        self.i = 0
        self.depth = 0

    def nest(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExprError(f"expression nested deeper than {MAX_DEPTH} levels")

    def peek(self):
        return self.toks[self.i]

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, kind, val=None):
        t = self.take()
        if t[0] != kind or (val is not None and t[1] != val):
            want = val or kind
            got = "end of expression" if t[0] == "end" else repr(t[1])
            raise ExprError(f"expected {want!r}, got {got} (column {t[2]})")
        return t

    def parse(self):
        if self.peek()[0] == "end":
            raise ExprError("empty expression")
        node = self.or_()
        t = self.peek()
        if t[0] != "end":
            raise ExprError(f"unexpected {t[1]!r} (column {t[2]})")
        return node

    def _logic(self, kw: str, operand: Callable[[], tuple]) -> tuple:
        """``operand (kw operand)*``, left associative: ``(kw, left, right)`` nodes."""
        node = operand()
        while self.peek()[:2] == ("kw", kw):
            self.take()
            node = (kw, node, operand())
        return node

    def or_(self):
        return self._logic("or", self.and_)

    def and_(self):
        return self._logic("and", self.not_)

    def _prefix(self, token: tuple[str, str], kind: str, operand: Callable[[], tuple],
                otherwise: Callable[[], tuple]) -> tuple:
        """``token operand`` as ``(kind, operand)`` (nesting counted), else what ``otherwise`` reads."""
        if self.peek()[:2] != token:
            return otherwise()
        self.take()
        self.nest()
        node = (kind, operand())
        self.depth -= 1
        return node

    def not_(self):
        return self._prefix(("kw", "not"), "not", self.not_, self.compare)

    def compare(self):
        node = self.sum()
        t = self.peek()
        if (t[0] == "op" and t[1] in ("==", "!=", "<", "<=", ">", ">=")) or t[:2] == ("kw", "in"):
            self.take()
            node = ("cmp", t[1], node, self.sum())
        return node

    def sum(self):
        node = self.product()
        while self.peek()[0] == "op" and self.peek()[1] in "+-" and len(self.peek()[1]) == 1:
            op = self.take()[1]
            node = ("bin", op, node, self.product())
        return node

    def product(self):
        node = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            node = ("bin", op, node, self.unary())
        return node

    def unary(self):
        return self._prefix(("op", "-"), "neg", self.unary, self.atom)

    def args(self, close):
        items = []
        if self.peek()[:2] == ("op", close):
            self.take()
            return items
        while True:
            items.append(self.or_())
            t = self.take()
            if t[:2] == ("op", close):
                return items
            if t[:2] != ("op", ","):
                got = "end of expression" if t[0] == "end" else repr(t[1])
                raise ExprError(f"expected ',' or {close!r}, got {got} (column {t[2]})")

    def atom(self):
        t = self.take()
        kind, val, col = t
        if kind == "num" or kind == "str":
            return ("lit", val)
        if kind == "op" and val == "(":
            self.nest()
            node = self.or_()
            self.expect("op", ")")
            self.depth -= 1
            return node
        if kind == "op" and val == "[":
            self.nest()
            node = ("list", self.args("]"))
            self.depth -= 1
            return node
        if kind == "name":
            if val in _CONSTS:
                return ("lit", _CONSTS[val])
            if self.peek()[:2] == ("op", "("):
                self.take()
                if val not in self.functions:
                    raise ExprError(f"unknown function {val!r} (column {col}); allowed: {', '.join(sorted(self.functions))}")
                self.nest()
                args = self.args(")")
                self.depth -= 1
                _, lo, hi = self.functions[val]
                if not lo <= len(args) <= hi:
                    raise ExprError(f"{val}() takes {lo}..{hi} arguments, got {len(args)} (column {col})")
                return ("call", val, args)
            path = [val]
            while self.peek()[:2] == ("op", "."):
                self.take()
                path.append(self.expect("name")[1])
            return ("name", tuple(path))
        if kind == "end":
            raise ExprError(f"unexpected end of expression (column {col})")
        raise ExprError(f"unexpected {val!r} (column {col})")
