"""The machines of one vault in this archive: this machine's id (and those it had), the
repositories' identities across machines, and which machines' sessions it holds."""
from __future__ import annotations

import json
import sqlite3

from obsidian_memory.archive.counters import Meta
from obsidian_memory.archive.rows import loads_list
from obsidian_memory.archive.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Machines(Store):
    def __init__(self, db: sqlite3.Connection, *, readonly: bool, meta: Meta):
        super().__init__(db, readonly=readonly)
        self.meta = meta

    def claim_own_sessions(self, machine: str) -> int:
        """This machine's own sessions carry its id `machine` (those archived before it had one,
        or under an id the user changed since: their notes are written again). Returns how many
        sessions changed hands; cheap when none did."""
        if self.meta.get("machine") == machine:
            return 0
        with self._write():
            former = self.meta.get("machine")
            changed = self.db.execute(
                "UPDATE sessions SET machine = ?, revision = revision + 1 "
                "WHERE origin = 'transcript' AND machine IS NOT ?", (machine, machine)).rowcount
            self.meta.set_in_transaction("machine", machine)
            if former:
                formers = set(self.former()) | {former}
                formers.discard(machine)
                self.meta.set_in_transaction("former_machines", json.dumps(sorted(formers)))
        return changed

    def former(self) -> list[str]:
        """Ids this machine had before the current one (its notes may still show them)."""
        return [v for v in loads_list(self.meta.get("former_machines")) if isinstance(v, str)]

    def known_repo_id(self, repo_root: str) -> str | None:
        """The identity found for the repository at `repo_root` when this machine last archived
        one of its sessions (so that SessionStart need not run git for a root commit)."""
        row = self.db.execute(
            "SELECT repo_id FROM sessions WHERE repo_root = ? AND origin = 'transcript' AND repo_id IS NOT NULL "
            "ORDER BY started_at DESC LIMIT 1", (repo_root,)).fetchone()
        return row[0] if row else None

    def repo_roots_without_id(self) -> list[str]:
        """The folders of this machine's repositories whose sessions have no repo_id yet."""
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT repo_root FROM sessions WHERE origin = 'transcript' AND repo_id IS NULL "
            "AND repo_root IS NOT NULL ORDER BY repo_root")]

    def set_repo_id(self, repo_root: str, repo_id: str) -> None:
        """Give this machine's sessions of `repo_root` that have none the identity `repo_id`
        (their notes are written again to show it)."""
        with self._write():
            self.db.execute("UPDATE sessions SET repo_id = ?, revision = revision + 1 "
                            "WHERE repo_root = ? AND origin = 'transcript' AND repo_id IS NULL", (repo_id, repo_root))

    def known(self) -> list[dict[str, Any]]:
        """Each machine whose sessions the archive holds: {machine, sessions, last_started}
        (machine None: sessions from notes that do not say), most recent first."""
        return [{"machine": m, "sessions": n, "last_started": last} for m, n, last in self.db.execute(
            "SELECT machine, COUNT(*), MAX(started_at) FROM sessions GROUP BY machine ORDER BY MAX(started_at) DESC")]
