"""`Meta/claude-session-history.md`: rebuilt from the session notes in the vault, newest first,
user text kept."""
from __future__ import annotations

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import Prompt, Session
from obsidian_memory.vault.notes import history
from obsidian_memory.vault.notes import sessions as notes
from obsidian_memory.core.textclean import markdown_inline


def note_of(settings, n: int, day: str, title: str) -> Session:
    session = Session(session_id=f"{n:08d}-x", project="demo", title=title, machine="desk-000001",
                      started_at=f"2026-03-{day}T09:05:00.000Z", prompts=[Prompt("p")])
    notes.write_note(session, settings)
    return session


@pytest.fixture
def archive(settings):
    with open_archive(settings.archive) as db:
        for n, (day, title) in enumerate([("01", "oldest"), ("03", "newest | piped"), ("02", "middle")]):
            note_of(settings, n, day, title)
        yield db


def rows_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| 2026")]


def test_one_row_per_session_note_newest_first_with_pipes_escaped(settings, archive):
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert rows_of(text) == [
        r"| 2026-03-03 09:05 UTC | demo | newest \| piped | desk-000001 | [[2026-03-03_00000001]] |",
        "| 2026-03-02 09:05 UTC | demo | middle | desk-000001 | [[2026-03-02_00000002]] |",
        "| 2026-03-01 09:05 UTC | demo | oldest | desk-000001 | [[2026-03-01_00000000]] |",
    ]
    assert text.startswith(history.DEFAULT_PREAMBLE)


def test_rebuilding_again_updates_rows_in_place_and_never_duplicates(settings, archive):
    history.rebuild(settings, archive)
    note_of(settings, 3, "04", "a new one")
    note_of(settings, 2, "02", "middle, renamed")
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert [row.split(" | ")[2] for row in rows_of(text)] == ["a new one", r"newest \| piped", "middle, renamed", "oldest"]


def test_the_table_made_by_an_earlier_version_is_replaced_not_duplicated(settings, archive, env):
    target = env.vault / "Meta" / "claude-session-history.md"
    target.write_text("# Mine\n\n<!-- obsidian-memory:history:begin (rebuilt from the session archive; edit outside "
                      "these markers) -->\n| Started | Project | Session | Note |\n|---|---|---|---|\n"
                      "| 2026-03-01 09:05 | demo | oldest | [[2026-03-01_00000000]] |\n"
                      "<!-- obsidian-memory:history:end -->\n\nAfter.\n", encoding="utf-8")
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert text.startswith("# Mine\n\n" + history.BEGIN) and text.endswith("\nAfter.\n")
    assert len(rows_of(text)) == 3 and text.count("obsidian-memory:history:begin") == 1


def test_text_the_user_wrote_around_the_table_is_kept(settings, archive):
    path = history.rebuild(settings, archive)
    text = open(path, encoding="utf-8").read()
    edited = "# My sessions\n\nRead these on Fridays.\n\n" + text[text.index(history.BEGIN):] + "\nFooter of mine.\n"
    open(path, "w", encoding="utf-8").write(edited)
    again = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert again == edited


def test_a_history_note_without_our_markers_is_kept_above_the_table(settings, archive, env):
    target = env.vault / "Meta" / "claude-session-history.md"
    target.write_text("| old | hand | made | table |\n", encoding="utf-8")
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert text.startswith("| old | hand | made | table |\n\n" + history.BEGIN)
    assert len(rows_of(text)) == 3


def test_a_missing_vault_is_not_created(settings, archive, env):
    import shutil
    shutil.rmtree(env.vault)
    with pytest.raises(OSError):
        history.rebuild(settings, archive)
    assert not env.vault.exists()


@hypothesis_settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=40), st.text(alphabet="abc XYZ019,.:;()/'\"!?+@-_|*`#\\", max_size=40), st.none()))
def test_property_a_cell_is_exactly_what_inline_makes_of_its_text(value):
    assert history.cell(value) == markdown_inline(value)


@pytest.mark.parametrize("private", ["---\nprivate: true\n", "\nMy own aside #private\n"])
def test_a_private_session_note_has_no_row_until_it_is_public_again(settings, archive, env, private):
    note = next(env.vault.rglob("2026-03-02_00000002.md"))
    public = note.read_text(encoding="utf-8")
    note.write_text(public.replace("---\n", private, 1) if private.startswith("---") else public + private,
                    encoding="utf-8")
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert [row.split(" | ")[2] for row in rows_of(text)] == [r"newest \| piped", "oldest"]
    assert "middle" not in text and "2026-03-02_00000002" not in text
    note.write_text(public, encoding="utf-8")
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert "| middle | desk-000001 | [[2026-03-02_00000002]] |" in text
