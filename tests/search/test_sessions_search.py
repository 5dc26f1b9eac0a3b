"""`obsidian_memory.py search "<regex>" --sessions`: regex over titles, prompts and compaction
summaries of an archive built from real fixture transcripts (parsed and archived by the real modules)."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from testkit import shared_path

from obsidian_memory.capture import transcript
from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import Prompt, Session

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
            archive.sessions.upsert(session, note_path=note_path)
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
    assert set(row) == {"session_id", "title", "project", "started_at", "note_path", "machine", "origin", "this_machine",
                        "field", "snippet"}
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


# -- bounded time ---------------------------------------------------------------------

@pytest.fixture
def a_run(env):
    """One archived prompt of 50,000 `a` then `b`: exponential for a backtracking `(a+)+$`."""
    with open_archive(str(env.archive_db)) as archive:
        archive.sessions.upsert(Session(session_id="aaaa0000-0000-4000-8000-000000000001", project="demo",
                                       started_at="2026-03-01T10:00:00.000Z", prompts=[Prompt("a" * 50_000 + "b")]))
    return env


def test_a_catastrophic_pattern_answers_at_once(a_run):
    result = a_run.run("search", "(a+)+$", "--sessions", "--json", timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout)["total_results"] == 0
    found = a_run.run("search", "(a+)+b$", "--sessions", "--json", timeout=60)
    [row] = json.loads(found.stdout)["results"]
    assert row["snippet"].startswith("…") and row["snippet"].endswith("ab")


def test_a_slow_pattern_only_python_can_run_stops_at_the_deadline_with_one_line(a_run):
    result = a_run.run("search", "(a+)+(?=c)", "--sessions", "--timeout", "1", timeout=60)
    err = result.stderr.decode()
    assert result.returncode == 1 and result.stdout == b""
    assert "was too slow: stopped after 1 s" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("end, sessions", [(";", 0), (r"\?", 1)])
def test_the_real_transcripts_answer_a_pattern_an_agent_may_write(env, end, sessions):
    """`(\\w+\\s?)+;$` ran over 60 s on the shared real transcripts with Python's engine. The nested
    repetition matches what `\\w\\s?;$` matches: the same sessions."""
    shutil.copytree(shared_path("fixtures", "transcripts", "projects"), env.config_dir / "projects")
    assert env.run("import").returncode == 0
    result = env.run("search", rf"(\w+\s?)+{end}$", "--sessions", "--json", timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    plain = env.run("search", rf"\w\s?{end}$", "--sessions", "--json", timeout=60)
    assert plain.returncode == 0, plain.stderr.decode()
    found, expected = json.loads(result.stdout), json.loads(plain.stdout)
    assert found["total_results"] == expected["total_results"] == sessions
    assert [row["session_id"] for row in found["results"]] == [row["session_id"] for row in expected["results"]]


@pytest.mark.parametrize("args", [["-n", "99999999999999999999"], ["-n", "0"], ["-n", "ten"],
                                  ["--timeout", "1e999"], ["--timeout", "nan"], ["--timeout", "0"]])
def test_numbers_out_of_range_are_one_line_and_exit_2(archived, args):
    result = archived.run("search", "x", "--sessions", *args)
    err = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b"" and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "from" in err


# -- --project: globs and worktrees ----------------------------------------------------------------

@pytest.fixture
def worktrees(env):
    with open_archive(str(env.archive_db)) as archive:
        for n, (project, repo_root) in enumerate([("spotter", "/src/spotter"), ("spotter-gqc", "/src/spotter"),
                                                  ("spotter-dov", "/src/spotter"), ("webapp", "/src/webapp"),
                                                  ("spotterish", None)]):
            archive.sessions.upsert(Session(session_id=f"{n:08x}-0000-4000-8000-000000000000", project=project,
                                           repo_root=repo_root, started_at=f"2026-03-0{n + 1}T10:00:00.000Z",
                                           prompts=[Prompt(f"work on {project}")]))
    return env


@pytest.mark.parametrize("project, expected", [
    ("spotter", {"spotter", "spotter-gqc", "spotter-dov"}),
    ("SPOTTER-gqc", {"spotter-gqc"}),
    ("spotter*", {"spotter", "spotter-gqc", "spotter-dov", "spotterish"}),
    ("*app", {"webapp"}),
    ("nothing", set()),
])
def test_project_filters_take_globs_and_match_the_worktrees_of_a_repository(worktrees, project, expected):
    found = grep(worktrees, "work", "--project", project)
    assert {row["project"] for row in found["results"]} == expected
    listed = json.loads(worktrees.run("sessions", "--project", project, "--json").stdout)
    assert {row["project"] for row in listed} == expected


@pytest.mark.parametrize("pattern", ["café", "cafe\u0301", r"caf(?=é)é"])   # (the last: Python's engine)
def test_accents_match_whether_typed_composed_or_as_a_letter_plus_a_combining_accent(env, pattern):
    from archive_fixtures import session_id, write_transcript

    folder = env.config_dir / "projects" / "-work-demo"
    composed = write_transcript(folder / f"{session_id(1)}.jsonl", session_id(1), ["open the café menu"])
    decomposed = write_transcript(folder / f"{session_id(2)}.jsonl", session_id(2), ["close the cafe\u0301 menu"],
                                  start="2026-03-05T09:00:00.000Z")
    assert composed.exists() and decomposed.exists()
    assert env.run("import").returncode == 0
    rows = grep(env, pattern)["results"]
    assert [row["session_id"] for row in rows] == [session_id(2), session_id(1)]
    assert all("café menu" in row["snippet"] for row in rows)
