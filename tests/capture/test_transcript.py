"""The transcript parser on small hand-written transcripts shaped like Claude Code's (reference §3)."""
from __future__ import annotations

import json
import os
import tracemalloc

import pytest

from testkit import FIXTURES
from obsidian_memory.capture.session_records import Session
from obsidian_memory.capture.transcript import parse, prompt_text

TRANSCRIPTS = FIXTURES / "transcripts"
SUBAGENT_SESSION = "11111111-aaaa-4bbb-8ccc-000000000008"


def fixture(name: str) -> Session:
    return parse(str(TRANSCRIPTS / name))


def texts(session: Session) -> list[str]:
    return [p.text for p in session.prompts]


# -- metadata ---------------------------------------------------------------------------------

def test_metadata_comes_from_the_entries():
    session = fixture("newer_entry_types.jsonl")
    assert session.session_id == "11111111-aaaa-4bbb-8ccc-000000000001"
    assert session.cwd == "/home/dev/projects/demo"
    assert session.cwds == ["/home/dev/projects/demo"]
    assert session.project == "demo"          # no such folder here: the cwd's last component
    assert session.repo_root is None
    assert session.git_branch == "feature/login"
    assert session.version == "2.1.240"
    assert session.started_at == "2026-03-04T09:00:07.007Z"
    assert session.ended_at == "2026-03-04T09:02:55.175Z"
    assert session.duration_seconds == pytest.approx(168.168)
    assert session.transcript_path == str(TRANSCRIPTS / "newer_entry_types.jsonl")
    assert session.transcript_size == os.path.getsize(TRANSCRIPTS / "newer_entry_types.jsonl")
    assert session.transcript_mtime == os.path.getmtime(TRANSCRIPTS / "newer_entry_types.jsonl")


@pytest.mark.parametrize("in_a_repository", [False, True])
def test_the_head_claude_code_records_outside_a_repository_is_no_branch(tmp_path, in_a_repository):
    folder = tmp_path / "scratch"
    folder.mkdir()
    if in_a_repository:   # a repository's detached HEAD is one
        (folder / ".git").mkdir()
    lines = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s-head", "cwd": str(folder),
              "gitBranch": "HEAD", "timestamp": "2026-03-04T09:00:00.000Z",
              "message": {"role": "user", "content": "list the files"}}]
    path = tmp_path / "s-head.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert parse(str(path)).git_branch == ("HEAD" if in_a_repository else None)


def test_project_is_the_git_toplevel_folder_name(tmp_path):
    repo = tmp_path / "my-repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    path = tmp_path / "s.jsonl"
    entries = [_user("first", cwd=str(repo / "src" / "deep"), uuid="u1"),
               _user("second", cwd=str(repo), uuid="u2"),
               _user("third", cwd=str(repo / "src" / "deep"), uuid="u3")]
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n", encoding="utf-8")
    session = parse(str(path))
    assert session.project == "my-repo"
    assert session.repo_root == str(repo)
    assert session.cwd == str(repo / "src" / "deep")
    assert session.cwds == [str(repo / "src" / "deep"), str(repo)]


def test_session_id_falls_back_to_the_file_name_without_entries():
    session = fixture("no_prompt.jsonl")
    assert session.session_id == "no_prompt"
    assert session.entry_count == 1
    assert session.prompts == [] and session.title == "" and session.title_source == "none"
    assert session.started_at is None and session.duration_seconds is None


def test_session_id_comes_from_the_entries_when_the_file_name_is_not_one(tmp_path):
    path = tmp_path / "renamed-copy.jsonl"
    path.write_text(json.dumps(_user("hi", uuid="u1", sessionId="abc-123")) + "\n", encoding="utf-8")
    assert parse(str(path)).session_id == "abc-123"


# -- titles -----------------------------------------------------------------------------------

def test_last_ai_title_is_the_title_when_there_is_no_custom_title():
    session = fixture("newer_entry_types.jsonl")
    assert (session.title, session.title_source) == ("Fix login redirect loop", "ai-title")


def test_last_custom_title_wins_and_is_cleaned_of_escapes():
    session = fixture("custom_title.jsonl")
    assert (session.title, session.title_source) == ("Parser rewrite", "custom-title")


def test_summary_for_a_leaf_of_this_file_beats_foreign_summaries():
    session = fixture("summary_own_leaf.jsonl")
    assert (session.title, session.title_source) == ("Health check endpoint added", "summary")


def test_foreign_summary_loses_to_the_first_typed_prompt_shortened():
    session = fixture("summary_foreign_leaf.jsonl")
    assert session.title_source == "prompt"
    assert session.title.startswith("explain the build system in this repository")
    assert session.title.endswith("…") and len(session.title) <= 80
    assert "\n" not in session.title


# -- prompts ----------------------------------------------------------------------------------

def test_prompts_are_only_what_a_person_typed():
    session = fixture("system_generated.jsonl")
    assert texts(session) == [
        "run the tests please",
        "why does config load twice?",
        "what is wrong in this screenshot?",
        "!git status",
        "/review fix the auth flow",
    ]


