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
to ``s``). Only the functions in :data:`FUNCTIONS` can be called. Nothing is ever handed to Python's
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

__all__ = ["ExprError", "parse", "evaluate", "names", "FUNCTIONS", "unparse"]


class ExprError(ValueError):
    """A syntax error, an unknown function or name, or an arithmetic fault in an expression."""


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>==|!=|<=|>=|[-+*/<>(),.\[\]])
""", re.VERBOSE)

_MEMORY_UNITS = {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
                 "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3, "TiB": 1024.0 ** 4,
                 "Gbps": 1e9 / 8, "Mbps": 1e6 / 8, "GB/s": 1e9}


def _convert(x: float, frm: str, to: str) -> float:
    if frm not in _MEMORY_UNITS or to not in _MEMORY_UNITS:
        raise ExprError(f"convert: unknown unit (known: {', '.join(_MEMORY_UNITS)})")
    return x * _MEMORY_UNITS[frm] / _MEMORY_UNITS[to]


def _num(*xs: Any) -> None:
    for x in xs:
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise ExprError(f"expected a number, got {x!r}")


def _ceil(x):
    _num(x)
    return math.ceil(x)


def _floor(x):
    _num(x)
    return math.floor(x)


def _if(c, a, b):
    return a if c else b


def _has(xs, x):
    return x in (xs if isinstance(xs, (list, tuple)) else [xs])


def _qhas(q, x):
    """Does a flattened list qualifier (items joined with |) contain x? A task item carries its
    ancestors ("distributed_training>training"), and x may name any of them."""
    return isinstance(q, str) and any(x in item.split(">") for item in q.split("|"))


def _qitems(q):
    """The items of a flattened list qualifier (each without its ancestors); [] when absent."""
    return [item.split(">")[0] for item in q.split("|")] if isinstance(q, str) and q else []


def _lookup(x, keys, values):
    """The value paired with key x in two parallel lists (None when x is not a key)."""
    for k, v in zip(_as_list(keys), _as_list(values)):
        if k == x:
            return v
    return None


def _all_covered(sets, roles):
    """Is every |-joined set in ``sets`` contained in ``roles``?"""
    have = set(_as_list(roles))
    return bool(_as_list(sets)) and all(set(x.split("|")) <= have for x in _as_list(sets))


def _none_covered(sets, roles):
    """Is every |-joined set in ``sets`` disjoint from ``roles``?"""
    have = set(_as_list(roles))
    return bool(_as_list(sets)) and all(not (set(x.split("|")) & have) for x in _as_list(sets))


def _len(xs):
    return len(xs) if isinstance(xs, (list, tuple, str)) else (0 if xs is None else 1)


def _overlaps(a_lo, a_hi, b_lo, b_hi):
    """Do [a_lo, a_hi] and [b_lo, b_hi] overlap? None means unbounded."""
    lo_a = -math.inf if a_lo is None else a_lo
    hi_a = math.inf if a_hi is None else a_hi
    lo_b = -math.inf if b_lo is None else b_lo
    hi_b = math.inf if b_hi is None else b_hi
    return lo_a <= hi_b and lo_b <= hi_a


def _within(x, lo, hi):
    return (lo is None or x >= lo) and (hi is None or x <= hi)


def _same_set(a, b):
    a = a if isinstance(a, (list, tuple)) else [a]
    b = b if isinstance(b, (list, tuple)) else [b]
    return set(a) == set(b)


def _intersects(a, b):
    a = a if isinstance(a, (list, tuple)) else [a]
    b = b if isinstance(b, (list, tuple)) else [b]
    return bool(set(a) & set(b))


def _as_list(a):
    return list(a) if isinstance(a, (list, tuple)) else ([] if a is None else [a])


def _subset(a, b):
    """Is every element of a in b (scalars count as one-element lists)?"""
    return set(_as_list(a)) <= set(_as_list(b))


def _agree(a_lo, a_hi, b_lo, b_hi, tol):
    """Do two intervals overlap once each is widened by the relative tolerance ``tol``?"""
    def widen(lo, hi):
        lo = -math.inf if lo is None else lo - abs(lo) * tol
        hi = math.inf if hi is None else hi + abs(hi) * tol
        return lo, hi
    lo1, hi1 = widen(a_lo, a_hi)
    lo2, hi2 = widen(b_lo, b_hi)
    return lo1 <= hi2 and lo2 <= hi1


def _count_agree(lo, hi, values, tol):
    """How many of ``values`` (numbers) agree with the interval [lo, hi] within ``tol``."""
    return sum(1 for v in _as_list(values) if v is not None and _agree(lo, hi, v, v, tol))


def _first_agree(lo, hi, values, keys, tol):
    """The key of the first value that agrees with [lo, hi] within ``tol`` (None when none does)."""
    for v, k in zip(_as_list(values), _as_list(keys)):
        if v is not None and _agree(lo, hi, v, v, tol):
            return k
    return None


def _first_disagree(lo, hi, values, keys, tol):
    """The key of the first value that does not agree with [lo, hi] within ``tol`` (None when all do)."""
    for v, k in zip(_as_list(values), _as_list(keys)):
        if v is not None and not _agree(lo, hi, v, v, tol):
            return k
    return None


def _qparse(sig):
    out = {}
    for part in (sig or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


def _qval_conflict(a: str, b: str) -> bool:
    if a.startswith("[") and b.startswith("["):
        import json as _json
        try:
            x, y = _json.loads(a), _json.loads(b)
            return not _agree(x[0], x[1], y[0], y[1], 0.0)
        except (ValueError, IndexError, TypeError):
            return a != b
    if "|" in a or "|" in b or ">" in a or ">" in b:
        # list values; an item "x>parent" (a value and its ancestors) overlaps its ancestors
        def chains(s):
            return [c.split(">") for c in s.split("|")]
        for ca in chains(a):
            for cb in chains(b):
                if ca[0] == cb[0] or ca[0] in cb or cb[0] in ca:
                    return False
        return True
    return a != b


IGNORED_QUALIFIERS = ("condition",)


def _qdiff(a, b):
    """Qualifier keys on which two claims' scopes conflict (keys present in only one never conflict)."""
    x, y = _qparse(a), _qparse(b)
    return sorted(k for k in set(x) & set(y) if k not in IGNORED_QUALIFIERS and _qval_conflict(x[k], y[k]))


