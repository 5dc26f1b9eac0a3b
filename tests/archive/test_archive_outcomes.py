"""The archive keeps what a session did: answers and outcome rows survive a round trip,
`search --sessions` finds them, and migration 4 brings an older archive to re-archive its sessions."""
from __future__ import annotations

import sqlite3

import pytest
from testkit import FIXTURES

from obsidian_memory import archive as archive_module
from obsidian_memory.archive import schema as archive_schema
from obsidian_memory.capture import redact, transcript
from obsidian_memory.search import session_search
from obsidian_memory.archive import open_archive

CRAFTED = FIXTURES / "transcripts" / "outcomes.jsonl"
OUTCOME_FIELDS = ("todos", "plan", "commits", "pull_requests", "commands", "errors")


@pytest.fixture
def db(tmp_path):
    with open_archive(str(tmp_path / "archive.db")) as archive:
        yield archive


@pytest.fixture(scope="module")
def crafted():
    return redact.redact_session(transcript.parse(str(CRAFTED)))


def test_answers_and_the_outcome_come_back_as_they_went_in(db, crafted):
    db.sessions.upsert(crafted)
    back = db.sessions.get(crafted.session_id)
    assert [(p.text, p.answer) for p in back.prompts] == [(p.text, p.answer) for p in crafted.prompts]
    for name in OUTCOME_FIELDS:
        assert getattr(back, name) == getattr(crafted, name), name
    assert back.plan and back.commits and back.todos and back.errors   # the fixture has each part


def test_archiving_again_replaces_the_outcome(db, crafted):
    db.sessions.upsert(crafted)
    import copy
    fewer = copy.copy(crafted)
    fewer.commands, fewer.plan, fewer.todos = fewer.commands[:1], None, []
    db.sessions.upsert(fewer)
    back = db.sessions.get(crafted.session_id)
    assert back.commands == crafted.commands[:1] and back.plan is None and back.todos == []


def test_secrets_in_commands_are_redacted_before_the_archive(crafted):
    curl = next(c.command for c in crafted.commands if c.command.startswith("curl"))
    assert "sk-ant-api03" not in curl and "[REDACTED" in curl


@pytest.mark.parametrize("pattern, field", [
    ("quoted fields now", "answer"),
    ("skipinitialspace", "commit"),
    (r"gh pr create", "command"),
    ("Could not resolve host", "error"),
    ("Test quoted and empty", "todo"),
    ("Parse rows with the csv module", "plan"),
    ("acme/importer/pull/42", "answer"),
])
def test_search_sessions_covers_answers_commits_commands_errors_todos_plan(db, crafted, pattern, field):
    db.sessions.upsert(crafted)
    [hit] = session_search.grep_sessions(db.path, pattern)
    assert hit.session_id == crafted.session_id and hit.field == field


def _version_3_archive(path: str, transcript_path: str) -> None:
    """What obsidian-memory wrote before migration 4: one session with a note, its transcript
    fingerprinted as archived, another session whose transcript is gone."""
    raw = sqlite3.connect(path, isolation_level=None)
    for migration in archive_schema.MIGRATIONS[:3]:   # numbered, as before names
        migration.apply(raw)
    raw.execute("PRAGMA user_version = 3")
    for sid, note in (("s-alive", "Meta/claude-sessions/2026-05/a.md"), ("s-gone", "Meta/claude-sessions/2026-05/b.md")):
        raw.execute("INSERT INTO sessions (session_id, started_at, note_path, prompt_count, revision, note_revision, "
                    "first_archived_at, archived_at) VALUES (?, '2026-05-11T10:00:00.000Z', ?, 1, 1, 1, 'x', 'x')",
                    (sid, note))
        raw.execute("INSERT INTO prompts (session_id, position, text) VALUES (?, 0, 'a prompt')", (sid,))
    raw.execute("INSERT INTO transcripts (path, session_id, size, mtime, status, seen_at) "
                "VALUES (?, 's-alive', 100, 1700000000.0, 'archived', 'x')", (transcript_path,))
    raw.execute("UPDATE counters SET value = 3 WHERE name IN ('history_changes', 'history_rendered')")
    raw.close()


