"""A small, safe expression language for rule conditions and derived values.

Grammar (lowest to highest precedence)::

    expr    := or
    or      := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | compare
    compare := sum (("==" | "!=" | "<" | "<=" | ">" | ">=" | "in") sum)?
    sum     := product (("+" | "-") product)*
    product := unary (("*" | "/") unary)*
    unary   := "-" unary | atom
    atom    := NUMBER | STRING | true | false | null | NAME ("." NAME)* | NAME "(" args ")" | "(" expr ")"
              | "[" args "]"

Names are read from an environment of bound facts (``s.params`` is field ``params`` of the fact bound
to ``s``). Only the functions in :data:`FUNCTIONS` (:mod:`.expr_functions`) can be called. Nothing is ever handed to Python's
own evaluator: text is tokenised, parsed into tuples and interpreted here.

>>> evaluate(parse("max(2, a.x) * 1.5"), {"a": {"x": 4}})
6.0
>>> evaluate(parse("ceil(s.need / c.cap)"), {"s": {"need": 208}, "c": {"cap": 15.0}})
14
>>> try:
...     parse("a.x >")
... except ExprError as exc:
...     print(exc)
unexpected end of expression (column 6)
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable

from .expr_functions import FUNCTIONS, ExprError, _num

__all__ = ["ExprError", "parse", "evaluate", "names", "FUNCTIONS", "unparse"]


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


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
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

    def or_(self):
        node = self.and_()
        while self.peek()[:2] == ("kw", "or"):
            self.take()
            node = ("or", node, self.and_())
        return node

    def and_(self):
        node = self.not_()
        while self.peek()[:2] == ("kw", "and"):
            self.take()
            node = ("and", node, self.not_())
        return node

    def not_(self):
        if self.peek()[:2] == ("kw", "not"):
            self.take()
            self.nest()
            node = ("not", self.not_())
            self.depth -= 1
            return node
        return self.compare()

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
        if self.peek()[:2] == ("op", "-"):
            self.take()
            self.nest()
            node = ("neg", self.unary())
            self.depth -= 1
            return node
        return self.atom()

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
                if val not in FUNCTIONS:
                    raise ExprError(f"unknown function {val!r} (column {col}); allowed: {', '.join(sorted(FUNCTIONS))}")
                self.nest()
                args = self.args(")")
                self.depth -= 1
                _, lo, hi = FUNCTIONS[val]
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


def parse(text: Any) -> tuple:
    """Parse expression text (or a bare number/bool) into a tuple tree; raise ExprError on bad input."""
    if isinstance(text, bool) or text is None:
        return ("lit", text)
    if isinstance(text, (int, float)):
        if not math.isfinite(text):
            raise ExprError("numbers must be finite")
        return ("lit", text)
    if not isinstance(text, str):
        raise ExprError(f"expected an expression string, got {type(text).__name__}")
    if len(text) > 2000:
        raise ExprError("expression longer than 2000 characters")
    return _Parser(text).parse()


def names(node: tuple) -> set[tuple[str, ...]]:
    """Every dotted name an expression reads, e.g. {('s', 'params')}."""
    out: set[tuple[str, ...]] = set()
    kind = node[0]
    if kind == "name":
        out.add(node[1])
    elif kind in ("bin", "cmp"):
        out |= names(node[2]) | names(node[3])
    elif kind in ("and", "or"):
        out |= names(node[1]) | names(node[2])
    elif kind in ("not", "neg"):
        out |= names(node[1])
    elif kind == "call":
        for a in node[2]:
            out |= names(a)
    elif kind == "list":
        for a in node[1]:
            out |= names(a)
    return out


def _lookup(env: dict, path: tuple[str, ...]) -> Any:
    cur: Any = env
    for i, part in enumerate(path):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            if i == 0:
                raise ExprError(f"unknown name {part!r}")
            return None  # a missing field reads as null
    return cur


def evaluate(node: tuple, env: dict) -> Any:
    """Interpret a parsed expression against ``env`` (binding name → fact dict)."""
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "name":
        return _lookup(env, node[1])
    if kind == "list":
        return [evaluate(a, env) for a in node[1]]
    if kind == "neg":
        v = evaluate(node[1], env)
        _num(v)
        return -v
    if kind == "not":
        return not evaluate(node[1], env)
    if kind == "and":
        return bool(evaluate(node[1], env)) and bool(evaluate(node[2], env))
    if kind == "or":
        return bool(evaluate(node[1], env)) or bool(evaluate(node[2], env))
    if kind == "bin":
        return binop(node[1], evaluate(node[2], env), evaluate(node[3], env))
    if kind == "cmp":
        return compare(node[1], evaluate(node[2], env), evaluate(node[3], env))
    if kind == "call":
        return call(node[1], FUNCTIONS[node[1]][0], [evaluate(a, env) for a in node[2]])
    raise ExprError(f"bad expression node {kind!r}")


def binop(op: str, a: Any, b: Any) -> Any:
    """``a op b`` for + - * / (also list and string concatenation with +), as the language defines it."""
    if op == "+" and isinstance(a, list) and isinstance(b, list):
        if len(a) + len(b) > 10_000:
            raise ExprError("list too long")
        return a + b
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        if len(a) + len(b) > 10_000:
            raise ExprError("string too long")
        return a + b
    _num(a, b)
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    else:
        if b == 0:
            raise ExprError("division by zero")
        r = a / b
    if isinstance(r, float) and not math.isfinite(r):
        raise ExprError("arithmetic overflow")
    return r


def compare(op: str, a: Any, b: Any) -> bool:
    """``a op b`` for == != in < <= > >= (an ordering with null is false)."""
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "in":
        return a in (b if isinstance(b, (list, tuple, str)) else [b])
    if a is None or b is None:
        return False
    try:
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    except TypeError:
        raise ExprError(f"cannot compare {a!r} {op} {b!r}") from None


def call(name: str, fn: Callable[..., Any], args: list[Any]) -> Any:
    """One of :data:`FUNCTIONS` applied to evaluated arguments; any fault is the expression's error."""
    try:
        result = fn(*args)
    except ExprError:
        raise
    except Exception as exc:  # any fault inside a function is the expression's error
        raise ExprError(f"{name}(): {exc}") from None
    if isinstance(result, float) and not math.isfinite(result):
        raise ExprError(f"{name}(): result out of range")
    return result


