"""`gpukb eval NAME`: measurements of gpukb against its labelled gold sets.

Each evaluation is a module of this package with:

``NAME``
    the subcommand's name (``gpukb eval NAME``);
``HELP``
    one line for ``--help``;
``add_arguments(parser)``
    its own options (optional);
``run(kb, args) -> (report, text)``
    the report as a JSON-ready dict (printed with ``--json``) and its readable text.

A new evaluation is one new module here: the registry finds it, so evaluations written in parallel
never edit the same file.
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def evaluations() -> dict[str, ModuleType]:
    """The evaluation modules of this package by their ``NAME``, sorted by name."""
    found: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        name = getattr(module, "NAME", None)
        if isinstance(name, str) and callable(getattr(module, "run", None)):
            found[name] = module
    return dict(sorted(found.items()))
