"""Safe YAML reading that rejects duplicate keys and remembers the line of every mapping key.

KB and rule files are data: they are parsed with PyYAML's SafeLoader only. Mappings come back as
:class:`LineDict`, which records the 1-based line of each key so validation can point at it.

A document is bounded before any Python value is built from it: its size (MAX_DOCUMENT_CHARS), the
nodes it would expand to once every alias is followed (MAX_NODES: an "alias bomb" of a few nested
anchors expands to billions), the characters of text it would expand to (MAX_EXPANDED_CHARS: one large
anchored scalar aliased many times is few nodes but gigabytes once printed), the number of aliases
(MAX_ALIASES) and the nesting depth (MAX_DEPTH).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import Issue, ValidationError
from .files import read_text

MAX_DOCUMENT_CHARS = 32 * 1024 * 1024
MAX_NODES = 2_000_000
MAX_EXPANDED_CHARS = 2 * MAX_DOCUMENT_CHARS   # scalar characters once every alias is followed
MAX_ALIASES = 20_000
MAX_DEPTH = 100


class LineDict(dict):
    """A dict that knows the line of each of its keys (``key_lines``) and of itself (``line``)."""

    line: int = 0

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.key_lines: dict[Any, int] = {}

    def line_of(self, key: Any) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list):
    line: int = 0


# libyaml's parser when PyYAML was built with it (about 10x faster on large claim files); both are safe
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):
    """A safe loader whose mappings reject duplicate keys and carry line numbers."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> LineDict:
    loader.flatten_mapping(node)
    out = LineDict()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, "found an unhashable key", key_node.start_mark)
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {out.key_lines[key]})", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = key_node.start_mark.line + 1
    return out


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode, deep: bool = False) -> LineList:
    out = LineList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    return out


def _construct_timestamp_as_text(loader: _Loader, node: yaml.ScalarNode) -> str:
    # Dates stay strings ("2026-09-16"): the KB compares and prints them as written.
    return loader.construct_scalar(node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp_as_text)


class _TooBig(Exception):
    def __init__(self, message: str, node: yaml.Node):
        super().__init__(message)
        self.line = node.start_mark.line + 1 if node.start_mark else None


def check_bounds(root: yaml.Node | None) -> None:
    """Refuse a composed document whose expansion would exceed the caps (no value is built yet).

    Aliases make the node graph a DAG: a node reached by several aliases is the same object. Its
    expanded size is computed once per node (iteratively, so deep nesting cannot exhaust the stack),
    and a node that is still open when reached again is a recursive alias.
    """
    if root is None:
        return
    size: dict[int, int] = {}
    chars: dict[int, int] = {}
    height: dict[int, int] = {}
    seen_refs = 0
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        if done:
            open_nodes.discard(nid)
            children = _children(node)
            total = 1 + sum(size[id(c)] for c in children)
            if total > MAX_NODES:
                raise _TooBig(f"the document expands to more than {MAX_NODES} nodes once its aliases are followed "
                              "(an alias bomb?)", node)
            text = (len(node.value) if isinstance(node, yaml.ScalarNode) and isinstance(node.value, str) else 0) \
                + sum(chars[id(c)] for c in children)
            if text > MAX_EXPANDED_CHARS:
                raise _TooBig(f"the document expands to more than {MAX_EXPANDED_CHARS} characters of text once its "
                              "aliases are followed (a large value aliased many times?)", node)
            tall = 1 + max((height[id(c)] for c in children), default=0)
            if tall > MAX_DEPTH:
                raise _TooBig(f"nested more than {MAX_DEPTH} levels deep once its aliases are followed", node)
            size[nid], chars[nid], height[nid] = total, text, tall
            continue
        if nid in size:
            seen_refs += 1
            if seen_refs > MAX_ALIASES:
                raise _TooBig(f"more than {MAX_ALIASES} aliases", node)
            continue
        if nid in open_nodes:
            raise _TooBig("a recursive alias (a value that contains itself)", node)
        if depth > MAX_DEPTH:
            raise _TooBig(f"nested more than {MAX_DEPTH} levels deep", node)
        open_nodes.add(nid)
        stack.append((node, depth, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise _TooBig("a recursive alias (a value that contains itself)", child)
            stack.append((child, depth + 1, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def loads(text: str, filename: str = "<string>") -> Any:
    """Parse YAML text safely; raise :class:`ValidationError` naming file and line on any problem."""
    if len(text) > MAX_DOCUMENT_CHARS:
        msg = f"{len(text)} characters, more than the {MAX_DOCUMENT_CHARS} a YAML document may have"
        raise ValidationError(f"{filename}: {msg}", [Issue(msg, filename)])
    try:
        loader = _Loader(text)   # SafeLoader/CSafeLoader: no Python objects are ever built from tags  # ok
    except Exception as exc:  # noqa: BLE001 - e.g. characters the reader refuses
        raise ValidationError(f"{filename}: invalid YAML", [Issue(f"cannot be read: {exc}", filename)]) from None
    try:
        node = loader.get_single_node()
        check_bounds(node)
        return loader.construct_document(node) if node is not None else None
    except _TooBig as exc:
        raise ValidationError(f"{filename}: refused: {exc}", [Issue(f"refused: {exc}", filename, exc.line)]) from None
    except RecursionError:
        raise ValidationError(f"{filename}: nested too deeply", [Issue("nested too deeply", filename)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise ValidationError(f"{filename}: invalid YAML", [Issue(problem, filename, line)]) from None
    except yaml.YAMLError as exc:
        raise ValidationError(f"{filename}: invalid YAML", [Issue(str(exc), filename)]) from None
    except Exception as exc:  # noqa: BLE001 - any other loader fault is unreadable input
        # an explicit tag whose value does not convert (!!int abc, !!bool maybe, !!map [1])
        raise ValidationError(f"{filename}: invalid YAML", [Issue(f"a value cannot be read: {exc}", filename)]) from None
    finally:
        loader.dispose()


def load_file(path: str | Path, display: str | None = None, root: str | Path | None = None) -> Any:
    """Read and parse a YAML file: a regular UTF-8 file inside ``root`` (default: its own directory),
    see :func:`engine.core.files.read_text`."""
    p = Path(path)
    name = display or str(p)
    return loads(read_text(p, root, name), name)


def check_top_keys(data: Any, allowed: tuple[str, ...], fname: str, issues: list[Issue]) -> None:
    """Add an issue (with its line) for every top-level key of a file that is not in ``allowed``."""
    if isinstance(data, LineDict):
        for k in sorted(set(data) - set(allowed), key=str):
            issues.append(Issue(f"unknown top-level key {str(k)[:60]!r}", fname, data.line_of(k), str(k)[:60],
                                list(allowed)))
