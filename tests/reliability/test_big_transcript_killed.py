"""A long session's archive hook killed at random moments (as Claude Code's hook timeout kills it)
while its transcript grows: the next sweep leaves the archive, the note and the history exactly
as hooks that ran to their end would have left them."""
from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from archive_fixtures import session_id
from reliability_kit import Env, temp_files
from testkit import CLI

from obsidian_memory.capture import resume

SID = session_id(0xB16)
STEPS = (150, 40, 1, 1)            # prompts appended before each hook: ~2.7 MB of transcript in all
PROMPT_BYTES = 12_000


def append_prompts(path: Path, first: int, count: int) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        for i in range(first, first + count):
            stamp = f"2026-03-{2 + i // 100:02d}T{i % 24:02d}:{i % 60:02d}:00.000Z"
            base = {"sessionId": SID, "cwd": "/work/demo", "gitBranch": "main", "version": "2.1.39", "timestamp": stamp}
            rows = [
                {"type": "user", "uuid": f"u{i}", "message": {"role": "user", "content": f"prompt {i}: fix module {i % 7}"}},
                {"type": "assistant", "uuid": f"a{i}", "message": {"id": f"m{i}", "role": "assistant", "model": "claude-test",
                 "content": [{"type": "tool_use", "id": f"t{i}", "name": "Bash",
                              "input": {"command": f"pytest tests/test_{i % 9}.py"}}]}},
                {"type": "user", "uuid": f"r{i}", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": f"t{i}", "content": "." * PROMPT_BYTES,
                     "is_error": i % 13 == 0}]}},
                {"type": "assistant", "uuid": f"b{i}", "message": {"id": f"n{i}", "role": "assistant",
                 "model": "claude-test", "content": [{"type": "text", "text": f"done with {i}"}]}},
            ]
            handle.write("".join(json.dumps({**base, **row}) + "\n" for row in rows))


def hook(env: Env, path: Path, event: str, kill_after: float | None) -> None:
    payload = json.dumps({"session_id": SID, "transcript_path": str(path), "hook_event_name": event,
                          "reason": "other", "cwd": "/work/demo"}).encode()
    proc = subprocess.Popen([sys.executable, str(CLI), "hook", "archive"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env.environ(), cwd=str(env.root))
    proc.stdin.write(payload)
    proc.stdin.close()
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=300) in (0, -signal.SIGKILL)


def state_of(env: Env) -> dict:
    """What a user can see: the archive's session (without the times of archiving), its prompts,
    outcomes and summaries, the notes, with the user's root and machine name (each user has its
    own) replaced by placeholders."""
    db = sqlite3.connect(env.archive_db)
    try:
        db.row_factory = sqlite3.Row
        session = dict(db.execute("SELECT * FROM sessions").fetchone())
        # note_written records the history of our writes (the last ones' digests), which a killed hook changes
        for name in ("archived_at", "first_archived_at", "transcript_mtime", "revision", "note_revision", "note_written"):
            session.pop(name)
        tables = {name: [tuple(r) for r in db.execute(f"SELECT * FROM {name} ORDER BY 1, 2, 3")]
                  for name in ("prompts", "outcomes", "compact_summaries")}
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1
    finally:
        db.close()
    files = {str(p.relative_to(env.vault)): p.read_text(encoding="utf-8") for p in sorted(env.vault.rglob("*.md"))}
    text = json.dumps({"session": session, **tables, "files": files})
    return json.loads(text.replace(str(env.root), "<root>").replace(session["machine"], "<this machine>"))


def run_session(env: Env, rng: random.Random | None, timings: list[float]) -> None:
    """The session growing in STEPS, a PreCompact hook after each step but the last, SessionEnd
    after it; each hook killed at a random moment of its usual run (`timings`) when `rng` is given."""
    path = env.config_dir / "projects" / "-work-demo" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    for step, count in enumerate(STEPS):
        append_prompts(path, written, count)
        written += count
        event = "SessionEnd" if step == len(STEPS) - 1 else "PreCompact"
        if rng is None:
            started = time.perf_counter()
            hook(env, path, event, None)
            timings.append(time.perf_counter() - started)
        else:
            hook(env, path, event, rng.uniform(0.05, timings[step]))


