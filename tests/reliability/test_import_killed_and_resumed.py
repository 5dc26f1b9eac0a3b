"""`import` killed with SIGKILL part-way, then run again: it completes and leaves no trace of the kill."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

from archive_fixtures import session_id, write_transcript
from reliability_kit import archive_counts, history_lines, session_notes, temp_files
from testkit import CLI

from obsidian_memory.core.fsutil import TEMP_PREFIX
from obsidian_memory.vault.notes.note_layout import MY_NOTES_HINT

SESSIONS = 60


def _write_sessions(env) -> list[str]:
    projects = env.config_dir / "projects"
    sids = [session_id(1000 + n) for n in range(SESSIONS)]
    for n, sid in enumerate(sids):
        write_transcript(projects / f"-work-repo{n % 3}" / f"{sid}.jsonl", sid,
                         [f"prompt {n} {'x' * 200}", "second", "third"], cwd=f"/work/repo{n % 3}",
                         start=f"2026-0{n % 9 + 1}-1{n % 10}T0{n % 10}:00:00.000Z")
    return sids


def _import(env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(CLI), "import"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env.environ(), cwd=str(env.root))


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_an_import_killed_at_random_points_completes_on_the_next_run_without_duplicates(env):
    sids = _write_sessions(env)
    rng = random.Random(20261203)
    kills = 0
    # kill points: once the vault holds a (seeded) random number of notes, plus a random moment
    # more, so that some kills land in a note write, some in the archive, some in between
    for target in sorted(rng.sample(range(1, SESSIONS), 5)):
        proc = _import(env)
        while proc.poll() is None and len(session_notes(env.vault)) < target:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.03))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
    assert kills >= 3  # the points are seeded: most runs are cut short
    final = subprocess.run([sys.executable, str(CLI), "import"], capture_output=True, env=env.environ(),
                           cwd=str(env.root), timeout=300)
    assert final.returncode == 0, final.stderr
    assert b"failed 0" in final.stdout and b"Traceback" not in final.stderr

    counts = archive_counts(env.archive_db)
    assert counts["integrity"] == "ok"
    assert sorted(counts["sessions"]) == sorted((sid, 1) for sid in sids)
    assert counts["prompts"] == {sid: 3 for sid in sids}
    notes = session_notes(env.vault)
    assert len(notes) == SESSIONS and sorted(counts["notes"].values()) == notes
    for note in notes:   # whole notes only: rendered to the end of the user's section
        assert (env.vault / note).read_text(encoding="utf-8").endswith(MY_NOTES_HINT + "\n"), note
    assert len(history_lines(env.vault)) == SESSIONS
    assert temp_files(env.vault) == []
    again = subprocess.run([sys.executable, str(CLI), "import"], capture_output=True, env=env.environ(),
                           cwd=str(env.root), timeout=120)
    assert again.stdout.startswith(b"archived 0 / unchanged %d" % SESSIONS)


def test_the_next_import_removes_only_our_own_temp_files_of_dead_writers(env):
    sid = session_id(2000)
    write_transcript(env.config_dir / "projects" / "-work-demo" / f"{sid}.jsonl", sid, ["hello"])
    month = env.vault / "Meta" / "claude-sessions" / "2026-03"
    month.mkdir(parents=True)
    dead = month / f"{TEMP_PREFIX}{_dead_pid()}-2026-03-04_{sid[:8]}.md"
    dead.write_text("half a no", encoding="utf-8")
    alive = month / f"{TEMP_PREFIX}{os.getppid()}-2026-03-05_abcdef12.md"   # a writer still running
    alive.write_text("being written", encoding="utf-8")
    lookalikes = [month / f"{TEMP_PREFIX}notes.md", month / ".obsidian-memory-tmp.md", month / "tmp-123-x.md",
                  env.vault / f"{TEMP_PREFIX}{_dead_pid()}-outside-our-folders.md"]
    for path in lookalikes:
        path.write_text("the user's", encoding="utf-8")
    meta_dead = env.vault / "Meta" / f"{TEMP_PREFIX}{_dead_pid()}-claude-session-history.md"
    meta_dead.write_text("half a history", encoding="utf-8")

    result = subprocess.run([sys.executable, str(CLI), "import"], capture_output=True, env=env.environ(),
                            cwd=str(env.root), timeout=120)
    assert result.returncode == 0, result.stderr
    assert not dead.exists() and not meta_dead.exists()
    assert alive.read_text(encoding="utf-8") == "being written"
    assert all(p.read_text(encoding="utf-8") == "the user's" for p in lookalikes)
    assert (month / f"2026-03-04_{sid[:8]}.md").is_file()
