"""`obsidian_memory.py hook session-start` as Claude Code runs it: a subprocess fed real payloads."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import time

import pytest

from archive_fixtures import write_transcript
from testkit import CLI, FIXTURES
from context_fixtures import add_sessions, make_repo, session_id, write_note
from obsidian_memory.archive import open_archive

PAYLOADS = sorted((FIXTURES / "hooks").glob("session_start_*.json"))
HEAVY = {"jinja2", "yaml", "argparse", "dataclasses", "pathlib", "subprocess", "tqdm", "typing", "inspect",
         "urllib", "http", "socket", "ssl", "email", "asyncio", "importlib.metadata", "tomllib", "logging"}


def payload(name: str, **changes) -> dict:
    data = json.loads((FIXTURES / "hooks" / name).read_text(encoding="utf-8"))
    data.update(changes)
    return data


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


def hook_output(result) -> dict:
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    return json.loads(result.stdout.decode("utf-8"))


@pytest.mark.parametrize("fixture", [p.name for p in PAYLOADS])
def test_real_payloads_get_exactly_one_hook_json_object(env, repo, fixture):
    write_note(env, "Meta/claude-state.md", "Migrating the importer to the new schema.\n")
    add_sessions(env.archive_db, str(repo), [1, 2])
    result = env.hook(["session-start"], payload(fixture, cwd=str(repo / "src")))
    out = hook_output(result)
    assert list(out) == ["hookSpecificOutput"]
    assert list(out["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "Migrating the importer to the new schema." in context
    assert session_id(2) in context and session_id(1) in context
    assert len(context) <= 6000
    assert result.stdout.count(b"\n") == 0  # one JSON object, nothing else on stdout


@pytest.mark.parametrize("stdin", [b"", b"   \n", b"not json", b"[1, 2]", b"\xff\xfe\x00", b'{"a": ',
                                   b'{"hook_event_name": "Stop", "session_id": "x"}', b"{}"])
def test_empty_or_garbage_stdin_prints_nothing_and_exits_0(env, repo, stdin):
    write_note(env, "Meta/claude-state.md", "busy\n")
    result = env.run("hook", "session-start", input=stdin, cwd=repo)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_missing_vault_exits_0_and_still_shows_the_sessions(env, repo):
    add_sessions(env.archive_db, str(repo), [7])
    result = env.hook(["session-start"], payload("session_start_v2.1.332_startup.json", cwd=str(repo)),
                      env={"OBSIDIAN_VAULT": str(env.root / "gone")})
    context = hook_output(result)["hookSpecificOutput"]["additionalContext"]
    assert session_id(7) in context
    assert "is not there now" in context


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("note", ["Meta/claude-state.md", "Meta/claude-learnings.md"])
def test_a_fifo_in_place_of_a_memory_note_never_holds_the_hook(env, repo, note):
    add_sessions(env.archive_db, str(repo), [3])
    (env.vault / note).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(env.vault / note)
    result = env.hook(["session-start"], payload("session_start_v2.1.332_startup.json", cwd=str(repo)), timeout=30)
    assert session_id(3) in hook_output(result)["hookSpecificOutput"]["additionalContext"]


def test_nothing_worth_saying_prints_nothing(env, repo):
    result = env.hook(["session-start"], payload("session_start_v2.0.76_startup.json", cwd=str(repo)))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_compact_payload_reinjects_the_state(env, repo):
    write_note(env, "Meta/claude-state.md", "Halfway through the importer.\n")
    out = hook_output(env.hook(["session-start"], payload("session_start_v2.0.76_compact.json", cwd=str(repo))))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "after compaction" in context and "Halfway through the importer." in context


def test_the_hook_imports_nothing_heavy(env, repo):
    """Run without site (-S), so that nothing is imported before the hook starts; the packages
    are reachable through PYTHONPATH (which, unlike .pth files, imports nothing)."""
    write_note(env, "Meta/claude-state.md", "busy\n")
    write_note(env, "Meta/claude-learnings.md", "- 2026-01-01 10:00 — a learning #tag\n")
    add_sessions(env.archive_db, str(repo), [1], summary=lambda n: "a summary")
    path = os.pathsep.join([str(CLI.parents[1]), sysconfig.get_paths()["purelib"]])
    data = json.dumps(payload("session_start_v2.1.332_startup.json", cwd=str(repo))).encode()
    result = subprocess.run([sys.executable, "-S", "-X", "importtime", str(CLI), "hook", "session-start"],
                            input=data, capture_output=True, env=env.environ(PYTHONPATH=path), timeout=60)
    assert result.returncode == 0
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "a learning" in context and session_id(1) in context  # every section ran
    imported = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", result.stderr.decode(), re.M))
    assert "obsidian_memory.context.session_start" in imported and "sqlite3" in imported
    assert imported & HEAVY == set()
    assert not any(name.split(".")[0] in HEAVY for name in imported)


def test_the_sweep_runs_detached_and_the_hook_does_not_wait_for_it(env, repo):
    """The sweep is held up half-way (the vault lock is taken here, so it archives the missed
    session and then waits to write its note): the hook must have returned by then, and the
    sweep must go on to write the note once the lock is free. (A FIFO held it up before: now
    a FIFO is never read, so it cannot stall a sweep any more.)"""
    from obsidian_memory.core.locks import FileLock

    current = "00000000-0000-4000-8000-000000000001"
    folder = env.config_dir / "projects" / "-work-demo"
    folder.mkdir(parents=True)
    write_transcript(folder / f"{current}.jsonl", current, ["the running session"])
    missed = "ffffffff-0000-4000-8000-000000000002"
    write_transcript(folder / f"{missed}.jsonl", missed, ["a missed session"])
    old = time.time() - 3600
    for path in folder.iterdir():
        os.utime(path, (old, old))

    with FileLock(str(env.config_dir / "obsidian-memory" / "locks" / "vault.lock"), timeout=5):
        result = env.hook(["session-start"], payload("session_start_v2.1.332_startup.json", cwd=str(repo),
                                                     session_id=current), timeout=30)
        assert result.returncode == 0 and result.stdout == b""  # nothing worth saying yet
        assert _wait_for_session(env.archive_db, missed, deadline=time.monotonic() + 60)   # the sweep runs
        assert not list(env.vault.rglob(f"*_{missed[:8]}.md"))   # ... and waits for the lock
    deadline = time.monotonic() + 60
    while not list(env.vault.rglob(f"*_{missed[:8]}.md")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(env.vault.rglob(f"*_{missed[:8]}.md")), "the sweep did not go on once the lock was free"
    with open_archive(str(env.archive_db), readonly=True) as archive:
        assert archive.sessions.find(current) == []  # the running session is left alone


def _wait_for_session(db, sid: str, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with open_archive(str(db), readonly=True) as archive:
                    if archive.sessions.find(sid):
                        return True
            except Exception:
                pass
        time.sleep(0.1)
    return False


def test_a_second_start_within_the_interval_starts_no_sweep(env, repo):
    stamp = env.config_dir / "obsidian-memory" / "sweep.stamp"
    env.hook(["session-start"], payload("session_start_v2.1.332_startup.json", cwd=str(repo)))
    first = stamp.stat().st_mtime
    env.hook(["session-start"], payload("session_start_v2.1.332_resume.json", cwd=str(repo)))
    assert stamp.stat().st_mtime == first
    os.utime(stamp, (first - 3600, first - 3600))
    env.hook(["session-start"], payload("session_start_v2.1.332_resume.json", cwd=str(repo)))
    assert stamp.stat().st_mtime > first - 3600
