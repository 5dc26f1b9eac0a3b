"""The archiving service in-process: transcript → archive row → note + history, and its faults."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest
from archive_fixtures import REAL_2_1_332_ID, copy_real, hook_payload, session_id, write_transcript
from testkit import CLI, FIXTURES, without_root_powers
from freezegun import freeze_time

from obsidian_memory.capture import archiving as capture
from obsidian_memory.core import settings as settings_module
from obsidian_memory.archive import open_archive
from obsidian_memory.vault.notes import note_layout

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PASSWORD_URL = "postgres://admin:hunter2secret@db.example.com/prod"


@pytest.fixture
def user(env, monkeypatch):
    env.apply(monkeypatch)
    env.projects = env.config_dir / "projects"
    return env


def settings(**changes):
    loaded = settings_module.load()
    return loaded.replace(**changes) if changes else loaded


def notes_in(vault) -> list[str]:
    return sorted(str(p.relative_to(vault)) for p in vault.rglob("*.md") if "claude-sessions" in str(p))


def rows(env) -> list[tuple]:
    db = sqlite3.connect(env.archive_db)
    try:
        return db.execute("SELECT session_id, prompt_count FROM sessions ORDER BY session_id").fetchall()
    finally:
        db.close()


def history_rows(env) -> list[str]:
    path = env.vault / "Meta" / "claude-session-history.md"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("| 20")]


def test_a_real_transcript_becomes_one_row_one_note_one_history_row(user):
    path = copy_real(user.projects)
    with freeze_time("2026-12-03 08:00:00"):
        result = capture.archive_transcript(str(path), settings())
    assert (result.status, result.session_id) == ("archived", REAL_2_1_332_ID)
    assert result.note_path == "Meta/claude-sessions/2026-12/2026-12-02_66135f19.md"
    assert rows(user) == [(REAL_2_1_332_ID, 3)]
    assert notes_in(user.vault) == [result.note_path]
    machine = json.loads((user.config_dir / "obsidian-memory" / "machine.json").read_text("utf-8"))["id"]
    assert history_rows(user) == [f"| 2026-12-02 18:58 UTC | e2e-repo | fixture greeting script | {machine} | "
                                  "[[2026-12-02_66135f19]] |"]


def test_precompact_then_session_end_then_sweep_leave_one_note_and_one_row(user):
    sid = session_id(1)
    path = user.projects / "-work-demo" / f"{sid}.jsonl"
    write_transcript(path, sid, ["first prompt"])
    capture.handle_hook(hook_payload("PreCompact", path, session_id=sid), settings())
    write_transcript(path, sid, ["first prompt", "second prompt"], summaries=["the summary"])
    capture.handle_hook(hook_payload("SessionEnd", path, session_id=sid), settings())
    os.utime(path, (time.time() - 3600, time.time() - 3600))  # quiet for an hour, changed since
    summary = capture.sweep(settings(), quiet_seconds=300)
    assert (summary.archived, summary.failed) == (1, 0)
    assert capture.sweep(settings(), quiet_seconds=300).archived == 0
    assert rows(user) == [(sid, 2)]
    [note] = notes_in(user.vault)
    text = (user.vault / note).read_text(encoding="utf-8")
    assert "second prompt" in text and "the summary" in text
    assert len(history_rows(user)) == 1


def test_the_user_section_survives_re_archiving(user):
    sid = session_id(2)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["one"])
    note = user.vault / capture.archive_transcript(str(path), settings()).note_path
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace(note_layout.MY_NOTES_HINT, "Remember: the retry logic is in b.py."), encoding="utf-8")
    write_transcript(path, sid, ["one", "two"])
    capture.archive_transcript(str(path), settings())
    again = note.read_text(encoding="utf-8")
    assert again.endswith("## My notes\n\nRemember: the retry logic is in b.py.\n") and "two" in again


def test_secrets_are_redacted_before_reaching_the_db_file_or_the_note(user):
    sid = session_id(3)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid,
                            [f"use {SECRET} and {PASSWORD_URL}"], summaries=[f"the token was {SECRET}"],
                            title=f"deploy with {SECRET}")
    capture.handle_hook(hook_payload("PostCompact", path, session_id=sid,
                                      compact_summary=f"<summary>post {SECRET} token=sup3rs3cretvalue</summary>"),
                         settings())
    raw = b"".join(p.read_bytes() for p in user.config_dir.glob("session-archive.db*"))
    vault = b"".join(p.read_bytes() for p in user.vault.rglob("*.md"))
    for secret in (SECRET, "hunter2secret", "sup3rs3cretvalue"):
        assert secret.encode() not in raw and secret.encode() not in vault
    assert b"[REDACTED:" in raw and b"[REDACTED:" in vault
    assert b"post [REDACTED:" in raw  # the PostCompact summary was stored, redacted


def test_with_redaction_switched_off_the_text_is_kept_verbatim(user):
    sid = session_id(4)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, [f"use {SECRET}"])
    capture.archive_transcript(str(path), settings(redact=False))
    raw = b"".join(p.read_bytes() for p in user.config_dir.glob("session-archive.db*"))
    assert SECRET.encode() in raw


def test_excluded_projects_are_not_archived(user):
    sid = session_id(5)
    path = write_transcript(user.projects / "-work-secret" / f"{sid}.jsonl", sid, ["x"], cwd="/work/secret-stuff")
    for exclusion in (["secret-*"], ["/work"]):
        result = capture.archive_transcript(str(path), settings(excluded_projects=exclusion))
        assert result.status == "excluded"
    assert rows(user) == [] and notes_in(user.vault) == []


def test_a_transcript_without_prompts_is_skipped_with_a_logged_reason(user):
    path = user.projects / "-work-demo" / "no_prompt.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes((FIXTURES / "transcripts" / "no_prompt.jsonl").read_bytes())
    result = capture.archive_transcript(str(path), settings())
    assert result.status == "skipped"
    assert "no prompt" in user.log_file.read_text(encoding="utf-8")
    assert rows(user) == [] and not (user.vault / "Meta").exists()
    # and it is not parsed again while unchanged
    assert capture.import_transcripts(settings(), progress=False).unchanged == 1


def test_a_missing_vault_keeps_the_row_logs_and_creates_nothing(user):
    user.vault.rmdir()
    sid = session_id(6)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    result = capture.archive_transcript(str(path), settings())
    assert result.status == "archived" and result.note_path is None and "does not exist" in result.note_error
    assert rows(user) == [(sid, 1)]
    assert not user.vault.exists()
    assert "note not written" in user.log_file.read_text(encoding="utf-8")


def test_a_read_only_vault_keeps_the_row_and_logs(user):
    # a real hook process that obeys file modes (as root: without the capabilities that ignore them)
    sid = session_id(7)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    user.vault.chmod(0o555)
    try:
        result = subprocess.run([sys.executable, str(CLI), "hook", "archive"], capture_output=True,
                                input=json.dumps(hook_payload("SessionEnd", path, session_id=sid)).encode(),
                                env=user.environ(), preexec_fn=without_root_powers(), timeout=120)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
        assert rows(user) == [(sid, 1)] and list(user.vault.iterdir()) == []
        assert "note not written: PermissionError" in user.log_file.read_text(encoding="utf-8")
    finally:
        user.vault.chmod(0o755)


def test_an_unwritable_vault_folder_keeps_the_row_and_touches_nothing_else(user):
    # (the same failure as a read-only vault, for a process that may write anywhere: Meta is a file)
    (user.vault / "Meta").write_text("not a folder", encoding="utf-8")
    sid = session_id(8)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    result = capture.archive_transcript(str(path), settings())
    assert result.status == "archived" and result.note_error
    assert rows(user) == [(sid, 1)]
    assert sorted(p.name for p in user.vault.iterdir()) == ["Meta"]
    assert (user.vault / "Meta").read_text(encoding="utf-8") == "not a folder"


def test_a_folder_in_the_way_of_the_note_keeps_the_row_and_leaves_the_history_alone(user):
    sid = session_id(9)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    (user.vault / "Meta" / "claude-sessions" / "2026-03" / f"2026-03-04_{sid[:8]}.md").mkdir(parents=True)
    result = capture.archive_transcript(str(path), settings())
    assert result.status == "archived" and "folder" in result.note_error
    assert rows(user) == [(sid, 1)]
    assert not (user.vault / "Meta" / "claude-session-history.md").exists()


def test_post_compact_before_the_transcript_is_kept_and_shown_once_later(user):
    sid = session_id(10)
    path = user.projects / "-work-demo" / f"{sid}.jsonl"
    payload = hook_payload("PostCompact", path, session_id=sid,
                           compact_summary="<analysis>x</analysis><summary>We built the importer.</summary>")
    capture.handle_hook(payload, settings())  # the transcript does not exist yet
    with open_archive(settings().archive, readonly=True) as db:
        assert [s.origin for s in db.sessions.get(sid).compact_summaries] == ["post_compact"]
    assert notes_in(user.vault) == []
    write_transcript(path, sid, ["build the importer"], summaries=["We built the importer."])
    capture.handle_hook(hook_payload("SessionEnd", path, session_id=sid), settings())
    [note] = notes_in(user.vault)
    assert (user.vault / note).read_text(encoding="utf-8").count("We built the importer.") == 1


def test_a_payload_without_transcript_path_finds_the_transcript_by_session_id(user):
    path = copy_real(user.projects)
    payload = hook_payload("Stop", None, transcript_path="/gone/elsewhere.jsonl")
    capture.handle_hook(payload, settings())
    assert rows(user) == [(REAL_2_1_332_ID, 3)]
    assert path.exists()


@pytest.mark.parametrize("payload", [{}, {"session_id": 5, "transcript_path": ["x"]},
                                     {"session_id": "../../etc", "compact_summary": "x"},
                                     {"transcript_path": "/no/such/file.jsonl", "hook_event_name": "SessionEnd"}])
def test_odd_payloads_never_raise_and_write_nothing(user, payload):
    capture.handle_hook(payload, settings())
    assert not user.archive_db.exists() or rows(user) == []


def test_an_empty_transcript_is_tolerated(user):
    path = user.projects / "-work-demo" / f"{session_id(11)}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    capture.handle_hook(hook_payload("SessionEnd", path, session_id=session_id(11)), settings())
    assert not user.archive_db.exists() or rows(user) == []


def test_a_locked_archive_makes_the_hook_give_up_and_the_sweep_archives_later(user, monkeypatch):
    monkeypatch.setattr(capture, "BUSY_TIMEOUT", 0.2)
    sid = session_id(12)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    open_archive(settings().archive).close()
    blocker = sqlite3.connect(settings().archive, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        capture.handle_hook(hook_payload("SessionEnd", path, session_id=sid), settings())
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert rows(user) == []
    assert "locked by another writer" in user.log_file.read_text(encoding="utf-8")
    os.utime(path, (time.time() - 600, time.time() - 600))
    assert capture.sweep(settings(), quiet_seconds=300).archived == 1
    assert rows(user) == [(sid, 1)]


def test_sweep_leaves_active_and_excluded_sessions_alone(user):
    quiet, active, current = session_id(13), session_id(14), session_id(15)
    for sid in (quiet, active, current):
        write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    old = time.time() - 3600
    for sid in (quiet, current):
        os.utime(user.projects / "-work-demo" / f"{sid}.jsonl", (old, old))
    summary = capture.sweep(settings(), exclude_session_ids=[current], quiet_seconds=300)
    assert summary.archived == 1 and [r[0] for r in rows(user)] == [quiet]


def test_only_one_sweep_runs_at_a_time(user):
    sid = session_id(16)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    os.utime(path, (time.time() - 3600, time.time() - 3600))
    with capture.FileLock(os.path.join(settings().home, "locks", "sweep.lock")):
        assert capture.sweep(settings(), quiet_seconds=0).archived == 0
    assert capture.sweep(settings(), quiet_seconds=0).archived == 1


def test_import_is_idempotent_and_filters_by_project_and_date(user):
    a, b = session_id(17), session_id(18)
    write_transcript(user.projects / "-work-alpha" / f"{a}.jsonl", a, ["x"], cwd="/work/alpha")
    pb = write_transcript(user.projects / "-work-beta" / f"{b}.jsonl", b, ["y"], cwd="/work/beta")
    os.utime(pb, (time.mktime((2025, 1, 1, 0, 0, 0, 0, 0, -1)),) * 2)
    dry = capture.import_transcripts(settings(), dry_run=True, progress=False)
    assert len(dry.would_archive) == 2 and not user.archive_db.exists()
    assert capture.import_transcripts(settings(), since="2026-01-01", progress=False).archived == 1
    assert capture.import_transcripts(settings(), project="beta", progress=False).archived == 1
    second = capture.import_transcripts(settings(), progress=False)
    assert (second.archived, second.unchanged, second.failed) == (0, 2, 0)
    assert second.line() == "archived 0 / unchanged 2 / failed 0"
    assert len(history_rows(user)) == 2


def test_import_counts_a_broken_transcript_as_failed_and_goes_on(user):
    good = session_id(19)
    write_transcript(user.projects / "-work-demo" / f"{good}.jsonl", good, ["x"])
    bad = user.projects / "-work-demo" / "unreadable.jsonl"
    bad.mkdir()  # a folder named like a transcript cannot be read
    summary = capture.import_transcripts(settings(), progress=False)
    assert (summary.archived, summary.failed) == (1, 1)
    assert "unreadable.jsonl" in user.log_file.read_text(encoding="utf-8")
