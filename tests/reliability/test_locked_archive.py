"""Another writer holds the archive (or the vault lock) longer than we wait: the hook gives up
cleanly within a bounded time, says so in the log, and a later sweep archives the session."""
from __future__ import annotations

import subprocess
import sys
import time

from archive_fixtures import hook_payload, session_id, write_transcript
from reliability_kit import archive_counts, hook_archive, session_notes

from obsidian_memory.capture.archiving import BUSY_TIMEOUT, VAULT_LOCK_SECONDS

HOLD_SQLITE = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""
HOLD_FILE_LOCK = """
import fcntl, os, sys, time
os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
handle = open(sys.argv[1], "a+b")
fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _hold(code: str, target, seconds: float) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", code, str(target), str(seconds)], stdout=subprocess.PIPE)
    assert holder.stdout.readline() == b"held\n"
    return holder


def _two_sessions(env):
    projects = env.config_dir / "projects" / "-work-demo"
    first, second = session_id(1), session_id(2)
    for sid in (first, second):
        write_transcript(projects / f"{sid}.jsonl", sid, [f"work on {sid[:8]}"])
    assert hook_archive(env, hook_payload("SessionEnd", projects / f"{first}.jsonl", session_id=first)).returncode == 0
    return projects, first, second


def _archive_while_held(env, transcript, sid, holder) -> tuple:
    """The SessionEnd hook run while `holder` keeps its lock: (result, seconds it took)."""
    try:
        started = time.monotonic()
        result = hook_archive(env, hook_payload("SessionEnd", transcript, session_id=sid))
        return result, time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()


def _sweep(env):
    return subprocess.run([sys.executable, "-m", "obsidian_memory", "sweep", "--quiet-seconds", "0"],
                          capture_output=True, env=env.environ(), cwd=str(env.root), timeout=120)


def test_a_hook_facing_a_held_write_lock_gives_up_in_bounded_time_and_the_sweep_catches_up(env):
    projects, first, second = _two_sessions(env)
    result, took = _archive_while_held(env, projects / f"{second}.jsonl", second,
                                       _hold(HOLD_SQLITE, env.archive_db, BUSY_TIMEOUT + 20))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert BUSY_TIMEOUT - 0.5 <= took < BUSY_TIMEOUT + 8
    log = env.log_file.read_text(encoding="utf-8")
    assert "locked by another writer; gave up" in log and "Traceback" not in log
    assert sorted(s for s, _ in archive_counts(env.archive_db)["sessions"]) == [first]

    swept = _sweep(env)
    assert swept.returncode == 0 and swept.stdout.startswith(b"archived 1 ")
    counts = archive_counts(env.archive_db)
    assert sorted(counts["sessions"]) == [(first, 1), (second, 1)] and counts["integrity"] == "ok"
    assert len(session_notes(env.vault)) == 2


def test_a_hook_facing_a_held_vault_lock_keeps_the_row_and_the_sweep_writes_the_note(env):
    projects, first, second = _two_sessions(env)
    result, took = _archive_while_held(env, projects / f"{second}.jsonl", second,
                                       _hold(HOLD_FILE_LOCK, env.config_dir / "obsidian-memory" / "locks" / "vault.lock",
                                             VAULT_LOCK_SECONDS + 20))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert took < VAULT_LOCK_SECONDS + 8
    assert "note not written" in env.log_file.read_text(encoding="utf-8")
    counts = archive_counts(env.archive_db)
    assert counts["notes"][second] is None and len(session_notes(env.vault)) == 1

    swept = _sweep(env)
    assert swept.returncode == 0, swept.stderr
    counts = archive_counts(env.archive_db)
    assert counts["notes"][second] and sorted(counts["notes"].values()) == session_notes(env.vault)
