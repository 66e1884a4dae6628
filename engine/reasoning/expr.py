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
to ``s``). Only the functions in :data:`FUNCTIONS` can be called: the built-ins of :mod:`.expr_functions`
and those a domain adds with :func:`register`. Nothing is ever handed to Python's own evaluator: text is
tokenised and parsed into tuples (:mod:`.expr_parser`) and interpreted here.

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

from .expr_functions import BUILTINS, ExprError, _num
from .expr_parser import MAX_DEPTH, Parser

__all__ = ["ExprError", "parse", "evaluate", "names", "FUNCTIONS", "register", "unparse", "MAX_DEPTH"]

# Every function a rule may call: the built-ins, then what :func:`register` adds (name -> (function,
# fewest and most arguments)). Parsing checks calls against it; evaluation calls through it.
FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = dict(BUILTINS)

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")
_RESERVED = frozenset(("and", "or", "not", "in", "true", "false", "null"))


def register(name: str, fn: Callable[..., Any], min_args: int, max_args: int) -> None:
    """Make ``fn`` callable from expressions as ``name(...)`` with ``min_args`` to ``max_args`` arguments.

    This is how a domain adds its notions to the language (the audit registers its scope comparisons)
    without the language knowing them. Registering the same function with the same arity again
    changes nothing; another function or arity under a name already taken is an error, so a built-in
    can never be replaced.

    >>> register("twice", lambda x: 2 * x, 1, 1)
    >>> evaluate(parse("twice(a.x) + 1"), {"a": {"x": 4}})
    9
    >>> register("max", min, 1, 16)
    Traceback (most recent call last):
    ...
    ValueError: expression function 'max' is already registered
    >>> del FUNCTIONS["twice"]
    """
    if not isinstance(name, str) or not _NAME.match(name) or name in _RESERVED:
        raise ValueError(f"{name!r} cannot name an expression function")
    if not callable(fn):
        raise ValueError(f"expression function {name!r} must be callable")
    if not (isinstance(min_args, int) and isinstance(max_args, int) and 0 <= min_args <= max_args):
        raise ValueError(f"expression function {name!r}: arity {min_args}..{max_args} is not a range")
    entry = (fn, min_args, max_args)
    have = FUNCTIONS.get(name)
    if have is not None and have != entry:
        raise ValueError(f"expression function {name!r} is already registered")
    FUNCTIONS[name] = entry


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
    return Parser(text, FUNCTIONS).parse()


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
