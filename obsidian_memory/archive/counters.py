"""Small facts kept with the archive: named counts (`counters`) and named strings (`meta`)."""
from __future__ import annotations

from obsidian_memory.core import sqlitedb
from obsidian_memory.archive.store import Store


class Counters(Store):
    def get(self, name: str) -> int:
        """A named count kept with the archive (0 when never set), e.g. that a file was written once."""
        row = self.db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return int(row[0]) if row else 0

    def set(self, name: str, value: int) -> None:
        with self._write():
            self.db.execute("INSERT INTO counters (name, value) VALUES (?, ?) "
                            "ON CONFLICT(name) DO UPDATE SET value = excluded.value", (name, int(value)))

    def increment_in_transaction(self, name: str) -> None:
        """Add one to the count `name` (inside the caller's write transaction)."""
        self.db.execute("UPDATE counters SET value = value + 1 WHERE name = ?", (name,))

    def raise_in_transaction(self, name: str, value: int) -> None:
        """The count `name` becomes `value` if that is more (inside the caller's write transaction)."""
        self.db.execute("UPDATE counters SET value = MAX(value, ?) WHERE name = ?", (int(value), name))


class Meta(Store):
    def get(self, name: str) -> str | None:
        return sqlitedb.meta(self.db, name)

    def set(self, name: str, value: str) -> None:
        with self._write():
            self.set_in_transaction(name, value)

    def set_in_transaction(self, name: str, value: str) -> None:
        """(inside the caller's write transaction)"""
        sqlitedb.set_meta(self.db, name, value)
