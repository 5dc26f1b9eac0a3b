"""Hook payloads and projects folders that are not what they claim: a
transcript_path outside `$CLAUDE_CONFIG_DIR/projects/`, a file holding another session's entries,
a FIFO, a link to /dev/zero. Only regular files inside the projects folder, named after the
payload's session, are read; import and the sweep never block; the sweep has a deadline."""
from __future__ import annotations

import json
import os
import sqlite3

import pytest
from archive_fixtures import hook_payload, session_id, write_transcript
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from obsidian_memory.capture import archiving as capture
from obsidian_memory.core import settings as settings_module

REAL = session_id(1)
OTHER = session_id(2)


@pytest.fixture
def user(env):
    env.projects = env.config_dir / "projects"
    env.real = write_transcript(env.projects / "-work-demo" / f"{REAL}.jsonl", REAL, ["the real prompt"])
    assert env.run("import").returncode == 0
    return env


def prompts(env, sid: str) -> list[str]:
    db = sqlite3.connect(env.archive_db)
    try:
        return [row[0] for row in db.execute("SELECT text FROM prompts WHERE session_id = ? ORDER BY position", (sid,))]
    finally:
        db.close()


def recorded_paths(env) -> list[str]:
    db = sqlite3.connect(env.archive_db)
    try:
        return [row[0] for row in db.execute("SELECT path FROM transcripts")]
    finally:
        db.close()


def run_hook(env, payload) -> None:
    result = env.hook(["archive"], payload, timeout=60)
    assert result.returncode == 0 and result.stdout == b"", result.stderr.decode()


def log(env) -> str:
    return env.log_file.read_text(encoding="utf-8") if env.log_file.exists() else ""


def test_a_crafted_file_outside_the_projects_folder_never_replaces_a_session(user, tmp_path):
    crafted = write_transcript(tmp_path / "elsewhere" / f"{REAL}.jsonl", REAL, ["crafted prompt", "another"])
    run_hook(user, hook_payload("SessionEnd", crafted, session_id=REAL))
    assert prompts(user, REAL) == ["the real prompt"]
    assert str(crafted) not in recorded_paths(user)
    assert "refused: not inside" in log(user)
    [note] = (user.vault / "Meta" / "claude-sessions").rglob("*.md")
    assert "crafted prompt" not in note.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", ["/etc/passwd", "/dev/zero", "/", "relative/path.jsonl"])
def test_files_that_are_not_transcripts_are_never_recorded(user, path):
    run_hook(user, hook_payload("SessionEnd", None, session_id=REAL, transcript_path=path))
    assert recorded_paths(user) == [str(user.real)]
    assert prompts(user, REAL) == ["the real prompt"]


def test_a_file_named_for_one_session_holding_another_sessions_entries_is_not_archived(user):
    crafted = write_transcript(user.projects / "-work-demo" / f"{OTHER}.jsonl", REAL, ["crafted prompt"])
    run_hook(user, hook_payload("SessionEnd", crafted, session_id=OTHER))
    imported = user.run("import")
    assert imported.returncode == 0
    assert prompts(user, REAL) == ["the real prompt"] and prompts(user, OTHER) == []
    assert f"its entries belong to session {REAL}, not to {OTHER}" in log(user)


def test_a_payload_whose_session_id_differs_from_the_file_name_is_refused(user):
    run_hook(user, hook_payload("SessionEnd", user.real, session_id=OTHER))
    assert "not the transcript of session" in log(user)
    assert prompts(user, OTHER) == []


@pytest.fixture
def traps(user):
    """A FIFO and a link to /dev/zero where transcripts live."""
    fifo = user.projects / "-work-fifo" / f"{session_id(3)}.jsonl"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    zero = user.projects / "-work-zero" / f"{session_id(4)}.jsonl"
    zero.parent.mkdir()
    zero.symlink_to("/dev/zero")
    os.utime(user.real, (0, 0))   # quiet for long: the sweep takes it
    write_transcript(user.projects / "-work-demo" / f"{session_id(5)}.jsonl", session_id(5), ["a second session"])
    os.utime(user.projects / "-work-demo" / f"{session_id(5)}.jsonl", (0, 0))
    return user


@pytest.mark.parametrize("command", [["import"], ["import", "--dry-run"], ["sweep", "--quiet-seconds", "0"],
                                     ["doctor"], ["sessions"]])
