"""`import` over the two whole sessions in ../shared, laid out as Claude Code lays them out."""
from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from testkit import requires_shared, shared_path

from obsidian_memory.archive import integrity_check

pytestmark = [requires_shared, pytest.mark.shared]
SESSIONS = {"4d5611e5-241a-462a-8d15-5122611a9569", "258c7280-ae70-4798-800f-63464d01a85d"}


@pytest.fixture
def user(env):
    shutil.copytree(shared_path("fixtures", "transcripts", "projects"), env.config_dir / "projects")
    for path in (env.config_dir / "projects").rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)  # the shared copy is read-only
    return env


def test_importing_the_shared_sessions_twice_archives_them_once(user):
    first = user.run("import")
    assert first.returncode == 0, first.stderr.decode()
    assert first.stdout.decode().splitlines()[-1] == "archived 2 / unchanged 0 / failed 0"
    second = user.run("import")
    assert second.stdout.decode().splitlines()[-1] == "archived 0 / unchanged 2 / failed 0"

    db = sqlite3.connect(user.archive_db)
    rows = db.execute("SELECT session_id, project, prompt_count, note_path, details FROM sessions").fetchall()
    db.close()
    assert {r[0] for r in rows} == SESSIONS
    for sid, project, prompts, note_path, details in rows:
        assert project.startswith("spotter") and prompts >= 1
        assert note_path.startswith("Meta/claude-sessions/2026-") and note_path.endswith(f"_{sid[:8]}.md")
        assert len(json.loads(details)["subagents"]) == 2
        note = (user.vault / note_path).read_text(encoding="utf-8")
        assert f"claude --resume {sid}" in note and "### Compaction 1" in note
        assert "\x1b" not in note
    history = (user.vault / "Meta" / "claude-session-history.md").read_text(encoding="utf-8")
    assert len([line for line in history.splitlines() if line.startswith("| 20")]) == 2
    assert integrity_check(str(user.archive_db)) == "ok"


def test_sessions_and_show_read_the_imported_archive(user):
    user.run("import")
    listed = json.loads(user.run("sessions", "--json").stdout)
    assert {row["session_id"] for row in listed} == SESSIONS
    shown = user.run("show", "4d5611e5")
    assert shown.returncode == 0 and "4d5611e5-241a-462a-8d15-5122611a9569" in shown.stdout.decode()