def test_migration_4_makes_every_transcript_and_note_due_again(tmp_path):
    path = str(tmp_path / "v3.db")
    _version_3_archive(path, "/t/alive.jsonl")
    with open_archive(path) as archive:
        assert archive.schema_version() == archive_module.SCHEMA_VERSION >= 4
        assert archive.transcripts.fingerprint("/t/alive.jsonl") != (100, 1700000000.0)   # parsed again by import/sweep
        assert sorted(s for s, _ in archive.sessions.needing_note()) == ["s-alive", "s-gone"]
        assert archive.history.outdated()
        session = archive.sessions.get("s-gone")   # no outcome yet: empty parts, no error
        assert [p.answer for p in session.prompts] == [None] and session.commits == [] and session.plan is None


def test_a_new_archive_needs_nothing_rendered(db):
    assert not db.history.outdated() and db.sessions.needing_note() == []


OLD_NOTE = """---
title: "Plan and build the CSV importer in importer.py"
session_id: "{session_id}"
started: "2026-05-11T10:00:00"
tags: [claude-session]
---
# Plan and build the CSV importer in importer.py

## Prompts

```text
Plan and build the CSV importer in importer.py
```

## My notes

The importer must also read TSV. (mine)
"""


def test_import_after_the_upgrade_fills_the_new_parts_and_keeps_the_users_sections(env):
    """An archive and notes written before migration 4; `import` re-archives the session whose
    transcript still exists (its outcome appears) and renders again the one whose transcript is
    gone (typed properties); both notes keep what the user wrote."""
    transcript_path = env.config_dir / "projects" / "-home-dev-importer" / CRAFTED.name
    transcript_path.parent.mkdir(parents=True)
    transcript_path.write_bytes(CRAFTED.read_bytes())
    stat = transcript_path.stat()
    _version_3_archive(str(env.archive_db), str(transcript_path))
    raw = sqlite3.connect(env.archive_db, isolation_level=None)
    crafted_id = transcript.parse(str(CRAFTED)).session_id
    raw.execute("UPDATE sessions SET session_id = ? WHERE session_id = 's-alive'", (crafted_id,))
    raw.execute("UPDATE prompts SET session_id = ? WHERE session_id = 's-alive'", (crafted_id,))
    raw.execute("UPDATE transcripts SET session_id = ?, size = ?, mtime = ?", (crafted_id, stat.st_size, stat.st_mtime))
    raw.close()
    for name, sid in (("a.md", crafted_id), ("b.md", "s-gone")):
        note = env.vault / "Meta" / "claude-sessions" / "2026-05" / name
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(OLD_NOTE.replace("{session_id}", sid), encoding="utf-8")

    done = env.run("import")
    assert done.returncode == 0, done.stderr

    alive = (env.vault / "Meta" / "claude-sessions" / "2026-05" / "a.md").read_text(encoding="utf-8")
    gone = (env.vault / "Meta" / "claude-sessions" / "2026-05" / "b.md").read_text(encoding="utf-8")
    for text in (alive, gone):
        assert text.endswith("## My notes\n\nThe importer must also read TSV. (mine)\n")
        assert "\nstarted: 2026-05-11T10:00:00\n" in text   # typed now
    assert "## Outcome" in alive and "`1a2b3c4` Import CSV files with quoted fields" in alive
    assert "**Answer:**\n\n> Because csv.reader kept the space" in alive
    with open_archive(str(env.archive_db), readonly=True) as archive:
        assert archive.sessions.get(crafted_id).commits[0].hash == "1a2b3c4"
        assert archive.sessions.get("s-gone").commits == []
    assert b"archived 1 " in done.stdout and b"archived 0 " in env.run("import").stdout   # once is enough


RECORDED = FIXTURES / "transcripts" / "outcomes-2.1.332" / "f9090e47-c999-4ff1-8773-9ddbce9cbf9f.jsonl"


@pytest.mark.parametrize("fixture", [CRAFTED, RECORDED], ids=["crafted", "recorded-2.1.332"])
def test_a_note_rendered_again_from_the_archive_alone_says_what_was_done(env, fixture):
    """The transcript and the note gone (Claude Code's 30 days, a deleted note): `show` renders
    the note from the archive, the same as the one the transcript gave, outcome and all."""
    target = env.config_dir / "projects" / "-home-dev-importer" / fixture.name
    target.parent.mkdir(parents=True)
    target.write_bytes(fixture.read_bytes())
    assert env.run("import").returncode == 0
    (note,) = (env.vault / "Meta" / "claude-sessions").rglob("*.md")
    written = note.read_text(encoding="utf-8")
    assert "## Outcome" in written and "**Answer:**" in written and "## Commands" in written
    target.unlink()
    note.unlink()
    shown = env.run("show", transcript.parse(str(fixture)).session_id[:8])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.decode("utf-8") == written
