"""The parser on real Claude Code transcripts (../shared/fixtures/transcripts; skipped when absent).

Every expectation below was checked by reading the files: ids, first prompts, the typed prompts
(task notifications, interrupts, command output and summaries are not among them), compactions,
subagents.
"""
from __future__ import annotations

import re

import pytest

from testkit import FIXTURES, shared_path
from obsidian_memory.capture.transcript import parse

pytestmark = pytest.mark.shared

SMALL = ("fixtures", "transcripts", "small")
PROJECTS = ("fixtures", "transcripts", "projects")
DOV = ("-home-marco-projects-spotter-worktrees-spotter-dov", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
GQC = ("-home-marco-projects-spotter-worktrees-spotter-gqc", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")

# file -> (session id, typed prompts, compaction triggers, cwd, branch, version)
SMALL_EXPECTED = {
    "fasthooks_v2.0.76_main_with_compaction.jsonl": (
        "c45af7b1-cb7c-4e51-93db-8cbb250a877a",
        ["can you run a command ls -la", "ok can you create a hello_world.py file and add a minimal code in it?",
         "can you read it back with Read tool?", "can you run `cat nonexistent.txt`",
         "do something requiring multiple tools in one turn,", "/compact"],
        ["manual"], "/workspace", None, "2.0.76"),
    "spotter_v2.1.38_short.jsonl": (
        "55604662-cf2a-4331-851a-ec234028f8ca", ["mix phx.server doesnt seem to start"], [],
        "/home/marco/projects/spotter", "master", "2.1.38"),
    "spotter_v2.1.38_tool_heavy.jsonl": (
        "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
        ["start phoenix in background", "/mcp",
         "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
         "websearch xterm.js tmux interactions"],
        [], "/home/marco/projects/spotter", "master", "2.1.38"),
    "spotter_v2.1.39_compaction_excerpt_lines754-760.jsonl": (
        "4d5611e5-241a-462a-8d15-5122611a9569", [], ["auto"],
        "/home/USER/projects/spotter-worktrees/spotter-dov", "spotter-dov", "2.1.39"),
    "fasthooks_v2.0.76_subagent_sidechain.jsonl": (
        "c45af7b1-cb7c-4e51-93db-8cbb250a877a", [], [], "/workspace", None, "2.0.76"),
    "spotter_v2.1.39_subagent_acompact.jsonl": (
        "258c7280-ae70-4798-800f-63464d01a85d", [], [],
        "/home/USER/projects/spotter-worktrees/spotter-gqc", "spotter-gqc", "2.1.39"),
}

GENERATED_MARKERS = re.compile(r"<local-command-|<task-notification|<system-reminder|<command-name|\x1b"
                               r"|\[Request interrupted|^Caveat:|This session is being continued")


def _texts(session):
    return [p.text for p in session.prompts]


def _assert_clean(session):
    for text in _texts(session) + [session.title, session.last_assistant_message or ""]:
        assert not GENERATED_MARKERS.search(text), text
        assert all(ch in "\n\t" or ord(ch) >= 32 for ch in text), text
    for summary in session.compact_summaries:
        assert "\x1b" not in summary.text


@pytest.mark.parametrize("name", sorted(SMALL_EXPECTED))
def test_small_real_transcripts(name):
    session_id, prompts, triggers, cwd, branch, version = SMALL_EXPECTED[name]
    session = parse(str(shared_path(*SMALL, name)))
    assert session.session_id == session_id
    assert _texts(session) == prompts
    assert [c.trigger for c in session.compact_summaries] == triggers
    assert (session.cwd, session.git_branch, session.version) == (cwd, branch, version)
    assert session.bad_lines == 0
    assert session.title == (prompts[0] if prompts else "")
    _assert_clean(session)


def test_fasthooks_compaction_summary_is_complete():
    path = shared_path(*SMALL, "fasthooks_v2.0.76_main_with_compaction.jsonl")
    session = parse(str(path))
    [summary] = session.compact_summaries
    assert summary.text.startswith("This session is being continued from a previous conversation that ran out"
                                   " of context. The conversation is summarized below:")
    assert len(summary.text) == 7627
    assert summary.timestamp == "2026-01-02T19:21:02.006Z"
    assert session.tools == {"Bash": 5, "Write": 3, "Read": 2}
    assert session.models == ["claude-haiku-4-5-20251001"]
    assert session.entry_count == 63
    assert (session.started_at, session.ended_at) == ("2026-01-02T19:18:31.028Z", "2026-01-02T19:21:02.108Z")


def test_local_command_output_with_ansi_is_not_a_prompt():
    path = shared_path(*SMALL, "fasthooks_v2.0.76_main_with_compaction.jsonl")
    assert "\\u001b[2mCompacted" in path.read_text(encoding="utf-8")   # the escape really is in the file
    assert not any("Compacted" in t for t in _texts(parse(str(path))))


def test_interrupted_turns_are_not_prompts():
    session = parse(str(shared_path(*SMALL, "spotter_v2.1.38_short.jsonl")))
    assert session.last_assistant_message == "Let me check the project structure and try running the server to see the error."
    assert session.tools == {"Bash": 1, "Glob": 1}


def test_the_hook_inputs_log_is_not_a_transcript():
    session = parse(str(shared_path(*SMALL, "fasthooks_v2.0.76_hook_inputs_log.jsonl")))
    assert session.entry_count == 0
    assert session.bad_lines == 0
    assert session.prompts == [] and session.cwd is None and session.title_source == "none"


@pytest.mark.parametrize("parts, session_id, prompts, entries, tools, files, first_file, summary_at, subagents", [
    (DOV, "4d5611e5-241a-462a-8d15-5122611a9569",
     ["Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find "
      "available subtasks. Start with the first ready task.", "continue"],
     1512, {"Bash": 67, "Task": 1, "Read": 31, "Write": 7, "Edit": 32, "Grep": 10, "TaskOutput": 1,
            "AskUserQuestion": 1}, 16, "lib/spotter_web/live/session_live.ex", "2026-02-12T20:30:28.504Z",
     [("a2898e3", 144, "Very thorough exploration."), ("acompact-e1f845", 5, "Your task is to create a detailed summary")]),
    # "check again" and "new beads…" were typed while Claude worked and handed over mid-turn:
    # only their queue-operation entries record them (the compaction summary lists all four);
    # 37 files: a Read of a task output that did not exist ("File does not exist.") touched nothing
    (GQC, "258c7280-ae70-4798-800f-63464d01a85d",
     ["Implement spotter-gqc", "check again", "new beads for the epic were added. tackle them", "did you push?"],
     1863, {"Bash": 79, "Read": 42, "Glob": 8, "Edit": 35, "Write": 13, "TaskOutput": 3, "Grep": 5, "Task": 1},
     37, "lib/spotter/transcripts/annotation.ex", "2026-02-11T21:18:41.543Z",
     [("a881341", 10, "What is the output contract for Claude Code hooks"),
      ("acompact-fffbd0", 4, "Your task is to create a detailed summary")]),
])
def test_whole_real_sessions(parts, session_id, prompts, entries, tools, files, first_file, summary_at, subagents):
    path = shared_path(*PROJECTS, *parts)
    raw = path.read_text(encoding="utf-8")
    assert "<task-notification>" in raw        # present in the file, absent from the prompts
    session = parse(str(path))
    assert session.session_id == session_id
    assert _texts(session) == prompts
    assert session.title_source == "prompt" and prompts[0].startswith(session.title.rstrip("…"))
    assert session.entry_count == entries and session.bad_lines == 0
    assert session.tools == tools
    assert len(session.files_touched) == files
    assert session.files_touched[0] == session.cwd + "/" + first_file
    assert all(f.startswith((session.cwd + "/", "/tmp/claude-1000/")) for f in session.files_touched)
    [summary] = session.compact_summaries
    assert (summary.trigger, summary.timestamp) == ("auto", summary_at)
    assert summary.text.startswith("This session is being continued from a previous conversation")
    assert session.models == ["claude-opus-4-6"]
    assert session.project == parts[0].split("spotter-worktrees-")[1] == session.cwd.rsplit("/", 1)[1]
    got = [(s.agent_id, s.entry_count, s.first_prompt) for s in session.subagents]
    assert [(a, n) for a, n, _ in got] == [(a, n) for a, n, _ in subagents]
    assert all(first.startswith(expected) for (_, _, first), (_, _, expected) in zip(got, subagents))
    assert not any(p.startswith(("Very thorough", "What is the output contract", "Your task is"))
                   for p in _texts(session))
    _assert_clean(session)


def test_every_real_transcript_parses():
    root = shared_path("fixtures", "transcripts")
    paths = sorted(root.rglob("*.jsonl"))
    assert len(paths) >= 13
    for path in paths:
        session = parse(str(path))
        assert session.bad_lines == 0, path
        _assert_clean(session)


# -- transcripts written by the real Claude Code into tests/fixtures (helper G) ---------------

GENERATED = sorted(p for p in (FIXTURES / "transcripts").glob("claude-code-*/**/*.jsonl")
                   if "subagents" not in p.parts)


@pytest.mark.skipif(not GENERATED, reason="no transcripts generated by the real Claude Code yet")
@pytest.mark.parametrize("path", GENERATED, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_transcripts_from_the_real_claude_code(path):
    """The scripted session of tests/fixtures/transcripts/claude-code-*/README.md: three `claude -p`
    runs (a task with a subagent, `/compact keep the file names`, one more prompt)."""
    session = parse(str(path))
    version = path.parent.name.split("claude-code-", 1)[1]
    assert session.session_id == path.stem
    assert session.version == version
    assert session.bad_lines == 0
    assert (session.title, session.title_source) == ("fixture greeting script", "custom-title")
    assert _texts(session) == ["Write a greeting script in src/greet.py and count the files.",
                               "/compact keep the file names", "What did we change?"]
    [summary] = session.compact_summaries
    assert summary.trigger == "manual"
    assert "Primary Request and Intent: write src/greet.py" in summary.text
    assert "<system-reminder>" not in summary.text
    assert session.last_assistant_message == "Still here after the compaction."
    assert session.tools == {"Bash": 1, "Write": 1, "Read": 1, "Edit": 1, "Agent": 1}
    assert session.files_touched == [session.cwd + "/src/greet.py"]
    assert session.project == "e2e-repo"
    [subagent] = session.subagents
    assert subagent.first_prompt == "Count the files in this repository."
    assert subagent.entry_count > 0 and subagent.path.endswith(f"agent-{subagent.agent_id}.jsonl")
    _assert_clean(session)
