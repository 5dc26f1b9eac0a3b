"""The archive's schema: a registry of named migrations, each recorded by its name once applied.

A migration is appended to MIGRATIONS and never edited (as sqlite-utils and llm keep theirs);
`migrate` applies, in one transaction, those whose names the archive has not recorded. An archive
from before names (its `PRAGMA user_version` n counted the migrations applied) gets the names of
the first n recorded once. `user_version` keeps counting the migrations applied, so that an older
obsidian-memory, which reads only that number, refuses an archive a newer one wrote.

Imports only sqlite3 (and core.sqlitedb) (the SessionStart path opens the archive).
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable

from obsidian_memory.core.sqlitedb import run_script, schema_version, transaction

TABLE = "_migrations"


class Migration:
    """One step of the schema: `apply` runs inside the migrating transaction."""
    __slots__ = ("name", "apply")

    def __init__(self, name: str, apply: Callable[[sqlite3.Connection], None]):
        self.name, self.apply = name, apply

    def __repr__(self) -> str:
        return f"Migration({self.name!r})"


MIGRATIONS: list[Migration] = []


def migration(name: str) -> Callable[[Callable[[sqlite3.Connection], None]], Callable[[sqlite3.Connection], None]]:
    """Register the decorated function as the migration `name` (after those registered before)."""
    def register(function: Callable[[sqlite3.Connection], None]) -> Callable[[sqlite3.Connection], None]:
        if any(known.name == name for known in MIGRATIONS):
            raise ValueError(f"a migration named {name!r} is registered already")
        MIGRATIONS.append(Migration(name, function))
        return function
    return register


def applied(db: sqlite3.Connection, migrations: list[Migration] | None = None) -> list[str]:
    """The names of the migrations the archive at `db` has had, in the order they were applied
    (of an archive from before names: the first `user_version` of `migrations`)."""
    migrations = MIGRATIONS if migrations is None else migrations
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)).fetchone():
        return [row[0] for row in db.execute(f"SELECT name FROM {TABLE} ORDER BY rowid")]
    version = schema_version(db)
    if version > len(migrations):
        return [m.name for m in migrations] + [f"(numbered version {n})" for n in range(len(migrations) + 1,
                                                                                        version + 1)]
    return [m.name for m in migrations[:version]]


def pending(db: sqlite3.Connection, migrations: list[Migration] | None = None) -> list[Migration]:
    migrations = MIGRATIONS if migrations is None else migrations
    done = set(applied(db, migrations))
    return [m for m in migrations if m.name not in done]


def unknown(db: sqlite3.Connection, migrations: list[Migration] | None = None) -> list[str]:
    """Names the archive recorded that `migrations` lacks: a newer obsidian-memory wrote it."""
    migrations = MIGRATIONS if migrations is None else migrations
    known = {m.name for m in migrations}
    return [name for name in applied(db, migrations) if name not in known]


def behind(db: sqlite3.Connection, migrations: list[Migration] | None = None) -> bool:
    """Whether an older obsidian-memory wrote the archive: it lacks migrations, and has none unknown."""
    migrations = MIGRATIONS if migrations is None else migrations
    done = applied(db, migrations)
    known = {m.name for m in migrations}
    return all(name in known for name in done) and len(set(done)) < len(known)


def migrate(db: sqlite3.Connection, migrations: list[Migration] | None = None) -> list[str]:
    """Apply the migrations the archive lacks, in one transaction (none if a newer program wrote
    it: see `unknown`); returns the names applied."""
    migrations = MIGRATIONS if migrations is None else migrations
    if unknown(db, migrations) or not _needs_writing(db, migrations):
        return []
    with transaction(db):
        names = applied(db, migrations)       # again, under the write lock: another writer may have migrated
        todo = [m for m in migrations if m.name not in set(names)]
        if not todo and db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone():
            return []
        run_script(db, f"CREATE TABLE IF NOT EXISTS {TABLE} (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        db.executemany(f"INSERT OR IGNORE INTO {TABLE} (name, applied_at) VALUES (?, '')", [(n,) for n in names])
        for step in todo:
            step.apply(db)
            db.execute(f"INSERT INTO {TABLE} (name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                       (step.name,))
        db.execute(f"PRAGMA user_version = {len(names) + len(todo)}")
    return [step.name for step in todo]


def _needs_writing(db: sqlite3.Connection, migrations: list[Migration]) -> bool:
    """A migration is pending, or the names of an archive from before names are to be recorded."""
    has_table = db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone() is not None
    return not has_table or bool(pending(db, migrations))


# -- the migrations, oldest first: append, never edit ---------------------------------------------

@migration("sessions")
def _sessions(db: sqlite3.Connection) -> None:
    run_script(db, """
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


