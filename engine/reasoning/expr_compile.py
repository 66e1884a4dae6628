"""Parsed expressions turned into Python closures once, for the reasoner's inner loop.

A closure computes exactly what :func:`expr.evaluate` computes on the same node (the same operators,
:func:`expr.binop`, :func:`expr.compare`, :func:`expr.call`, the same lookups and errors, in the same
order) without walking the tree on every firing. Nothing is handed to Python's evaluator: each node
becomes a nested function over its children's functions.
"""
from __future__ import annotations

from typing import Any, Callable

from . import expr
from .expr import ExprError

Compiled = Callable[[dict], Any]


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
        op, left, right = node[1], compile_node(node[2]), compile_node(node[3])
        binop = expr.binop
        return lambda env: binop(op, left(env), right(env))
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
