"""Safe YAML reading that rejects duplicate keys and remembers the line of every mapping key.

KB and rule files are data: they are parsed with PyYAML's SafeLoader only. Mappings come back as
:class:`LineDict`, which records the 1-based line of each key so validation can point at it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import Issue, ValidationError


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


def loads(text: str, filename: str = "<string>") -> Any:
    """Parse YAML text safely; raise :class:`ValidationError` naming file and line on any problem."""
    try:
        return yaml.load(text, Loader=_Loader)  # _Loader is SafeLoader/CSafeLoader: no Python objects  # ok
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


def load_file(path: str | Path, display: str | None = None) -> Any:
    """Read and parse a YAML file (UTF-8)."""
    p = Path(path)
    name = display or str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValidationError(f"{name}: file not found", [Issue("file not found", name)]) from None
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{name}: not UTF-8", [Issue(f"not UTF-8 text ({exc.reason})", name)]) from None
    return loads(text, name)
