"""`Meta/claude-session-history.md`: rebuilt from the archive, newest first, user text kept."""
from __future__ import annotations

import pytest

from obsidian_memory.archive import open_archive
from obsidian_memory.model import Prompt, Session
from obsidian_memory.notes import history


@pytest.fixture
def archive(settings):
    with open_archive(settings.archive) as db:
        for n, (day, title, note) in enumerate([("01", "oldest", True), ("03", "newest | piped", True),
                                                 ("02", "middle", True), ("04", "no note yet", False)]):
            db.upsert_session(Session(session_id=f"{n:08d}-x", project="demo", title=title,
                                      started_at=f"2026-03-{day}T09:05:00.000Z", prompts=[Prompt("p")]),
                              note_path=f"Meta/claude-sessions/2026-03/2026-03-{day}_{n:08d}.md" if note else None)
        yield db


def rows_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| 2026")]


def test_one_row_per_noted_session_newest_first_with_pipes_escaped(settings, archive):
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert rows_of(text) == [
        r"| 2026-03-03 09:05 | demo | newest \| piped | [[2026-03-03_00000001]] |",
        "| 2026-03-02 09:05 | demo | middle | [[2026-03-02_00000002]] |",
        "| 2026-03-01 09:05 | demo | oldest | [[2026-03-01_00000000]] |",
    ]
    assert text.startswith(history.DEFAULT_PREAMBLE)


def test_rebuilding_again_updates_rows_in_place_and_never_duplicates(settings, archive):
    history.rebuild(settings, archive)
    archive.record_note("00000003-x", "Meta/claude-sessions/2026-03/2026-03-04_00000003.md", 1)
    archive.upsert_session(Session(session_id="00000002-x", project="demo", title="middle, renamed",
                                   started_at="2026-03-02T09:05:00.000Z", prompts=[Prompt("p")]))
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert [row.split(" | ")[2] for row in rows_of(text)] == ["no note yet", r"newest \| piped", "middle, renamed", "oldest"]


def test_text_the_user_wrote_around_the_table_is_kept(settings, archive):
    path = history.rebuild(settings, archive)
    text = open(path, encoding="utf-8").read()
    edited = "# My sessions\n\nRead these on Fridays.\n\n" + text[text.index(history.BEGIN):] + "\nFooter of mine.\n"
    open(path, "w", encoding="utf-8").write(edited)
    again = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert again == edited


def test_a_history_note_without_our_markers_is_kept_above_the_table(settings, archive, env):
    target = env.vault / "Meta" / "claude-session-history.md"
    target.parent.mkdir(parents=True)
    target.write_text("| old | hand | made | table |\n", encoding="utf-8")
    text = open(history.rebuild(settings, archive), encoding="utf-8").read()
    assert text.startswith("| old | hand | made | table |\n\n" + history.BEGIN)
    assert len(rows_of(text)) == 3


def test_a_missing_vault_is_not_created(settings, archive, env):
    env.vault.rmdir()
    with pytest.raises(OSError):
        history.rebuild(settings, archive)
    assert not env.vault.exists()
