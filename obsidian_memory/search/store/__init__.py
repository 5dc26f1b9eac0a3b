"""The search side's stores, both disposable caches beside each other in the cache folder:
the vault index (`VaultIndex`: SQLite FTS5, links, tags, properties) and the vector store of
the semantic extra (`vectors`). Only this package speaks SQL to them."""
from __future__ import annotations

from obsidian_memory.search.store.build import UpdateStats, walk_vault
from obsidian_memory.search.store.index import (EVERYTHING, SEARCH_LOCK_WAIT, Scope, VaultIndex, discard, index_path,
                                                integrity, rebuild, status, using_fresh)
from obsidian_memory.search.store.schema import SCHEMA_VERSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from obsidian_memory.core.settings import Settings

__all__ = ["EVERYTHING", "SCHEMA_VERSION", "SEARCH_LOCK_WAIT", "Scope", "UpdateStats", "VaultIndex", "discard",
           "index_path", "integrity", "rebuild", "status", "update", "using_fresh", "walk_vault"]


def update(settings: Settings, *, force: bool = False, progress: bool | None = None,
           lock_wait: float | None = None) -> UpdateStats:
    """Bring the vault's index up to date; with `force`, every note is read again into a new file
    (`rebuild`). A file found damaged is deleted and built again."""
    from obsidian_memory.core import sqlitedb

    if force:
        return rebuild(settings, progress=progress)

    def brought_up_to_date() -> UpdateStats:
        with VaultIndex.open(settings) as index:
            return index.update(progress=progress, lock_wait=lock_wait)
    return sqlitedb.again_if_damaged(brought_up_to_date, lambda why: discard(settings, why))
