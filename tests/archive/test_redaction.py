"""The redaction rules recorded per session (archive/redaction.py) and Sessions.redact_again, on a
real SQLite archive: what counts as stored under other rules, and what redacting again rewrites."""
from __future__ import annotations

import sqlite3

from archive_fixtures import session_id
from test_archive import make_session

from obsidian_memory.archive import open_archive
from obsidian_memory.archive import schema as archive_schema
from obsidian_memory.capture.redact import redact_session, rules
from obsidian_memory.capture.session_records import Prompt

SECRET = "ghp_" + "K1l2M3n4O5p6Q7r8S9t0U1v2W3x4Y5z6A7b8"
ON = rules(True)


def test_sessions_archived_before_the_rules_were_recorded_count_as_under_other_rules(tmp_path):
    path = str(tmp_path / "older.db")
    older = [m for m in archive_schema.MIGRATIONS if m.name != "redaction-rules"]
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for migration in older:
        migration.apply(raw)
        raw.execute("INSERT INTO _migrations VALUES (?, 'x')", (migration.name,))
    raw.execute(f"PRAGMA user_version = {len(older)}")
    raw.execute("INSERT INTO sessions (session_id, first_archived_at, archived_at) VALUES ('s', 'x', 'x')")
    raw.close()
    with open_archive(path) as archive:
        assert archive.redaction.stored_under_other_rules(ON, 10) == ["s"]
        assert archive.redaction.rules_of("s") is None


def test_what_is_written_says_under_which_rules(tmp_path):
    with open_archive(str(tmp_path / "archive.db")) as archive:
        first, second = make_session(1), make_session(2)
        archive.sessions.upsert(first, redacted_under=ON)
        archive.sessions.upsert(second, redacted_under="off")
        assert archive.redaction.stored_under_other_rules(ON, 10) == [second.session_id]
        archive.sessions.add_compact_summary(first.session_id, "another summary", redacted_under=ON)
        assert archive.redaction.rules_of(first.session_id) == ON            # added under the same rules
        archive.sessions.add_compact_summary(first.session_id, "raw summary", redacted_under="off")
        assert archive.redaction.rules_of(first.session_id) is None          # mixed: unknown
        archive.sessions.upsert(second)
        assert archive.redaction.rules_of(second.session_id) is None         # written by a caller that does not say


def test_the_count_under_other_rules_is_every_such_session_the_listing_finds(tmp_path):
    with open_archive(str(tmp_path / "archive.db")) as archive:
        assert archive.redaction.count_stored_under_other_rules(ON) == 0
        for number, rules_written in enumerate([ON, "off", None, ON, "off", "old-fingerprint"]):
            archive.sessions.upsert(make_session(10 + number), redacted_under=rules_written)
        others = archive.redaction.stored_under_other_rules(ON, 10)
        assert archive.redaction.count_stored_under_other_rules(ON) == len(others) == 4
        assert len(archive.redaction.stored_under_other_rules(ON, 2)) == 2           # the listing stops at its limit
        assert archive.redaction.count_stored_under_other_rules("off") == 4          # all but the two written off
        archive.sessions.upsert(make_session(11), redacted_under=ON)
        assert archive.redaction.count_stored_under_other_rules(ON) == 3


def test_redacting_again_rewrites_only_a_session_whose_text_changes(tmp_path):
    with open_archive(str(tmp_path / "archive.db")) as archive:
        leaky = make_session(3, title=f"use {SECRET}", last_assistant_message=f"set {SECRET}",
                             prompts=[Prompt("plain", "2026-03-04T09:00:01.000Z", "u1", answer=f"it is {SECRET}"),
                                      Prompt(f"token {SECRET}", "2026-03-04T09:00:02.000Z", "u2")])
        plain = make_session(4)
        for session in (leaky, plain):
            archive.sessions.upsert(session, redacted_under="off")
        archive.sessions.add_compact_summary(leaky.session_id, f"post {SECRET}", redacted_under="off")
        revisions = {sid: archive.sessions.revision(sid) for sid in (leaky.session_id, plain.session_id)}

        assert archive.sessions.redact_again(leaky.session_id, redact_session, ON) is True
        assert archive.sessions.redact_again(plain.session_id, redact_session, ON) is False
        stored = archive.sessions.get(leaky.session_id)
        assert SECRET not in str(stored.to_dict())
        assert [c.origin for c in stored.compact_summaries] == ["transcript", "post_compact"]
        assert stored.prompts[0].text == "plain" and stored.prompts[1].text == "token [REDACTED:github_token]"
        assert archive.sessions.revision(leaky.session_id) == revisions[leaky.session_id] + 1
        assert archive.sessions.revision(plain.session_id) == revisions[plain.session_id]
        assert archive.redaction.stored_under_other_rules(ON, 10) == []
        assert archive.sessions.redact_again(session_id(99), redact_session, ON) is False    # not archived
