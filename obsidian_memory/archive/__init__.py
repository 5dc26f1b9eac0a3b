"""The session archive: the permanent SQLite record of every Claude Code session.

The only package that speaks SQL to the archive. `open_archive` gives an `Archive`: one
connection shared by one store per concern —

- `sessions` (sessions.py): the sessions, their prompts, answers, summaries and outcome;
- `transcripts` (transcripts.py): the transcript files looked at, so unchanged ones are skipped;
- `redaction` (redaction.py): the redaction rules each session's stored text was redacted under;
- `recall` (recall_index.py): prompt recall's term index;
- `recall_vectors` (recall_vectors.py): prompt recall's session vectors (the semantic extra);
- `vault_notes` (vault_notes.py): the vault's Markdown files as last read;
- `history` (history_state.py): what the history table reflects;
- `machines` (machines.py): this machine's id, repository identities, the machines seen;
- `counters`, `meta` (counters.py): small named facts.

The schema is a registry of named migrations (schema.py). It is on the SessionStart path, so
the package's top-level imports are limited to os, sqlite3, json and re (and core.sqlitedb);
the session records and the clock are imported inside the functions that need them.
"""
from __future__ import annotations

import os
import sqlite3

from obsidian_memory.core import sqlitedb
from obsidian_memory.archive import schema
from obsidian_memory.archive.counters import Counters, Meta
from obsidian_memory.archive.history_state import MONTHS_TO_WRITE, HistoryState
from obsidian_memory.archive.machines import Machines
from obsidian_memory.archive.recall_index import RecallIndex
from obsidian_memory.archive.recall_vectors import RecallVectors
from obsidian_memory.archive.redaction import Redaction
from obsidian_memory.archive.rows import FROM_VAULT, OWN, text
from obsidian_memory.archive.scopes import MachineScope, project_matches
from obsidian_memory.archive.sessions import SNIPPET_CHARS, Sessions
from obsidian_memory.archive.store import ArchiveError
from obsidian_memory.archive.transcripts import Transcripts
from obsidian_memory.archive.vault_notes import VaultNotesRecord

__all__ = ["Archive", "ArchiveError", "FROM_VAULT", "MONTHS_TO_WRITE", "MachineScope", "OWN", "SCHEMA_VERSION", "SNIPPET_CHARS",
           "damage_advice", "integrity_check", "is_damage", "open_archive", "project_matches"]

SCHEMA_VERSION = len(schema.MIGRATIONS)   # what PRAGMA user_version says of an archive this version wrote
UPGRADE_WAIT_SECONDS = 1.0     # a reader that finds an older archive waits this long to upgrade it


def open_archive(path: str, *, readonly: bool = False, busy_timeout: float = 5.0) -> Archive:
    """Open (and, unless readonly, create and migrate) the archive at `path`.

    A readonly open of a missing or never-initialised archive raises FileNotFoundError.
    """
    if readonly:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no session archive at {path}")
        archive = Archive(sqlitedb.connect(path, readonly=True, timeout=busy_timeout), path, readonly=True)
        try:
            version = archive.schema_version()
            behind = version > 0 and schema.behind(archive.db)
        except sqlite3.DatabaseError:
            archive.close()
            raise
        if version == 0:
            archive.close()
            raise FileNotFoundError(f"the session archive at {path} is empty")
        if behind:   # written by an older version: upgraded once, by the first reader
            archive.close()
            _upgrade(path, busy_timeout)
            return open_archive(path, readonly=True, busy_timeout=busy_timeout)
        return archive
    archive = Archive(sqlitedb.connect(path, timeout=busy_timeout), path, readonly=False)
    try:
        archive.migrate()
    except BaseException:
        archive.close()
        raise
    return archive


_DAMAGE_MARKS = ("malformed", "not a database", "corrupt", "file is encrypted", "unsupported file format",
                 "no such table", "no such column", "already exists", "duplicate column")
# (the last four: our own schema and migrations, so only a damaged header or schema makes them fail)


def is_damage(exc: BaseException) -> bool:
    """An SQLite error that says the file itself is damaged (not locked, not a full disk)."""
    return isinstance(exc, sqlite3.DatabaseError) and any(mark in str(exc).lower() for mark in _DAMAGE_MARKS)


