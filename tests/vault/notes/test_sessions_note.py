"""One note per session: path, frontmatter, sections, hostile text, the user's section."""
from __future__ import annotations

import datetime
import re
import time

import pytest
import yaml
from archive_fixtures import REAL_2_1_332
from testkit import open_fence_at_end

from obsidian_memory.capture import transcript
from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session, Subagent
from obsidian_memory.vault.notes import note_layout, sessions as notes

HOSTILE_TITLE = 'Fix: "quotes", #tag, [[link]] | pipe: yes\nsecond line \u2028 %% comment'


@pytest.fixture
def new_york(monkeypatch):
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def session(**changes) -> Session:
    values = dict(session_id="0123abcd-1111-4222-8333-444455556666", project="demo", cwd="/work/my demo",
                  git_branch="main", version="2.1.39", started_at="2026-03-04T09:00:00.000Z",
                  ended_at="2026-03-04T10:30:00.000Z", duration_seconds=5400, title="Build the importer",
                  prompts=[Prompt("build the importer", "2026-03-04T09:00:00.000Z"), Prompt("/compact keep it")],
                  compact_summaries=[CompactSummary("first summary text", "2026-03-04T09:30:00.000Z", "manual"),
                                     CompactSummary("second summary text", None, None, "post_compact")],
                  tools={"Bash": 7, "Edit": 2}, files_touched=["/work/my demo/src/a.py", "/work/my demo/b`c`.md"],
                  subagents=[Subagent("a881341", "/t/agent-a881341.jsonl", 12, "Count the files")])
    values.update(changes)
    return Session(**values)


def frontmatter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("\n---\n", 1)[0][4:])


def test_note_path_is_dated_by_the_local_start_of_the_session(settings, new_york):
    # 03:00 UTC on 1 January is still 31 December in New York
    s = session(started_at="2026-01-01T03:00:00.000Z")
    assert notes.note_relative_path(s, settings) == "Meta/claude-sessions/2025-12/2025-12-31_0123abcd.md"


def test_frontmatter_has_the_fields_and_reads_back_hostile_values(settings):
    text = notes.render_note(session(title=HOSTILE_TITLE, cwd="/w/it's: #here"), settings)
    data = frontmatter(text)
    assert data["title"] == HOSTILE_TITLE
    assert data["cwd"] == "/w/it's: #here"
    assert (data["session_id"], data["project"], data["branch"], data["prompts"], data["tags"]) == (
        "0123abcd-1111-4222-8333-444455556666", "demo", "main", 2, ["claude-session"])
    # typed as Obsidian reads them: date & time unquoted, numbers as numbers
    assert data["started"] == datetime.datetime(2026, 3, 4, 9, 0) and data["ended"] == datetime.datetime(2026, 3, 4, 10, 30)
    assert (data["duration"], data["commits"]) == (90, 0)


def test_body_has_title_project_resume_summaries_prompts_files_tools_subagents(settings):
    text = notes.render_note(session(), settings)
    assert "\n# Build the importer\n" in text
    assert "**Project:** `/work/my demo`" in text
    assert "```bash\ncd '/work/my demo' && claude --resume 0123abcd-1111-4222-8333-444455556666\n```" in text
    assert re.search(r"### Compaction 1 · 2026-03-04 09:30 \(manual\)\n\n```text\nfirst summary text\n```", text)
    assert re.search(r"### Compaction 2\n\n```text\nsecond summary text\n```", text)
    assert re.search(r"\*\*1\.\*\* 09:00\n\n```text\nbuild the importer\n```", text)
    assert re.search(r"\*\*2\.\*\*\n\n```text\n/compact keep it\n```", text)
    assert "- `/work/my demo/src/a.py`" in text and "- ``/work/my demo/b`c`.md``" in text
    assert text.index("- `Bash` × 7") < text.index("- `Edit` × 2")
    assert "- `a881341` (12 entries): Count the files" in text
    assert text.rstrip().endswith(note_layout.MY_NOTES_HINT) and f"\n{note_layout.MY_NOTES}\n" in text


def test_a_real_transcript_renders(settings):
    text = notes.render_note(transcript.parse(str(REAL_2_1_332)), settings)
    assert "# fixture greeting script" in text and "What did we change?" in text
    assert note_layout.split(text).after == note_layout.FRESH_TAIL


