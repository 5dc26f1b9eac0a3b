"""A damaged or emptied archive: left untouched, one line that says what to do, doctor
does not send the user to an import that fails, and session notes are still written from the
transcripts meanwhile."""
from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3

import pytest
from archive_fixtures import hook_payload, session_id, write_transcript
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from obsidian_memory.capture import archiving as capture
from obsidian_memory.core import settings as settings_module
from obsidian_memory.archive import ArchiveError

FIRST, LATER = session_id(31), session_id(32)


@pytest.fixture
def user(env):
    env.projects = env.config_dir / "projects" / "-work-demo"
    write_transcript(env.projects / f"{FIRST}.jsonl", FIRST, ["the first session"])
    assert env.run("import").returncode == 0
    return env


def damage(env) -> str:
    with open(env.archive_db, "r+b") as handle:
        handle.write(b"\xff" * 4096)   # the header and the schema page
    return digest(env)


def digest(env) -> str:
    return hashlib.sha256(env.archive_db.read_bytes()).hexdigest()


def notes(env) -> list[str]:
    return sorted(p.name for p in (env.vault / "Meta" / "claude-sessions").rglob("*.md"))


def log(env) -> str:
    return env.log_file.read_text(encoding="utf-8") if env.log_file.exists() else ""


@pytest.mark.parametrize("how", ["damaged", "emptied"])
def test_import_refuses_in_one_line_that_says_what_to_do_and_touches_nothing(user, how):
    before = damage(user) if how == "damaged" else _empty(user)
    result = user.run("import")
    err = result.stderr.decode()
    assert result.returncode == 1 and len(err.strip().splitlines()) == 1, err
    assert "move it aside" in err and "obsidian_memory.py import" in err and "notes in the vault" in err
    assert ("is damaged" if how == "damaged" else "is empty (0 bytes)") in err
    assert digest(user) == before and "Traceback" not in log(user)


@pytest.mark.parametrize("how", ["damaged", "emptied"])
def test_hooks_still_write_the_note_from_the_transcript(user, how):
    before = damage(user) if how == "damaged" else _empty(user)
    history = (user.vault / "Meta" / "claude-session-history.md").read_bytes()
    transcript = write_transcript(user.projects / f"{LATER}.jsonl", LATER, ["a session after the damage"])
    result = user.hook(["archive"], hook_payload("SessionEnd", transcript, session_id=LATER))
    assert result.returncode == 0 and result.stdout == b""
    assert notes(user) == sorted([f"2026-03-04_{FIRST[:8]}.md", f"2026-03-04_{LATER[:8]}.md"])
    [note] = (user.vault / "Meta" / "claude-sessions").rglob(f"*_{LATER[:8]}.md")
    assert "a session after the damage" in note.read_text(encoding="utf-8")
    assert digest(user) == before   # the archive is never re-created or repaired behind the user's back
    assert (user.vault / "Meta" / "claude-session-history.md").read_bytes() == history
    assert "written from the transcript alone" in log(user) and "move it aside" in log(user)


def test_without_the_archive_a_shorter_transcript_never_replaces_a_fuller_note(user, tmp_path):
    write_transcript(user.projects / f"{FIRST}.jsonl", FIRST, ["the first session", "and more"])
    assert user.run("import").returncode == 0
    damage(user)
    [note] = (user.vault / "Meta" / "claude-sessions").rglob(f"*_{FIRST[:8]}.md")
    fuller = note.read_bytes()
    write_transcript(user.projects / f"{FIRST}.jsonl", FIRST, ["the first session"])
    user.hook(["archive"], hook_payload("SessionEnd", user.projects / f"{FIRST}.jsonl", session_id=FIRST))
    assert note.read_bytes() == fuller and "left as it is" in log(user)


