"""The record of the vault's Markdown files as last read (notes/vault_sessions): each file's stamp,
what it holds and whether it is private, so that the history table and the sweep read only the
notes that changed. The record describes one vault (meta `vault_notes_root`); for another, it is
empty."""
from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from obsidian_memory.archive.counters import Meta
from obsidian_memory.archive.history_state import HistoryState
from obsidian_memory.archive.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FIELDS = ("path", "size", "mtime", "kind", "session_id", "machine", "started", "project", "title",
          "commits", "mtime_ns", "ctime_ns", "private", "learned")


class VaultNotesRecord(Store):
    FIELDS = FIELDS

    def __init__(self, db: sqlite3.Connection, *, readonly: bool, meta: Meta, history: HistoryState):
        super().__init__(db, readonly=readonly)
        self.meta, self.history = meta, history

    def _describes(self, root: str) -> bool:
        return self.meta.get("vault_notes_root") == root

    def describes(self, root: str, privacy_rules: str) -> bool:
        """Whether the record is of the vault at `root`, its privacy judged under the text rules
        `privacy_rules` (privacy.Privacy.text_rules)."""
        return self._describes(root) and self.meta.get("vault_notes_privacy") == privacy_rules

    def notes(self, root: str, *, unlearned_sessions: bool = False) -> list[dict[str, Any]]:
        """The Markdown files of the vault at `root` as last read ([] when the record describes
        another vault: then every note is read again); with `unlearned_sessions`, only the notes
        of the sessions that have a note not learned since it changed."""
        if not self._describes(root):
            return []
        where = ("WHERE kind = 'session' AND session_id IN (SELECT session_id FROM vault_notes "
                 "WHERE kind = 'session' AND learned = 0)") if unlearned_sessions else ""
        return [dict(zip(FIELDS, row)) for row in self.db.execute(
            f"SELECT {', '.join(FIELDS)} FROM vault_notes {where} ORDER BY path")]

    def stamps(self, root: str, privacy_rules: str, paths: Iterable[str] | None = None
               ) -> dict[str, tuple[tuple[int, int, int] | None, str, str | None]]:
        """{path: ((size, mtime_ns, ctime_ns), kind, started)} of the files of the vault at `root` as last
        read (of `paths` only, if given). A session note (or conflict copy) not judged private or not
        under the text rules `privacy_rules` (privacy.Privacy.text_rules) has no stamp: it is to
        be read again."""
        if self.meta.get("vault_notes_privacy") != privacy_rules:
            with self._write():
                self.db.execute("UPDATE vault_notes SET private = NULL WHERE private IS NOT NULL")
                self.meta.set_in_transaction("vault_notes_privacy", privacy_rules)
        if not self._describes(root):
            return {}
        query = "SELECT path, size, mtime_ns, ctime_ns, kind, private, started FROM vault_notes"
        rows = self.db.execute(query) if paths is None else (
            row for path in paths for row in self.db.execute(query + " WHERE path = ?", (path,)))
        return {path: ((size, mtime_ns, ctime_ns) if kind == "other" or private is not None else None, kind, started)
                for path, size, mtime_ns, ctime_ns, kind, private, started in rows}

    def cached_privacy(self, root: str, privacy_rules: str, paths: Iterable[str]) -> dict[str, tuple[tuple[int, int, int], bool]]:
        """{path: ((size, mtime_ns, ctime_ns), private)} of those of `paths` whose text was last
        judged under the text rules `privacy_rules` (privacy.Privacy.text_rules) in the record of
        the vault at `root`; a path not judged, or judged under other rules, is left out (read
        only: SessionStart's check of the sessions it lists)."""
        if not self._describes(root) or self.meta.get("vault_notes_privacy") != privacy_rules:
            return {}
        wanted = list(dict.fromkeys(paths))[:500]
        return {path: ((size, mtime_ns, ctime_ns), bool(private)) for path, size, mtime_ns, ctime_ns, private
                in self.db.execute("SELECT path, size, mtime_ns, ctime_ns, private FROM vault_notes WHERE path IN "
                                   f"({', '.join('?' for _ in wanted)}) AND private IS NOT NULL", wanted)}

    def update(self, root: str, read: list[dict[str, Any]], gone: list[str], months: Iterable[str] = ()) -> None:
        """Record the notes just `read` (dicts of FIELDS but `learned`) and forget the paths that
        are `gone`. A note whose stamp changed is to be learned again (one read again with the
        same stamp, e.g. to judge its privacy under new rules, is not). `months`: those whose
        session notes came, went or changed, kept until their month notes are written
        (HistoryState.months_written), whichever run noticed the change."""
        with self._write():
            if months:
                self.history.add_months_in_transaction(months)
            if not self._describes(root):
                self.db.execute("DELETE FROM vault_notes")
                self.meta.set_in_transaction("vault_notes_root", root)
            self.db.executemany("DELETE FROM vault_notes WHERE path = ?", [(p,) for p in gone])
            fields = FIELDS[:-1]
            same_stamp = " AND ".join(f"vault_notes.{f} IS excluded.{f}" for f in ("size", "mtime_ns", "ctime_ns"))
            self.db.executemany(
                f"INSERT INTO vault_notes ({', '.join(fields)}, learned) VALUES ({', '.join('?' for _ in fields)}, 0) "
                "ON CONFLICT(path) DO UPDATE SET " + ", ".join(f"{f} = excluded.{f}" for f in fields[1:])
                + f", learned = CASE WHEN {same_stamp} THEN learned ELSE 0 END",
                [tuple(note.get(f) for f in fields) for note in read])

    def mark_learned_in_transaction(self, paths: Iterable[str]) -> None:
        """(inside the caller's write transaction)"""
        self.db.executemany("UPDATE vault_notes SET learned = 1 WHERE path = ?", [(p,) for p in paths])

    def of_sessions(self, root: str, session_ids: Iterable[str]) -> list[dict[str, Any]]:
        """The session notes (conflict copies aside) of the vault at `root` that hold one of
        `session_ids`, as last read."""
        if not self._describes(root):
            return []
        ids, rows = list(dict.fromkeys(session_ids)), []
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows += [dict(zip(FIELDS, row)) for row in self.db.execute(
                f"SELECT {', '.join(FIELDS)} FROM vault_notes WHERE kind = 'session' "
                f"AND session_id IN ({', '.join('?' for _ in chunk)})", chunk)]
        return rows

    def session_ids(self, root: str, *, month: str | None = None, since: str | None = None,
                    limit: int | None = None, offset: int = 0) -> list[tuple[str, str | None]]:
        """(session id, started) of the session notes of the vault at `root`, newest first: of the
        `month` (`YYYY-MM`; '' for the notes without a start), or started at `since` or later, or
        the `limit` newest from `offset`. Served by vault_notes_by_start."""
        if not self._describes(root):
            return []
        where, params = _sessions_where(month, since)
        page = " LIMIT ? OFFSET ?" if limit is not None else ""
        params += [int(limit), int(offset)] if limit is not None else []
        return [(row[0], row[1]) for row in self.db.execute(
            f"SELECT session_id, started FROM vault_notes WHERE {where} "
            f"ORDER BY started DESC, session_id DESC{page}", params)]

    def count_sessions(self, root: str, *, month: str | None = None, since: str | None = None) -> int:
        """How many session notes session_ids(root, month=..., since=...) would list."""
        if not self._describes(root):
            return 0
        where, params = _sessions_where(month, since)
        return int(self.db.execute(f"SELECT count(*) FROM vault_notes WHERE {where}", params).fetchone()[0])

    def months(self, root: str) -> list[str]:
        """The months (`YYYY-MM`, newest first; '' last for notes without a start) of the session
        notes of the vault at `root`: one index look-up per month."""
        if not self._describes(root):
            return []
        months: list[str] = []
        before = None
        while True:
            row = self.db.execute("SELECT max(started) FROM vault_notes WHERE kind = 'session' AND started IS NOT NULL"
                                  + (" AND started < ?" if before else ""), (before,) if before else ()).fetchone()
            if not row or not row[0]:
                break
            before = str(row[0])[:7]
            months.append(before)
        if self.db.execute("SELECT 1 FROM vault_notes WHERE kind = 'session' AND started IS NULL LIMIT 1").fetchone():
            months.append("")
        return months

    def paths(self, root: str, session_id: str) -> list[str]:
        """The notes of the vault at `root` that hold `session_id`, as last read (conflict copies
        aside)."""
        if not self._describes(root):
            return []
        return [r[0] for r in self.db.execute(
            "SELECT path FROM vault_notes WHERE session_id = ? AND kind = 'session' ORDER BY path", (session_id,))]


def _sessions_where(month: str | None, since: str | None) -> tuple[str, list[Any]]:
    """The WHERE clause (and its parameters) of the session notes of `month` (`YYYY-MM`; '' for
    the notes without a start) or started at `since` or later."""
    where: list[str] = ["kind = 'session'"]
    params: list[Any] = []
    if month == "":
        where.append("started IS NULL")
    elif month is not None:
        where.append("started >= ? AND started < ?")
        params += [month, month + "~"]      # every `YYYY-MM-...` of the month sorts between these
    if since is not None:
        where.append("started >= ?")
        params.append(since)
    return " AND ".join(where), params