_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "neg": 7}


def _prec(node: tuple) -> int:
    kind = node[0]
    if kind == "bin":
        return _PREC[node[1]]
    return _PREC.get(kind, 9)


def unparse(node: tuple) -> str:
    """Text of a parsed expression (for explanations); parsing it again gives the same tree.

    >>> unparse(parse("1 - (2 - 3) * x.y"))
    '1 - (2 - 3) * x.y'
    """
    kind = node[0]

    def sub(child: tuple, min_prec: int) -> str:
        text = unparse(child)
        return f"({text})" if _prec(child) < min_prec else text

    if kind == "lit":
        v = node[1]
        if isinstance(v, str):
            return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "null" if v is None else str(v).lower() if isinstance(v, bool) else repr(v)
    if kind == "name":
        return ".".join(node[1])
    if kind == "list":
        return "[" + ", ".join(unparse(a) for a in node[1]) + "]"
    if kind == "neg":
        return "-" + sub(node[1], _PREC["neg"] + 1)
    if kind == "not":
        return "not " + sub(node[1], _PREC["not"])
    if kind in ("and", "or"):
        p = _PREC[kind]
        return f"{sub(node[1], p)} {kind} {sub(node[2], p + 1)}"
    if kind == "bin":
        p = _PREC[node[1]]
        return f"{sub(node[2], p)} {node[1]} {sub(node[3], p + 1)}"
    if kind == "cmp":
        p = _PREC["cmp"]
        return f"{sub(node[2], p + 1)} {node[1]} {sub(node[3], p + 1)}"
    if kind == "call":
        return f"{node[1]}(" + ", ".join(unparse(a) for a in node[2]) + ")"
    return "?"
