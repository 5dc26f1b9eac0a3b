"""The small interface every search engine implements, and the shapes it takes and returns.

    class Engine(Protocol):
        name: str                                   # reported as the engine that answered
        def search(self, query: Query, request: Request) -> Result: ...

Engines: `omnisearch.Omnisearch`, `scan.Scanner`, `fulltext.Fulltext`, `title.Title`,
`hybrid.Semantic`, `hybrid.Hybrid`; `dispatch` picks one per request and mode.
"""
from __future__ import annotations

from obsidian_memory.core.plain_record import Record


class Query(Record):
    """What to look for: `folders` and `excludes` vault-relative and cleaned (a hit must be under
    one of the folders, and under none of the excludes); `tags`/`not_tags` without '#';
    `frontmatter`/`not_frontmatter` (key, value) pairs, required/excluded; `repo` the identity of
    the repository the search runs in (gitinfo.repo_identity, lower case as the index folds
    property values), or None: its session notes are preferred, a little."""
    __slots__ = ("text", "limit", "folders", "excludes", "tags", "not_tags", "frontmatter", "not_frontmatter",
                 "explain", "repo")

    def __init__(self, text: str, limit: int = 10, folders: tuple[str, ...] = (), excludes: tuple[str, ...] = (),
                 tags: tuple[str, ...] = (), not_tags: tuple[str, ...] = (),
                 frontmatter: tuple[tuple[str, str], ...] = (), not_frontmatter: tuple[tuple[str, str], ...] = (),
                 explain: bool = False, repo: str | None = None):
        self.text, self.limit, self.folders, self.excludes = text, limit, folders, excludes
        self.tags, self.not_tags, self.frontmatter, self.not_frontmatter = tags, not_tags, frontmatter, not_frontmatter
        self.explain = explain                 # hits carry the signals that placed them (extra["explain"])
        self.repo = repo

    @property
    def has_metadata_filters(self) -> bool:
        return bool(self.tags or self.not_tags or self.frontmatter or self.not_frontmatter)


class Hit(Record):
    """One note found: `path` vault-relative with forward slashes, `basename` its file name
    without .md, `excerpt` plain text (no HTML, no control or escape sequences), `extra` the
    engine-specific fields (links, backlinks, ...)."""
    __slots__ = ("path", "basename", "score", "excerpt", "engine", "extra")

    def __init__(self, path: str, basename: str, score: float, excerpt: str, engine: str, extra: dict | None = None):
        self.path, self.basename, self.score, self.excerpt, self.engine = path, basename, score, excerpt, engine
        self.extra = {} if extra is None else extra

    def to_dict(self) -> dict:
        data = {"path": self.path, "basename": self.basename, "score": round(float(self.score), 4),
                "excerpt": self.excerpt, "engine": self.engine}
        data.update(self.extra)
        return data


class Result(Record):
    """What an engine answers for one query: `hits` best first, cut to the query's limit; `total`
    the hits in scope before the cut; `mode` the ranking that answered."""
    __slots__ = ("hits", "total", "mode", "notes")

    def __init__(self, hits: list[Hit], total: int, mode: str = "fulltext", notes: list[str] | None = None):
        self.hits, self.total, self.mode = hits, total, mode
        self.notes = [] if notes is None else notes


class Request:
    """What the engines of one search share: the settings, the Omnisearch port, the private
    rules (`privacy`: the engines that read the vault themselves leave private notes out before
    they count and cut their hits; the index never holds one), and the vault index, opened,
    brought up to date and read in one snapshot at most once, on first use."""

    def __init__(self, settings, port: int | None = None):
        from obsidian_memory.vault.excluded import ExcludedFiles
        from obsidian_memory.vault.privacy import Privacy

        self.settings = settings
        self.port = port
        self.privacy = Privacy.of(settings)
        self.excluded = ExcludedFiles.of(settings)     # Obsidian's Excluded files (the index never holds one)
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

    def close(self) -> None:
        if self._index is not None:
            index, self._index = self._index, None
            index.close()

    def __enter__(self) -> "Request":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Response(Record):
    """A whole search's answer: `engine` the engine(s) that answered ("omnisearch", "index",
    "scan", "omnisearch (offline)"...), `total_results` the hits in scope before the cut to the
    limit, `notes` remarks on how it ran (fallbacks...), `mode` the ranking that answered
    (hybrid, semantic, fulltext or title)."""
    __slots__ = ("query", "engine", "vault", "hits", "total_results", "elapsed_seconds", "notes", "mode")

    def __init__(self, query: str, engine: str, vault: str, hits: list[Hit], total_results: int,
                 elapsed_seconds: float = 0.0, notes: list[str] | None = None, mode: str = "fulltext"):
        self.query, self.engine, self.vault, self.hits = query, engine, vault, hits
        self.total_results, self.elapsed_seconds, self.mode = total_results, elapsed_seconds, mode
        self.notes = [] if notes is None else notes

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
