"""The SQLite archive: schema and migrations, idempotent upserts, summaries, lookups, regex search."""
from __future__ import annotations

import sqlite3

import pytest
from archive_fixtures import REAL_2_1_332, session_id
from freezegun import freeze_time

from obsidian_memory import archive as archive_module
from obsidian_memory.archive import schema as archive_schema
from obsidian_memory.capture import transcript
from obsidian_memory.archive import ArchiveError, integrity_check, open_archive
from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session, Subagent


def make_session(n: int, *, started_at: str = "2026-03-04T09:00:00.000Z", **changes) -> Session:
    values = dict(
        session_id=session_id(n), transcript_path=f"/t/{n}.jsonl", project="demo", cwd="/work/demo",
        cwds=["/work/demo", "/work/demo/sub"], repo_root="/work/demo", git_branch="main", version="2.1.39",
        started_at=started_at, ended_at=started_at.replace("09:", "10:"), duration_seconds=3600.0,
        title=f"session {n}", title_source="ai-title",
        prompts=[Prompt("first prompt", "2026-03-04T09:00:01.000Z", "u1"), Prompt("second prompt", None, None)],
        compact_summaries=[CompactSummary("summary one", "2026-03-04T09:30:00.000Z", "auto", "transcript")],
        last_assistant_message="done", tools={"Bash": 3, "Edit": 1}, files_touched=["/work/demo/a.py"],
        subagents=[Subagent("a1", "/t/a1.jsonl", 4, "count files")], models=["claude-test"],
        entry_count=40, bad_lines=1, transcript_size=1000, transcript_mtime=1700000000.5)
    values.update(changes)
    return Session(**values)


@pytest.fixture
def db(tmp_path):
    with open_archive(str(tmp_path / "archive.db")) as archive:
        yield archive


def test_new_archive_is_wal_with_the_current_schema_version(tmp_path):
    path = tmp_path / "a.db"
    open_archive(str(path)).close()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("PRAGMA user_version").fetchone()[0] == archive_module.SCHEMA_VERSION >= 1


def test_migrations_run_forward_once_and_keep_data(tmp_path, monkeypatch):
    path = str(tmp_path / "a.db")
    with open_archive(path) as archive:
        archive.sessions.upsert(make_session(1))
    ran = []

    def next_migration(db):
        ran.append(True)
        db.execute("ALTER TABLE sessions ADD COLUMN extra TEXT")

    monkeypatch.setattr(archive_schema, "MIGRATIONS",
                        archive_schema.MIGRATIONS + [archive_schema.Migration("an-extra-column", next_migration)])
    for _ in range(2):
        with open_archive(path) as archive:
            assert archive.schema_version() == archive_module.SCHEMA_VERSION + 1
            assert archive.sessions.get(session_id(1)).title == "session 1"
    assert ran == [True]
    raw = sqlite3.connect(path)
    assert [r[0] for r in raw.execute("SELECT name FROM _migrations ORDER BY rowid")][-1] == "an-extra-column"