def test_no_generated_text_reaches_the_prompts():
    for name in ("system_generated.jsonl", "compaction.jsonl", "newer_entry_types.jsonl", "queued_prompts.jsonl"):
        for text in texts(fixture(name)):
            for marker in ("<local-command", "<task-notification", "<system-reminder", "<command-name",
                           "[Request interrupted", "Caveat:", "This session is being continued", "\x1b",
                           "Warmup", "expanded skill text", "<bash-stdout"):
                assert marker not in text, (name, text)
            assert all(ch in "\n\t" or ord(ch) >= 32 for ch in text)


def test_slash_commands_are_kept_as_name_and_args():
    session = fixture("compaction.jsonl")
    assert texts(session) == ["build the importer", "/compact keep the importer details", "now add --dry-run",
                              "/model opus"]


def test_prompts_keep_their_timestamps_and_uuids():
    prompt = fixture("newer_entry_types.jsonl").prompts[0]
    assert prompt.text == "Fix the login redirect loop in auth.py"
    assert prompt.uuid and prompt.timestamp.startswith("2026-03-04T")


def test_prompts_typed_while_claude_works_are_kept_once():
    session = fixture("queued_prompts.jsonl")
    # "check again" and "and open the browser" reached the model mid-turn: only the queue entry
    # and the attachment record them. "start the dev server" and "/mcp" were queued and then
    # arrived as user entries. The queued task notification is not a prompt.
    assert texts(session) == ["start the dev server", "check again", "and open the browser", "/mcp", "thanks"]
    assert [p.uuid is None for p in session.prompts] == [False, True, True, False, False]
    assert [p.timestamp for p in session.prompts] == sorted(p.timestamp for p in session.prompts)


@pytest.mark.parametrize("content, expected", [
    ("  plain  ", "plain"),
    ("<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>", "/clear"),
    ([{"type": "tool_result", "tool_use_id": "t", "content": "x"}, {"type": "text", "text": "hook feedback"}], ""),
    ([{"type": "text", "text": "[Request interrupted by user for tool use]"}], ""),
    ("<local-command-stdout>\x1b[2mCompacted\x1b[22m</local-command-stdout>", ""),
    ("look at this\n<system-reminder>ignore me</system-reminder>", "look at this"),
    (None, ""),
    (42, ""),
])
def test_prompt_text_of_user_content(content, expected):
    assert prompt_text(content) == expected


# -- compaction -------------------------------------------------------------------------------

def test_every_compaction_summary_is_kept_in_full_with_its_trigger():
    session = fixture("compaction.jsonl")
    summaries = session.compact_summaries
    assert [c.trigger for c in summaries] == ["manual", "auto"]
    assert [c.origin for c in summaries] == ["transcript", "transcript"]
    assert "FIRST SUMMARY: the importer was started." in summaries[0].text
    assert summaries[0].text.startswith("This session is being continued from a previous conversation")
    assert summaries[0].text.endswith("dim")          # ANSI escapes stripped, text kept
    assert "\x1b" not in summaries[0].text
    assert summaries[1].text.endswith("SECOND SUMMARY: --dry-run added.")
    assert all(c.timestamp for c in summaries)


# -- assistant side ---------------------------------------------------------------------------

def test_streamed_assistant_lines_are_merged_by_message_id():
    session = fixture("newer_entry_types.jsonl")
    # the last message was streamed as two text lines sharing one message.id
    assert session.last_assistant_message == "The redirect loop is fixed\n\nand the tests pass."
    assert session.models == ["claude-opus-4-6", "claude-sonnet-4-5-20250929"]


def test_tools_are_counted_per_tool_use_block():
    session = fixture("newer_entry_types.jsonl")
    assert session.tools == {"Read": 2, "Edit": 1, "MultiEdit": 1, "NotebookEdit": 1, "Write": 1, "Bash": 1}


def test_files_touched_are_distinct_in_first_touch_order():
    session = fixture("newer_entry_types.jsonl")
    assert session.files_touched == [
        "/home/dev/projects/demo/auth.py",
        "/home/dev/projects/demo/views.py",
        "/home/dev/projects/demo/analysis.ipynb",
        "/home/dev/projects/demo/tests/test_auth.py",
    ]


def test_last_assistant_message_ignores_sidechain_and_synthetic_messages():
    session = fixture("system_generated.jsonl")
    assert session.last_assistant_message == "Reviewed: the auth flow retries forever on 401."
    assert "<synthetic>" not in session.models


def test_repeated_cumulative_lines_do_not_double_count(tmp_path):
    block = {"type": "tool_use", "id": "toolu_same", "name": "Edit", "input": {"file_path": "/a.py"}}
    text = {"type": "text", "text": "editing"}
    lines = [_assistant([text], "msg_1", uuid="a1"), _assistant([text, block], "msg_1", uuid="a2")]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in lines) + "\n", encoding="utf-8")
    session = parse(str(path))
    assert session.tools == {"Edit": 1}
    assert session.last_assistant_message == "editing"


# -- subagents --------------------------------------------------------------------------------

