"""The local index engine (`--source index`): a persistent, incremental SQLite FTS5 index.

Public API (what the dispatcher calls):
  search(settings, query) -> (hits truncated to query.limit, total in scope)   engine "index"
  update(settings, force=False, progress=None) -> UpdateStats   (search calls it first)
  status(settings) -> dict
  index_path(settings) -> str
  open_fresh(settings) / open_readonly(settings) -> connection (for the graph and reading)

The file lives in `settings.cache_dir`, one per vault; see `index_build` for the schema and
the update, `index_query` for ranking and `markdown` for what is read from a note.
"""
from __future__ import annotations

import os
import sqlite3
import time

from obsidian_memory.search.base import Hit, Query
from obsidian_memory.search.index_build import (SCHEMA_VERSION, LockTimeout, UpdateStats, connect,
                                                index_path, remove_index_files, update_lock)
from obsidian_memory.search.index_build import update as _update

ENGINE = "index"
SEARCH_LOCK_WAIT = 30.0      # a search waits this long for another process's build, then answers as is

__all__ = ["ENGINE", "SCHEMA_VERSION", "UpdateStats", "index_path", "search", "status", "update", "open_index",
           "open_fresh", "open_readonly"]


def open_index(settings) -> sqlite3.Connection:
    """The vault's index, created (or recreated if outdated or corrupt) as needed."""
    _check_vault(settings)
    path = index_path(settings)
    try:
        return connect(path)
    except LockTimeout:
        return connect(path)   # the rebuild another process held the lock for is done by now or never
    except sqlite3.DatabaseError:
        with update_lock(path):
            remove_index_files(path)
        return connect(path)


def update(settings, *, force: bool = False, progress=None, lock_wait: float | None = None) -> UpdateStats:
    """Re-index what changed in the vault since the last update (everything with `force`)."""
    rebuilt = not os.path.exists(index_path(settings))
    conn = open_index(settings)
    try:
        stats = _update_with(conn, settings, force, progress, lock_wait)
    finally:
        conn.close()
    stats.rebuilt = stats.rebuilt or rebuilt
    return stats


def open_fresh(settings) -> sqlite3.Connection:
    """The vault's index, brought up to date first (as a search does), inside a read transaction
    so that every query the caller makes sees one state even while another process updates the
    index; the caller closes it."""
    conn = open_index(settings)
    try:
        _update_with(conn, settings, False, None, SEARCH_LOCK_WAIT)
        conn.execute("BEGIN")
    except BaseException:
        conn.close()
        raise
    return conn


def open_readonly(settings) -> sqlite3.Connection | None:
    """The index as it is, read-only, or None when it is missing, outdated or unreadable."""
    path = index_path(settings)
    if not os.path.exists(path):
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5, check_same_thread=False)
    except sqlite3.DatabaseError:
        return None
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return conn
    except sqlite3.DatabaseError:
        pass
    conn.close()
    return None


def search(settings, query: Query, *, fresh: bool = True) -> tuple[list[Hit], int]:
    """Ranked hits for `query` (cut to query.limit) and the number of notes in scope that match.
    With `fresh` (the default) the index is brought up to date first."""
    from obsidian_memory.search import index_query

    conn = open_index(settings)
    try:
        if fresh:
            _update_with(conn, settings, False, None, SEARCH_LOCK_WAIT)
        conn.execute("BEGIN")      # one snapshot for the ranking and the excerpts (see open_fresh)
        try:
            return index_query.search(conn, query)
        finally:
            conn.execute("COMMIT")
    finally:
        conn.close()


def status(settings) -> dict:
    path = index_path(settings)
    info = {"engine": ENGINE, "vault": settings.vault, "index_path": path, "exists": os.path.exists(path),
            "schema_version": SCHEMA_VERSION, "notes_indexed": 0, "size_bytes": 0, "last_update": None}
    if not info["exists"]:
        return info
    info["size_bytes"] = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            info["schema_version"] = conn.execute("PRAGMA user_version").fetchone()[0]
            info["notes_indexed"] = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
            row = conn.execute("SELECT value FROM meta WHERE key = 'last_update'").fetchone()
            info["last_update"] = float(row[0]) if row else None
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        info["error"] = f"unreadable index ({exc}); the next search rebuilds it"
    return info


def _update_with(conn, settings, force, progress, lock_wait) -> UpdateStats:
    from obsidian_memory.search.index_build import LOCK_WAIT_SECONDS

    return _update(conn, settings.vault, tuple(settings.index_ignore or ()), force=force, progress=progress,
                   lock_path=index_path(settings),
                   lock_wait=LOCK_WAIT_SECONDS if lock_wait is None else lock_wait)


def _check_vault(settings) -> None:
    if not os.path.isdir(settings.vault):
        from obsidian_memory.errors import UserError

        raise UserError(f"vault not found: {settings.vault} (set OBSIDIAN_VAULT or pass --vault)")


def age_text(timestamp: float | None) -> str:
    if not timestamp:
        return "never"
    seconds = max(0, time.time() - timestamp)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return f"{int(seconds)} s ago"