def test_each_migration_is_recorded_by_its_name(tmp_path):
    path = str(tmp_path / "a.db")
    open_archive(path).close()
    raw = sqlite3.connect(path)
    names = [r[0] for r in raw.execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert names == [m.name for m in archive_schema.MIGRATIONS] and len(set(names)) == len(names) >= 8
    assert all(applied for (applied,) in raw.execute("SELECT applied_at FROM _migrations"))


def test_a_second_migration_of_the_same_name_is_refused():
    with pytest.raises(ValueError, match="registered already"):
        archive_schema.migration(archive_schema.MIGRATIONS[0].name)(lambda db: None)


@pytest.mark.parametrize("version", range(1, 9))
def test_a_numbered_archive_gets_the_names_of_its_version_once_and_the_rest_applied(tmp_path, version):
    """An archive from before names counted its migrations in PRAGMA user_version: the first n
    are recorded by name (not run again), the others run."""
    path = str(tmp_path / "numbered.db")
    raw = sqlite3.connect(path, isolation_level=None)
    for migration in archive_schema.MIGRATIONS[:version]:
        migration.apply(raw)
    raw.execute(f"PRAGMA user_version = {version}")
    raw.execute("INSERT INTO sessions (session_id, cwd, first_archived_at, archived_at) VALUES ('s', '/w', 'x', 'x')")
    raw.close()
    with open_archive(path) as archive:      # a migration run twice would fail (a table or column twice)
        assert archive.schema_version() == archive_module.SCHEMA_VERSION
        assert archive.sessions.count() == 1
    raw = sqlite3.connect(path)
    rows = raw.execute("SELECT name, applied_at FROM _migrations ORDER BY rowid").fetchall()
    assert [name for name, _ in rows] == [m.name for m in archive_schema.MIGRATIONS]
    assert [applied for _, applied in rows[:version]] == [""] * version      # mapped, not run
    assert all(applied for _, applied in rows[version:])


def test_a_numbered_archive_is_upgraded_by_its_first_reader(tmp_path):
    path = str(tmp_path / "numbered.db")
    raw = sqlite3.connect(path, isolation_level=None)
    for migration in archive_schema.MIGRATIONS[:3]:
        migration.apply(raw)
    raw.execute("PRAGMA user_version = 3")
    raw.close()
    with open_archive(path, readonly=True) as archive:
        assert archive.schema_version() == archive_module.SCHEMA_VERSION
        assert not archive_schema.pending(archive.db)


def test_an_archive_from_a_newer_version_is_refused_for_writing_but_readable(tmp_path):
    path = str(tmp_path / "a.db")
    with open_archive(path) as archive:
        archive.sessions.upsert(make_session(1))
        archive.db.execute("INSERT INTO _migrations (name, applied_at) VALUES ('from-the-future', 'x')")
    with pytest.raises(ArchiveError, match="newer.*from-the-future"):
        open_archive(path)
    with open_archive(path, readonly=True) as archive:
        assert archive.sessions.count() == 1


def test_a_numbered_archive_from_a_newer_version_is_refused_for_writing(tmp_path):
    path = str(tmp_path / "a.db")
    raw = sqlite3.connect(path, isolation_level=None)
    for migration in archive_schema.MIGRATIONS:
        migration.apply(raw)
    raw.execute("PRAGMA user_version = 99")
    raw.close()
    with pytest.raises(ArchiveError, match="newer"):
        open_archive(path)
    with open_archive(path, readonly=True) as archive:
        assert archive.sessions.count() == 0


def test_readonly_open_of_a_missing_archive_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        open_archive(str(tmp_path / "missing.db"), readonly=True)
    assert not (tmp_path / "missing.db").exists()


def test_readonly_archive_refuses_writes(tmp_path):
    path = str(tmp_path / "a.db")
    open_archive(path).close()
    with open_archive(path, readonly=True) as archive, pytest.raises((ArchiveError, sqlite3.OperationalError)):
        archive.sessions.upsert(make_session(1))


def test_a_session_round_trips_with_every_field(db):
    session = make_session(1)
    db.sessions.upsert(session, note_path="Meta/claude-sessions/2026-03/2026-03-04_00000001.md")
    assert db.sessions.get(session.session_id).to_dict() == session.to_dict()
    assert db.sessions.note_path(session.session_id) == "Meta/claude-sessions/2026-03/2026-03-04_00000001.md"


def test_a_real_parsed_transcript_round_trips(db):
    session = transcript.parse(str(REAL_2_1_332))
    db.sessions.upsert(session)
    assert db.sessions.get(session.session_id).to_dict() == session.to_dict()


def test_upserting_again_replaces_prompts_and_keeps_one_row(db):
    db.sessions.upsert(make_session(1))
    grown = [Prompt("first prompt, redacted now", "2026-03-04T09:00:01.000Z", "u1"), Prompt("second prompt", None, None),
             Prompt("third prompt", "2026-03-04T09:50:00.000Z", "u3")]
    db.sessions.upsert(make_session(1, prompts=grown, transcript_size=2000))
    assert db.sessions.count() == 1
    assert [p.text for p in db.sessions.get(session_id(1)).prompts] == [
        "first prompt, redacted now", "second prompt", "third prompt"]   # (a prompt that shrank away: session_merge)
    assert db.db.execute("SELECT COUNT(*) FROM prompts").fetchone()[0] == 3


def test_a_grown_session_writes_only_its_new_and_changed_prompt_rows(db):
    prompts = [Prompt(f"prompt {i}", f"2026-03-04T09:{i:02d}:00.000Z", f"u{i}", f"answer {i}") for i in range(50)]
    db.sessions.upsert(make_session(1, prompts=prompts[:40]))
    db.db.executescript("CREATE TEMP TABLE written (position INTEGER); CREATE TEMP TRIGGER prompt_written AFTER INSERT "
                        "ON prompts BEGIN INSERT INTO written VALUES (new.position); END;")
    prompts[39] = Prompt("prompt 39", "2026-03-04T09:39:00.000Z", "u39", "answer 39, and more of it")
    db.sessions.upsert(make_session(1, prompts=prompts, transcript_size=2000))
    assert [(p.text, p.answer) for p in db.sessions.get(session_id(1)).prompts] == [(p.text, p.answer) for p in prompts]
    assert [r[0] for r in db.db.execute("SELECT position FROM written")] == list(range(39, 50))   # the rest kept


def test_upsert_without_note_path_keeps_the_recorded_note_path(db):
    db.sessions.upsert(make_session(1), note_path="Meta/x.md")
    db.sessions.upsert(make_session(1, transcript_size=2000))
    assert db.sessions.note_path(session_id(1)) == "Meta/x.md"


def test_an_older_parse_of_the_same_transcript_does_not_overwrite_a_newer_one(db):
    db.sessions.upsert(make_session(1, transcript_size=5000, prompts=[Prompt("a"), Prompt("b"), Prompt("c")]))
    db.sessions.upsert(make_session(1, transcript_size=4000, prompts=[Prompt("a")]))
    assert len(db.sessions.get(session_id(1)).prompts) == 3


def test_post_compact_summaries_survive_a_re_archive_and_are_deduplicated(db):
    db.sessions.upsert(make_session(1, compact_summaries=[]))
    db.sessions.add_compact_summary(session_id(1), "<analysis>thinking</analysis>\n<summary>1. The  importer\nwas built.</summary>",
                           trigger="manual", timestamp="2026-03-04T09:40:00.000Z")
    db.sessions.add_compact_summary(session_id(1), "a second one", timestamp="2026-03-04T09:50:00.000Z")
    db.sessions.add_compact_summary(session_id(1), "a second one")  # same text again: ignored
    # the transcript now holds the first summary (wrapped in its preamble), not the second
    in_transcript = CompactSummary("This session is being continued ... Summary:\n1. The importer was built.",
                                   "2026-03-04T09:40:00.500Z", "manual")
    db.sessions.upsert(make_session(1, compact_summaries=[in_transcript], transcript_size=3000))
    summaries = db.sessions.get(session_id(1)).compact_summaries
    assert [(s.text, s.origin) for s in summaries] == [
        (in_transcript.text, "transcript"), ("a second one", "post_compact")]


def test_a_compact_summary_for_an_unknown_session_creates_a_minimal_row(db):
    db.sessions.add_compact_summary("new-session", "what happened", trigger="auto")
    session = db.sessions.get("new-session")
    assert session.prompts == [] and session.started_at is None
    assert [(s.text, s.trigger, s.origin) for s in session.compact_summaries] == [("what happened", "auto", "post_compact")]
    db.sessions.upsert(make_session(2, session_id="new-session", compact_summaries=[]))
    assert [s.text for s in db.sessions.get("new-session").compact_summaries] == ["what happened"]


def test_fingerprints_are_recorded_per_transcript(db):
    db.sessions.upsert(make_session(1, transcript_size=123, transcript_mtime=17.25))
    db.transcripts.record("/t/empty.jsonl", 5, 1.5, status="skipped")
    assert db.transcripts.fingerprint("/t/1.jsonl") == (123, 17.25)
    assert db.transcripts.fingerprint("/t/nothing.jsonl") is None
    assert db.transcripts.fingerprints() == {"/t/1.jsonl": (123, 17.25), "/t/empty.jsonl": (5, 1.5)}


def test_find_sessions_matches_a_prefix_literally(db):
    for sid in ("abc_1", "abcx1", "abd"):
        db.sessions.upsert(make_session(1, session_id=sid, transcript_path=f"/t/{sid}"))
    assert db.sessions.find("abc") == ["abc_1", "abcx1"]
    assert db.sessions.find("abc_") == ["abc_1"]
    assert db.sessions.find("zz") == []


def test_recent_sessions_newest_first_with_filters_and_last_summary(db):
    db.sessions.upsert(make_session(1, started_at="2026-03-01T09:00:00.000Z"))
    db.sessions.upsert(make_session(2, started_at="2026-03-03T09:00:00.000Z", repo_root="/other", project="other"))
    db.sessions.upsert(make_session(3, started_at="2026-03-02T09:00:00.000Z",
                                   compact_summaries=[CompactSummary("old", "2026-03-02T09:10:00.000Z"),
                                                      CompactSummary("newest", "2026-03-02T09:20:00.000Z")]))
    rows = db.sessions.recent()
    assert [r.session_id for r in rows] == [session_id(2), session_id(3), session_id(1)]
    assert set(rows[0].as_dict()) == {"session_id", "title", "project", "cwd", "repo_root", "git_branch", "started_at",
                            "ended_at", "prompt_count", "note_path", "last_compact_summary", "machine", "repo_id",
                            "origin"}
    assert rows[1].last_compact_summary == "newest" and rows[1].prompt_count == 2
    repo = db.sessions.recent(repo_root="/work/demo", exclude_session_id=session_id(3))
    assert [r.session_id for r in repo] == [session_id(1)]
    assert [r.session_id for r in db.sessions.recent(project="other")] == [session_id(2)]
    assert len(db.sessions.recent(limit=1)) == 1


def test_recent_sessions_by_repository_is_served_by_an_index(db):
    plan = " ".join(str(row) for row in db.db.execute(
        "EXPLAIN QUERY PLAN SELECT session_id FROM sessions WHERE repo_root = ? ORDER BY started_at DESC LIMIT 5",
        ("/r",)))
    assert "sessions_by_repo" in plan and "TEMP B-TREE" not in plan


def test_recent_sessions_of_a_folder_outside_any_repository_come_from_sql(db):
    db.sessions.upsert(make_session(1, started_at="2026-03-01T09:00:00.000Z", cwd="/home/me/notes", repo_root=None))
    db.sessions.upsert(make_session(2, started_at="2026-03-03T09:00:00.000Z", cwd="/home/me/notes", repo_root=None))
    db.sessions.upsert(make_session(3, started_at="2026-03-04T09:00:00.000Z", cwd="/home/me/notes",
                                   repo_root="/home/me/notes"))   # the folder became a repository later
    db.sessions.upsert(make_session(4, started_at="2026-03-05T09:00:00.000Z", cwd="/home/me/other", repo_root=None))
    rows = db.sessions.recent(cwd="/home/me/notes")
    assert [r.session_id for r in rows] == [session_id(2), session_id(1)]
    assert [r.session_id for r in db.sessions.recent(cwd="/home/me/notes", limit=1,
                                                         exclude_session_id=session_id(2))] == [session_id(1)]
    plan = " ".join(str(row) for row in db.db.execute(
        "EXPLAIN QUERY PLAN SELECT session_id FROM sessions WHERE cwd = ? AND repo_root IS NULL "
        "ORDER BY started_at DESC LIMIT 5", ("/x",)))
    assert "sessions_by_cwd" in plan and "TEMP B-TREE" not in plan


def test_a_version_1_archive_gains_the_cwd_index_and_keeps_its_rows(tmp_path):
    path = str(tmp_path / "v1.db")
    raw = sqlite3.connect(path, isolation_level=None)
    archive_schema.MIGRATIONS[0].apply(raw)
    raw.execute("PRAGMA user_version = 1")
    raw.execute("INSERT INTO sessions (session_id, cwd, first_archived_at, archived_at) VALUES ('s', '/w', 'x', 'x')")
    raw.close()
    with open_archive(path) as archive:
        assert archive.schema_version() == archive_module.SCHEMA_VERSION >= 2
        assert [r.session_id for r in archive.sessions.recent(cwd="/w")] == ["s"]
        indexes = {r[0] for r in archive.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "sessions_by_cwd" in indexes


def _version_2_archive(path: str, *, with_note: bool) -> None:
    raw = sqlite3.connect(path, isolation_level=None)
    archive_schema.MIGRATIONS[0].apply(raw)
    archive_schema.MIGRATIONS[1].apply(raw)
    raw.execute("PRAGMA user_version = 2")
    raw.execute("INSERT INTO sessions (session_id, started_at, note_path, first_archived_at, archived_at) "
                "VALUES ('s', '2026-03-04T09:00:00Z', ?, 'x', 'x')", ("Meta/s.md" if with_note else None,))
    raw.close()


@pytest.mark.parametrize("with_note", [True, False])
def test_a_version_2_archive_renders_its_history_once_more_and_trusts_its_notes(tmp_path, with_note):
    path = str(tmp_path / "v2.db")
    _version_2_archive(path, with_note=with_note)
    with open_archive(path) as archive:
        assert archive.history.outdated() is with_note
        # migration 3 trusts the notes; migration 4 then asks for each note once more (its new
        # properties and sections), so a note that was there is rendered again, where it is
        assert archive.sessions.needing_note() == [("s", "Meta/s.md" if with_note else None)]
        archive.history.record_rendered(archive.history.changes())
        assert not archive.history.outdated()


def test_a_new_archive_has_no_history_to_render(db):
    assert not db.history.outdated()
    db.sessions.upsert(make_session(1))   # no note yet: no row in the table
    assert not db.history.outdated()


def test_the_history_is_outdated_under_other_private_rules_than_it_was_rendered_under(db):
    assert not db.history.rendered_under_other_rules("rules-a")       # never rendered: under none
    db.history.record_rendered(db.history.changes(), "rules-a")
    assert not db.history.rendered_under_other_rules("rules-a") and not db.history.outdated("rules-a")
    assert db.history.rendered_under_other_rules("rules-b") and db.history.outdated("rules-b")
    assert not db.history.outdated()                                  # the rules not given: not judged


def test_a_changed_session_is_pending_until_its_note_records_that_revision(db):
    db.sessions.upsert(make_session(1))
    revision = db.sessions.revision(session_id(1))
    db.sessions.record_note(session_id(1), "Meta/a.md", revision)
    assert not db.sessions.note_outdated(session_id(1)) and db.history.outdated()
    db.history.record_rendered(db.history.changes())
    db.sessions.upsert(make_session(1, title="renamed", transcript_size=2000))
    assert db.sessions.note_outdated(session_id(1)) and db.history.outdated()
    assert db.sessions.needing_note() == [(session_id(1), "Meta/a.md")]
    db.sessions.add_compact_summary(session_id(1), "a PostCompact summary")
    db.sessions.record_note(session_id(1), "Meta/a.md", revision + 1)   # rendered before the summary came
    assert db.sessions.note_outdated(session_id(1))
    db.sessions.record_note(session_id(1), "Meta/a.md", db.sessions.revision(session_id(1)))
    assert not db.sessions.note_outdated(session_id(1)) and db.sessions.needing_note() == []


def test_a_note_path_given_with_the_session_counts_as_its_written_note(db):
    db.sessions.upsert(make_session(1), note_path="Meta/a.md")
    assert not db.sessions.note_outdated(session_id(1)) and db.sessions.needing_note() == []


def test_sessions_without_a_note_are_those_with_something_to_show(db):
    db.sessions.upsert(make_session(1), note_path="Meta/claude-sessions/2026-03/a.md")
    db.sessions.upsert(make_session(2))
    db.sessions.add_compact_summary(session_id(3), "only a PostCompact summary so far")
    assert db.sessions.needing_note() == [(session_id(2), None)]


def test_timestamps_come_from_the_clock(db):
    with freeze_time("2026-05-06 07:08:09"):
        db.sessions.upsert(make_session(1))
    assert db.db.execute("SELECT first_archived_at, archived_at FROM sessions").fetchone() == (
        "2026-05-06T07:08:09.000Z", "2026-05-06T07:08:09.000Z")


def test_integrity_check_is_ok_for_a_sound_archive_and_says_why_otherwise(tmp_path):
    good = tmp_path / "good.db"
    with open_archive(str(good)) as archive:
        archive.sessions.upsert(make_session(1))
    assert integrity_check(str(good)) == "ok"
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    assert integrity_check(str(bad)) != "ok"
    assert "not found" in integrity_check(str(tmp_path / "none.db")) or "no session archive" in integrity_check(
        str(tmp_path / "none.db"))