def _qonly(a, b):
    """Qualifier keys that only the first scope has (its extra restrictions)."""
    x, y = _qparse(a), _qparse(b)
    return sorted(k for k in set(x) - set(y) if k not in IGNORED_QUALIFIERS)


# qualifiers that define a claim's scope; the others (gpu, family, techniques, condition ...) describe it
SCOPE_KEYS = ("method", "model", "params", "task", "scale", "instance", "precision", "batch", "seq_len", "gpus",
              "component", "compared_to")


def _scope_diff(a, b):
    """Scope keys on which two claims differ: both state them and they conflict, or only one states it."""
    x, y = _qparse(a), _qparse(b)
    out = []
    if "condition" in x and "condition" in y and x["condition"] != y["condition"]:
        out.append("condition")
    for k in SCOPE_KEYS:
        if k in x and k in y:
            if _qval_conflict(x[k], y[k]):
                out.append(k)
            elif k == "task" and {t.split(">")[0] for t in x[k].split("|")} != {t.split(">")[0] for t in y[k].split("|")}:
                out.append(k)  # overlapping but not the same tasks: one claim is about a narrower task
        elif k in x or k in y:
            out.append(k)
    return out


def _scope_conflict(a, b):
    """Scope keys on which two scopes may not overlap: both state the key with conflicting values. A key
    only one states narrows that scope inside the other, so the two overlap (a general verdict and a
    narrower one can contradict each other), except a free-text condition, whose restriction cannot be
    compared: stated by one side, or differently by both, it separates them. A verdict said to hold
    only in some cases (generality=some) contradicts no verdict on a scope: it claims an instance, not
    a rule."""
    x, y = _qparse(a), _qparse(b)
    out = ["condition"] if ("condition" in x or "condition" in y) and x.get("condition") != y.get("condition") else []
    if "some" in (x.get("generality"), y.get("generality")):
        out.append("generality")
    return out + [k for k in SCOPE_KEYS if k in x and k in y and _qval_conflict(x[k], y[k])]


def _coalesce(*xs):
    for x in xs:
        if x is not None:
            return x
    return None


def _rel_diff(a, b):
    _num(a, b)
    m = max(abs(a), abs(b))
    return 0.0 if m == 0 else abs(a - b) / m


def _pow(x, y):
    _num(x, y)
    if abs(y) > 16 or (x < 0 and y != int(y)):
        raise ExprError("pow: exponent must be within ±16 and the base non-negative for fractions")
    return float(x) ** y


FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = {
    "pow": (_pow, 2, 2),
    # name: (function, min args, max args)
    "min": (min, 1, 16),
    "max": (max, 1, 16),
    "ceil": (_ceil, 1, 1),
    "floor": (_floor, 1, 1),
    "abs": (abs, 1, 1),
    "round": (round, 1, 2),
    "if": (_if, 3, 3),
    "convert": (_convert, 3, 3),
    "has": (_has, 2, 2),
    "len": (_len, 1, 1),
    "qhas": (_qhas, 2, 2),
    "qitems": (_qitems, 1, 1),
    "all_covered": (_all_covered, 2, 2),
    "none_covered": (_none_covered, 2, 2),
    "lookup": (_lookup, 3, 3),
    "overlaps": (_overlaps, 4, 4),
    "within": (_within, 3, 3),
    "same_set": (_same_set, 2, 2),
    "intersects": (_intersects, 2, 2),
    "coalesce": (_coalesce, 1, 8),
    "subset": (_subset, 2, 2),
    "agree": (_agree, 5, 5),
    "count_agree": (_count_agree, 4, 4),
    "first_agree": (_first_agree, 5, 5),
    "first_disagree": (_first_disagree, 5, 5),
    "qdiff": (_qdiff, 2, 2),
    "qonly": (_qonly, 2, 2),
    "scope_diff": (_scope_diff, 2, 2),
    "scope_conflict": (_scope_conflict, 2, 2),
    "rel_diff": (_rel_diff, 2, 2),
}

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
