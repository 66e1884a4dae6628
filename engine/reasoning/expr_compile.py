"""Parsed expressions turned into Python closures once, for the reasoner's inner loop.

A closure computes exactly what :func:`expr.evaluate` computes on the same node (the same operators,
:func:`expr.binop`, :func:`expr.compare`, :func:`expr.call`, the same lookups and errors, in the same
order) without walking the tree on every firing. Nothing is handed to Python's evaluator: each node
becomes a nested function over its children's functions.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

from . import expr
from .expr import ExprError

Compiled = Callable[[dict], Any]


def all_hold(conds: list[Compiled], env: dict) -> bool:
    """Whether every compiled condition is true in ``env``, in order; an evaluation error counts as
    false (how gpukb reads the conditions it evaluates beside durable_rules).

    >>> all_hold([compile_node(("cmp", ">", ("name", ("x",)), ("lit", 1)))], {"x": 2})
    True
    >>> all_hold([compile_node(("cmp", ">", ("name", ("x",)), ("lit", 1)))], {"x": "a"})
    False
    """
    try:
        for c in conds:
            if not c(env):
                return False
    except ExprError:
        return False
    return True


def compile_node(node: tuple) -> Compiled:
    """A function of an environment that evaluates ``node`` like ``expr.evaluate(node, env)``."""
    kind = node[0]
    if kind == "lit":
        value = node[1]
        return lambda env: value
    if kind == "name":
        return _name(node[1])
    if kind == "list":
        items = [compile_node(a) for a in node[1]]
        return lambda env: [f(env) for f in items]
    if kind == "neg":
        inner = compile_node(node[1])

        def neg(env: dict) -> Any:
            v = inner(env)
            expr._num(v)
            return -v
        return neg
    if kind == "not":
        inner = compile_node(node[1])
        return lambda env: not inner(env)
    if kind in ("and", "or"):
        left, right = compile_node(node[1]), compile_node(node[2])
        if kind == "and":
            return lambda env: bool(left(env)) and bool(right(env))
        return lambda env: bool(left(env)) or bool(right(env))
    if kind == "bin":
        return _binop(node[1], compile_node(node[2]), compile_node(node[3]))
    if kind == "cmp":
        op, left, right = node[1], compile_node(node[2]), compile_node(node[3])
        compare = expr.compare
        return lambda env: compare(op, left(env), right(env))
    if kind == "call":
        name, args = node[1], [compile_node(a) for a in node[2]]
        call = expr.call

        def calling(env: dict) -> Any:
            fn = expr.FUNCTIONS[name][0]
            return call(name, fn, [f(env) for f in args])
        return calling

    def bad(env: dict) -> Any:
        raise ExprError(f"bad expression node {kind!r}")
    return bad


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_NUMBERS = (int, float)


def _binop(op: str, left: Compiled, right: Compiled) -> Compiled:
    """``expr.binop`` with a fast path for two plain numbers (ints or floats, never bools), the rules'
    usual case: the same result and the same errors (division by zero, a result that is not finite)."""
    binop, isfinite = expr.binop, math.isfinite
    if op == "/":
        def divide(env: dict) -> Any:
            a, b = left(env), right(env)
            if type(a) in _NUMBERS and type(b) in _NUMBERS and b != 0:
                r = a / b
                if isfinite(r):
                    return r
            return binop(op, a, b)
        return divide
    fn = _ARITH.get(op)
    if fn is None:
        return lambda env: binop(op, left(env), right(env))

    def arith(env: dict) -> Any:
        a, b = left(env), right(env)
        if type(a) in _NUMBERS and type(b) in _NUMBERS:
            r = fn(a, b)
            if type(r) is int or isfinite(r):
                return r
        return binop(op, a, b)
    return arith


def _name(path: tuple[str, ...]) -> Compiled:
    """A lookup like ``expr._lookup``: an unknown first name is an error, a missing field reads as null."""
    if len(path) == 2:
        first, field = path

        def two(env: dict) -> Any:
            if first not in env:
                raise ExprError(f"unknown name {first!r}")
            cur = env[first]
            if isinstance(cur, dict) and field in cur:
                return cur[field]
            return None
        return two
    if len(path) == 1:
        (first,) = path

        def one(env: dict) -> Any:
            if first not in env:
                raise ExprError(f"unknown name {first!r}")
            return env[first]
        return one
    lookup = expr._lookup
    return lambda env: lookup(env, path)