@migration("sessions-by-cwd")
def _sessions_by_cwd(db: sqlite3.Connection) -> None:
    # SessionStart outside a repository lists the sessions of its folder: by cwd, newest first
    db.execute("CREATE INDEX sessions_by_cwd ON sessions(cwd, started_at DESC)")


@migration("note-revisions")
def _note_revisions(db: sqlite3.Connection) -> None:
    # a writer killed between the archive and the vault leaves a note or the history table behind
    # the archive: each session counts its changes (`revision`) against the count its note shows
    # (`note_revision`), and the counters do the same for the history table, so that the next run
    # finds what is outdated instead of taking the unchanged transcripts' word for it
    run_script(db, """
        ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sessions ADD COLUMN note_revision INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO counters (name, value) VALUES ('history_changes', 0), ('history_rendered', 0);
    """)
    # an archive from before this migration renders its history table once more, to be sure
    db.execute("UPDATE counters SET value = 1 WHERE name = 'history_changes' "
               "AND EXISTS (SELECT 1 FROM sessions WHERE note_path IS NOT NULL)")


@migration("answers-and-outcomes")
def _answers_and_outcomes(db: sqlite3.Connection) -> None:
    # what a session did: each prompt's answer, and the session's outcome as rows of `outcomes`
    # (kind: todo | plan | commit | pull_request | command | error; `text` is what search
    # --sessions matches, `detail` the rest as JSON: a todo's status, a commit's hash, a command's
    # runs and failures, an error's tool)
    run_script(db, """
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
    run_script(db, """
        UPDATE transcripts SET mtime = -1 WHERE status = 'archived';
        UPDATE sessions SET revision = revision + 1 WHERE note_path IS NOT NULL;
        UPDATE counters SET value = value + 1 WHERE name = 'history_changes'
            AND EXISTS (SELECT 1 FROM sessions WHERE note_path IS NOT NULL);
    """)


@migration("recall-index")
def _recall_index(db: sqlite3.Connection) -> None:
    # prompt recall: each session's terms in four fields (recall_terms.document), and a full-text
    # index over them (FTS5, kept in step by triggers; `recall_vocab` gives the number of sessions
    # holding a term). Filled on upsert; sessions archived before are indexed in batches by the
    # sweep and import (RecallTerms.index), not here: a migration runs inside whatever hook opens
    # the archive first, and SessionEnd has 1.5 s. A SQLite without FTS5 gets no index (and
    # prompt recall says so), never a failed migration.
    try:
        db.execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x)")
        db.execute("DROP TABLE temp.fts5_probe")
    except sqlite3.OperationalError:
        return
    run_script(db, """
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
    # triggers hold semicolons: one statement each, not through run_script
    db.execute(f"CREATE TRIGGER recall_docs_insert AFTER INSERT ON recall_docs BEGIN {add} END")
    db.execute(f"CREATE TRIGGER recall_docs_delete AFTER DELETE ON recall_docs BEGIN {remove} END")
    db.execute(f"CREATE TRIGGER recall_docs_update AFTER UPDATE ON recall_docs BEGIN {remove} {add} END")


@migration("machines-and-vault-notes")
def _machines_and_vault_notes(db: sqlite3.Connection) -> None:
    # one vault, many machines. `machine`: the machine that owns the session's transcript (NULL:
    # this machine, archived before machines had ids); `repo_id`: the repository's identity on
    # every machine (gitinfo.repo_identity; filled for older sessions by the next import or
    # sweep); `origin`: 'transcript' (this machine's own session, whose note it writes) or 'vault'
    # (another machine's, learned from its note, never written here). `vault_notes` remembers each
    # Markdown file of the vault as last read (size, mtime) and what it holds, so that the history
    # table and the sweep read only the notes that changed; `meta` holds this archive's machine id
    # and the vault the record describes.
    run_script(db, """
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


@migration("vault-note-stamps")
def _vault_note_stamps(db: sqlite3.Connection) -> None:
    # each vault note is known by its full stamp (size, mtime_ns, ctime_ns: as the index stamps
    # notes; an edit that keeps size and mtime, as a sync tool restoring mtime does, still moves
    # ctime), and each session note (or conflict copy) by whether its text makes it private
    # (`private`: 1 or 0; NULL when not judged yet, or judged under other text rules: meta
    # `vault_notes_privacy`), so that the history table re-reads only the notes that changed. Rows
    # of older versions have no stamp: read once again. `sessions_with_repo_id`: SessionStart's
    # look-up of a repository's last known identity (Machines.known_repo_id) reads one index entry
    # instead of every session of that repository.
    run_script(db, """
        ALTER TABLE vault_notes ADD COLUMN mtime_ns INTEGER;
        ALTER TABLE vault_notes ADD COLUMN ctime_ns INTEGER;
        ALTER TABLE vault_notes ADD COLUMN private INTEGER;
        CREATE INDEX sessions_with_repo_id ON sessions(repo_root, started_at DESC)
            WHERE repo_id IS NOT NULL AND origin = 'transcript';
    """)


@migration("vault-notes-by-start")
def _vault_notes_by_start(db: sqlite3.Connection) -> None:
    # the newest session notes, those of a month and those of the last weeks are found by their
    # `started` property through this index, so that an archive run reads the records of the
    # notes it shows, not of every note of the vault
    db.execute("CREATE INDEX vault_notes_by_start ON vault_notes(kind, started)")


@migration("note-written")
def _note_written(db: sqlite3.Connection) -> None:
    # what we wrote last as each session's note (notes.sessions.Written, compressed): how a note
    # is shown to be ours before it is rewritten (docs/vault-writes.md). Notes of earlier
    # versions have none: rendered again, they get their markers and a record.
    db.execute("ALTER TABLE sessions ADD COLUMN note_written BLOB")
    db.execute("UPDATE sessions SET revision = revision + 1 WHERE note_path IS NOT NULL AND origin = 'transcript'")


@migration("session-notes-carry-instants")
def _session_notes_carry_instants(db: sqlite3.Connection) -> None:
    # a session note says the instants it ran (`started_utc`, `ended_utc` beside the wall-clock
    # `started`, `ended`), so that every machine reads it back in any time zone: this machine's own
    # notes are rendered again to carry them
    db.execute("UPDATE sessions SET revision = revision + 1 WHERE note_path IS NOT NULL AND origin = 'transcript'")


@migration("recall-vectors")
def _recall_vectors(db: sqlite3.Connection) -> None:
    # prompt recall with the semantic extra: each session's vector (RecallVectors), made off the
    # prompt hook's path (the sweep, `embed --sessions`) by the model `model`, from the session
    # as it was archived at `archived_at` (a session archived again is embedded again). Empty
    # without the extra.
    run_script(db, """
        CREATE TABLE recall_vectors (
            session_id TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            archived_at TEXT NOT NULL,
            vector BLOB NOT NULL
        );
    """)


@migration("redaction-rules")
def _redaction_rules(db: sqlite3.Connection) -> None:
    # the redaction rules each session's stored text was redacted under (archive/redaction.py): a
    # session stored under other rules (redaction turned on, a new pattern) is redacted again whole.
    # Sessions archived before have no row: under rules unknown, redacted again once.
    run_script(db, """
        CREATE TABLE redaction (
            session_id TEXT PRIMARY KEY,
            rules TEXT NOT NULL
        ) WITHOUT ROWID;
    """)
