"""`obsidian_memory.py search "<regex>" --sessions`: regex over titles, prompts and compaction
summaries of an archive built from real fixture transcripts (parsed and archived by the real modules)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from obsidian_memory import transcript
from obsidian_memory.archive import open_archive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# fixture transcript -> (started_at, project, note_path) given to it in this archive
SESSIONS = {
    "newer_entry_types.jsonl": ("2026-03-01T10:00:00.000Z", "webapp", "Meta/claude-sessions/login.md"),
    "custom_title.jsonl": ("2026-03-02T10:00:00.000Z", "parser", None),
    "compaction.jsonl": ("2026-03-03T10:00:00.000Z", "webapp", "Meta/claude-sessions/importer.md"),
    "system_generated.jsonl": ("2026-03-04T10:00:00.000Z", "webapp", None),
}


@pytest.fixture
def archived(env):
    archive = open_archive(str(env.archive_db))
    try:
        for name, (started_at, project, note_path) in SESSIONS.items():
            session = transcript.parse(str(FIXTURES / "transcripts" / name))
            session = dataclasses.replace(session, started_at=started_at, project=project)
            archive.upsert_session(session, note_path=note_path)
    finally:
        archive.close()
    return env


def grep(env, *args):
    result = env.run("search", *args, "--sessions", "--json")
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def test_json_shape_and_a_prompt_match(archived):
    data = grep(archived, r"add\s+--dry-RUN")
    assert set(data) == {"pattern", "total_results", "results"}
    assert data["pattern"] == r"add\s+--dry-RUN"
    assert data["total_results"] == 1
    [row] = data["results"]
    assert set(row) == {"session_id", "title", "project", "started_at", "note_path", "field", "snippet"}
    assert row["session_id"] == "11111111-aaaa-4bbb-8ccc-000000000005"
    assert row["note_path"] == "Meta/claude-sessions/importer.md"
    assert row["field"] == "prompt" and "--dry-run" in row["snippet"]


def test_titles_match_case_insensitively(archived):
    [row] = grep(archived, "PARSER REWRITE")["results"]
    assert row["field"] == "title" and row["title"] == "Parser rewrite"


def test_compaction_summaries_are_searched(archived):
    [row] = grep(archived, "first summary: the importer")["results"]
    assert row["field"] == "summary" and row["project"] == "webapp"


def test_results_are_newest_first(archived):
    data = grep(archived, ".")
    assert [r["started_at"][:10] for r in data["results"]] == ["2026-03-04", "2026-03-03", "2026-03-02", "2026-03-01"]


def test_project_since_and_limit(archived):
    assert {r["project"] for r in grep(archived, ".", "--project", "webapp")["results"]} == {"webapp"}
    assert [r["started_at"][:10] for r in grep(archived, ".", "--since", "2026-03-03")["results"]] == [
        "2026-03-04", "2026-03-03"]
    limited = grep(archived, ".", "-n", "1")
    assert limited["total_results"] == 4 and len(limited["results"]) == 1


def test_text_output_lists_sessions_with_note_and_snippet(archived):
    result = archived.run("search", "login redirect", "--sessions")
    text = result.stdout.decode()
    assert result.returncode == 0
    assert text.splitlines()[0] == "sessions matching /login redirect/ | 1 session"
    assert "1. 2026-03-01 10:00 | webapp | Fix login redirect loop" in text
    assert "Meta/claude-sessions/login.md" in text and "[title]" in text


@pytest.mark.parametrize("args, message", [
    (["(unclosed"], "bad regular expression"),
    (["x", "--since", "03/01/2026"], "expected a date YYYY-MM-DD"),
    (["x", "--since", "2026-02-30"], "--since"),
    (["one", "two"], "one regular expression"),
])
def test_bad_input_is_one_line_and_exit_2(archived, args, message):
    result = archived.run("search", *args, "--sessions")
    err = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b""
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_missing_archive_has_no_results(env):
    assert not env.archive_db.exists()
    result = env.run("search", "anything", "--sessions", "--json")
    assert result.returncode == 0 and result.stderr == b""
    assert json.loads(result.stdout) == {"pattern": "anything", "total_results": 0, "results": []}
    assert not env.archive_db.exists()  # a readonly search creates nothing


def test_project_without_sessions_is_refused(env):
    result = env.run("search", "x", "--project", "webapp")
    assert result.returncode == 2 and "only apply with --sessions" in result.stderr.decode()
