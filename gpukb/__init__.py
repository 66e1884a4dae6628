"""gpukb: can this cloud GPU train that model, and why? A rules-engine knowledge base whose every answer
is explained down to the quoted sentence or cited reference it rests on.

``gpukb.open()`` loads the bundled KB; see :mod:`gpukb.server.library` for what it answers. The
engine (``gpukb.engine``), the faces (``gpukb.server``: HTTP API, pages, CLI, MCP), the bundled KB
(``gpukb/kb``) and rules (``gpukb/rules``) are subpackages.
"""
from __future__ import annotations

from pkgutil import extend_path
from typing import Any

# an editable install keeps the built rule engine (gpukb._durable) in site-packages, apart from this file
__path__ = extend_path(__path__, __name__)

__all__ = ["open", "KB"]


def __getattr__(name: str) -> Any:
    """``open`` and ``KB`` load the engine on first use, so ``import gpukb.engine...`` stays light."""
    if name in __all__:
        from gpukb.server import library
        return getattr(library, name)
    raise AttributeError(f"module 'gpukb' has no attribute {name!r}")
