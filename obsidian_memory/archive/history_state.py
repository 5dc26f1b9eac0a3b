"""The history table's state in the archive: how many changes it reflects, under which privacy
rules it was rendered, and which month notes are to be written again."""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from obsidian_memory.archive.counters import Counters, Meta
from obsidian_memory.archive.store import Store

MONTHS_TO_WRITE = "history_months_to_write"   # meta: HistoryState.months_to_write


class HistoryState(Store):
    def __init__(self, db: sqlite3.Connection, *, readonly: bool, counters: Counters, meta: Meta):
        super().__init__(db, readonly=readonly)
        self.counters, self.meta = counters, meta

    def changes(self) -> int:
        """The change count the history rows reflect: read before them, to record once rendered."""
        return self.counters.get("history_changes")

    def changed_in_transaction(self) -> None:
        """A row of the table changed (inside the caller's write transaction)."""
        self.counters.increment_in_transaction("history_changes")

    def record_rendered(self, changes: int, privacy_rules: str | None = None) -> None:
        """The history table was rendered from the archive as it was after `changes` changes (and
        under the private rules `privacy_rules`, privacy.Privacy.signature)."""
        with self._write():
            self.counters.raise_in_transaction("history_rendered", changes)
            if privacy_rules is not None:
                self.meta.set_in_transaction("history_privacy", privacy_rules)

    def outdated(self, privacy_rules: str | None = None) -> bool:
        """Whether the archive changed since the history table was rendered, or (given the
        present `privacy_rules`) the private rules did since it was rendered under other ones."""
        if self.counters.get("history_rendered") < self.counters.get("history_changes"):
            return True
        return privacy_rules is not None and self.rendered_under_other_rules(privacy_rules)

    def rendered_under_other_rules(self, privacy_rules: str) -> bool:
        """Whether the table was last rendered under other private rules (privacy.Privacy.signature)
        than `privacy_rules` (never rendered under any: no)."""
        rendered_under = self.meta.get("history_privacy")
        return rendered_under is not None and rendered_under != privacy_rules

    def months_to_write(self) -> set[str]:
        """The months (`YYYY-MM`; '' for notes without a start) whose month note is to be written
        again (VaultNotesRecord.update)."""
        return set(json.loads(self.meta.get(MONTHS_TO_WRITE) or "[]"))

    def add_months_in_transaction(self, months: Iterable[str]) -> None:
        """(inside the caller's write transaction)"""
        self.meta.set_in_transaction(MONTHS_TO_WRITE, json.dumps(sorted(self.months_to_write() | set(months))))

    def months_written(self, months: Iterable[str]) -> None:
        with self._write():
            self.meta.set_in_transaction(MONTHS_TO_WRITE, json.dumps(sorted(self.months_to_write() - set(months))))
