"""GpuKB, the loaded state (KB, rules, reasoner, caches) that only the faces (API, pages, CLI, MCP) call."""
from .state import GpuKB

__all__ = ["GpuKB"]