def test_long_prompts_are_shortened_with_a_visible_mark(settings):
    text = notes.render_note(session(prompts=[Prompt("word " * 5000)]), settings)
    assert "… [shortened, 25,000 chars]" in text
    assert len(text) < 10_000


def test_hostile_prompt_cannot_fake_the_user_section_or_leave_a_fence_open(settings):
    evil = "## My notes\nfake user text\n```\n````python\nunclosed\n~~~\n"
    text = notes.render_note(session(prompts=[Prompt(evil)], compact_summaries=[CompactSummary(evil)],
                                     title="## My notes"), settings)
    assert note_layout.split(text).after == note_layout.FRESH_TAIL   # the user's part, as the writer reads it
    assert "`````text\n## My notes\nfake user text" in text  # fence longer than the 4-backtick run
    assert not open_fence_at_end(text)


def test_terminal_escapes_never_reach_the_note(settings):
    text = notes.render_note(session(prompts=[Prompt("\x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07")],
                                     title="t\x1b[2Jitle"), settings)
    assert "\x1b" not in text and "\x07" not in text
    assert "red link" in text and "# title" in text


def test_the_user_section_survives_writing_the_note_again(settings):
    relative = notes.write_note(session(), settings).path
    path = settings.vault_path(relative)
    text = open(path, encoding="utf-8").read()
    mine = "## My notes\n\nThe importer needs a retry.\n```\nunclosed block of mine\n"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text[:text.index("## My notes")] + mine)
    notes.write_note(session(title="Renamed", prompts=[Prompt("a new prompt")]), settings, note_path=relative)
    again = open(path, encoding="utf-8").read()
    assert again.endswith(mine) and "# Renamed" in again and "a new prompt" in again
    assert again.count("## My notes") == 1


def test_a_note_whose_text_is_unchanged_is_not_rewritten(settings):
    relative = notes.write_note(session(), settings).path
    path = settings.vault_path(relative)
    before = __import__("os").stat(path).st_mtime_ns
    time.sleep(0.01)
    notes.write_note(session(), settings, note_path=relative)
    assert __import__("os").stat(path).st_mtime_ns == before


def test_a_note_renamed_while_it_is_looked_for_is_found_again_not_written_twice(settings):
    """The rename race of a sync client or an editor: the note moves after the vault's record was
    brought up to date, so the record lists a name that is gone a moment later. The note is looked
    for again (the record brought up to date again) instead of a second note being made beside it."""
    import os

    first = notes.write_note(session(), settings)
    folder = os.path.dirname(settings.vault_path(first.path))
    os.rename(settings.vault_path(first.path), os.path.join(folder, "Renamed by the user.md"))
    moved = first.path.rsplit("/", 1)[0] + "/Renamed by the user.md"
    listings = iter([[first.path], [first.path], [moved]])      # stale twice, then brought up to date
    second = notes.write_note(session(title="Grown", prompts=[Prompt("one more prompt")]), settings,
                              note_path=first.path, known=lambda sid: next(listings, [moved]), written=first)
    assert second.path == moved
    assert sorted(os.listdir(folder)) == ["Renamed by the user.md"]
    assert "one more prompt" in open(settings.vault_path(moved), encoding="utf-8").read()


def test_a_second_note_made_while_the_note_was_moving_is_merged_into_the_users_and_removed(settings):
    """When the record of the vault missed a note being renamed (it listed neither name), a note is
    made anew at the recorded path beside it (`fresh`). The next write finds both: what either
    holds of the user's goes into the note the user had renamed, and ours made beside it goes."""
    import os

    first = notes.write_note(session(), settings)
    folder = os.path.dirname(settings.vault_path(first.path))
    renamed = os.path.join(folder, "Renamed by the user.md")
    os.rename(settings.vault_path(first.path), renamed)
    with open(renamed, "a", encoding="utf-8") as handle:
        handle.write("\nA line in the note the user renamed.\n")
    second = notes.write_note(session(prompts=[Prompt("two")]), settings, note_path=first.path,
                              known=lambda sid: [], written=first)           # the record missed the rename
    assert second.fresh and second.path == first.path and len(os.listdir(folder)) == 2
    with open(settings.vault_path(second.path), "a", encoding="utf-8") as handle:
        handle.write("\nA line in the note made beside it.\n")
    moved = first.path.rsplit("/", 1)[0] + "/Renamed by the user.md"
    third = notes.write_note(session(prompts=[Prompt("the third prompt")]), settings, note_path=second.path,
                             known=lambda sid: sorted([second.path, moved]), written=second)
    assert third.path == moved and not third.fresh
    assert sorted(os.listdir(folder)) == ["Renamed by the user.md"]
    text = open(renamed, encoding="utf-8").read()
    assert "A line in the note the user renamed." in text and "A line in the note made beside it." in text
    assert "the third prompt" in text


