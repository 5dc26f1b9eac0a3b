"""The small interface every search engine implements, and the shapes it takes and returns.

    class Engine(Protocol):
        name: str                                   # reported as the engine that answered
        def search(self, query: Query, request: Request) -> Result: ...

Engines: `omnisearch.Omnisearch`, `scan.Scanner`, `fulltext.Fulltext`, `title.Title`,
`hybrid.Semantic`, `hybrid.Hybrid`; `dispatch` picks one per request and mode.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class Query:
    text: str
    limit: int = 10
    folders: tuple[str, ...] = ()          # vault-relative, cleaned; a hit must be under one of them (OR)
    excludes: tuple[str, ...] = ()         # vault-relative, cleaned; a hit under any of them is dropped
    tags: tuple[str, ...] = ()             # required tags (without '#')
    not_tags: tuple[str, ...] = ()         # excluded tags
    frontmatter: tuple[tuple[str, str], ...] = ()      # required key:value pairs
    not_frontmatter: tuple[tuple[str, str], ...] = ()  # excluded key:value pairs

    @property
    def has_metadata_filters(self) -> bool:
        return bool(self.tags or self.not_tags or self.frontmatter or self.not_frontmatter)


@dataclass
class Hit:
    path: str                  # vault-relative, forward slashes
    basename: str              # file name without .md
    score: float
    excerpt: str               # plain text, no HTML, no control or escape sequences
    engine: str
    extra: dict = field(default_factory=dict)   # engine-specific fields (links, backlinks, ...)

    def to_dict(self) -> dict:
        data = {"path": self.path, "basename": self.basename, "score": round(float(self.score), 4),
                "excerpt": self.excerpt, "engine": self.engine}
        data.update(self.extra)
        return data


@dataclass
class Result:
    """What an engine answers for one query."""
    hits: list[Hit]                            # best first, cut to the query's limit
    total: int                                 # hits in scope before the cut
    mode: str = "fulltext"                     # the ranking that answered
    notes: list[str] = field(default_factory=list)


class Request:
    """What the engines of one search share: the settings, the Omnisearch port, and the vault
    index, opened, brought up to date and read in one snapshot at most once, on first use."""

    def __init__(self, settings, port: int | None = None):
        self.settings = settings
        self.port = port
        self._index = None

    def index(self):
        """The vault index (`store.VaultIndex`), fresh, in this request's read snapshot."""
        if self._index is None:
            from obsidian_memory.search.store import VaultIndex

            self._index = VaultIndex.open_fresh(self.settings)
        return self._index

    def links_of(self, paths: list[str]) -> dict[str, dict]:
        """{path: {"links", "backlinks"}} from the index this request read (as it stands when no
        engine opened it); empty lists without an index. Links are extra information: never a
        reason to fail a search."""
        empty = {p: {"links": [], "backlinks": []} for p in paths}
        if not paths:
            return empty
        try:
            if self._index is not None:
                return self._index.links_of(paths)
            from obsidian_memory.search.store import VaultIndex

            index = VaultIndex.open_readonly(self.settings)
            if index is None:
                return empty
            with index:
                return index.links_of(paths)
        except Exception:
            return empty

    def discard_index(self, why: BaseException) -> None:
        """The index file turned out damaged: it is deleted, and built again on next use."""
        from obsidian_memory.search.store import discard

        self.close()
        discard(self.settings, why)

    def close(self) -> None:
        if self._index is not None:
            index, self._index = self._index, None
            index.close()

    def __enter__(self) -> "Request":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Engine(Protocol):
    name: str

    def search(self, query: Query, request: Request) -> Result: ...


@dataclass
class Response:
    query: str
    engine: str                # the engine that answered, e.g. "omnisearch", "index", "scan", "omnisearch (offline)"
    vault: str
    hits: list[Hit]
    total_results: int         # hits in scope before truncation to the limit
    elapsed_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)   # e.g. "omnisearch offline, fell back to index"
    mode: str = "fulltext"     # the ranking that answered: hybrid, semantic, fulltext or title

    def to_dict(self) -> dict:
        return {"query": self.query, "engine": self.engine, "mode": self.mode,
                "elapsed_seconds": round(self.elapsed_seconds, 4), "vault": self.vault, "total_results": self.total_results,
                "results": [h.to_dict() for h in self.hits]}


def in_scope(path: str, folders: tuple[str, ...], excludes: tuple[str, ...]) -> bool:
    """Folder/exclude scoping on vault-relative paths (already normalised, no slashes at the ends)."""
    def under(folder: str) -> bool:
        return not folder or path == folder or path.startswith(folder + "/")
    if folders and not any(under(f) for f in folders):
        return False
    return not any(under(x) for x in excludes if x)