@pytest.mark.parametrize("seed", [3, 31])
def test_hooks_killed_at_random_points_then_the_sweep_equal_an_uninterrupted_run(tmp_path, seed):
    whole, killed = Env(tmp_path / "whole"), Env(tmp_path / "killed")
    timings: list[float] = []
    run_session(whole, None, timings)
    assert (whole.config_dir / "obsidian-memory" / resume.FOLDER).is_dir()   # big enough to be resumed
    run_session(killed, random.Random(seed), timings)
    for env in (whole, killed):
        done = env.run("sweep", "--quiet-seconds", "0")
        assert done.returncode == 0, done.stderr
    assert state_of(killed) == state_of(whole)
    assert temp_files(killed.vault) == [] and not list(
        (killed.config_dir / "obsidian-memory" / resume.FOLDER).glob(".*"))   # no temp file a kill left


# -- the detached paths: a long first read, a note moved away -----------------------------------
# A transcript with more than DETACH_BYTES not read yet is archived by a detached process the hook
# starts; a note no longer at its recorded path is looked for by a detached sweep. Each of them is
# killed at a random moment too (it outlives the hook: Claude Code's kill does not reach it).

LONG_STEPS = (1500, 3)             # ~19 MB: the first hook leaves its archive to a detached process


def started_pids(env: Env, seen: set[int]) -> list[int]:
    text = env.log_file.read_text(encoding="utf-8") if env.log_file.exists() else ""
    found = [int(pid) for pid in re.findall(r"started now \(pid (\d+)\)", text)]
    new = [pid for pid in found if pid not in seen]
    seen.update(new)
    return new


def kill_after(pid: int, seconds: float) -> None:
    time.sleep(seconds)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_long_session(env: Env, rng: random.Random | None, timings: list[float], *, move_note: bool) -> None:
    """LONG_STEPS as run_session's steps, each hook and each process it started killed at a random
    moment of their usual run when `rng` is given; with `move_note`, the note is moved by the user
    before the last hook (its detached sweep finds it)."""
    path = env.config_dir / "projects" / "-work-demo" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    written, seen = 0, set()
    for step, count in enumerate(LONG_STEPS):
        last = step == len(LONG_STEPS) - 1
        if last and move_note:       # once the note is there (a sweep completes what a kill left)
            env.follow_ups_done()
            assert env.run("sweep", "--quiet-seconds", "0").returncode == 0
            [note] = (env.vault / "Meta" / "claude-sessions").rglob("*.md")
            (env.vault / "Projects").mkdir(exist_ok=True)
            note.rename(env.vault / "Projects" / "kept here.md")
        append_prompts(path, written, count)
        written += count
        event = "SessionEnd" if last else "PreCompact"
        if rng is None:
            started = time.perf_counter()
            hook(env, path, event, None)
            env.follow_ups_done()
            timings.append(time.perf_counter() - started)
        else:
            hook(env, path, event, rng.uniform(0.05, timings[step]))
            for pid in started_pids(env, seen):
                kill_after(pid, rng.uniform(0.0, timings[step]))
    if rng is not None:
        env.follow_ups_done()


@pytest.mark.parametrize("seed,move_note", [(5, False), (17, True)])
def test_detached_work_killed_at_random_points_then_the_sweep_equal_an_uninterrupted_run(tmp_path, seed, move_note):
    whole, killed = Env(tmp_path / "whole"), Env(tmp_path / "killed")
    timings: list[float] = []
    run_long_session(whole, None, timings, move_note=move_note)
    log = whole.log_file.read_text(encoding="utf-8")
    assert "archived by a detached process" in log and ("left to a sweep started now" in log) == move_note
    run_long_session(killed, random.Random(seed), timings, move_note=move_note)
    for env in (whole, killed):
        done = env.run("sweep", "--quiet-seconds", "0")
        assert done.returncode == 0, done.stderr
    state = state_of(whole)
    assert state_of(killed) == state
    assert ("Projects/kept here.md" in state["files"]) == move_note
    assert temp_files(killed.vault) == []
