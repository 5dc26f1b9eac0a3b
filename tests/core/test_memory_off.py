"""Memory off for one session (`OBSIDIAN_MEMORY=off`), through the real hooks and CLI as
subprocesses: nothing injected, nothing archived, then or later (a sweep, an import, the session
resumed without the variable)."""
from __future__ import annotations

import json
import sqlite3

from archive_fixtures import hook_payload, session_id, write_transcript

OFF = {"OBSIDIAN_MEMORY": "off"}
PROMPT = "Fix the zebrafish cache warmup in src/cache.py"


def notes(env) -> list[str]:
    return sorted(p.name for p in env.vault.rglob("*.md"))


def test_a_session_started_with_memory_off_gets_nothing_and_is_never_archived(env, tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    projects = env.config_dir / "projects" / "-repo"
    earlier, off = session_id(1), session_id(2)
    write_transcript(projects / f"{earlier}.jsonl", earlier, [PROMPT], cwd=str(repo))
    assert env.run("import").returncode == 0          # an earlier session the context and recall would show
    before = notes(env)
    assert env.hook(["session-start"], {"hook_event_name": "SessionStart", "source": "startup",   # memory on
                                        "session_id": session_id(3), "cwd": str(repo)}, cwd=repo).stdout != b""

    transcript = write_transcript(projects / f"{off}.jsonl", off, ["the zebrafish cache warmup again"], cwd=str(repo))
    start = env.hook(["session-start"], {"hook_event_name": "SessionStart", "source": "startup", "session_id": off,
                                         "cwd": str(repo)}, cwd=repo, env=OFF)
    recall = env.hook(["user-prompt"], {"hook_event_name": "UserPromptSubmit", "session_id": off, "cwd": str(repo),
                                        "prompt": "the zebrafish cache warmup again"}, cwd=repo, env=OFF)
    end = env.hook(["archive"], hook_payload("SessionEnd", transcript, session_id=off), env=OFF)
    for done in (start, recall, end):
        assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    assert (env.config_dir / "obsidian-memory" / "sessions-off").read_text(encoding="utf-8") == off + "\n"

    # later, without the variable: the sweep another session starts, an import, the session resumed
    sweep = env.run("sweep", "--quiet-seconds", "0", "--wait", "60")    # (after the one a hook started, if any)
    assert sweep.returncode == 0 and "archived 0" in sweep.stdout.decode() and "skipped 1" in sweep.stdout.decode()
    assert env.run("import").returncode == 0
    resumed = env.hook(["archive"], hook_payload("SessionEnd", transcript, session_id=off))
    assert resumed.returncode == 0
    transcript.unlink()      # a compaction of the resumed session whose transcript cannot be read: its summary alone
    compacted = env.hook(["archive"], hook_payload("PostCompact", transcript, session_id=off,
                                                   compact_summary="We warmed the zebrafish cache."))
    assert compacted.returncode == 0
    listed = json.loads(env.run("sessions", "--json").stdout)
    assert [s["session_id"] for s in listed] == [earlier]
    assert notes(env) == before
    archive = sqlite3.connect(env.archive_db)
    try:
        assert archive.execute("SELECT count(*) FROM compact_summaries WHERE session_id = ?", (off,)).fetchone() == (0,)
    finally:
        archive.close()
