"""The session archive: the permanent SQLite record of every Claude Code session.

The only module that speaks SQL to the archive. It is on the SessionStart path, so its
top-level imports are limited to os, sqlite3, json and re; the data model and the
clock are imported inside the functions that need them.

Schema: versioned with `PRAGMA user_version`; MIGRATIONS[n] brings version n to n + 1 and
later versions are appended, never edited. Sessions are never deleted. Everything needed to
re-render a note without the transcript is kept: the session row, its prompts (with their
answers), its compaction summaries (with their origin), its outcome (todos, plan, commits, pull
requests, commands, errors: one `outcomes` row per item), and the remaining fields as JSON in
`sessions.details`.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3

from obsidian_memory.core import sqlitedb
from obsidian_memory.core.errors import UserError
from obsidian_memory.core.sqlitedb import run_script as _run_script

# Session fields kept as JSON in sessions.details (the others have their own columns or tables).
_DETAIL_FIELDS = ("cwds", "tools", "files_touched", "subagents", "models", "entry_count", "bad_lines",
                 "oversized_lines")
_SESSION_COLUMNS = ("session_id", "title", "title_source", "project", "cwd", "repo_root", "git_branch",
                    "version", "started_at", "ended_at", "duration_seconds", "prompt_count",
                    "transcript_path", "transcript_size", "transcript_mtime", "last_assistant_message",
                    "machine", "repo_id", "origin")
_RECENT_COLUMNS = ("session_id", "title", "project", "cwd", "repo_root", "git_branch", "started_at",
                   "ended_at", "prompt_count", "note_path", "machine", "repo_id", "origin")
OWN, FROM_VAULT = "transcript", "vault"     # sessions.origin
SNIPPET_CHARS = 160
UPGRADE_WAIT_SECONDS = 1.0     # a reader that finds an older archive waits this long to upgrade it


def _migration_1(db: sqlite3.Connection) -> None:
    _run_script(db, """
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            title_source TEXT NOT NULL DEFAULT '',
            project TEXT NOT NULL DEFAULT '',
            cwd TEXT,
            repo_root TEXT,
            git_branch TEXT,
            version TEXT,
            started_at TEXT,
            ended_at TEXT,
            duration_seconds REAL,
            prompt_count INTEGER NOT NULL DEFAULT 0,
            transcript_path TEXT,
            transcript_size INTEGER,
            transcript_mtime REAL,
            last_assistant_message TEXT,
            details TEXT NOT NULL DEFAULT '{}',
            note_path TEXT,
            first_archived_at TEXT NOT NULL,
            archived_at TEXT NOT NULL
        );
        CREATE INDEX sessions_by_start ON sessions(started_at DESC);
        CREATE INDEX sessions_by_repo ON sessions(repo_root, started_at DESC);
        CREATE INDEX sessions_by_project ON sessions(project, started_at DESC);
        CREATE TABLE prompts (
            session_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            timestamp TEXT,
            uuid TEXT,
            PRIMARY KEY (session_id, position)
        );
        CREATE TABLE compact_summaries (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            timestamp TEXT,
            trigger TEXT,
            origin TEXT NOT NULL DEFAULT 'transcript'
        );
        CREATE INDEX compact_summaries_by_session ON compact_summaries(session_id, position);
        -- one row per transcript file seen: the (size, mtime) at its last archive, so that
        -- import and sweep skip unchanged files; status says what became of it
        CREATE TABLE transcripts (
            path TEXT PRIMARY KEY,
            session_id TEXT,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            status TEXT NOT NULL,
            seen_at TEXT NOT NULL
        );
    """)


def _migration_2(db: sqlite3.Connection) -> None:
    # SessionStart outside a repository lists the sessions of its folder: by cwd, newest first
    db.execute("CREATE INDEX sessions_by_cwd ON sessions(cwd, started_at DESC)")


def _migration_3(db: sqlite3.Connection) -> None:
    # a writer killed between the archive and the vault leaves a note or the history table behind
    # the archive: each session counts its changes (`revision`) against the count its note shows
    # (`note_revision`), and the counters do the same for the history table, so that the next run
    # finds what is outdated instead of taking the unchanged transcripts' word for it
    _run_script(db, """
        ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sessions ADD COLUMN note_revision INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO counters (name, value) VALUES ('history_changes', 0), ('history_rendered', 0);
    """)
    # an archive from before this migration renders its history table once more, to be sure
    db.execute("UPDATE counters SET value = 1 WHERE name = 'history_changes' "
               "AND EXISTS (SELECT 1 FROM sessions WHERE note_path IS NOT NULL)")


def _migration_4(db: sqlite3.Connection) -> None:
    # what a session did (issue 15): each prompt's answer, and the session's outcome as rows of
    # `outcomes` (kind: todo | plan | commit | pull_request | command | error; `text` is what
    # search --sessions matches, `detail` the rest as JSON: a todo's status, a commit's hash, a
    # command's runs and failures, an error's tool)
    _run_script(db, """
        ALTER TABLE prompts ADD COLUMN answer TEXT;
        CREATE TABLE outcomes (
            session_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            detail TEXT,
            PRIMARY KEY (session_id, kind, position)
        );
        INSERT INTO counters (name, value) VALUES ('bases_view_written', 0);
    """)
    # sessions archived before hold none of it: the next import or sweep parses every transcript
    # that still exists again (an unknown fingerprint), and every note is rendered again (typed
    # properties, the new sections; the user's section is kept)
    _run_script(db, """
        UPDATE transcripts SET mtime = -1 WHERE status = 'archived';
        UPDATE sessions SET revision = revision + 1 WHERE note_path IS NOT NULL;
        UPDATE counters SET value = value + 1 WHERE name = 'history_changes'
            AND EXISTS (SELECT 1 FROM sessions WHERE note_path IS NOT NULL);
    """)


def _migration_5(db: sqlite3.Connection) -> None:
    # prompt recall (issue 17): each session's terms in four fields (recall_terms.document), and a
    # full-text index over them (FTS5, kept in step by triggers; `recall_vocab` gives the number of
    # sessions holding a term). Filled on upsert; sessions archived before are indexed in batches
    # by the sweep and import (index_for_recall), not here: a migration runs inside whatever hook
    # opens the archive first, and SessionEnd has 1.5 s. A SQLite without FTS5 gets no index (and
    # prompt recall says so), never a failed migration.
    try:
        db.execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x)")
        db.execute("DROP TABLE temp.fts5_probe")
    except sqlite3.OperationalError:
        return
    _run_script(db, """
        CREATE TABLE recall_docs (
            doc_id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            asked TEXT NOT NULL,
            outcome TEXT NOT NULL,
            said TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE recall_fts USING fts5(
            title, asked, outcome, said, content='recall_docs', content_rowid='doc_id', detail=column,
            tokenize='unicode61 remove_diacritics 0'
        );
        CREATE VIRTUAL TABLE recall_vocab USING fts5vocab(recall_fts, 'row')
    """)
    columns = "title, asked, outcome, said"
    remove = f"INSERT INTO recall_fts (recall_fts, rowid, {columns}) VALUES ('delete', old.doc_id, " \
             "old.title, old.asked, old.outcome, old.said);"
    add = f"INSERT INTO recall_fts (rowid, {columns}) VALUES (new.doc_id, new.title, new.asked, new.outcome, new.said);"
    # triggers hold semicolons: one statement each, not through _run_script
    db.execute(f"CREATE TRIGGER recall_docs_insert AFTER INSERT ON recall_docs BEGIN {add} END")
    db.execute(f"CREATE TRIGGER recall_docs_delete AFTER DELETE ON recall_docs BEGIN {remove} END")
    db.execute(f"CREATE TRIGGER recall_docs_update AFTER UPDATE ON recall_docs BEGIN {remove} {add} END")


def _migration_6(db: sqlite3.Connection) -> None:
    # one vault, many machines (issue 16). `machine`: the machine that owns the session's
    # transcript (NULL: this machine, archived before machines had ids); `repo_id`: the
    # repository's identity on every machine (gitinfo.repo_identity; filled for older sessions by
    # the next import or sweep); `origin`: 'transcript' (this machine's own session, whose note
    # it writes) or 'vault' (another machine's, learned from its note, never written here).
    # `vault_notes` remembers each Markdown file of the vault as last read (size, mtime) and what
    # it holds, so that the history table and the sweep read only the notes that changed; `meta`
    # holds this archive's machine id and the vault the cache describes.
    _run_script(db, """
        ALTER TABLE sessions ADD COLUMN machine TEXT;
        ALTER TABLE sessions ADD COLUMN repo_id TEXT;
        ALTER TABLE sessions ADD COLUMN origin TEXT NOT NULL DEFAULT 'transcript';
        CREATE INDEX sessions_by_repo_id ON sessions(repo_id, started_at DESC);
        CREATE INDEX sessions_by_machine ON sessions(machine, started_at DESC);
        CREATE TABLE vault_notes (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            kind TEXT NOT NULL,
            session_id TEXT,
            machine TEXT,
            started TEXT,
            project TEXT,
            title TEXT,
            commits INTEGER,
            learned INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX vault_notes_by_session ON vault_notes(session_id);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """)
    # every note shows its machine and repository from now on: rendered again
    db.execute("UPDATE sessions SET revision = revision + 1 WHERE note_path IS NOT NULL")


def _migration_7(db: sqlite3.Connection) -> None:
    # the archive at scale (issue 20). Each vault note is known by its full stamp (size, mtime_ns,
    # ctime_ns: as the index stamps notes; an edit that keeps size and mtime, as a sync tool
    # restoring mtime does, still moves ctime), and each session note (or conflict copy) by
    # whether its text makes it private (`private`: 1 or 0; NULL when not judged yet, or judged
    # under other text rules: meta `vault_notes_privacy`), so that the history table re-reads
    # only the notes that changed. Rows of older versions have no stamp: read once again.
    # `sessions_with_repo_id`: SessionStart's look-up of a repository's last known identity
    # (known_repo_id) reads one index entry instead of every session of that repository.
    _run_script(db, """
        ALTER TABLE vault_notes ADD COLUMN mtime_ns INTEGER;
        ALTER TABLE vault_notes ADD COLUMN ctime_ns INTEGER;
        ALTER TABLE vault_notes ADD COLUMN private INTEGER;
        CREATE INDEX sessions_with_repo_id ON sessions(repo_root, started_at DESC)
            WHERE repo_id IS NOT NULL AND origin = 'transcript';
    """)


def _migration_8(db: sqlite3.Connection) -> None:
    # the history at scale (issue 20): the newest session notes, those of a month and those of the
    # last weeks are found by their `started` property through this index, so that an archive run
    # reads the records of the notes it shows, not of every note of the vault
    db.execute("CREATE INDEX vault_notes_by_start ON vault_notes(kind, started)")


MIGRATIONS = [_migration_1, _migration_2, _migration_3, _migration_4, _migration_5, _migration_6, _migration_7,
              _migration_8]
SCHEMA_VERSION = len(MIGRATIONS)


MONTHS_TO_WRITE = "history_months_to_write"   # meta: Archive.months_to_write


class ArchiveError(UserError):
    """The archive cannot be used as asked (e.g. written by a newer obsidian-memory)."""


def open_archive(path: str, *, readonly: bool = False, busy_timeout: float = 5.0) -> "Archive":
    """Open (and, unless readonly, create and migrate) the archive at `path`.

    A readonly open of a missing or never-initialised archive raises FileNotFoundError.
    """
    if readonly:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no session archive at {path}")
        db = sqlitedb.connect(path, readonly=True, timeout=busy_timeout)
        archive = Archive(db, path, readonly=True)
        try:
            version = archive.schema_version()
        except sqlite3.DatabaseError:
            archive.close()
            raise
        if version == 0:
            archive.close()
            raise FileNotFoundError(f"the session archive at {path} is empty")
        if version < SCHEMA_VERSION:   # written by an older version: upgraded once, by the first reader
            archive.close()
            _upgrade(path, busy_timeout)
            return open_archive(path, readonly=True, busy_timeout=busy_timeout)
        return archive
    db = sqlitedb.connect(path, timeout=busy_timeout)
    archive = Archive(db, path, readonly=False)
    try:
        archive._migrate()
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
    def __init__(self, db: sqlite3.Connection, path: str, *, readonly: bool):
        db.text_factory = _text   # a damaged row reads as text with replacement marks, not as a crash
        self.db = db
        self.path = path
        self.readonly = readonly

    # -- lifecycle ----------------------------------------------------------------------
    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.db.close()
        except Exception:
            pass

    def schema_version(self) -> int:
        return sqlitedb.schema_version(self.db)

    def _migrate(self) -> None:
        self._check_tables()
        if sqlitedb.migrate(self.db, MIGRATIONS) > SCHEMA_VERSION:
            raise ArchiveError(f"the session archive {self.path} has schema version {self.schema_version()}, "
                               f"newer than this obsidian-memory understands ({SCHEMA_VERSION}): upgrade it")

    def quick_check(self) -> None:
        """Every page of the archive read once (PRAGMA quick_check): damage in a part that a
        write would reach only later raises before anything is written."""
        rows = self.db.execute("PRAGMA quick_check").fetchall()
        if [str(row[0]) for row in rows] != ["ok"]:
            raise sqlite3.DatabaseError(f"database disk image is malformed ({'; '.join(str(r[0]) for r in rows[:3])})")

    def _check_tables(self) -> None:
        """A header damaged in just the wrong place leaves SQLite reading an archive with no tables
        and no complaint: that is damage too, and nothing may be written over it."""
        found = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if self.schema_version() < 0:
            raise sqlite3.DatabaseError("database disk image is malformed (a negative schema version)")
        if self.schema_version() and not {"sessions", "prompts", "transcripts"} <= found:
            raise sqlite3.DatabaseError("database disk image is malformed (its tables are missing)")

    def _write(self) -> sqlitedb.transaction:
        if self.readonly:
            raise ArchiveError("the archive was opened read-only")
        return sqlitedb.transaction(self.db)

    # -- writing ------------------------------------------------------------------------
    def upsert_session(self, session, *, note_path: str | None = None) -> str:
        """Insert or update one session (idempotent); returns why the archived record was kept or
        merged instead of taking the transcript's as it is ("" when it was simply taken).

        A transcript that holds less than the archived record never shrinks it (session_merge):
        the record is kept, or both are merged. Summaries stored from PostCompact payloads that
        the transcript does not contain are kept. A `note_path` given here is taken as a note
        that shows this very revision.
        """
        from obsidian_memory.capture.session_merge import KEEP_ARCHIVED, TAKE_TRANSCRIPT, merge

        now = _utc_now()
        with self._write():
            existing = self.db.execute(
                "SELECT transcript_path, transcript_size, note_path, origin FROM sessions WHERE session_id = ?",
                (session.session_id,)).fetchone()
            parsed_path, parsed_size, parsed_mtime = session.transcript_path, session.transcript_size, \
                session.transcript_mtime or 0.0
            learned = bool(existing) and existing[3] == FROM_VAULT
            if learned:   # what a note held gives way to the transcript, as it is
                self.db.execute("DELETE FROM compact_summaries WHERE session_id = ?", (session.session_id,))
            session.origin = OWN
            stored = self.get_session(session.session_id) if existing and not learned else None
            parsed = session
            session, decision, why = merge(stored, parsed)
            if session is not parsed:   # the record kept or merged: the machine and repository are found now
                session.machine, session.repo_id = parsed.machine or session.machine, parsed.repo_id or session.repo_id
            if existing and _is_older_parse(existing, parsed_path, parsed_size):
                why = ""   # no news
            if decision == KEEP_ARCHIVED:
                if parsed_path and parsed_size is not None:
                    self._record_transcript(parsed_path, session.session_id, parsed_size,
                                            parsed_mtime, "kept-richer-record", now)
                return why
            if decision != TAKE_TRANSCRIPT:   # both files are in the record now: neither is read again unchanged
                if parsed_path and parsed_path != session.transcript_path and parsed_size is not None:
                    self._record_transcript(parsed_path, session.session_id, parsed_size, parsed_mtime, "merged", now)
                self.db.execute("UPDATE transcripts SET status = 'merged' WHERE path = ? AND path IS NOT ?",
                                (existing[0], session.transcript_path))
            values = _session_values(session)
            if existing:
                assignments = ", ".join(f"{c} = ?" for c in _SESSION_COLUMNS[1:])
                self.db.execute(
                    f"UPDATE sessions SET {assignments}, details = ?, archived_at = ?, "
                    "note_path = COALESCE(?, note_path) WHERE session_id = ?",
                    (*values[1:], _details_json(session), now, note_path, session.session_id))
            else:
                columns = ", ".join(_SESSION_COLUMNS)
                marks = ", ".join("?" for _ in _SESSION_COLUMNS)
                self.db.execute(
                    f"INSERT INTO sessions ({columns}, details, note_path, first_archived_at, archived_at) "
                    f"VALUES ({marks}, ?, ?, ?, ?)",
                    (*values, _details_json(session), note_path, now, now))
            self.db.execute("DELETE FROM prompts WHERE session_id = ?", (session.session_id,))
            self.db.executemany(
                "INSERT INTO prompts (session_id, position, text, timestamp, uuid, answer) VALUES (?, ?, ?, ?, ?, ?)",
                [(session.session_id, i, p.text, p.timestamp, p.uuid, p.answer)
                 for i, p in enumerate(session.prompts)])
            self._replace_summaries(session)
            self._replace_outcomes(session)
            self._refresh_recall_doc(session.session_id)
            self.db.execute(
                "UPDATE sessions SET revision = revision + 1, note_revision = CASE WHEN ? IS NULL "
                "THEN note_revision ELSE revision + 1 END WHERE session_id = ?", (note_path, session.session_id))
            if note_path or (existing and existing[2]):
                self._history_changed()   # a row of the table (only sessions with a note have one)
            if session.transcript_path and session.transcript_size is not None:
                self._record_transcript(session.transcript_path, session.session_id, session.transcript_size,
                                        session.transcript_mtime or 0.0, "archived", now)
        return why

    def _replace_summaries(self, session) -> None:
        stored_extra = [
            row for row in self.db.execute(
                "SELECT text, timestamp, trigger, origin FROM compact_summaries "
                "WHERE session_id = ? AND origin != 'transcript' ORDER BY position", (session.session_id,))
            if not any(_same_summary(row[0], s.text) for s in session.compact_summaries)
        ]
        merged = [(s.text, s.timestamp, s.trigger, s.origin or "transcript") for s in session.compact_summaries]
        merged = _in_time_order(merged + stored_extra)
        self.db.execute("DELETE FROM compact_summaries WHERE session_id = ?", (session.session_id,))
        self.db.executemany(
            "INSERT INTO compact_summaries (session_id, position, text, timestamp, trigger, origin) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(session.session_id, i, *row) for i, row in enumerate(merged)])

    def _replace_outcomes(self, session) -> None:
        self.db.execute("DELETE FROM outcomes WHERE session_id = ?", (session.session_id,))
        self.db.executemany(
            "INSERT INTO outcomes (session_id, kind, position, text, detail) VALUES (?, ?, ?, ?, ?)",
            [(session.session_id, kind, position, text, detail) for kind, position, text, detail in _outcome_rows(session)])

    # -- prompt recall: the terms of each session (issue 17) -------------------------------------
    def has_recall_index(self) -> bool:
        """Whether this archive has the recall index (not when SQLite lacks FTS5)."""
        if getattr(self, "_recall_index", None) is None:
            self._recall_index = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recall_docs'").fetchone() is not None
        return self._recall_index

    def _refresh_recall_doc(self, session_id: str) -> None:
        """The session's recall document, from what the archive holds of it (so that upserts,
        PostCompact summaries and the backfill make the very same document)."""
        if not self.has_recall_index():
            return
        from obsidian_memory.archive.recall_terms import FIELDS, document

        fields = document(self._recall_texts(session_id))
        self.db.execute(
            f"INSERT INTO recall_docs (session_id, {', '.join(FIELDS)}) VALUES (?, ?, ?, ?, ?) "
            f"ON CONFLICT(session_id) DO UPDATE SET {', '.join(f'{f} = excluded.{f}' for f in FIELDS)}",
            (session_id, *(fields[f] for f in FIELDS)))

    def _recall_texts(self, session_id: str) -> dict[str, list[str]]:
        texts: dict[str, list[str]] = {"title": [], "asked": [], "outcome": [], "said": []}
        row = self.db.execute("SELECT title FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        texts["title"] = [row[0]] if row and row[0] else []
        for text, answer in self.db.execute(
                "SELECT text, answer FROM prompts WHERE session_id = ? ORDER BY position", (session_id,)):
            texts["asked"].append(text)
            if answer:
                texts["said"].append(answer)
        texts["said"] += [r[0] for r in self.db.execute(
            "SELECT text FROM compact_summaries WHERE session_id = ? ORDER BY position DESC", (session_id,))]
        for kind, text in self.db.execute(
                "SELECT kind, text FROM outcomes WHERE session_id = ? ORDER BY CASE kind WHEN 'error' THEN 0 "
                "WHEN 'commit' THEN 1 WHEN 'pull_request' THEN 2 WHEN 'todo' THEN 3 WHEN 'plan' THEN 4 ELSE 5 END, "
                "position", (session_id,)):
            texts["said" if kind == "command" else "outcome"].append(text)
        return texts

    def sessions_without_recall_doc(self, limit: int) -> list[str]:
        """Sessions the recall index lacks (archived before it existed), newest first."""
        if not self.has_recall_index():
            return []
        return [r[0] for r in self.db.execute(
            "SELECT session_id FROM sessions WHERE session_id NOT IN (SELECT session_id FROM recall_docs) "
            "ORDER BY started_at DESC LIMIT ?", (int(limit),))]

    def index_for_recall(self, session_ids) -> None:
        with self._write():
            for session_id in session_ids:
                self._refresh_recall_doc(session_id)

    def recall_size(self) -> int:
        """How many sessions the recall index holds."""
        if not self.has_recall_index():
            return 0
        return int(self.db.execute("SELECT COUNT(*) FROM recall_docs").fetchone()[0])

    def recall_document_counts(self, terms) -> dict[str, int]:
        """term -> how many sessions hold it (in any field)."""
        terms = list(dict.fromkeys(terms))
        if not terms or not self.has_recall_index():
            return {}
        marks = ", ".join("?" for _ in terms)
        return {term: int(doc) for term, doc in self.db.execute(
            f"SELECT term, doc FROM recall_vocab WHERE term IN ({marks})", terms)}

    def recall_postings(self, terms) -> dict[str, list[int]]:
        """term -> ids of the recall documents holding it (in any field)."""
        if not self.has_recall_index():
            return {}
        return {term: [r[0] for r in self.db.execute("SELECT rowid FROM recall_fts WHERE recall_fts MATCH ?",
                                                      (f'"{term}"',))]
                for term in dict.fromkeys(terms)}

    def recall_documents(self, doc_ids) -> list[dict]:
        """The recall documents with what a reader needs of their session."""
        doc_ids = list(doc_ids)
        if not doc_ids:
            return []
        names = ("doc_id", "session_id", "title_terms", "asked", "outcome", "said", "title", "project", "cwd",
                 "repo_root", "started_at", "note_path", "machine", "repo_id", "origin")
        marks = ", ".join("?" for _ in doc_ids)
        return [dict(zip(names, row)) for row in self.db.execute(
            f"SELECT d.doc_id, d.session_id, d.title, d.asked, d.outcome, d.said, s.title, s.project, s.cwd, "
            f"s.repo_root, s.started_at, s.note_path, s.machine, s.repo_id, s.origin FROM recall_docs d "
            f"JOIN sessions s USING (session_id) WHERE d.doc_id IN ({marks})", doc_ids)]

    def recall_evidence(self, session_id: str) -> list[tuple[str, str]]:
        """(kind, text) of the lines that can say why a session matched: its errors, commits,
        pull requests, tasks, then its prompts."""
        rows = [(k, t) for k, t in self.db.execute(
            "SELECT kind, text FROM outcomes WHERE session_id = ? AND kind IN ('error', 'commit', 'pull_request', "
            "'todo') ORDER BY CASE kind WHEN 'error' THEN 0 WHEN 'commit' THEN 1 WHEN 'pull_request' THEN 2 ELSE 3 END, "
            "position LIMIT 200", (session_id,))]
        rows += [("prompt", t) for (t,) in self.db.execute(
            "SELECT text FROM prompts WHERE session_id = ? ORDER BY position LIMIT 50", (session_id,))]
        return rows

    def add_compact_summary(self, session_id: str, text: str, *, trigger: str | None = None,
                            timestamp: str | None = None) -> None:
        """Store a PostCompact `compact_summary` (unless the session already has that summary)."""
        if not text or not text.strip():
            return
        now = _utc_now()
        with self._write():
            self.db.execute(
                "INSERT OR IGNORE INTO sessions (session_id, first_archived_at, archived_at) VALUES (?, ?, ?)",
                (session_id, now, now))
            rows = self.db.execute(
                "SELECT text, timestamp, trigger, origin FROM compact_summaries WHERE session_id = ? "
                "ORDER BY position", (session_id,)).fetchall()
            if any(_same_summary(row[0], text) for row in rows):
                return
            merged = _in_time_order(rows + [(text, timestamp or now, trigger, "post_compact")])
            self.db.execute("DELETE FROM compact_summaries WHERE session_id = ?", (session_id,))
            self.db.executemany(
                "INSERT INTO compact_summaries (session_id, position, text, timestamp, trigger, origin) "
                "VALUES (?, ?, ?, ?, ?, ?)", [(session_id, i, *row) for i, row in enumerate(merged)])
            self.db.execute("UPDATE sessions SET archived_at = ?, revision = revision + 1 WHERE session_id = ?",
                            (now, session_id))
            self._refresh_recall_doc(session_id)

    def record_note(self, session_id: str, note_path: str, revision: int) -> None:
        """The session's note was written at `note_path` from the session at `revision`."""
        with self._write():
            if self.note_path(session_id) != note_path:
                self._history_changed()
            self.db.execute("UPDATE sessions SET note_path = ?, note_revision = MAX(note_revision, ?) "
                            "WHERE session_id = ?", (note_path, int(revision), session_id))

    def record_history_rendered(self, changes: int, privacy_rules: str | None = None) -> None:
        """The history table was rendered from the archive as it was after `changes` changes (and
        under the private rules `privacy_rules`, privacy.Privacy.signature)."""
        with self._write():
            self.db.execute("UPDATE counters SET value = MAX(value, ?) WHERE name = 'history_rendered'",
                            (int(changes),))
            if privacy_rules is not None:
                self._set_meta("history_privacy", privacy_rules)

    def _history_changed(self) -> None:
        self.db.execute("UPDATE counters SET value = value + 1 WHERE name = 'history_changes'")

    def record_transcript(self, path: str, size: int, mtime: float, *, status: str,
                          session_id: str | None = None) -> None:
        """Remember a transcript that was looked at but not archived (e.g. no prompt), so that
        import and sweep do not parse it again until it changes."""
        with self._write():
            self._record_transcript(path, session_id, size, mtime, status, _utc_now())

    def _record_transcript(self, path, session_id, size, mtime, status, now) -> None:
        self.db.execute(
            "INSERT INTO transcripts (path, session_id, size, mtime, status, seen_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET session_id = excluded.session_id, size = excluded.size, "
            "mtime = excluded.mtime, status = excluded.status, seen_at = excluded.seen_at",
            (path, session_id, int(size), float(mtime), status, now))

    # -- many machines (issue 16) -------------------------------------------------------
    def record_learned(self, learned: list[tuple], paths: list[str]) -> int:
        """In one transaction: record other machines' sessions, each `(session, note_path)` as its
        note holds it (the note is that session's truth here: it replaces what was learned
        before; this machine's own sessions are never replaced), and mark the notes at `paths`
        learned. Returns how many sessions were recorded."""
        now = _utc_now()
        recorded = 0
        with self._write():
            for session, note_path in learned:
                recorded += self._upsert_from_vault(session, note_path, now)
            self.db.executemany("UPDATE vault_notes SET learned = 1 WHERE path = ?", [(p,) for p in paths])
        return recorded

    def _upsert_from_vault(self, session, note_path: str, now: str) -> bool:
        session.origin = FROM_VAULT
        row = self.db.execute("SELECT origin FROM sessions WHERE session_id = ?", (session.session_id,)).fetchone()
        if row and row[0] != FROM_VAULT:
            return False
        values = _session_values(session)
        columns = ", ".join(_SESSION_COLUMNS)
        marks = ", ".join("?" for _ in _SESSION_COLUMNS)
        self.db.execute(
            f"INSERT INTO sessions ({columns}, details, note_path, first_archived_at, archived_at) "
            f"VALUES ({marks}, ?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
            + ", ".join(f"{c} = excluded.{c}" for c in _SESSION_COLUMNS[1:])
            + ", details = excluded.details, note_path = excluded.note_path, archived_at = excluded.archived_at",
            (*values, _details_json(session), note_path, now, now))
        self.db.execute("DELETE FROM prompts WHERE session_id = ?", (session.session_id,))
        self.db.executemany(
            "INSERT INTO prompts (session_id, position, text, timestamp, uuid, answer) VALUES (?, ?, ?, ?, ?, ?)",
            [(session.session_id, i, p.text, p.timestamp, p.uuid, p.answer) for i, p in enumerate(session.prompts)])
        self.db.execute("DELETE FROM compact_summaries WHERE session_id = ?", (session.session_id,))
        self.db.executemany(
            "INSERT INTO compact_summaries (session_id, position, text, timestamp, trigger, origin) "
            "VALUES (?, ?, ?, ?, ?, 'note')",
            [(session.session_id, i, c.text, c.timestamp, c.trigger) for i, c in enumerate(session.compact_summaries)])
        self._replace_outcomes(session)
        self._refresh_recall_doc(session.session_id)
        # its note shows it as it is: never due to be written here
        self.db.execute("UPDATE sessions SET revision = revision + 1, note_revision = revision + 1 "
                        "WHERE session_id = ?", (session.session_id,))
        return True

    def claim_own_sessions(self, machine: str) -> int:
        """This machine's own sessions carry its id `machine` (those archived before it had one,
        or under an id the user changed since: their notes are written again). Returns how many
        sessions changed hands; cheap when none did."""
        if self.meta("machine") == machine:
            return 0
        with self._write():
            former = self.meta("machine")
            changed = self.db.execute(
                "UPDATE sessions SET machine = ?, revision = revision + 1 "
                "WHERE origin = 'transcript' AND machine IS NOT ?", (machine, machine)).rowcount
            self._set_meta("machine", machine)
            if former:
                formers = set(self.former_machines()) | {former}
                formers.discard(machine)
                self._set_meta("former_machines", json.dumps(sorted(formers)))
        return changed

    def former_machines(self) -> list[str]:
        """Ids this machine had before the current one (its notes may still show them)."""
        value = _loads_list(self.meta("former_machines"))
        return [v for v in value if isinstance(v, str)]

    def meta(self, name: str) -> str | None:
        return sqlitedb.meta(self.db, name)

    def _set_meta(self, name: str, value: str) -> None:
        sqlitedb.set_meta(self.db, name, value)

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

    def machines(self) -> list[dict]:
        """Each machine whose sessions the archive holds: {machine, sessions, last_started}
        (machine None: sessions from notes that do not say), most recent first."""
        return [{"machine": m, "sessions": n, "last_started": last} for m, n, last in self.db.execute(
            "SELECT machine, COUNT(*), MAX(started_at) FROM sessions GROUP BY machine ORDER BY MAX(started_at) DESC")]

    # -- the vault's notes as last read (notes/vault_sessions) -------------------------------
    VAULT_NOTE_FIELDS = ("path", "size", "mtime", "kind", "session_id", "machine", "started", "project", "title",
                         "commits", "mtime_ns", "ctime_ns", "private", "learned")

    def vault_notes(self, root: str, *, unlearned_sessions: bool = False) -> list[dict]:
        """The Markdown files of the vault at `root` as last read ([] when the record describes
        another vault: then every note is read again); with `unlearned_sessions`, only the notes
        of the sessions that have a note not learned since it changed."""
        if self.meta("vault_notes_root") != root:
            return []
        where = ("WHERE kind = 'session' AND session_id IN (SELECT session_id FROM vault_notes "
                 "WHERE kind = 'session' AND learned = 0)") if unlearned_sessions else ""
        return [dict(zip(self.VAULT_NOTE_FIELDS, row)) for row in self.db.execute(
            f"SELECT {', '.join(self.VAULT_NOTE_FIELDS)} FROM vault_notes {where} ORDER BY path")]

    def vault_note_stamps(self, root: str, privacy_rules: str, paths=None) -> dict[str, tuple[tuple, str, str]]:
        """{path: ((size, mtime_ns, ctime_ns), kind, started)} of the files of the vault at `root` as last
        read (of `paths` only, if given). A session note (or conflict copy) not judged private or not
        under the text rules `privacy_rules` (privacy.Privacy.text_rules) has no stamp: it is to
        be read again."""
        if self.meta("vault_notes_privacy") != privacy_rules:
            with self._write():
                self.db.execute("UPDATE vault_notes SET private = NULL WHERE private IS NOT NULL")
                self._set_meta("vault_notes_privacy", privacy_rules)
        if self.meta("vault_notes_root") != root:
            return {}
        query = "SELECT path, size, mtime_ns, ctime_ns, kind, private, started FROM vault_notes"
        rows = self.db.execute(query) if paths is None else (
            row for path in paths for row in self.db.execute(query + " WHERE path = ?", (path,)))
        return {path: ((size, mtime_ns, ctime_ns) if kind == "other" or private is not None else None, kind, started)
                for path, size, mtime_ns, ctime_ns, kind, private, started in rows}

    def cached_privacy(self, root: str, privacy_rules: str, paths) -> dict[str, tuple[tuple, bool]]:
        """{path: ((size, mtime_ns, ctime_ns), private)} of those of `paths` whose text was last
        judged under the text rules `privacy_rules` (privacy.Privacy.text_rules) in the record of
        the vault at `root`; a path not judged, or judged under other rules, is left out (read
        only: SessionStart's check of the sessions it lists)."""
        if self.meta("vault_notes_root") != root or self.meta("vault_notes_privacy") != privacy_rules:
            return {}
        paths = list(dict.fromkeys(paths))[:500]
        return {path: ((size, mtime_ns, ctime_ns), bool(private)) for path, size, mtime_ns, ctime_ns, private
                in self.db.execute("SELECT path, size, mtime_ns, ctime_ns, private FROM vault_notes WHERE path IN "
                                   f"({', '.join('?' for _ in paths)}) AND private IS NOT NULL", paths)}

    def update_vault_notes(self, root: str, read: list[dict], gone: list[str], months=()) -> None:
        """Record the notes just `read` (dicts of VAULT_NOTE_FIELDS but `learned`) and forget the
        paths that are `gone`. A note whose stamp changed is to be learned again (one read again
        with the same stamp, e.g. to judge its privacy under new rules, is not). `months`: those
        whose session notes came, went or changed, kept until their month notes are written
        (months_written), whichever run noticed the change."""
        with self._write():
            if months:
                self._set_meta(MONTHS_TO_WRITE, json.dumps(sorted(self.months_to_write() | set(months))))
            if self.meta("vault_notes_root") != root:
                self.db.execute("DELETE FROM vault_notes")
                self._set_meta("vault_notes_root", root)
            self.db.executemany("DELETE FROM vault_notes WHERE path = ?", [(p,) for p in gone])
            fields = self.VAULT_NOTE_FIELDS[:-1]
            same_stamp = " AND ".join(f"vault_notes.{f} IS excluded.{f}" for f in ("size", "mtime_ns", "ctime_ns"))
            self.db.executemany(
                f"INSERT INTO vault_notes ({', '.join(fields)}, learned) VALUES ({', '.join('?' for _ in fields)}, 0) "
                "ON CONFLICT(path) DO UPDATE SET " + ", ".join(f"{f} = excluded.{f}" for f in fields[1:])
                + f", learned = CASE WHEN {same_stamp} THEN learned ELSE 0 END",
                [tuple(note.get(f) for f in fields) for note in read])

    def months_to_write(self) -> set[str]:
        """The months (`YYYY-MM`; '' for notes without a start) whose month note is to be written
        again (update_vault_notes)."""
        return set(json.loads(self.meta(MONTHS_TO_WRITE) or "[]"))

    def months_written(self, months) -> None:
        with self._write():
            self._set_meta(MONTHS_TO_WRITE, json.dumps(sorted(self.months_to_write() - set(months))))

    def vault_notes_of_sessions(self, root: str, session_ids) -> list[dict]:
        """The session notes (conflict copies aside) of the vault at `root` that hold one of
        `session_ids`, as last read."""
        if self.meta("vault_notes_root") != root:
            return []
        ids, rows = list(dict.fromkeys(session_ids)), []
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows += [dict(zip(self.VAULT_NOTE_FIELDS, row)) for row in self.db.execute(
                f"SELECT {', '.join(self.VAULT_NOTE_FIELDS)} FROM vault_notes WHERE kind = 'session' "
                f"AND session_id IN ({', '.join('?' for _ in chunk)})", chunk)]
        return rows

    def vault_session_ids(self, root: str, *, month: str | None = None, since: str | None = None,
                          limit: int | None = None, offset: int = 0) -> list[tuple[str, str | None]]:
        """(session id, started) of the session notes of the vault at `root`, newest first: of the
        `month` (`YYYY-MM`; '' for the notes without a start), or started at `since` or later, or
        the `limit` newest from `offset`. Served by vault_notes_by_start."""
        if self.meta("vault_notes_root") != root:
            return []
        where, params = ["kind = 'session'"], []
        if month == "":
            where.append("started IS NULL")
        elif month is not None:
            where.append("started >= ? AND started < ?")
            params += [month, month + "~"]      # every `YYYY-MM-...` of the month sorts between these
        if since is not None:
            where.append("started >= ?")
            params.append(since)
        page = " LIMIT ? OFFSET ?" if limit is not None else ""
        params += [int(limit), int(offset)] if limit is not None else []
        return [(row[0], row[1]) for row in self.db.execute(
            f"SELECT session_id, started FROM vault_notes WHERE {' AND '.join(where)} "
            f"ORDER BY started DESC, session_id DESC{page}", params)]

    def vault_note_months(self, root: str) -> list[str]:
        """The months (`YYYY-MM`, newest first; '' last for notes without a start) of the session
        notes of the vault at `root`: one index look-up per month."""
        if self.meta("vault_notes_root") != root:
            return []
        months, before = [], None
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

    def set_meta(self, name: str, value: str) -> None:
        with self._write():
            self._set_meta(name, value)

    def vault_note_paths(self, root: str, session_id: str) -> list[str]:
        """The notes of the vault at `root` that hold `session_id`, as last read (conflict copies
        aside)."""
        if self.meta("vault_notes_root") != root:
            return []
        return [r[0] for r in self.db.execute(
            "SELECT path FROM vault_notes WHERE session_id = ? AND kind = 'session' ORDER BY path", (session_id,))]

    def own_session_ids(self, session_ids: list[str]) -> set[str]:
        """Those of `session_ids` that are this machine's own sessions."""
        return self._session_ids_among(session_ids, "origin = 'transcript' AND ")

    def held_session_ids(self, session_ids: list[str]) -> set[str]:
        """Those of `session_ids` that the archive holds (with a prompt or a start)."""
        return self._session_ids_among(session_ids, "(prompt_count > 0 OR started_at IS NOT NULL) AND ")

    def provenance_of(self, session_ids: list[str]) -> dict[str, tuple[str, dict]]:
        """{session id: (origin, {tool name: uses} of its main conversation)} of those of
        `session_ids` the archive holds (session_text decides from them what may be shown)."""
        found: dict[str, tuple[str, dict]] = {}
        for start in range(0, len(session_ids), 500):
            chunk = session_ids[start:start + 500]
            for session_id, origin, details in self.db.execute(
                    f"SELECT session_id, origin, details FROM sessions "
                    f"WHERE session_id IN ({', '.join('?' for _ in chunk)})", chunk):
                tools = _loads(details).get("tools")
                found[session_id] = (origin, tools if isinstance(tools, dict) else {})
        return found

    def _session_ids_among(self, session_ids: list[str], condition: str) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(session_ids), 500):
            chunk = session_ids[start:start + 500]
            found.update(r[0] for r in self.db.execute(
                f"SELECT session_id FROM sessions WHERE {condition}session_id IN ({', '.join('?' for _ in chunk)})",
                chunk))
        return found

    # -- reading ------------------------------------------------------------------------
    def get_session(self, session_id: str):
        """The archived session as a model.Session, or None."""
        row = self.db.execute(
            f"SELECT {', '.join(_SESSION_COLUMNS)}, details FROM sessions WHERE session_id = ?",
            (session_id,)).fetchone()
        if row is None:
            return None
        from obsidian_memory.capture.model import CompactSummary, Prompt, Session, Subagent

        data = dict(zip(_SESSION_COLUMNS, row))
        data.pop("prompt_count")  # derived from the prompts
        details = _loads(row[-1])
        session = Session(**data)
        for name in _DETAIL_FIELDS:
            if name in details:
                setattr(session, name, details[name])
        session.subagents = [Subagent(**s) for s in details.get("subagents") or []]
        session.prompts = [Prompt(*row) for row in self.db.execute(
            "SELECT text, timestamp, uuid, answer FROM prompts WHERE session_id = ? ORDER BY position", (session_id,))]
        _read_outcomes(session, self.db.execute(
            "SELECT kind, text, detail FROM outcomes WHERE session_id = ? ORDER BY kind, position", (session_id,)))
        session.compact_summaries = [CompactSummary(*r) for r in self.db.execute(
            "SELECT text, timestamp, trigger, origin FROM compact_summaries WHERE session_id = ? "
            "ORDER BY position", (session_id,))]
        return session

    def note_path(self, session_id: str) -> str | None:
        row = self.db.execute("SELECT note_path FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return row[0] if row else None

    def revision(self, session_id: str) -> int:
        """How many times the session was changed: read before the session, to record with its note."""
        row = self.db.execute("SELECT revision FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return int(row[0]) if row else 0

    def note_outdated(self, session_id: str) -> bool:
        row = self.db.execute("SELECT note_revision < revision FROM sessions WHERE session_id = ?",
                              (session_id,)).fetchone()
        return bool(row and row[0])

    def history_changes(self) -> int:
        """The change count the history rows reflect: read before them, to record once rendered."""
        return self._counter("history_changes")

    def history_outdated(self, privacy_rules: str | None = None) -> bool:
        """Whether the archive changed since the history table was rendered, or (given the
        present `privacy_rules`) the private rules did since it was rendered under other ones."""
        if self._counter("history_rendered") < self._counter("history_changes"):
            return True
        rendered_under = self.meta("history_privacy") if privacy_rules is not None else None
        return rendered_under is not None and rendered_under != privacy_rules

    def _counter(self, name: str) -> int:
        row = self.db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return int(row[0]) if row else 0

    def counter(self, name: str) -> int:
        """A named count kept with the archive (0 when never set), e.g. that a file was written once."""
        return self._counter(name)

    def set_counter(self, name: str, value: int) -> None:
        with self._write():
            self.db.execute("INSERT INTO counters (name, value) VALUES (?, ?) "
                            "ON CONFLICT(name) DO UPDATE SET value = excluded.value", (name, int(value)))

    def where_it_stopped(self, session_id: str, *, answer_chars: int = 2000) -> dict:
        """The start of the session's last answer and its todo items that are not done, for the
        SessionStart context: {"last_answer": str | None, "open_todos": [(text, status), ...]}."""
        row = self.db.execute("SELECT substr(last_assistant_message, 1, ?) FROM sessions WHERE session_id = ?",
                              (int(answer_chars), session_id)).fetchone()
        todos = []
        for text, detail in self.db.execute(
                "SELECT text, detail FROM outcomes WHERE session_id = ? AND kind = 'todo' ORDER BY position",
                (session_id,)):
            status = str(_loads(detail).get("status") or "pending")
            if status != "completed":
                todos.append((text, status))
        return {"last_answer": row[0] if row else None, "open_todos": todos}

    def find_sessions(self, prefix: str) -> list[str]:
        """Ids of the archived sessions whose id starts with `prefix` (sorted)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return [r[0] for r in self.db.execute(
            "SELECT session_id FROM sessions WHERE session_id LIKE ? ESCAPE '\\' ORDER BY session_id",
            (escaped + "%",))]

    # A transcript recorded as its session's source while the session now names another file was
    # replaced by a shorter copy before records were merged (issue 13.3): it is read again, so
    # that the merge restores what the copy lost.
    _KNOWN_TRANSCRIPTS = ("SELECT t.path, t.size, t.mtime FROM transcripts t "
                          "LEFT JOIN sessions s ON s.session_id = t.session_id "
                          "WHERE NOT (t.status = 'archived' AND s.transcript_path IS NOT NULL "
                          "AND s.transcript_path != t.path)")

    def fingerprint(self, transcript_path: str) -> tuple[int, float] | None:
        row = self.db.execute(self._KNOWN_TRANSCRIPTS + " AND t.path = ?", (transcript_path,)).fetchone()
        return (int(row[1]), float(row[2])) if row else None

    def fingerprints(self) -> dict[str, tuple[int, float]]:
        return {path: (int(size), float(mtime)) for path, size, mtime in self.db.execute(self._KNOWN_TRANSCRIPTS)}

    def count_sessions(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])

    def recent_sessions(self, *, repo_root: str | None = None, repo_id: str | None = None,
                        project: str | None = None, cwd: str | None = None, limit: int = 20,
                        exclude_session_id: str | None = None, machines: "MachineScope | None" = None) -> list[dict]:
        """Newest first (by start). `repo_root` (a folder here) matches this machine's own sessions
        of that repository, `repo_id` every machine's (gitinfo.repo_identity); given both, either
        matches. `cwd` means this machine's sessions started in that folder outside any
        repository; `project` is a name or glob (see _project_scope); `machines` a MachineScope.
        Served by the (repo_root|repo_id|project|cwd, started_at) indexes: given both a folder and
        an identity, each picks its newest `limit` sessions by its own index and the newest of
        those are kept (one query with OR would sort every session of the repository)."""
        where, params = [], []
        places = []
        if repo_root is not None:
            places.append(("repo_root = ? AND origin = 'transcript'", [repo_root]))
        if repo_id is not None:
            places.append(("repo_id = ?", [repo_id]))
        if cwd is not None:
            where.append("cwd = ? AND repo_root IS NULL AND origin = 'transcript'")
            params.append(cwd)
        for condition, values in (self._project_scope("sessions", project), self._machine_scope("sessions", machines)):
            where += condition
            params += values
        if exclude_session_id:
            where.append("session_id != ?")
            params.append(exclude_session_id)
        columns = (f"SELECT {', '.join(_RECENT_COLUMNS)}, (SELECT text FROM compact_summaries c "
                   "WHERE c.session_id = sessions.session_id ORDER BY position DESC LIMIT 1) FROM sessions ")
        if len(places) > 1:
            branches = " UNION ".join(
                "SELECT session_id FROM (SELECT session_id FROM sessions WHERE "
                + " AND ".join([place, *where]) + " ORDER BY started_at DESC LIMIT ?)" for place, _ in places)
            values = [v for place_values in ([*pv, *params, int(limit)] for _, pv in places) for v in place_values]
            rows = self.db.execute(columns + f"WHERE session_id IN ({branches}) ORDER BY started_at DESC LIMIT ?",
                                   (*values, int(limit))).fetchall()
        else:
            for place, place_values in places:
                where.insert(0, place)
                params[:0] = place_values
            clause = ("WHERE " + " AND ".join(where)) if where else ""
            rows = self.db.execute(columns + f"{clause} ORDER BY started_at DESC LIMIT ?",
                                   (*params, int(limit))).fetchall()
        return [dict(zip(_RECENT_COLUMNS + ("last_compact_summary",), row)) for row in rows]

    def sessions_needing_note(self) -> list[tuple[str, str | None]]:
        """(session id, recorded note path) of the sessions with something to show (a start or a
        prompt) whose note was never written or shows an older revision, oldest first."""
        return [(row[0], row[1]) for row in self.db.execute(
            "SELECT session_id, note_path FROM sessions WHERE (note_path IS NULL OR note_revision < revision) "
            "AND (started_at IS NOT NULL OR prompt_count > 0) AND origin = 'transcript' "
            "ORDER BY started_at, session_id")]

    def history_rows(self) -> list[dict]:
        """Every session that has a note, newest first: what the history table lists."""
        names = ("session_id", "started_at", "project", "title", "note_path")
        return [dict(zip(names, row)) for row in self.db.execute(
            "SELECT session_id, started_at, project, title, note_path FROM sessions "
            "WHERE note_path IS NOT NULL ORDER BY started_at DESC, session_id")]

    def grep_sessions(self, regex, *, project: str | None = None, since_utc: str | None = None,
                      limit: int | None = None, snippet=None, machines: "MachineScope | None" = None) -> list[dict]:
        """Sessions whose title, prompts, answers, compaction summaries or outcome (todos, plan,
        commits, pull requests, commands, errors) `regex.search()` matches, newest first, each with
        the first matching field and `snippet(text)` of it. The caller bounds the regex's cost
        (session_search)."""
        matches = getattr(regex, "matches", None) or (lambda text: regex.search(text) is not None)
        self.db.create_function("om_matches", 1, lambda text: text is not None and matches(text),
                                deterministic=True)
        where, params = self._project_scope("s", project)
        machine_where, machine_params = self._machine_scope("s", machines)
        where, params = where + machine_where, params + machine_params
        if since_utc:
            where.append("s.started_at >= ?")
            params.append(since_utc)
        scope = (" AND " + " AND ".join(where)) if where else ""
        # Field order within one session: title, prompts, answers, summaries, then the outcome
        # (todos, the plan, commits, pull requests, commands, errors), each in order.
        query = f"""
            SELECT s.session_id, s.title, s.project, s.started_at, s.note_path, s.machine, s.origin, m.field, m.text
            FROM sessions s JOIN (
                SELECT session_id, 0 AS rank, 0 AS position, 'title' AS field, title AS text
                  FROM sessions WHERE om_matches(title)
                UNION ALL
                SELECT session_id, 1, position, 'prompt', text FROM prompts WHERE om_matches(text)
                UNION ALL
                SELECT session_id, 2, position, 'answer', answer FROM prompts WHERE om_matches(answer)
                UNION ALL
                SELECT session_id, 3, position, 'summary', text FROM compact_summaries WHERE om_matches(text)
                UNION ALL
                SELECT session_id, CASE kind WHEN 'todo' THEN 4 WHEN 'plan' THEN 5 WHEN 'commit' THEN 6
                       WHEN 'pull_request' THEN 7 WHEN 'command' THEN 8 ELSE 9 END, position, kind, text
                  FROM outcomes WHERE om_matches(text)
            ) m ON m.session_id = s.session_id
            WHERE 1 = 1 {scope}
            ORDER BY s.started_at DESC, s.session_id, m.rank, m.position
        """
        results: list[dict] = []
        seen: set[str] = set()
        for session_id, title, proj, started_at, note_path, machine, origin, field, text in self.db.execute(query, params):
            if session_id in seen:
                continue
            seen.add(session_id)
            results.append({"session_id": session_id, "title": title, "project": proj, "started_at": started_at,
                             "note_path": note_path, "machine": machine, "origin": origin, "field": field,
                             "snippet": snippet(text) if snippet else text[:SNIPPET_CHARS]})
            if limit is not None and len(results) >= limit:
                break
        return results

    def _project_scope(self, alias: str, pattern: str | None) -> tuple[list[str], list]:
        """SQL conditions for `--project PATTERN` (see project_matches), on indexed columns."""
        if pattern is None:
            return [], []
        projects, roots = set(), set()
        for project, repo_root in self.db.execute("SELECT DISTINCT project, repo_root FROM sessions"):
            if project_matches(pattern, project, None):
                projects.add(project)
            if project_matches(pattern, None, repo_root):
                roots.add(repo_root)
        if not projects and not roots:
            return ["0"], []
        conditions = [f"{alias}.{column} IN ({', '.join('?' for _ in values)})"
                      for column, values in (("project", projects), ("repo_root", roots)) if values]
        return [f"({' OR '.join(conditions)})"], [*sorted(projects), *sorted(roots)]


    def _machine_scope(self, alias: str, scope: "MachineScope | None") -> tuple[list[str], list]:
        """SQL conditions for `--machine PATTERN` / `--this-machine` (see MachineScope)."""
        if scope is None:
            return [], []
        if scope.this_machine:
            if scope.current is None:
                return [f"{alias}.origin = 'transcript'"], []
            return [f"({alias}.origin = 'transcript' OR {alias}.machine = ?)"], [scope.current]
        ids = sorted(m for (m,) in self.db.execute("SELECT DISTINCT machine FROM sessions WHERE machine IS NOT NULL")
                     if scope.matches(m))
        conditions = [f"{alias}.machine IN ({', '.join('?' for _ in ids)})"] if ids else []
        if scope.matches(scope.current):   # this machine's sessions archived before it had an id
            conditions.append(f"({alias}.origin = 'transcript' AND {alias}.machine IS NULL)")
        return [f"({' OR '.join(conditions) or '0'})"], ids


class MachineScope:
    """Which machines' sessions a listing covers: those whose id or readable name matches
    `pattern` (a glob), or with `this_machine` this installation's own (`current` is its id)."""

    def __init__(self, *, pattern: str | None = None, this_machine: bool = False, current: str | None = None):
        self.pattern, self.this_machine, self.current = pattern, this_machine, current

    @classmethod
    def of(cls, settings, *, machine: str | None = None, this_machine: bool = False) -> "MachineScope | None":
        """The scope of `--machine PATTERN` / `--this-machine` (None: every machine)."""
        if machine is None and not this_machine:
            return None
        if machine is not None and this_machine:
            raise UserError("--machine and --this-machine exclude each other")
        if machine is not None and not machine.strip():
            raise UserError("--machine needs a machine id or name (`obsidian_memory.py doctor` lists them)")
        from obsidian_memory.core.machine import current
        return cls(pattern=machine, this_machine=this_machine, current=current(settings))

    def as_dict(self) -> dict:
        return {"pattern": self.pattern, "this_machine": self.this_machine, "current": self.current}

    def matches(self, machine: str | None) -> bool:
        from obsidian_memory.core.machine import matches
        return self.pattern is not None and matches(self.pattern, machine)


def project_matches(pattern: str, project: str | None, repo_root: str | None) -> bool:
    """`--project PATTERN`: the session's project, or its repository's name (the main working
    tree's folder, which its worktrees share), matches the glob, case aside; a plain name
    matches itself. So `spotter` finds the sessions of the spotter-gqc worktrees too."""
    import fnmatch

    wanted = pattern.strip().lower()
    names = [project or "", _basename(repo_root) if repo_root else ""]
    return any(name and fnmatch.fnmatchcase(name.lower(), wanted) for name in names)


# -- helpers ----------------------------------------------------------------------------

def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _utc_now() -> str:
    from obsidian_memory.core.clock import utcnow_iso
    return utcnow_iso()


def _session_values(session) -> tuple:
    values = []
    for column in _SESSION_COLUMNS:
        if column == "prompt_count":
            values.append(len(session.prompts))
        else:
            values.append(getattr(session, column))
    return tuple(values)


def _details_json(session) -> str:
    from dataclasses import asdict, is_dataclass

    details = {}
    for name in _DETAIL_FIELDS:
        value = getattr(session, name)
        if name == "subagents":
            value = [asdict(s) if is_dataclass(s) else dict(s) for s in value]
        details[name] = value
    return json.dumps(details, ensure_ascii=False)


# -- outcomes: one row per item, the same for every kind -----------------------------------

def _outcome_rows(session) -> list[tuple]:
    """(kind, position, text, detail JSON) for each outcome item of the session."""
    rows = [("todo", i, t.text, json.dumps({"status": t.status})) for i, t in enumerate(session.todos)]
    if session.plan:
        rows.append(("plan", 0, session.plan, None))
    rows += [("commit", i, c.message, json.dumps({"hash": c.hash})) for i, c in enumerate(session.commits)]
    rows += [("pull_request", i, url, None) for i, url in enumerate(session.pull_requests)]
    rows += [("command", i, c.command, json.dumps({"runs": c.runs, "failures": c.failures}))
             for i, c in enumerate(session.commands)]
    rows += [("error", i, e.text, json.dumps({"tool": e.tool})) for i, e in enumerate(session.errors)]
    return rows


def _read_outcomes(session, rows) -> None:
    from obsidian_memory.capture.model import Command, Commit, Todo, ToolError

    for kind, text, detail in rows:
        extra = _loads(detail)
        if kind == "todo":
            session.todos.append(Todo(text, str(extra.get("status") or "pending")))
        elif kind == "plan":
            session.plan = text
        elif kind == "commit":
            session.commits.append(Commit(text, extra.get("hash")))
        elif kind == "pull_request":
            session.pull_requests.append(text)
        elif kind == "command":
            session.commands.append(Command(text, int(extra.get("runs") or 1), int(extra.get("failures") or 0)))
        elif kind == "error":
            session.errors.append(ToolError(str(extra.get("tool") or "tool"), text))


def _loads(text: str | None) -> dict:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _loads_list(text: str | None) -> list:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _is_older_parse(existing_row, parsed_path, parsed_size) -> bool:
    """Two hooks parsed the same growing file and the one that read less writes last (the file
    itself is still as long as the archived parse: it was not cut short)."""
    stored_path, stored_size = existing_row[0], existing_row[1]
    if not (stored_path is not None and stored_path == parsed_path and stored_size is not None
            and parsed_size is not None and parsed_size < stored_size):
        return False
    try:
        return os.stat(parsed_path).st_size >= stored_size
    except OSError:
        return False



def _basename(path: str) -> str:
    return os.path.basename(os.path.normpath(path.replace("\\", "/")))


def _normalise(text: str) -> str:
    return " ".join(text.split())


_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.S)
_SUMMARY_TAG = re.compile(r"<summary>(.*?)(?:</summary>|\Z)", re.S)


def _summary_core(text: str) -> str:
    """What a summary says, without the `<analysis>` scratch and `<summary>` tags that the
    PostCompact payload carries and the transcript's summary entry does not."""
    text = _ANALYSIS.sub(" ", text)
    match = _SUMMARY_TAG.search(text)
    return _normalise(match.group(1) if match else text)


def _same_summary(a: str, b: str) -> bool:
    """The transcript's summary entry wraps the summary PostCompact reports in a preamble and
    other text, so one summary's core found inside the other counts as the same summary."""
    core_a, core_b = _summary_core(a), _summary_core(b)
    if not core_a or not core_b:
        return core_a == core_b
    return core_a in _normalise(b) or core_b in _normalise(a)


def _in_time_order(rows: list) -> list:
    """Rows (text, timestamp, trigger, origin) by timestamp when every row has one; otherwise in
    the order given (transcript summaries first), since a partial order would be a guess."""
    rows = list(rows)
    if all(row[1] for row in rows):
        rows.sort(key=lambda row: row[1])  # stable
    return rows