def test_a_fifo_or_a_link_to_dev_zero_never_blocks_import_or_the_sweep(traps, command):
    result = traps.run(*command, timeout=60)   # before: blocked forever on the FIFO / read /dev/zero forever
    assert "Traceback" not in result.stderr.decode()
    assert prompts(traps, REAL) == ["the real prompt"]
    if command == ["import"]:   # said once; not tried again until they change
        out = result.stdout.decode()
        assert "-work-fifo" in out and "not a regular file" in out and "-work-zero" in out and "not inside" in out
        assert result.returncode == 1 and "failed 2" in out
        again = traps.run("import", timeout=60)
        assert again.returncode == 0 and again.stdout.decode().startswith("archived 0 / unchanged 4 / failed 0")


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_a_hook_pointed_at_a_fifo_or_dev_zero_returns_at_once(traps, which):
    sid = session_id(3 if which == "fifo" else 4)
    run_hook(traps, hook_payload("SessionEnd", traps.projects / f"-work-{which}" / f"{sid}.jsonl", session_id=sid))
    assert ("not a regular file" if which == "fifo" else "not inside") in log(traps)


def test_the_sweep_stops_at_its_deadline_and_the_next_one_goes_on(traps):
    stopped = traps.run("sweep", "--quiet-seconds", "0", "--deadline", "0")
    assert stopped.returncode == 0
    assert stopped.stdout.decode().strip().endswith("stopped at the deadline with 4 to go")
    assert "sweep: stopped after 0 s with 4 transcript(s) to go" in log(traps)
    went_on = traps.run("sweep", "--quiet-seconds", "0")
    assert went_on.stdout.decode().startswith("archived 2 / unchanged 0 / failed 2")
    assert prompts(traps, session_id(5)) == ["a second session"]


_HOSTILE_PATHS = st.sampled_from(["/etc/passwd", "/dev/zero", "/dev/null", "/", "", ".", "..", "~",
                                  "../../../etc/passwd", "/tmp", "x" * 5000, "a\x00b", "relative.jsonl",
                                  "{projects}/-work-demo/../../../../etc/passwd", "{projects}/-work-fifo/{fifo}.jsonl",
                                  "{projects}/-work-demo", "{projects}/-work-demo/{real}.jsonl",
                                  "{crafted}"])
_HOSTILE_IDS = st.one_of(st.sampled_from([REAL, OTHER, session_id(3), "", "../x", "a" * 300, "x\ny"]),
                         st.none(), st.integers(), st.text(max_size=20))


@hypothesis_settings(max_examples=80, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(path=_HOSTILE_PATHS, sid=_HOSTILE_IDS, summary=st.one_of(st.none(), st.text(max_size=30)))
def test_no_payload_replaces_a_session_or_records_a_file_outside_the_projects_folder(traps, tmp_path, monkeypatch,
                                                                                    path, sid, summary):
    """Property: whatever a payload says, the hook never raises, never blocks, never records a
    file outside the projects folder, and the real session keeps its own prompts."""
    traps.apply(monkeypatch)
    crafted = write_transcript(tmp_path / "crafted" / f"{REAL}.jsonl", REAL, ["crafted prompt"])
    payload = {"hook_event_name": "SessionEnd", "session_id": sid,
               "transcript_path": path.format(projects=traps.projects, fifo=session_id(3), real=REAL, crafted=crafted)}
    if summary is not None:
        payload.update(hook_event_name="PostCompact", compact_summary=summary)
    capture.handle_hook(payload, settings_module.load())
    assert all(os.path.abspath(p).startswith(str(traps.projects) + os.sep) for p in recorded_paths(traps))
    assert prompts(traps, REAL) == ["the real prompt"]


def test_json_payload_fixture_is_the_real_shape():
    payload = hook_payload("SessionEnd", None)
    assert {"session_id", "transcript_path", "hook_event_name"} <= set(payload)
    json.dumps(payload)


def test_a_50_mb_compact_summary_is_cut_with_a_visible_mark(user):
    """21.9: a PostCompact `compact_summary` of 50 MB was stored whole (archive, note, context)."""
    huge = "The summary begins. " + "word " * 10_000_000
    payload = hook_payload("PostCompact", user.real, session_id=REAL, compact_summary=huge)
    run_hook(user, json.dumps(payload).encode("utf-8"))
    db = sqlite3.connect(user.archive_db)
    try:
        [(stored,)] = db.execute("SELECT text FROM compact_summaries WHERE origin = 'post_compact'").fetchall()
    finally:
        db.close()
    mark = f"[cut by obsidian-memory: this summary was {len(huge):,} characters long; the first 100,000 are kept]"
    assert stored.startswith(mark + "\n\nThe summary begins.") and len(stored) < 101_000
    [note] = (user.vault / "Meta" / "claude-sessions").rglob("*.md")
    text = note.read_text(encoding="utf-8")
    assert mark in text and len(text) < 150_000
