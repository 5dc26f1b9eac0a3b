"""The search side's stores, both disposable caches beside each other in the cache folder:
the vault index (`VaultIndex`: SQLite FTS5, links, tags, properties) and the vector store of
the semantic extra (`vectors`). Only this package speaks SQL to them."""
from __future__ import annotations

from obsidian_memory.search.store.build import UpdateStats, walk_vault
from obsidian_memory.search.store.index import EVERYTHING, SEARCH_LOCK_WAIT, Scope, VaultIndex, index_path, status
from obsidian_memory.search.store.schema import SCHEMA_VERSION

__all__ = ["EVERYTHING", "SCHEMA_VERSION", "SEARCH_LOCK_WAIT", "Scope", "UpdateStats", "VaultIndex", "index_path",
           "status", "update", "walk_vault"]


def update(settings, *, force: bool = False, progress=None, lock_wait: float | None = None) -> UpdateStats:
    """Open the vault's index, bring it up to date (every note with `force`) and close it."""
    with VaultIndex.open(settings) as index:
        return index.update(force=force, progress=progress, lock_wait=lock_wait)
