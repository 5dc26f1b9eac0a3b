"""The memory notes (in-process, clock frozen): state, learnings, agent log."""
from __future__ import annotations

import os

import pytest
from freezegun import freeze_time

from context_fixtures import make_settings, write_note
from obsidian_memory.core.errors import UserError
from obsidian_memory.vault.notes import memory

FROZEN = "2026-03-04 10:15:00"


@pytest.fixture
def settings(env):
    return make_settings(env)


def note(env, relative: str) -> str:
    return env.vault.joinpath(*relative.split("/")).read_text(encoding="utf-8")


def test_state_round_trips_and_meta_is_created_inside_the_vault(env, settings):
    assert memory.read_state(settings) is None
    assert memory.set_state(settings, "Migrating the importer\nnext: tests\n\n") == "Meta/claude-state.md"
    assert note(env, "Meta/claude-state.md") == "Migrating the importer\nnext: tests\n"
    assert memory.state_body(memory.read_state(settings)) == "Migrating the importer\nnext: tests"


def test_setting_the_state_keeps_the_users_frontmatter(env, settings):
    write_note(env, "Meta/claude-state.md", "---\ntags: [claude]\n---\nold state\n")
    memory.set_state(settings, "new state")
    assert note(env, "Meta/claude-state.md") == "---\ntags: [claude]\n---\nnew state\n"
    assert memory.state_body(memory.read_state(settings)) == "new state"


def test_clearing_the_state_empties_the_note_and_keeps_the_file(env, settings):
    memory.set_state(settings, "something")
    memory.clear_state(settings)
    assert note(env, "Meta/claude-state.md") == ""


@freeze_time(FROZEN)
def test_a_learning_is_a_dated_list_item_with_normalised_tags(env, settings):
    entry = memory.add_learning(settings, "the staging DB needs the VPN", ["#infra", "db", "infra"])
    assert entry == "- 2026-03-04 10:15 — the staging DB needs the VPN #infra #db\n"
    assert note(env, "Meta/claude-learnings.md") == "# Claude learnings\n\n" + entry


@freeze_time(FROZEN)
def test_a_multi_line_learning_indents_its_continuation_lines(env, settings):
    entry = memory.add_learning(settings, "first line\n\nsecond line", ["x"])
    assert entry == "- 2026-03-04 10:15 — first line\n\n  second line #x\n"
    [parsed] = memory.learning_entries(note(env, "Meta/claude-learnings.md"))
    assert parsed.text == entry.rstrip("\n") and parsed.date == "2026-03-04 10:15"


@freeze_time(FROZEN)
def test_learnings_are_appended_after_what_the_user_wrote_by_hand(env, settings):
    hand = "# My learnings\n\nSome intro paragraph I wrote.\n> a quote"
    write_note(env, "Meta/claude-learnings.md", hand)
    memory.add_learning(settings, "appended")
    assert note(env, "Meta/claude-learnings.md") == hand + "\n\n- 2026-03-04 10:15 — appended\n"
    memory.add_learning(settings, "again")
    assert note(env, "Meta/claude-learnings.md").endswith("— appended\n- 2026-03-04 10:15 — again\n")


def test_bad_tags_and_empty_text_are_user_errors(settings):
    with pytest.raises(UserError):
        memory.add_learning(settings, "text", ["two words"])
    with pytest.raises(UserError):
        memory.add_learning(settings, "   \n ")


def test_entries_are_read_newest_first_from_dates_headings_and_position():
    text = ("---\ntitle: x\n---\n# Learnings\n\n"
            "An undated intro paragraph\nthat goes on.\n\n"
            "## 2026-01-10\n"
            "- under a dated heading\n"
            "* second under it\n  continued\n"
            "```\n- not an entry: inside a code block\n```\n"
            "- 2026-02-01 08:00 — dated item\n"
            "- 2025-12-31 — older dated item\n"
            "1. numbered, takes the heading date\n")
    entries = memory.learning_entries(text)
    assert [e.text.splitlines()[0] for e in entries] == [
        "- 2026-02-01 08:00 — dated item",
        "1. numbered, takes the heading date",
        "```",
        "* second under it",
        "- under a dated heading",
        "- 2025-12-31 — older dated item",
        "An undated intro paragraph",
    ]
    assert entries[3].text == "* second under it\n  continued"
    assert entries[2].text == "```\n- not an entry: inside a code block\n```"


@freeze_time(FROZEN)
def test_the_log_gets_one_dated_line_per_call(env, settings):
    memory.append_log(settings, "started the migration")
    memory.append_log(settings, "finished")
    assert note(env, "Meta/claude-log.md") == ("# Claude agent log\n\n- 2026-03-04 10:15 — started the migration\n"
                                               "- 2026-03-04 10:15 — finished\n")


def test_written_text_loses_escapes_and_secrets(env, settings):
    memory.add_learning(settings, "key sk-ant-api03-" + "A" * 40 + " in \x1b[31m.env\x1b[0m")
    text = note(env, "Meta/claude-learnings.md")
    assert "sk-ant-api03" not in text and "[REDACTED" in text and "\x1b" not in text
    memory.set_state(settings, "password=hunter2hunter2")
    assert "hunter2" not in note(env, "Meta/claude-state.md")


def test_redaction_can_be_turned_off(env, settings):
    memory.set_state(settings.replace(redact=False), "password=hunter2hunter2")
    assert "hunter2hunter2" in note(env, "Meta/claude-state.md")


def test_a_missing_vault_is_a_one_line_user_error(env, settings):
    gone = settings.replace(vault=str(env.root / "gone"))
    for write in (lambda: memory.set_state(gone, "x"), lambda: memory.add_learning(gone, "x"),
                  lambda: memory.append_log(gone, "x")):
        with pytest.raises(UserError) as caught:
            write()
        assert caught.value.code == 2 and "no vault at" in str(caught.value) and "\n" not in str(caught.value)
    assert not os.path.exists(env.root / "gone")


def test_a_note_path_outside_the_vault_is_refused(settings):
    with pytest.raises(UserError):
        memory.set_state(settings.replace(state_note="../outside.md"), "x")


def test_writes_leave_no_temp_files(env, settings):
    memory.set_state(settings, "a")
    memory.add_learning(settings, "b")
    memory.append_log(settings, "c")
    assert sorted(os.listdir(env.vault / "Meta")) == ["claude-learnings.md", "claude-log.md", "claude-state.md"]


def test_a_huge_note_is_read_in_part_from_the_requested_end(env, settings):
    write_note(env, "Meta/big.md", "".join(f"line {i}\n" for i in range(100000)))
    head, partial = memory.read_note_part(settings, "Meta/big.md", 1000)
    tail, _ = memory.read_note_part(settings, "Meta/big.md", 1000, tail=True)
    assert partial and head.startswith("line 0\n") and head.endswith("\n") and len(head) <= 1000
    assert tail.endswith("line 99999\n") and tail.splitlines()[0].startswith("line ")
    assert memory.read_note_part(settings, "Meta/none.md", 1000) == (None, False)
