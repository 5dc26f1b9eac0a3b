"""archive / import / sessions / show / sweep and `hook archive`, run as a user runs them."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest
from archive_fixtures import REAL_2_1_332_ID, copy_real, hook_payload, session_id, write_transcript
from testkit import CLI

from obsidian_memory.archive import integrity_check


@pytest.fixture
def user(env):
    env.projects = env.config_dir / "projects"
    return env


def notes_in(vault) -> list[str]:
    return sorted(str(p.relative_to(vault)) for p in vault.rglob("*.md") if "claude-sessions" in str(p))


def session_rows(env) -> list[tuple]:
    db = sqlite3.connect(env.archive_db)
    try:
        return db.execute("SELECT session_id, prompt_count FROM sessions ORDER BY session_id").fetchall()
    finally:
        db.close()


@pytest.mark.parametrize("event", ["SessionEnd", "PreCompact", "PostCompact", "Stop"])
def test_hook_archive_with_a_real_payload_is_silent_and_archives(user, event):
    transcript = copy_real(user.projects)
    result = user.hook(["archive"], hook_payload(event, transcript))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert session_rows(user) == [(REAL_2_1_332_ID, 3)]
    assert notes_in(user.vault) == ["Meta/claude-sessions/2026-12/2026-12-02_66135f19.md"]


@pytest.mark.parametrize("stdin", [b"", b"not json", b"\xff\xfe\x00garbage\x80", b"[1, 2]", b'{"session_id": null}',
                                   json.dumps({"hook_event_name": "SessionEnd", "transcript_path": "/nope.jsonl"}).encode()])
def test_hook_archive_on_garbage_stdin_exits_0_with_empty_stdout(user, stdin):
    result = user.hook(["archive"], stdin)
    assert (result.returncode, result.stdout) == (0, b"")


def test_hook_sequence_precompact_postcompact_session_end_gives_one_note(user):
    transcript = copy_real(user.projects)
    for event in ("PreCompact", "PostCompact", "Stop", "SessionEnd"):
        assert user.hook(["archive"], hook_payload(event, transcript)).returncode == 0
    assert session_rows(user) == [(REAL_2_1_332_ID, 3)]
    [note] = notes_in(user.vault)
    text = (user.vault / note).read_text(encoding="utf-8")
    assert text.count("### Compaction") == 1  # the PostCompact summary is the transcript's one
    assert user.run("sweep", "--quiet-seconds", "0").stdout.decode().startswith("archived 0 /")
    assert notes_in(user.vault) == [note]


def test_archive_command_prints_the_note_and_refuses_a_missing_file(user):
    transcript = copy_real(user.projects)
    result = user.run("archive", "--transcript", transcript)
    assert result.returncode == 0
    assert result.stdout.decode().strip() == (
        f"archived {REAL_2_1_332_ID}: Meta/claude-sessions/2026-12/2026-12-02_66135f19.md")
    missing = user.run("archive", "--transcript", user.root / "nope.jsonl")
    assert missing.returncode == 2 and len(missing.stderr.decode().strip().splitlines()) == 1


def test_import_prints_a_summary_and_a_second_run_archives_nothing(user):
    copy_real(user.projects)
    sid = session_id(1)
    write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["hello"])
    dry = user.run("import", "--dry-run")
    assert dry.stdout.decode().splitlines()[-1] == "dry run: would archive 2 / unchanged 0"
    assert not user.archive_db.exists()
    first = user.run("import")
    assert first.returncode == 0 and first.stdout.decode().splitlines()[-1] == "archived 2 / unchanged 0 / failed 0"
    assert first.stderr == b""  # no progress bar when stderr is not a terminal
    second = user.run("import")
    assert second.stdout.decode().splitlines()[-1] == "archived 0 / unchanged 2 / failed 0"
    bad = user.run("import", "--since", "yesterday")
    assert bad.returncode == 2 and "YYYY-MM-DD" in bad.stderr.decode()


def test_sessions_lists_newest_first_as_text_and_json(user):
    for n, day in ((1, "01"), (2, "03"), (3, "02")):
        sid = session_id(n)
        write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["p"] * n,
                         start=f"2026-03-{day}T09:00:00.000Z", title=f"title {n}", cwd=f"/work/proj{n % 2}")
    assert user.run("import").returncode == 0
    data = json.loads(user.run("sessions", "--json").stdout)
    assert [d["session_id"] for d in data] == [session_id(2), session_id(3), session_id(1)]
    assert set(data[0]) == {"session_id", "title", "project", "cwd", "started_at", "ended_at", "prompt_count", "note_path",
                            "machine", "repo_id", "this_machine"}
    assert data[0]["prompt_count"] == 2 and data[0]["note_path"].endswith("2026-03-03_00000002.md")
    assert [d["session_id"] for d in json.loads(user.run("sessions", "--json", "-n", "1").stdout)] == [session_id(2)]
    assert [d["project"] for d in json.loads(user.run("sessions", "--json", "--project", "proj1").stdout)] == ["proj1", "proj1"]
    text = user.run("sessions").stdout.decode().splitlines()
    assert text[0].startswith("2026-03-03 09:00  00000002  proj0  title 2  (2 prompts)")
    assert text[2].startswith("2026-03-01 09:00  00000001  proj1  title 1  (1 prompt)  ")


@pytest.mark.parametrize("command", [["sessions"], ["similar", "Home"], ["related", "Home", "--depth"],
                                     ["read", "Home", "--max-chars"], ["sweep", "--quiet-seconds"]])
@pytest.mark.parametrize("value", ["99999999999999999999", "-1", "ten", "nan"])
def test_numeric_arguments_out_of_range_are_one_line_and_exit_2(user, command, value):
    """`sessions -n 99999999999999999999` ended in an OverflowError traceback."""
    user.run("import")
    args = [*command, value] if command[-1].startswith("--") else [*command, "-n", value]
    result = user.run(*args)
    err = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b"", err
    assert len(err.strip().splitlines()) == 1 and "is not a" in err and "Traceback" not in err


def test_sessions_without_an_archive_says_so(user):
    result = user.run("sessions")
    assert result.returncode == 0 and "no archived sessions" in result.stdout.decode()
    assert json.loads(user.run("sessions", "--json").stdout) == []


def test_show_prints_the_vault_note_or_re_renders_it_when_gone(user):
    transcript = copy_real(user.projects)
    user.run("archive", "--transcript", transcript)
    note = user.vault / notes_in(user.vault)[0]
    note.write_text(note.read_text(encoding="utf-8") + "\nmy own words\n", encoding="utf-8")
    shown = user.run("show", "66135")
    assert shown.returncode == 0 and shown.stdout.decode().endswith("my own words\n")
    note.unlink()
    again = user.run("show", REAL_2_1_332_ID).stdout.decode()
    assert "# fixture greeting script" in again and "my own words" not in again
    assert not note.exists()  # show never writes


def test_a_long_session_note_shows_some_prompts_and_show_all_prints_every_one(user):
    sid = session_id(0x5150)
    prompts = [f"prompt number {i} about the parser" for i in range(120)]
    write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, prompts)
    assert user.run("import").returncode == 0
    note = (user.vault / notes_in(user.vault)[0]).read_text(encoding="utf-8")
    assert "prompt number 0 about" in note and "prompt number 119 about" in note
    assert note.count("about the parser\n```") == 40 and "40 of 120 prompts" in note
    shown = user.run("show", sid[:8], "--all")
    assert shown.returncode == 0
    assert all(f"prompt number {i} about the parser\n" in shown.stdout.decode() for i in range(120))


def test_show_with_an_ambiguous_or_unknown_prefix_is_one_line(user):
    for n in (0x1234, 0x1235):
        sid = f"abcd{n:04x}-0000-4000-8000-000000000000"
        write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    user.run("import")
    ambiguous = user.run("show", "abcd")
    lines = ambiguous.stderr.decode().strip().splitlines()
    assert ambiguous.returncode == 2 and len(lines) == 1
    assert "abcd1234-0000-4000-8000-000000000000" in lines[0] and "abcd1235-" in lines[0]
    unknown = user.run("show", "ffff")
    assert unknown.returncode == 2 and "no archived session" in unknown.stderr.decode()


def test_eight_processes_at_once_leave_one_row_and_one_note_per_session(user):
    ids = [session_id(100 + n) for n in range(3)]
    paths = [write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, [f"prompt {i}"] * (i + 1))
             for i, sid in enumerate(ids)]
    # 8 processes: CLI archives and hook archives, several on the same session
    commands, inputs = [], []
    for i in range(8):
        path, sid = paths[i % 3], ids[i % 3]
        if i % 2:
            commands.append([sys.executable, str(CLI), "archive", "--transcript", str(path)])
            inputs.append(None)
        else:
            commands.append([sys.executable, str(CLI), "hook", "archive"])
            inputs.append(json.dumps(hook_payload("SessionEnd", path, session_id=sid)).encode())
    procs = [subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=user.environ()) for cmd in commands]
    for proc, data in zip(procs, inputs):
        proc.stdin.write(data or b"")
        proc.stdin.close()
    outputs = [(proc.wait(timeout=120), proc.stderr.read()) for proc in procs]
    for proc in procs:
        proc.stdout.close()
        proc.stderr.close()
    assert [code for code, _ in outputs] == [0] * 8, outputs
    assert session_rows(user) == sorted((sid, i + 1) for i, sid in enumerate(ids))
    assert len(notes_in(user.vault)) == 3
    history = (user.vault / "Meta" / "claude-session-history.md").read_text(encoding="utf-8")
    assert len([line for line in history.splitlines() if line.startswith("| 20")]) == 3
    assert integrity_check(str(user.archive_db)) == "ok"
    leftovers = [p for p in user.vault.rglob("*") if p.name.startswith(".obsidian-memory-tmp-")]
    assert leftovers == []
    log = user.log_file.read_text(encoding="utf-8") if user.log_file.exists() else ""
    assert "Traceback" not in log


def test_sweep_command_archives_quiet_changed_transcripts_only(user):
    quiet, busy = session_id(200), session_id(201)
    for sid in (quiet, busy):
        write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["x"])
    old = time.time() - 3600
    os.utime(user.projects / "-work-demo" / f"{quiet}.jsonl", (old, old))
    result = user.run("sweep", "--quiet-seconds", "300", "--exclude-session", "someone-else")
    assert result.returncode == 0 and result.stdout.decode().startswith("archived 1 / unchanged 0 / failed 0")
    assert [r[0] for r in session_rows(user)] == [quiet]
    # the one it left alone is said, not silently dropped
    assert "left 1 transcript(s) changed in the last 300 s for a later sweep" in result.stdout.decode()
    assert "left" not in user.run("sweep", "--quiet-seconds", "0").stdout.decode()


def test_import_counts_a_transcript_that_holds_less_than_the_archive_as_kept_not_archived(user):
    sid = session_id(300)
    path = user.projects / "-work-demo" / f"{sid}.jsonl"
    write_transcript(path, sid, ["first prompt", "second prompt"])
    assert user.run("import").stdout.decode().splitlines()[-1] == "archived 1 / unchanged 0 / failed 0"
    write_transcript(path, sid, ["first prompt"])   # the file now holds less than the archive (truncated)
    again = user.run("import").stdout.decode().splitlines()
    assert again[-1] == ("archived 0 / unchanged 0 / failed 0; kept the archived record of 1 session(s) "
                         "(the transcript holds less)"), again
    assert again[0].startswith(f"kept {sid}: the archived record is richer than ")
    assert session_rows(user) == [(sid, 2)]