def test_subagents_are_listed_but_not_mixed_into_prompts():
    session = fixture(f"{SUBAGENT_SESSION}.jsonl")
    assert texts(session) == ["explore the codebase and summarise the storage layer"]
    assert [(s.agent_id, s.entry_count, s.first_prompt) for s in session.subagents] == [
        ("a1b2c3d", 4, "Find the storage layer and list its modules"),
        ("acompact-ff00aa", 3, "Your task is to create a detailed summary of the conversation so far."),
    ]
    assert all(os.path.isfile(s.path) for s in session.subagents)
    assert session.tools == {"Task": 1}           # the subagent's Glob is not the session's


def test_subagents_can_be_left_out():
    assert parse(str(TRANSCRIPTS / f"{SUBAGENT_SESSION}.jsonl"), include_subagents=False).subagents == []


# -- damaged input ----------------------------------------------------------------------------

def test_bad_lines_are_skipped_and_counted():
    session = fixture("broken.jsonl")
    # not JSON, a JSON array, too deeply nested, binary garbage, a truncated last line
    assert session.bad_lines == 5
    assert texts(session) == ["café \ufffd\ufffd\ufffd( ok", "second prompt"]   # invalid UTF-8 replaced
    assert session.entry_count == 3               # the replayed duplicate uuid counted once
    assert session.last_assistant_message == "answer"


def test_a_line_over_the_limit_is_skipped_unread_and_counted(tmp_path, monkeypatch):
    from obsidian_memory.capture import transcript
    monkeypatch.setattr(transcript, "LINE_LIMIT", 1000)

    def user(uuid, content):
        return json.dumps({"type": "user", "uuid": uuid, "sessionId": "s", "timestamp": "2026-03-04T09:00:00Z",
                           "message": {"role": "user", "content": content}}) + "\n"
    at_limit = user("u3", "y")
    at_limit = user("u3", "y" * (1000 - len(at_limit) + 1))   # exactly LINE_LIMIT bytes with its newline
    assert len(at_limit.encode()) == 1000
    path = tmp_path / "s.jsonl"
    path.write_text(user("u1", "before") + user("u2", "x" * 5000) + at_limit + user("u4", "after")
                    + user("u5", "z" * 3000).rstrip("\n"), encoding="utf-8")   # an oversized last line, unended
    session = parse(str(path))
    assert texts(session) == ["before", "y" * len(session.prompts[1].text), "after"]
    assert (session.oversized_lines, session.bad_lines) == (2, 0)


def test_a_file_of_hook_payloads_is_not_a_session(tmp_path):
    path = tmp_path / "hooks.jsonl"
    path.write_text(json.dumps({"event": "Stop", "session_id": "s1", "cwd": "/x", "prompt": "hello"}) + "\n",
                    encoding="utf-8")
    session = parse(str(path))
    assert session.entry_count == 0 and session.prompts == [] and session.cwd is None


def test_an_empty_file_is_an_empty_session(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    session = parse(str(path))
    assert (session.session_id, session.entry_count, session.bad_lines) == ("empty", 0, 0)


def test_a_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        parse(str(tmp_path / "absent.jsonl"))


def test_a_huge_tool_result_is_not_kept(tmp_path):
    size = 20 * 1024 * 1024
    path = tmp_path / "big.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(_user("show me the log", uuid="u1")) + "\n")
        handle.write(json.dumps(_user([{"type": "tool_result", "tool_use_id": "t1", "content": "x" * size}],
                                      uuid="u2")) + "\n")
        handle.write(json.dumps(_user("thanks", uuid="u3")) + "\n")
    tracemalloc.start()
    try:
        session = parse(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert texts(session) == ["show me the log", "thanks"]
    assert len(json.dumps(session.to_dict())) < 10_000
    assert peak < 4 * size           # the line, its decoded text and its parsed value, one at a time


def test_memory_stays_bounded_on_a_long_transcript(tmp_path):
    path = tmp_path / "long.jsonl"
    lines = 100_000
    with open(path, "w", encoding="utf-8") as handle:
        for n in range(lines):
            entry = _user(f"prompt {n}", uuid=f"u{n}") if n % 1000 == 0 else \
                {"type": "progress", "uuid": f"p{n}", "timestamp": "2026-03-04T09:00:00.000Z",
                 "data": {"type": "bash_progress", "output": "y" * 200}}
            handle.write(json.dumps(entry) + "\n")
    file_size = os.path.getsize(path)
    tracemalloc.start()
    try:
        session = parse(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert session.entry_count == lines and len(session.prompts) == 100
    assert peak < file_size / 2      # the uuid set grows with the line count, the content does not stay


# -- helpers ----------------------------------------------------------------------------------

def _user(content, **extra) -> dict:
    entry = {"type": "user", "sessionId": "s", "cwd": "/nowhere/demo", "timestamp": "2026-03-04T09:00:00.000Z",
             "message": {"role": "user", "content": content}}
    entry.update(extra)
    return entry


def _assistant(blocks, message_id, **extra) -> dict:
    entry = {"type": "assistant", "sessionId": "s", "timestamp": "2026-03-04T09:00:00.000Z",
             "message": {"id": message_id, "model": "claude-opus-4-6", "role": "assistant", "content": blocks}}
    entry.update(extra)
    return entry