@pytest.mark.parametrize("how", ["damaged", "emptied"])
def test_doctor_says_what_to_do_and_does_not_suggest_an_import_that_fails(user, how):
    damage(user) if how == "damaged" else _empty(user)
    write_transcript(user.projects / f"{LATER}.jsonl", LATER, ["waiting"])
    out = user.run("doctor").stdout.decode()
    archive_line = next(line for line in out.splitlines() if line.startswith("fail  archive"))
    assert "move it aside" in archive_line
    transcripts_line = next(line for line in out.splitlines() if line.startswith("info  transcripts"))
    assert "import waits until the archive is repaired" in transcripts_line
    assert "run `obsidian_memory.py import`" not in transcripts_line


def test_doctor_notices_session_notes_the_archive_does_not_know(user):
    """An archive emptied and re-created by an older version: doctor said ok."""
    os.unlink(user.projects / f"{FIRST}.jsonl")   # its transcript is gone, its note stays
    user.archive_db.unlink()
    write_transcript(user.projects / f"{LATER}.jsonl", LATER, ["a new session"])
    assert user.run("import").returncode == 0
    out = user.run("doctor").stdout.decode()
    line = next(line for line in out.splitlines() if " archive " in line)
    assert line.startswith("warn") and "1 session note(s)" in line and "not in it" in line


def _empty(env) -> str:
    env.archive_db.write_bytes(b"")
    for suffix in ("-wal", "-shm"):
        side = env.archive_db.with_name(env.archive_db.name + suffix)
        if side.exists():
            side.unlink()
    return digest(env)


@hypothesis_settings(max_examples=15, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(offset=st.integers(0, 60_000), garbage=st.binary(min_size=1, max_size=5000))
def test_damage_anywhere_is_refused_untouched_or_harmless(user, monkeypatch, offset, garbage):
    """Property: whatever bytes of the archive are overwritten, import either works (the damage
    hit nothing it reads) or refuses with ArchiveDamaged (or, for a version number that grew,
    asks for a newer obsidian-memory) and the file keeps its bytes; it never ends in another
    error."""
    user.apply(monkeypatch)
    pristine = user.root / "pristine.db"
    if not pristine.exists():
        # closed before the import: an open connection of this process on a file rewritten under
        # it (its -wal and -shm deleted) turns the import's own open into a "disk I/O error"
        with contextlib.closing(sqlite3.connect(user.archive_db)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pristine.write_bytes(user.archive_db.read_bytes())
    data = bytearray(pristine.read_bytes())
    data[offset:offset + len(garbage)] = garbage
    user.archive_db.write_bytes(bytes(data[:max(len(data), 1)]))
    for suffix in ("-wal", "-shm"):
        side = user.archive_db.with_name(user.archive_db.name + suffix)
        if side.exists():
            side.unlink()
    before = digest(user)
    write_transcript(user.projects / f"{LATER}.jsonl", LATER, ["after"])
    try:
        summary = capture.import_transcripts(settings_module.load(), progress=False)
    except capture.ArchiveDamaged as exc:
        assert "move it aside" in str(exc) and digest(user) == before
    except ArchiveError as exc:
        assert "upgrade it" in str(exc) and digest(user) == before
    else:   # the damage hit nothing it reads: the new session is archived like any other
        assert (summary.archived, summary.failed, summary.halted) == (1, 0, ""), vars(summary)


def test_a_recall_index_that_does_not_take_its_rows_ends_the_run_instead_of_writing_forever(user):
    """A damaged recall index (here: one that silently drops the rows written to it) must not keep an import writing the same batch again and again:
    an import of the hypothesis test above once wrote 118 GB of WAL that way. The run ends, the
    sessions are archived and the log says the recall index was not completed."""
    with contextlib.closing(sqlite3.connect(user.archive_db)) as db:
        db.execute("CREATE TRIGGER recall_docs_vanish BEFORE INSERT ON recall_docs "
                   "BEGIN SELECT RAISE(IGNORE); END")
        db.commit()
    write_transcript(user.projects / f"{LATER}.jsonl", LATER, ["after"])
    result = user.run("import", timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    with contextlib.closing(sqlite3.connect(user.archive_db)) as db:
        assert {r[0] for r in db.execute("SELECT session_id FROM sessions")} == {FIRST, LATER}
    assert "recall index not completed" in log(user)
    wal = user.archive_db.with_name(user.archive_db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size < 8 * 1024 * 1024
