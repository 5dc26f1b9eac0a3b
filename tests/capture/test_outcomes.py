"""What a session did, extracted from its transcript: the answer to each prompt, the
final todo list, the approved plan, commits with hashes, pull requests, commands with their
failures, and the errors met; on our own small transcripts (one crafted in Claude Code 2.0's
shape, one recorded with the real 2.1.332 client) and on the real shared ones."""
from __future__ import annotations

import re

import pytest
from testkit import FIXTURES, shared_path

from obsidian_memory.capture import outcomes, transcript
from obsidian_memory.capture.session_records import Command, Commit, Todo, ToolError

CRAFTED = FIXTURES / "transcripts" / "outcomes.jsonl"
RECORDED = FIXTURES / "transcripts" / "outcomes-2.1.332" / "f9090e47-c999-4ff1-8773-9ddbce9cbf9f.jsonl"
SPOTTER = ("fixtures", "transcripts", "projects")
GQC = (*SPOTTER, "-home-marco-projects-spotter-worktrees-spotter-gqc", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
DOV = (*SPOTTER, "-home-marco-projects-spotter-worktrees-spotter-dov", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")


@pytest.fixture(scope="module")
def crafted():
    return transcript.parse(str(CRAFTED))


@pytest.fixture(scope="module")
def recorded():
    return transcript.parse(str(RECORDED))


# -- answers -----------------------------------------------------------------------------------

def test_each_prompt_gets_the_last_text_of_its_turn(crafted):
    answers = {p.text: p.answer for p in crafted.prompts}
    # a streamed message (two lines, one message id) is one answer; earlier texts of the turn are not
    assert answers["Plan and build the CSV importer in importer.py"] == (
        "The importer handles quoted fields now: committed as 1a2b3c4,\n\n"
        "and the pull request is https://github.com/acme/importer/pull/42.")
    # the notification turn after it answers no prompt ("The background build finished cleanly.")
    assert answers["why did the first test run fail?"].startswith("Because csv.reader kept the space")
    # a prompt typed while Claude worked is answered by what followed it
    assert answers["also add a README"] == "Added README.md."
    assert crafted.last_assistant_message == "Added README.md."


def test_subagent_chatter_stays_out(crafted, recorded):
    for session in (crafted, recorded):
        texts = [p.answer or "" for p in session.prompts] + [c.command for c in session.commands]
        assert not any("SUBAGENT" in t or "subagent-scratch" in t for t in texts)


def test_the_recorded_session_answers_each_run(recorded):
    assert [(p.text, (p.answer or "")[:40]) for p in recorded.prompts] == [
        ("Add a greeting script, commit it and open a pull request.", "Done: src/greet.py greets by name, commi"),
        ("Why did the first test run fail?", "The first test run failed because `tests"),
        ("Plan the README update.", "The plan is ready: a Usage section with ")]
    assert len(recorded.prompts[1].answer) > 1000   # long: the note shortens it, the archive keeps it


# -- todos and plan ----------------------------------------------------------------------------

def test_the_last_todowrite_is_the_todo_list(crafted):
    assert crafted.todos == [Todo("Write importer.py", "completed"), Todo("Test quoted and empty fields", "completed"),
                             Todo("Open a pull request", "in_progress")]


def test_tasks_of_newer_versions_are_followed_and_failed_calls_change_nothing(recorded):
    # TaskCreate x4, TaskUpdate, a TaskList snapshot; the later TodoWrite failed ("No such tool")
    assert recorded.todos == [Todo("Write src/greet.py", "completed"), Todo("Run the tests", "completed"),
                              Todo("Commit and open a pull request", "completed"),
                              Todo("Ask Dana for a review", "pending")]
    assert recorded.plan is None   # its ExitPlanMode was refused


def test_the_approved_plan_is_kept_and_a_rejected_one_is_not(crafted):
    assert crafted.plan.startswith("## CSV importer\n1. Parse rows with the csv module")
    assert "Split lines on commas" not in crafted.plan


def test_plan_from_the_result_text_and_from_plan_content():
    tracker = outcomes.OutcomeTracker()
    tracker.tool_use({"type": "tool_use", "id": "t1", "name": "ExitPlanMode", "input": {}})   # newer: no plan input
    tracker.tool_result({"tool_use_id": "t1", "content": "User has approved your plan. You can now start coding.\n\n"
                         "## Approved Plan (edited by user):\nStep one\nStep two"}, {"plan": None, "isAgent": False})
    assert tracker.plan == "Step one\nStep two"
    tracker.plan_content("Fresh plan")
    assert tracker.as_fields()["plan"] == "Fresh plan"


def test_task_ids_come_from_the_results_and_deleted_tasks_go():
    tracker = outcomes.OutcomeTracker()
    for n, subject in ((1, "a"), (2, "b")):
        tracker.tool_use({"id": f"c{n}", "name": "TaskCreate", "input": {"subject": subject, "description": ""}})
    tracker.tool_result({"tool_use_id": "c1", "content": "Task #7 created successfully: a"}, "Task #7 created")
    tracker.tool_result({"tool_use_id": "c2", "content": "..."}, {"task": {"id": "9", "subject": "b"}})
    tracker.tool_use({"id": "u1", "name": "TaskUpdate", "input": {"taskId": "7", "status": "deleted"}})
    tracker.tool_use({"id": "u2", "name": "TaskUpdate", "input": {"taskId": "9", "status": "completed", "subject": "B"}})
    tracker.tool_use({"id": "u3", "name": "TaskUpdate", "input": {"taskId": "9", "status": "pending"}})
    tracker.tool_result({"tool_use_id": "u3", "content": "Task not found", "is_error": True}, None)
    assert tracker.todos() == [Todo("B", "completed")]


# -- commits and pull requests -----------------------------------------------------------------

def test_commits_with_their_message_and_hash(crafted, recorded):
    assert crafted.commits == [Commit("Import CSV files with quoted fields\n\nUses csv.reader with skipinitialspace.",
                                      "1a2b3c4")]
    [commit] = recorded.commits
    assert commit.message == "feat: greeting script with a name argument\n\nPrints 'hello, <name>' (default: world)."
    assert re.fullmatch(r"[0-9a-f]{7}", commit.hash or "")
    assert f"[main {commit.hash}] feat: greeting script with a name argument" in RECORDED.read_text(encoding="utf-8")


def test_pull_request_urls(crafted, recorded):
    assert crafted.pull_requests == ["https://github.com/acme/importer/pull/42"]
    assert recorded.pull_requests == ["https://github.com/example/e2e-repo/pull/7"]   # pr-link + gitOperation: once


@pytest.mark.parametrize("command, message", [
    ('git commit -m "fix: the bug"', "fix: the bug"),
    ("git commit -am 'a' -m 'b'", "a\n\nb"),
    ('git -C repo commit --message="x y" && git push', "x y"),
    ("git commit -m \"$(cat <<'EOF'\nsubject line\n\nbody\nEOF\n)\"", "subject line\n\nbody"),
    ('git commit -m "unbalanced', None),
    ("git commit", None),
    ('git commit -m "$(printf x)"', None),
])
def test_commit_message_from_the_command(command, message):
    assert outcomes.commit_message(command) == message


def test_a_failed_commit_is_no_commit_and_several_in_one_command_are_each_one():
    tracker = outcomes.OutcomeTracker()
    tracker.tool_use({"id": "a", "name": "Bash", "input": {"command": 'git commit -m "wip"'}})
    tracker.tool_result({"tool_use_id": "a", "is_error": True, "content": "Exit code 1\npre-commit hook failed"}, None)
    tracker.tool_use({"id": "b", "name": "Bash", "input": {"command": "git commit -qm one && git commit -qm two"}})
    tracker.tool_result({"tool_use_id": "b", "content": "[main abc1234] one\n[main def5678] two"}, None)
    assert tracker.commits == [Commit("one", "abc1234"), Commit("two", "def5678")]


# -- commands and errors -----------------------------------------------------------------------

def test_distinct_commands_with_runs_and_failures(crafted, recorded):
    assert crafted.commands[0] == Command("python -m pytest -q", runs=2, failures=1)
    shown = [c.command for c in recorded.commands]
    assert "git add src/greet.py && git commit -m \"$(cat <<'EOF' …" in shown   # a heredoc by its first line
    assert Command("python3 -m pytest -q tests/test_greet.py", 1, 1) in recorded.commands


def test_errors_met_are_the_telling_line_of_each_failed_result(crafted, recorded):
    assert crafted.errors == [
        ToolError("Bash", "exit 1: FAILED tests/test_importer.py::test_quoted - AssertionError: "
                          "assert ['a', '\"b'] == ['a', 'b']"),
        ToolError("Bash", "exit 6: curl: (6) Could not resolve host: api.example.invalid"),
        ToolError("Read", "File does not exist.")]   # the user's rejection of the first plan is no error
    assert ToolError("Bash", "exit 4: ERROR: file or directory not found: tests/test_greet.py") in recorded.errors


@pytest.mark.parametrize("text, line", [
    ("Exit code 1\nTraceback (most recent call last):\n  File \"x.py\"\nValueError: bad", "exit 1: ValueError: bad"),
    ("Exit code 1\n===== FAILURES =====\nFAILED t.py::x - KeyError", "exit 1: FAILED t.py::x - KeyError"),
    ("Exit code 2", "exit 2"),
    (r"Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.", "Pre-commit validation failed: "
                                                                        "[FORMAT] Code is not formatted."),
    ("<tool_use_error>Error: No such tool available: X</tool_use_error>", "No such tool available: X"),
    ("The user doesn't want to proceed with this tool use.", ""),
    ("[Request interrupted by user for tool use]", ""),
    ("x" * 5000, "x" * (outcomes.MAX_ERROR_CHARS - 1) + "…"),
])
def test_error_line(text, line):
    assert outcomes.error_line(text) == line


def test_everything_is_bounded():
    tracker = outcomes.OutcomeTracker()
    for n in range(outcomes.MAX_COMMANDS + 50):
        tracker.tool_use({"id": f"b{n}", "name": "Bash", "input": {"command": f"echo {n}\n" + "y" * 5000}})
        tracker.tool_result({"tool_use_id": f"b{n}", "is_error": True, "content": f"Exit code 1\nerror {n}"}, None)
    fields = tracker.as_fields()
    assert len(fields["commands"]) == outcomes.MAX_COMMANDS and len(fields["errors"]) == outcomes.MAX_ERRORS
    assert fields["commands"][0].command == "echo 0 …"
    assert all(len(c.command) <= outcomes.MAX_COMMAND_CHARS for c in fields["commands"])


# -- the real shared transcripts ----------------------------------------------------------------

def test_real_session_gqc_answers_commits_errors():
    session = transcript.parse(str(shared_path(*GQC)))
    answers = {p.text: p.answer or "" for p in session.prompts}
    assert answers["check again"].startswith("All green:")                       # a prompt queued mid-turn
    assert answers["new beads for the epic were added. tackle them"].startswith(
        "All done. The **spotter-gqc** epic is fully implemented and pushed.")
    assert answers["did you push?"].startswith("Yes — everything is pushed and clean")
    assert session.last_assistant_message == answers["did you push?"]           # the last answer in full
    assert [c.hash for c in session.commits] == ["99b497c", "ceff8c3", "bb53fb4", "05fd186", "a230dbf"]
    assert session.commits[0].message.startswith(
        "feat: transcript + terminal annotations with message references (spotter-gqc)\n\nAdd source-aware")
    assert Command("mix test test/spotter_web/live/project_review_live_test.exs 2>&1", 6, 4) in session.commands
    assert Command("git push 2>&1", 1, 1) in session.commands
    assert ToolError("Bash", "exit 128: fatal: The current branch spotter-gqc has no upstream branch.") in session.errors
    assert session.todos == [] and session.plan is None and session.pull_requests == []


def test_real_session_dov_failed_commits_are_not_commits():
    session = transcript.parse(str(shared_path(*DOV)))
    assert [c.hash for c in session.commits] == ["64f1b9a"]   # three attempts were stopped by its pre-commit hook
    assert Command("git commit -m \"$(cat <<'EOF' …", 2, 2) in session.commands
    assert any(e.text.startswith("Pre-commit validation failed: [FORMAT] Code is not formatted.") for e in session.errors)
    assert session.prompts[-1].answer.startswith("All done. Here's a summary of the completed **spotter-dov** epic")
    assert len(session.commands) < 100 and len(session.errors) < 20


@pytest.mark.parametrize("use, result, tool_use_result", [
    ({"id": ["x"], "name": "Bash", "input": {"command": ["ls"]}}, {"tool_use_id": ["x"], "content": 5}, []),
    ({"id": "t", "name": "TaskUpdate", "input": {"taskId": {"a": 1}, "status": ["deleted"]}},
     {"tool_use_id": "t", "content": [{"type": "text", "text": None}]}, {"tasks": [1, None, {"subject": 3}]}),
    ({"id": "t", "name": "TaskList", "input": {}}, {"tool_use_id": "t", "content": ""}, {"tasks": [1, {"id": [], "subject": "s"}]}),
    ({"id": "t", "name": "Bash", "input": {"command": "git commit -m x"}}, {"tool_use_id": "t", "content": None},
     {"gitOperation": {"commit": "abc", "pr": {"url": ["u"]}}}),
    ({"id": "t", "name": "ExitPlanMode", "input": {"plan": 7}}, {"tool_use_id": "t", "content": "User has approved your plan"},
     {"plan": {"x": 1}}),
    ({"id": "t", "name": "TodoWrite", "input": {"todos": [None, {"content": 3}, {"content": "ok", "status": {}}]}},
     {"tool_use_id": "t", "content": "ok"}, "ok"),
])
def test_odd_shapes_never_raise(use, result, tool_use_result):
    tracker = outcomes.OutcomeTracker()
    tracker.tool_use(use)
    tracker.tool_result(result, tool_use_result)
    tracker.pr_link({"prUrl": {"x": 1}})
    tracker.plan_content(["x"])
    assert isinstance(tracker.as_fields(), dict)


def test_a_merged_record_keeps_the_outcome_of_both_parts():
    """A resumed session's new file holds only the new part: the archived part's commits,
    commands and errors stay, the later part's todo list is the session's."""
    from obsidian_memory.capture import session_merge
    from obsidian_memory.capture.session_records import Prompt, Session

    before = Session("s", prompts=[Prompt("one", "2026-01-01T10:00:00Z", "u1", answer="done one")],
                     started_at="2026-01-01T10:00:00Z", ended_at="2026-01-01T11:00:00Z", plan="the plan",
                     commits=[Commit("first", "aaaaaaa")], commands=[Command("make", 3, 1)],
                     errors=[ToolError("Bash", "exit 2: boom")], todos=[Todo("old", "pending")],
                     pull_requests=["https://x.example/o/r/pull/1"])
    after = Session("s", prompts=[Prompt("two", "2026-01-02T10:00:00Z", "u2", answer="done two")],
                    started_at="2026-01-02T10:00:00Z", ended_at="2026-01-02T11:00:00Z",
                    commits=[Commit("second", "bbbbbbb")], commands=[Command("make", 1, 0), Command("ls")],
                    todos=[Todo("new", "completed")], last_assistant_message="done two")
    merged, decision, _ = session_merge.merge(before, after)
    assert decision == session_merge.MERGED
    assert [(p.text, p.answer) for p in merged.prompts] == [("one", "done one"), ("two", "done two")]
    assert [c.hash for c in merged.commits] == ["aaaaaaa", "bbbbbbb"]
    assert merged.commands == [Command("make", 3, 1), Command("ls")]
    assert merged.errors == [ToolError("Bash", "exit 2: boom")] and merged.plan == "the plan"
    assert merged.todos == [Todo("new", "completed")] and merged.pull_requests == ["https://x.example/o/r/pull/1"]


# -- the memory's own commands ------------------------------------------------------------------

def _bash_turn(path, commands: list[tuple[str, str, bool]]) -> None:
    """A session (the client's entry shape) whose one prompt ran `commands`: (command, output, failed)."""
    import json

    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/app", "version": "2.1.332",
            "sessionId": "33333333-aaaa-4bbb-8ccc-000000000029", "gitBranch": "main"}
    lines = [dict(base, type="user", uuid="u-0", parentUuid=None, timestamp="2026-05-11T10:00:00.000Z",
                  message={"role": "user", "content": "Why does the cache warm up late?"})]
    for n, (command, output, failed) in enumerate(commands, 1):
        lines.append(dict(base, type="assistant", uuid=f"a-{n}", parentUuid=lines[-1]["uuid"],
                          timestamp=f"2026-05-11T10:00:{n:02d}.000Z",
                          message={"id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                                   "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "Bash",
                                                "input": {"command": command}}]}))
        lines.append(dict(base, type="user", uuid=f"r-{n}", parentUuid=lines[-1]["uuid"],
                          timestamp=f"2026-05-11T10:00:{n:02d}.500Z",
                          message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                                                                "content": output, "is_error": failed}]}))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_the_memorys_own_searches_and_reads_are_no_command_or_error_of_the_session(tmp_path):
    """The Commands section shows what the session did, not what it looked up in the vault."""
    own = [("/usr/bin/python3 -S /home/dev/.claude/obsidian-memory/bin/search_vault.py \"cache warmup\"",
            "1. Meta/claude-sessions/2026-05/x.md (3.2)", False),
           ("/usr/bin/python3 -S /home/dev/.claude/obsidian-memory/bin/obsidian_memory.py read \"Runbooks/Cache.md\"",
            "=== Runbooks/Cache.md ===", False),
           ("/home/dev/.claude/plugins/data/om/venv/bin/python /home/dev/.claude/plugins/cache/om/scripts/"
            "obsidian_memory.py search \"warmup\" --sessions", "obsidian_memory.py: error: no match\nExit code 2", True)]
    theirs = [("pytest -q tests/test_cache.py", "FAILED tests/test_cache.py::test_warm - AssertionError\nExit code 1",
               True), ("vim scripts/search_vault.py", "", False)]
    path = tmp_path / "33333333-aaaa-4bbb-8ccc-000000000029.jsonl"
    _bash_turn(path, own + theirs)
    session = transcript.parse(str(path))
    assert [c.command for c in session.commands] == ["pytest -q tests/test_cache.py", "vim scripts/search_vault.py"]
    assert [e.text for e in session.errors] == ["FAILED tests/test_cache.py::test_warm - AssertionError"]


