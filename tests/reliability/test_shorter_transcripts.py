"""A transcript that holds less than the archived record never shrinks it: an excerpt,
a copy under another path, the same file truncated, the file of a resumed session that holds only
the new part. The record is kept (and import says so) or merged by entry uuid; a legitimately
grown transcript is taken as it is."""
from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from archive_fixtures import session_id, write_transcript
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st
from testkit import shared_path

from obsidian_memory.capture import archiving as capture, session_merge
from obsidian_memory.core import settings as settings_module

SID = session_id(13)
PROMPTS = [f"prompt number {i}" for i in range(6)]


@pytest.fixture
def user(env):
    env.projects = env.config_dir / "projects"
    env.full = write_transcript(env.projects / "-work-demo" / f"{SID}.jsonl", SID, PROMPTS)
    assert env.run("import").returncode == 0
    return env


def record(env, sid: str = SID) -> dict:
    db = sqlite3.connect(env.archive_db)
    try:
        started, ended, duration, details = db.execute(
            "SELECT started_at, ended_at, duration_seconds, details FROM sessions WHERE session_id = ?", (sid,)).fetchone()
        prompts = [row[0] for row in db.execute("SELECT text FROM prompts WHERE session_id = ? ORDER BY position", (sid,))]
    finally:
        db.close()
    details = json.loads(details)
    return {"started": started, "ended": ended, "duration": duration, "prompts": prompts,
            "files": details["files_touched"], "tools": details["tools"]}


def excerpt(source, target, lines: int):
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[:lines]))
    return target


def test_archiving_an_excerpt_under_another_path_keeps_the_record_and_says_so(user, tmp_path):
    before = record(user)
    short = excerpt(user.full, tmp_path / "copy" / f"{SID}.jsonl", 3)
    for args in (["archive", "--transcript", short], ["archive", short]):
        result = user.run(*args)
        assert result.returncode == 0, result.stderr.decode()
        assert f"kept {SID}: the archived record is richer than {short}" in result.stdout.decode()
    assert record(user) == before
    [note] = (user.vault / "Meta" / "claude-sessions").rglob("*.md")
    assert all(prompt in note.read_text(encoding="utf-8") for prompt in PROMPTS)


def test_the_same_file_cut_short_keeps_the_record_and_import_reports_it_once(user):
    before = record(user)
    excerpt(user.full, user.full, 5)
    first = user.run("import")
    assert first.returncode == 0
    out = first.stdout.decode()
    assert f"kept {SID}: the archived record is richer than {user.full} (it lacks 3 of the 6 archived prompts" in out
    assert record(user) == before
    again = user.run("import").stdout.decode()
    assert "kept" not in again and again.startswith("archived 0 / unchanged 1")
    assert user.run("sweep", "--quiet-seconds", "0").stdout.decode().startswith("archived 0 / unchanged 1")


def test_a_resumed_session_in_a_new_file_holding_only_the_new_part_is_merged(user):
    later = write_transcript(user.projects / "-work-elsewhere" / f"{SID}.jsonl", SID, ["after the resume"],
                             start="2026-03-05T10:00:00.000Z")
    lines = [json.loads(line) for line in later.read_text(encoding="utf-8").splitlines()]
    for line in lines:   # entries of their own (new uuids), as a resumed session writes them
        line["uuid"] = "resumed-" + line["uuid"]
    later.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = user.run("import")
    assert result.returncode == 0 and f"kept {SID}" in result.stdout.decode() and "merged" in result.stdout.decode()
    merged = record(user)
    assert merged["prompts"] == [*PROMPTS, "after the resume"]
    assert merged["started"] == "2026-03-04T09:00:00.000Z" and merged["ended"] == "2026-03-05T10:00:00.000Z"
    assert merged["duration"] == 25 * 3600
    assert user.run("import").stdout.decode().startswith("archived 0 / unchanged 2")


def test_a_transcript_that_grew_is_taken_as_it_is(user):
    write_transcript(user.full, SID, [*PROMPTS, "one more"])
    result = user.run("import")
    assert "kept" not in result.stdout.decode()
    assert record(user)["prompts"] == [*PROMPTS, "one more"]


def test_a_record_shrunk_by_an_older_version_is_restored_by_import(user, tmp_path, monkeypatch):
    """Before the merge, `archive --transcript excerpt` replaced the record and import then called the
    full transcript unchanged: it is now read again and merged back."""
    user.apply(monkeypatch)
    monkeypatch.setattr(session_merge, "merge", lambda stored, parsed: (parsed, session_merge.TAKE_TRANSCRIPT, ""))
    capture.archive_transcript(str(excerpt(user.full, tmp_path / "copy" / f"{SID}.jsonl", 3)), settings_module.load())
    assert record(user)["prompts"] == PROMPTS[:2]
    monkeypatch.undo()
    assert user.run("import").returncode == 0
    assert record(user)["prompts"] == PROMPTS


def test_the_real_excerpt_of_a_long_session_never_erases_it(env, tmp_path):
    """The issue's case: `archive --transcript` on a 7-line excerpt of a 1,900-line real session."""
    shutil.copytree(shared_path("fixtures", "transcripts", "projects"), env.config_dir / "projects")
    assert env.run("import").returncode == 0
    longest = max((env.config_dir / "projects").glob("*/*.jsonl"), key=lambda p: p.stat().st_size)
    sid = longest.stem
    before = record(env, sid)
    short = excerpt(longest, tmp_path / "excerpt" / longest.name, 7)
    result = env.run("archive", "--transcript", short)
    assert result.returncode == 0 and f"kept {sid}" in result.stdout.decode()
    assert record(env, sid) == before and before["duration"] > 3600 and before["prompts"]


@st.composite
def _pieces(draw):
    """Files for one session: each a run of the full transcript's lines (a copy, an excerpt, the
    part after a resume), under its own path or the session's own path, archived in any order."""
    count = draw(st.integers(1, 4))
    pieces = []
    for _ in range(count):
        start = draw(st.integers(0, 10))
        end = draw(st.integers(start + 1, 12))
        pieces.append((start, end, draw(st.booleans())))
    return pieces


@hypothesis_settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(pieces=_pieces())
def test_no_order_of_partial_copies_ever_loses_an_archived_prompt(env, tmp_path_factory, monkeypatch, pieces):
    """Property: whatever parts of a session's transcript are archived, from whatever files and in
    whatever order, every prompt that was ever archived stays archived, in order, and the
    session spans the earliest start and the latest end seen."""
    env.apply(monkeypatch)
    if env.archive_db.exists():
        env.archive_db.unlink()
    full_lines = write_transcript(tmp_path_factory.mktemp("full") / f"{SID}.jsonl", SID, PROMPTS
                                  ).read_bytes().splitlines(keepends=True)
    own = env.config_dir / "projects" / "-work-demo" / f"{SID}.jsonl"
    seen_prompts, seen_stamps = set(), []
    for start, end, at_own_path in pieces:
        target = own if at_own_path else tmp_path_factory.mktemp("piece") / f"{SID}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"".join(full_lines[start:end]))
        entries = [json.loads(line) for line in full_lines[start:end]]
        seen_prompts |= {e["message"]["content"] for e in entries if e["type"] == "user"}
        seen_stamps += [e["timestamp"] for e in entries]
        capture.archive_transcript(str(target), settings_module.load())
    if not seen_prompts:
        return
    archived = record(env)
    assert set(archived["prompts"]) == seen_prompts
    assert archived["prompts"] == sorted(archived["prompts"], key=PROMPTS.index)
    assert archived["started"] == min(seen_stamps) and archived["ended"] == max(seen_stamps)