def damage_advice(path: str) -> str:
    """What to do about a damaged archive, in words that stay true as the tool grows."""
    return (f"nothing was written to it; move it aside (mv '{path}' '{path}.damaged'), then run "
            "`obsidian_memory.py import` to archive again the transcripts Claude Code still has; the "
            "sessions whose transcripts are gone live on in their notes in the vault (`obsidian_memory.py "
            "import --from-vault` brings them back), and session notes are written from the transcripts "
            "meanwhile")


def _upgrade(path: str, busy_timeout: float) -> None:
    try:
        open_archive(path, busy_timeout=min(busy_timeout, UPGRADE_WAIT_SECONDS)).close()
    except (OSError, sqlite3.Error) as exc:
        raise ArchiveError(f"the session archive {path} was written by an older obsidian-memory and could not be "
                           f"upgraded now ({type(exc).__name__}: {exc}); `obsidian_memory.py sweep` upgrades it") from None


def integrity_check(path: str) -> str:
    """'ok', or what SQLite's integrity check reports (for doctor)."""
    try:
        with open_archive(path, readonly=True) as archive:
            rows = archive.db.execute("PRAGMA integrity_check").fetchall()
    except (OSError, sqlite3.DatabaseError) as exc:
        return f"{type(exc).__name__}: {exc}"
    messages = [str(row[0]) for row in rows]
    return "ok" if messages == ["ok"] else "; ".join(messages)


class Archive:
    """The archive's one connection and its stores (see the package's docstring)."""

    def __init__(self, db: sqlite3.Connection, path: str, *, readonly: bool):
        db.text_factory = text   # a damaged row reads as text with replacement marks, not as a crash
        self.db = db
        self.path = path
        self.readonly = readonly
        self.meta = Meta(db, readonly=readonly)
        self.counters = Counters(db, readonly=readonly)
        self.history = HistoryState(db, readonly=readonly, counters=self.counters, meta=self.meta)
        self.recall = RecallIndex(db, readonly=readonly)
        self.recall_vectors = RecallVectors(db, readonly=readonly)
        self.transcripts = Transcripts(db, readonly=readonly)
        self.redaction = Redaction(db, readonly=readonly)
        self.machines = Machines(db, readonly=readonly, meta=self.meta)
        self.vault_notes = VaultNotesRecord(db, readonly=readonly, meta=self.meta, history=self.history)
        self.sessions = Sessions(db, readonly=readonly, recall=self.recall, history=self.history,
                                 transcripts=self.transcripts, vault_notes=self.vault_notes, redaction=self.redaction)

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.db.close()
        except Exception:
            pass

    def interrupt_after(self, monotonic_deadline: float) -> None:
        """Any statement still running at `monotonic_deadline` (time.monotonic) is interrupted."""
        import time

        self.db.set_progress_handler(lambda: time.monotonic() > monotonic_deadline, 2000)

    def schema_version(self) -> int:
        """How many migrations the archive has had (PRAGMA user_version; see schema.py)."""
        return sqlitedb.schema_version(self.db)

    def migrate(self) -> None:
        self.check_tables()
        newer = schema.unknown(self.db)
        if newer:
            raise ArchiveError(f"the session archive {self.path} was written by a newer obsidian-memory (it has "
                               f"the migration {newer[0]!r}, which this one does not know): upgrade it")
        schema.migrate(self.db)

    def quick_check(self) -> None:
        """Every page of the archive read once (PRAGMA quick_check): damage in a part that a
        write would reach only later raises before anything is written."""
        rows = self.db.execute("PRAGMA quick_check").fetchall()
        if [str(row[0]) for row in rows] != ["ok"]:
            raise sqlite3.DatabaseError(f"database disk image is malformed ({'; '.join(str(r[0]) for r in rows[:3])})")

    def check_tables(self) -> None:
        """A header damaged in just the wrong place leaves SQLite reading an archive with no tables
        and no complaint: that is damage too, and nothing may be written over it."""
        found = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if self.schema_version() < 0:
            raise sqlite3.DatabaseError("database disk image is malformed (a negative schema version)")
        if self.schema_version() and not {"sessions", "prompts", "transcripts"} <= found:
            raise sqlite3.DatabaseError("database disk image is malformed (its tables are missing)")
