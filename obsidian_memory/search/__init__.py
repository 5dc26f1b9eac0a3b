"""Ranked search over the vault: `search(queries, settings, ...) -> Response` (see `dispatch`)."""
from obsidian_memory.search.base import Hit, Query, Response, Result
from obsidian_memory.search.dispatch import MODES, SOURCES, search

__all__ = ["MODES", "SOURCES", "Hit", "Query", "Response", "Result", "search"]
