"""The one interface every search engine implements (`dispatch` picks one per request and mode).

Imported only by the type checker (`if TYPE_CHECKING`): a search process pays nothing for it."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from obsidian_memory.search.base import Query, Request, Result


class Engine(Protocol):
    @property
    def name(self) -> str:
        """Reported as the engine that answered."""
        ...

    def search(self, query: Query, request: Request) -> Result:
        """The hits for `query` in the vault of `request` (its settings, its index snapshot)."""
        ...


def engines() -> list[Engine]:
    """Every engine, typed as the interface: the type checker holds each class to it."""
    from obsidian_memory.search.engines.fulltext import Fulltext
    from obsidian_memory.search.engines.hybrid import Hybrid, Semantic
    from obsidian_memory.search.engines.omnisearch import Omnisearch
    from obsidian_memory.search.engines.scan import Scanner
    from obsidian_memory.search.engines.title import Title

    return [Fulltext(), Hybrid(), Semantic(), Omnisearch(), Scanner(), Title()]
