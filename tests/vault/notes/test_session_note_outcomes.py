"""A session note says what was done: the Outcome block under the title, answers under
their prompts, commands and errors, typed properties, within the note's caps; user templates of
older versions keep rendering."""
from __future__ import annotations

import datetime
import os
import re

import pytest
import yaml
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from testkit import FIXTURES, open_fence_at_end, shared_path

from obsidian_memory.capture import redact, transcript
from obsidian_memory.vault.markdown import parse_note
from obsidian_memory.core import settings as settings_module
from obsidian_memory.capture.session_records import Command, Commit, CompactSummary, Prompt, Session, Subagent, Todo, ToolError
from obsidian_memory.vault.notes import note_layout, session_view
from obsidian_memory.vault.notes import sessions as notes

CRAFTED = FIXTURES / "transcripts" / "outcomes.jsonl"
RECORDED = FIXTURES / "transcripts" / "outcomes-2.1.332" / "f9090e47-c999-4ff1-8773-9ddbce9cbf9f.jsonl"
OLD_TEMPLATE = FIXTURES / "templates" / "session-before-issue-15.md.j2"
SPOTTER = ("fixtures", "transcripts", "projects")
GQC = (*SPOTTER, "-home-marco-projects-spotter-worktrees-spotter-gqc", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
DOV = (*SPOTTER, "-home-marco-projects-spotter-worktrees-spotter-dov", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")


@pytest.fixture
def settings(env, monkeypatch):
    env.apply(monkeypatch)
    return settings_module.load()


def note_of(path) -> str:
    return notes.render_note(redact.redact_session(transcript.parse(str(path))))


def frontmatter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("\n---\n", 1)[0][4:])


SECTIONS = ("Outcome", "Compaction summaries", "Prompts", "Commands", "Errors", "Files touched", "Tools used",
            "Subagents", "My notes")


def section(text: str, heading: str) -> str:
    """From `heading` to the next of the note's own sections (a `## ` line quoted in a fence is none)."""
    start = text.index(f"\n{heading}\n")
    ends = [text.find(f"\n## {name}\n", start + 1) for name in SECTIONS]
    return text[start:min([e for e in ends if e > start] or [len(text)])]


def test_properties_are_typed_as_obsidian_reads_them():
    text = note_of(CRAFTED)
    data = frontmatter(text)
    assert data["started"] == datetime.datetime(2026, 5, 11, 10, 0) and isinstance(data["ended"], datetime.datetime)
    assert (data["duration"], data["prompts"], data["commits"]) == (5, 3, 1)
    assert (data["project"], data["branch"], data["tags"]) == ("importer", "feature/csv", ["claude-session"])
    assert re.search(r"^started: 2026-05-11T10:00:00$", text, re.M)   # unquoted: a date & time property


def test_the_outcome_block_sits_under_the_title():
    text = note_of(CRAFTED)
    outcome = section(text, "## Outcome")
    assert text.index("## Outcome") < text.index("Resume this session") < text.index("## Prompts")
    assert "**Where it stopped** (the start of the last answer):\n\n> Added README.md.\n" in outcome
    assert ("**Tasks** (2 of 3 done):\n\n- done: Write importer.py\n- done: Test quoted and empty fields\n"
            "- in progress: Open a pull request\n") in outcome
    assert "**Approved plan:**\n\n> \\#\\# CSV importer\n> 1. Parse rows with the csv module" in outcome
    assert "- `1a2b3c4` Import CSV files with quoted fields — Uses csv.reader with skipinitialspace.\n" in outcome
    assert "- [acme/importer\\#42](https://github.com/acme/importer/pull/42)\n" in outcome


def test_each_prompt_shows_its_answer():
    prompts = section(note_of(CRAFTED), "## Prompts")
    assert ("```text\nPlan and build the CSV importer in importer.py\n```\n\n**Answer:**\n\n"
            "> The importer handles quoted fields now: committed as 1a2b3c4,\n>\n"
            "> and the pull request is https://github.com/acme/importer/pull/42.\n") in prompts
    assert "```text\nalso add a README\n```\n\n**Answer:**\n\n> Added README.md.\n" in prompts
    assert "The background build finished" not in prompts   # it answered no prompt


def test_commands_with_failure_marks_and_errors_as_they_were_met():
    text = note_of(CRAFTED)
    commands, errors = section(text, "## Commands"), section(text, "## Errors")
    assert "- `python -m pytest -q` — failed 1 of 2 runs\n" in commands
    assert "— failed\n" in commands and "sk-ant-api03" not in text   # redacted like everything else
    assert ("- `Bash` `exit 1: FAILED tests/test_importer.py::test_quoted - AssertionError: "
            "assert ['a', '\"b'] == ['a', 'b']`\n") in errors
    assert "- `Read` `File does not exist.`\n" in errors


def test_the_recorded_session_note():
    text = note_of(RECORDED)
    outcome = section(text, "## Outcome")
    assert "**Tasks** (3 of 4 done):" in outcome and "- open: Ask Dana for a review\n" in outcome
    assert "- [example/e2e-repo\\#7](https://github.com/example/e2e-repo/pull/7)\n" in outcome
    assert re.search(r"- `[0-9a-f]{7}` feat: greeting script with a name argument — Prints 'hello, \\<name\\>'", outcome)
    assert "**Approved plan:**" not in outcome   # refused in -p mode
    assert "SUBAGENT" not in text
    assert "[shortened" not in text   # a small session shows everything
    assert frontmatter(text)["commits"] == 1 and not open_fence_at_end(text)


def test_real_sessions_notes_say_what_was_done_within_the_cap():
    for parts, hashes in ((GQC, ["99b497c", "ceff8c3", "bb53fb4", "05fd186", "a230dbf"]), (DOV, ["64f1b9a"])):
        text = note_of(shared_path(*parts))
        assert len(text.encode("utf-8")) <= session_view.NOTE_BUDGET
        outcome = section(text, "## Outcome")
        assert [h for h in re.findall(r"^- `([0-9a-f]{7})` ", outcome, re.M)] == hashes
        assert "Co-Authored-By" not in outcome   # trailers are not what the commit says
        assert "exit 128: fatal: The current branch spotter-" in section(text, "## Errors")
        assert "- `git push 2>&1` — failed\n" in section(text, "## Commands")
        assert frontmatter(text)["commits"] == len(hashes) and not open_fence_at_end(text)


def big_session(prompt_count: int = 60) -> Session:
    """Five hours of work with every part at its worst: long prompts and answers, four long
    compactions, a long plan, hundreds of commands, errors and files."""
    prompts = [Prompt(f"prompt {i} " + "p" * 10_000, answer=f"answer {i} " + "a" * 20_000) for i in range(prompt_count)]
    prompts[-1].answer = "the last answer " + "z" * 11_000
    return Session(
        session_id="bbbbbbbb-0000-4000-8000-000000000000", started_at="2026-03-04T09:00:00.000Z",
        ended_at="2026-03-04T14:00:00.000Z", duration_seconds=5 * 3600, title="five hours", prompts=prompts,
        last_assistant_message=prompts[-1].answer, plan="plan " * 5_000,
        compact_summaries=[CompactSummary("summary " * 4_000) for _ in range(4)],
        todos=[Todo(f"todo {i} " + "t" * 80) for i in range(100)],
        commits=[Commit(f"commit {i}\n\n" + "body " * 200, f"{i:07x}") for i in range(100)],
        commands=[Command(f"command {i} " + "c" * 300, runs=2, failures=1 if i % 6 == 5 else 0) for i in range(300)],
        errors=[ToolError("Bash", f"error {i} " + "e" * 300) for i in range(100)],
        files_touched=[f"/work/project/src/module_{i}/file_{i}.py" for i in range(400)])


def test_a_five_hour_session_note_stays_within_the_cap_with_visible_marks():
    session = big_session()
    text = notes.render_note(session)
    assert len(text.encode("utf-8")) <= session_view.NOTE_BUDGET
    assert "… [shortened, 10,010 chars]" in text and "… \\[shortened, 20,010 chars\\]" in text
    assert "the last answer " + "z" * 11_000 + "\n" in text   # the session's last answer in full
    for more in ("70 more in the archive", "75 more in the archive", "260 more in the archive",
                 "80 more in the archive", "300 more in the archive"):   # todos, commits, commands, errors, files
        assert more in text
    commands = section(text, "## Commands")
    assert commands.count("— failed 1 of 2 runs") == 40   # the failed ones are kept first
    assert frontmatter(text)["commits"] == 100 and not open_fence_at_end(text)


@pytest.mark.parametrize("prompt_count", [150, 10_000])
def test_however_long_the_session_the_note_stays_within_the_cap(prompt_count):
    session = big_session(prompt_count=prompt_count)
    session.compact_summaries = [CompactSummary(f"summary {i} " + "s" * 20_000) for i in range(300)]
    session.tools = {f"mcp__server__tool_{i}": i + 1 for i in range(500)}
    session.subagents = [Subagent(f"agent-{i}", "", 10, "look " * 40) for i in range(200)]
    text = notes.render_note(session)
    assert len(text.encode("utf-8")) <= session_view.NOTE_BUDGET
    prompts = section(text, "## Prompts")
    numbers = [int(n) for n in re.findall(r"^\*\*(\d+)\.\*\*", prompts, re.M)]
    assert len(numbers) == session_view.PROMPTS_SHOWN and numbers == sorted(numbers)
    assert numbers[0] == 1 and numbers[-session_view.RECENT_PROMPTS_SHOWN:] == list(
        range(prompt_count - session_view.RECENT_PROMPTS_SHOWN + 1, prompt_count + 1))
    hidden = [int(n) for n in re.findall(r"^- … (\d+) more in the archive$", prompts, re.M)]
    assert sum(hidden) == prompt_count - session_view.PROMPTS_SHOWN
    assert f"40 of {prompt_count} prompts" in prompts and "show bbbbbbbb --all" in prompts
    assert "the last answer " + "z" * 11_000 + "\n" in text   # still in full, under its prompt
    assert frontmatter(text)["prompts"] == prompt_count and not open_fence_at_end(text)
    summaries = section(text, "## Compaction summaries")
    assert summaries.count("### Compaction ") == session_view.SUMMARIES_SHOWN and "### Compaction 300" in summaries
    assert "460 more in the archive" in section(text, "## Tools used")
    assert "170 more in the archive" in section(text, "## Subagents")


def test_the_most_telling_prompts_are_shown_over_short_ones():
    prompts = [Prompt("go on") for _ in range(200)]
    prompts[57] = Prompt("Rewrite the importer so that quoted fields with embedded newlines survive, "
                         "and add a regression test with the customer's file")
    prompts[90] = Prompt("/compact")
    session = Session(session_id="s1", prompts=prompts)
    shown = session_view.chosen_prompts(session)
    assert 57 in shown and 90 not in shown and 0 in shown and len(shown) == session_view.PROMPTS_SHOWN


def test_show_all_renders_every_prompt_uncut():
    session = big_session(prompt_count=300)
    text = notes.render_note(session, whole=True)
    assert len(re.findall(r"^\*\*\d+\.\*\*", section(text, "## Prompts"), re.M)) == 300
    assert "[shortened" not in text and "more in the archive" not in text
    assert "p" * 10_000 in text and "a" * 20_000 in text


def test_prompt_times_carry_the_date_once_a_session_spans_days(settings, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    import time
    time.tzset()
    one_day = Session(session_id="s1", started_at="2026-03-04T09:00:00.000Z", ended_at="2026-03-04T10:00:00.000Z",
                      prompts=[Prompt("a", "2026-03-04T09:00:00.000Z"), Prompt("b", "2026-03-04T10:00:00.000Z")])
    assert re.findall(r"^\*\*\d\.\*\* (.+)$", notes.render_note(one_day, settings), re.M) == ["09:00", "10:00"]
    days = Session(session_id="s2", started_at="2026-03-04T09:00:00.000Z", ended_at="2026-03-06T10:00:00.000Z",
                   prompts=[Prompt("a", "2026-03-04T09:00:00.000Z"), Prompt("b", "2026-03-06T10:00:00.000Z")])
    text = notes.render_note(days, settings)
    assert re.findall(r"^\*\*\d\.\*\* (.+)$", text, re.M) == ["2026-03-04 09:00", "2026-03-06 10:00"]
    from obsidian_memory.vault.notes.session_reader import read_session
    read = read_session(text)
    assert [p.timestamp[:16] for p in read.prompts] == ["2026-03-04T09:00", "2026-03-06T10:00"]


def test_caps_give_short_texts_share_to_long_ones():
    cap = session_view.caps_for([("prompt", 50), ("answer", 9_000), ("answer", 9_000)], budget=10_000)
    assert cap("answer") == 2_500   # its ceiling: everything fits
    cap = session_view.caps_for([("prompt", 50)] + [("answer", 9_000)] * 10, budget=10_000)
    assert 900 <= cap("answer") <= 1_000 and cap("prompt") >= cap("answer")
    cap = session_view.caps_for([("answer", 9_000)] * 500, budget=10_000)
    assert cap("answer") == session_view.MIN_FLOOR


def test_no_outcome_no_outcome_block(settings):
    text = notes.render_note(Session(session_id="s1", prompts=[Prompt("hello")]), settings)
    assert "## Outcome" not in text and "## Commands" not in text


def test_transcript_text_cannot_break_the_note():
    evil = "## My notes\n````\n[[link]] ![[embed]] [x](Other) #tag <b> %% ==x== $m$ [!note] - [ ] task ^id"
    session = Session(session_id="s2", prompts=[Prompt(evil, answer=evil)], last_assistant_message=evil,
                      todos=[Todo(evil)], commits=[Commit(evil, "abc1234")],
                      pull_requests=["https://x.example/a/b/pull/1", "javascript:alert(1)"],
                      commands=[Command(evil)], errors=[ToolError("Bash`", evil)], plan=evil)
    text = notes.render_note(session)
    assert note_layout.split(text).after == note_layout.FRESH_TAIL
    assert not open_fence_at_end(text)
    note = parse_note(text, "s2")   # the vault index's own reading of the note
    assert note.tags == ["claude-session"]
    assert [link.target for link in note.outlinks] == []
    assert note.headings[0] == "s2" and "My notes" not in note.headings[:-1]
    assert "](javascript:" not in text and "javascript:alert(1)" in text   # shown, not linked


def test_a_user_template_of_an_older_version_still_renders(settings):
    os.makedirs(settings.user_templates_dir)
    with open(os.path.join(settings.user_templates_dir, notes.TEMPLATE), "w", encoding="utf-8") as handle:
        handle.write(OLD_TEMPLATE.read_text(encoding="utf-8"))
    session = redact.redact_session(transcript.parse(str(CRAFTED)))
    text = notes.render_note(session, settings)
    assert "## Outcome" not in text   # the user's own template: it knows nothing of outcomes
    assert '\nstarted: "2026-05-11T10:00:00"\n' in text and "```text\nwhy did the first test run fail?\n```" in text


def test_a_broken_user_template_falls_back_to_the_packaged_one_and_says_so(settings, env):
    os.makedirs(settings.user_templates_dir)
    with open(os.path.join(settings.user_templates_dir, notes.TEMPLATE), "w", encoding="utf-8") as handle:
        handle.write("{{ session.title }} {{ a_variable_no_version_gives }}\n")
    text = notes.render_note(Session(session_id="s3", title="kept", prompts=[Prompt("hi")]), settings)
    assert "# kept" in text and "## Prompts" in text
    assert "a_variable_no_version_gives" in env.log_file.read_text(encoding="utf-8")


def test_answers_are_body_text_for_the_vault_search_not_code():
    note = parse_note(note_of(CRAFTED), "crafted")   # the local index's reading of the note
    assert "quoted fields now" in note.body and "quoted fields now" not in note.code
    assert "Parse rows with the csv module" in note.body   # the approved plan too


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=200))
@hypothesis_settings(max_examples=150, deadline=None)
def test_no_answer_can_take_the_users_section_or_leave_an_open_fence(answer):
    text = notes.render_note(Session(session_id="s9", prompts=[Prompt("q", answer=answer)], plan=answer,
                                     last_assistant_message=answer + "!"))
    assert note_layout.split(text).after == note_layout.FRESH_TAIL
    assert not open_fence_at_end(text)