def test_files_touched_are_only_those_a_call_actually_read_or_wrote(tmp_path):
    """A Read the client denied (the vault note outside the project) or an Edit that failed touched nothing."""
    import json

    path = tmp_path / "33333333-aaaa-4bbb-8ccc-000000000029.jsonl"
    _bash_turn(path, [])
    base = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    calls = [("Read", "/home/dev/Vault/Private.md", "Permission to use Read has been denied.", True),
             ("Edit", "/home/dev/app/cache.py", "<tool_use_error>String to replace not found</tool_use_error>", True),
             ("Write", "/home/dev/app/warm.py", "File created successfully at: /home/dev/app/warm.py", False),
             ("Read", "/home/dev/app/cache.py", "1\tdef warm(): ...", False)]
    lines = [base]
    for n, (tool, file_path, output, failed) in enumerate(calls, 1):
        lines.append(dict(base, type="assistant", uuid=f"a-{n}", parentUuid=lines[-1]["uuid"],
                          message={"id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                                   "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": tool,
                                                "input": {"file_path": file_path}}]}))
        lines.append(dict(base, type="user", uuid=f"r-{n}", parentUuid=lines[-1]["uuid"],
                          message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                                                                "content": output, "is_error": failed}]}))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert transcript.parse(str(path)).files_touched == ["/home/dev/app/cache.py", "/home/dev/app/warm.py"]
