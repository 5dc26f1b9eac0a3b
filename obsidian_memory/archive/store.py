"""What every store of the archive shares: the one connection, and whether it may write."""
from __future__ import annotations

import sqlite3

from obsidian_memory.core import sqlitedb
from obsidian_memory.core.errors import UserError


class ArchiveError(UserError):
    """The archive cannot be used as asked (e.g. written by a newer obsidian-memory)."""


class Store:
    """One concern of the archive (its sessions, its recall terms, ...) over the shared connection."""

    def __init__(self, db: sqlite3.Connection, *, readonly: bool):
        self.db = db
        self.readonly = readonly
        self._tables: dict[str, bool] = {}

    def _has_table(self, name: str) -> bool:
        """Whether the archive has the table `name` (one a migration may not have made: FTS5
        missing; an older archive opened read-only), looked up once per store."""
        if name not in self._tables:
            self._tables[name] = self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                                 (name,)).fetchone() is not None
        return self._tables[name]

    def _write(self) -> sqlitedb.transaction:
        """A write transaction (BEGIN IMMEDIATE). A store's method that another store calls inside
        its own transaction says so, and takes none itself."""
        if self.readonly:
            raise ArchiveError("the archive was opened read-only")
        return sqlitedb.transaction(self.db)