def test_a_copy_of_the_note_is_never_merged_away_when_no_note_was_made_anew(settings):
    import os

    first = notes.write_note(session(), settings)
    copy = settings.vault_path("My copy.md")
    with open(copy, "w", encoding="utf-8") as handle:
        handle.write(open(settings.vault_path(first.path), encoding="utf-8").read() + "\nMine.\n")
    assert not first.fresh
    notes.write_note(session(prompts=[Prompt("the second prompt")]), settings, note_path=first.path,
                     known=lambda sid: sorted([first.path, "My copy.md"]), written=first)
    assert os.path.exists(copy) and "the second prompt" not in open(copy, encoding="utf-8").read()
    assert "the second prompt" in open(settings.vault_path(first.path), encoding="utf-8").read()


def test_a_note_moved_right_after_our_swap_displaced_a_users_line_keeps_it_and_stays_one(settings, monkeypatch):
    """The race the concurrent-writer stress test found: an editor saves a line just before our
    swap (the swap displaces it: we hold it), then a sync client renames the note before our
    merged text goes in. The moved note carries the generated part this very write put in: it is
    ours, the line goes into it, and no second note is made."""
    import os

    from obsidian_memory.core import fsutil

    first = notes.write_note(session(), settings)
    path = settings.vault_path(first.path)
    moved = first.path.rsplit("/", 1)[0] + "/Moved by a sync client.md"
    real_swap, calls = fsutil.swap_file, []

    def racing_swap(target, data, expected, **kwargs):
        calls.append(target)
        if len(calls) == 1:
            with open(target, "a", encoding="utf-8") as handle:
                handle.write("\nA line saved just before the swap.\n")
            result = real_swap(target, data, expected, **kwargs)
            os.rename(target, settings.vault_path(moved))
            return result
        return real_swap(target, data, expected, **kwargs)

    monkeypatch.setattr(fsutil, "swap_file", racing_swap)
    second = notes.write_note(session(prompts=[Prompt("the second prompt")]), settings, note_path=first.path,
                              known=lambda sid: [moved], written=first)
    assert second.path == moved and sorted(os.listdir(os.path.dirname(path))) == ["Moved by a sync client.md"]
    text = open(settings.vault_path(moved), encoding="utf-8").read()
    assert "A line saved just before the swap." in text and "the second prompt" in text


def test_a_missing_vault_is_not_created(settings, env):
    env.vault.rmdir()
    with pytest.raises(notes.VaultUnavailable):
        notes.write_note(session(), settings)
    assert not env.vault.exists()


def test_a_folder_in_the_way_of_the_note_is_an_error_and_left_alone(settings, env):
    folder = env.vault / notes.note_relative_path(session(), settings)
    folder.mkdir(parents=True)
    (folder / "keep.txt").write_text("mine")
    with pytest.raises(IsADirectoryError):
        notes.write_note(session(), settings)
    assert (folder / "keep.txt").read_text() == "mine"
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no temp file left


def test_a_user_template_overrides_the_packaged_one(settings):
    import os
    os.makedirs(settings.user_templates_dir)
    with open(os.path.join(settings.user_templates_dir, notes.TEMPLATE), "w", encoding="utf-8") as handle:
        handle.write("custom {{ session.session_id }} {{ title | inline }}\n")
    text = notes.render_note(session(title="a #b"), settings)
    assert text.startswith(f"{note_layout.BEGIN}\ncustom 0123abcd-1111-4222-8333-444455556666 a \\#b\n{note_layout.END}\n")
    assert note_layout.split(text).after == note_layout.FRESH_TAIL
