"""The small interface every search engine implements, and the shapes it returns."""
from __future__ import annotations

from dataclasses import dataclass, field


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
