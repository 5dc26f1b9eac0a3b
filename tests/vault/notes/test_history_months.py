"""The history at any size: the history note shows the newest sessions and links a note
per month that holds every session of that month; a month's note is rewritten only when one of
its session notes came, went or changed."""
from __future__ import annotations

import os

import pytest

from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import Prompt, Session
from obsidian_memory.vault.notes import history
from obsidian_memory.vault.notes import sessions as notes

DAYS = ("2026-01-10", "2026-01-20", "2026-02-03", "2026-03-01", "2026-03-05")


def write(settings, n: int, day: str) -> str:
    session = Session(session_id=f"{n:08x}-bbbb-4ccc-8ddd-{n:012x}", project="demo", title=f"topic {n}",
                      machine="desk-000001", started_at=f"{day}T09:05:00.000Z", prompts=[Prompt(f"work {n}")])
    return notes.write_note(session, settings).path


def titles(path) -> list[str]:
    return [line.split(" | ")[2] for line in open(path, encoding="utf-8").read().splitlines()
            if line.startswith("| 20")]


@pytest.fixture
def written(settings, monkeypatch):
    monkeypatch.setattr(history, "RECENT_ROWS", 2)
    return {n: write(settings, n, day) for n, day in enumerate(DAYS)}


def month_path(settings, month: str) -> str:
    return settings.vault_path(history.month_note(settings, month))


def test_the_note_shows_the_newest_sessions_and_each_month_note_holds_its_month(settings, written):
    with open_archive(settings.archive) as archive:
        target = history.rebuild(settings, archive)
    assert titles(target) == ["topic 4", "topic 3"]
    text = open(target, encoding="utf-8").read()
    for month in ("2026-03", "2026-02", "2026-01"):
        assert f"[[claude-session-history {month}|{month}]]" in text
    assert titles(month_path(settings, "2026-01")) == ["topic 1", "topic 0"]
    assert titles(month_path(settings, "2026-02")) == ["topic 2"]
    assert titles(month_path(settings, "2026-03")) == ["topic 4", "topic 3"]


def test_only_the_month_notes_whose_sessions_changed_are_written_again(settings, written):
    with open_archive(settings.archive) as archive:
        history.rebuild(settings, archive)
        stamps = {m: os.stat(month_path(settings, m)).st_mtime_ns for m in ("2026-01", "2026-02", "2026-03")}
        write(settings, 9, "2026-02-14")
        os.unlink(settings.vault_path(written[4]))
        target = history.rebuild(settings, archive)
    assert titles(month_path(settings, "2026-02")) == ["topic 9", "topic 2"]
    assert titles(month_path(settings, "2026-03")) == ["topic 3"]
    assert os.stat(month_path(settings, "2026-01")).st_mtime_ns == stamps["2026-01"]
    assert titles(target) == ["topic 3", "topic 9"]


def test_a_note_made_private_leaves_its_month_note(settings, written):
    with open_archive(settings.archive) as archive:
        history.rebuild(settings, archive)
        with open(settings.vault_path(written[0]), "a", encoding="utf-8") as handle:
            handle.write("\n#private\n")
        history.rebuild(settings, archive)
    assert titles(month_path(settings, "2026-01")) == ["topic 1"]
    assert "topic 0" not in open(month_path(settings, "2026-01"), encoding="utf-8").read()


def test_no_month_notes_while_the_history_note_shows_every_session(settings, monkeypatch):
    for n, day in enumerate(DAYS[:2]):
        write(settings, n, day)
    with open_archive(settings.archive) as archive:
        target = history.rebuild(settings, archive)
    assert titles(target) == ["topic 1", "topic 0"] and "month by month" not in open(target, encoding="utf-8").read()
    assert not os.path.exists(os.path.dirname(month_path(settings, "2026-01")))


def test_archiving_a_new_session_walks_the_vault_once(env, settings, written, monkeypatch):
    """Placing the new note brings the record of the vault up to date; the history then looks
    only at the note just written, not at every note of the vault a second time."""
    from archive_fixtures import session_id, write_transcript
    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.vault.notes import vault_sessions

    walks = []
    real = vault_sessions.list_notes
    monkeypatch.setattr(vault_sessions, "list_notes", lambda root, *rest: walks.append(root) or real(root, *rest))
    transcript = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{session_id(40)}.jsonl",
                                  session_id(40), ["a brand new task"], start="2026-03-09T09:00:00.000Z")
    result = capture.archive_transcript(str(transcript), settings, session_id=session_id(40))
    assert result.note_path and len(walks) == 1
    target = settings.vault_path(settings.history_note)
    assert titles(target) == ["a brand new task", "topic 4"]
    assert "a brand new task" in open(month_path(settings, "2026-03"), encoding="utf-8").read()


def test_a_hook_leaves_the_month_notes_of_more_sessions_than_its_budget_to_its_sweep(env, settings, written,
                                                                                   monkeypatch):
    """A hook renders the history note from the archive's record of the vault, its own note read
    again; month notes of more sessions than HOOK_ROWS are left to the sweep it starts, and stay
    to write until one writes them."""
    from archive_fixtures import session_id, write_transcript
    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.core import spawn

    started = []
    monkeypatch.setattr(spawn, "start", lambda argv, **options: started.append(argv) or 4242)
    monkeypatch.setattr(capture, "HOOK_ROWS", 1)
    with open_archive(settings.archive) as archive:
        history.rebuild(settings, archive)                 # the record of the vault, as a sweep leaves it
    transcript = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{session_id(41)}.jsonl",
                                  session_id(41), ["a brand new task"], start="2026-03-09T09:00:00.000Z")
    result = capture.archive_transcript(str(transcript), settings, session_id=session_id(41), hook=True)
    assert result.note_path and "month notes" in result.left and started == [spawn.command("sweep", "--wait", "600")]
    assert titles(settings.vault_path(settings.history_note)) == ["a brand new task", "topic 4"]
    assert "a brand new task" not in open(month_path(settings, "2026-03"), encoding="utf-8").read()
    capture.sweep(settings)
    assert "a brand new task" in open(month_path(settings, "2026-03"), encoding="utf-8").read()


def test_a_long_walk_of_the_vault_leaves_the_lookup_its_time_to_read_the_notes_that_changed(settings, written,
                                                                                            monkeypatch):
    """At 100,000 notes the walk alone outlasts a hook's half second: the notes that changed are
    still read (and the new note placed by the record), not given up for a read of every note."""
    import time

    from obsidian_memory.vault.notes import vault_sessions

    real = vault_sessions.list_notes
    monkeypatch.setattr(vault_sessions, "list_notes", lambda root, *rest: time.sleep(0.3) or real(root, *rest))
    with open_archive(settings.archive) as archive:
        found = vault_sessions.notes_of(settings, archive, f"{3:08x}-bbbb-4ccc-8ddd-{3:012x}", reading_seconds=0.2)
    assert found == [written[3]]


def test_a_note_another_machine_writes_while_the_table_is_rebuilt_is_in_the_table_at_the_end(settings, monkeypatch):
    """Two machines sharing the vault rebuild at the same moment: the one that writes last must not
    leave out the note the other wrote during its rebuild (the table is listed again after writing)."""
    from obsidian_memory.vault.notes import vault_sessions

    write(settings, 1, "2026-03-01")
    real_refresh, arrivals = vault_sessions.refresh, [2]

    def refresh_while_another_machine_writes(*args, **kwargs):
        folder = real_refresh(*args, **kwargs)
        if arrivals:                       # the other machine's note lands after this walk
            write(settings, arrivals.pop(), "2026-03-02")
        return folder

    monkeypatch.setattr(vault_sessions, "refresh", refresh_while_another_machine_writes)
    with open_archive(settings.archive) as archive:
        target = history.rebuild(settings, archive)
    assert titles(target) == ["topic 2", "topic 1"]


# -- month notes no longer kept (the vault shrank, a month lost its last session) --------------------
# Through the real CLI (`sweep`, as SessionStart starts it) and the SessionEnd hook, with the real
# RECENT_ROWS: a vault of a little over 500 session notes.

def vault_of(settings, counts: dict[str, int]) -> dict[str, list[str]]:
    """{month: its session notes} with counts[month] notes in each month."""
    notes_of, n = {}, 0
    for month, count in counts.items():
        notes_of[month] = []
        for day in range(count):
            notes_of[month].append(write(settings, n, f"{month}-{1 + day % 28:02d}"))
            n += 1
    return notes_of


def swept(env) -> None:
    done = env.run("sweep")
    assert done.returncode == 0 and done.stderr == b"", done.stderr


def month_notes(settings) -> list[str]:
    folder = os.path.dirname(month_path(settings, "2026-01"))
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_when_the_vault_shrinks_to_500_sessions_our_month_notes_go_and_the_users_words_stay(env, settings):
    from archive_fixtures import hook_payload, session_id, write_transcript

    notes_of = vault_of(settings, {"2026-01": 3, "2026-02": 250, "2026-03": 248})        # 501 sessions
    swept(env)
    history_note = settings.vault_path(settings.history_note)
    assert "month by month" in open(history_note, encoding="utf-8").read()
    assert month_notes(settings) == [f"claude-session-history 2026-0{m}.md" for m in (1, 2, 3)]
    february = month_path(settings, "2026-02")
    with open(february, encoding="utf-8") as handle:
        ours = handle.read()
    with open(february, "w", encoding="utf-8") as handle:        # the user writes in one of them
        handle.write(ours + "\nMy February review: the importer month.\n")
    folder = os.path.dirname(february)
    with open(os.path.join(folder, "claude-session-history 2025-12.md"), "w", encoding="utf-8") as handle:
        handle.write("December, written by hand.\n")             # a note of that name that is not ours
    for path in notes_of["2026-03"][:2]:                         # the user deletes two sessions: 499
        os.unlink(settings.vault_path(path))
    transcript = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{session_id(900)}.jsonl",
                                  session_id(900), ["a brand new task"], start="2026-03-29T09:00:00.000Z")
    done = env.hook(["archive"], hook_payload("SessionEnd", transcript, session_id=session_id(900)))
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    assert "a brand new task" in open(history_note, encoding="utf-8").read()
    swept(env)           # the hook read only its own note; the sweep sees the deletions: 500, the note shows them all
    text = open(history_note, encoding="utf-8").read()
    assert "a brand new task" in text and len(titles(history_note)) == 500 and "month by month" not in text
    assert month_notes(settings) == ["claude-session-history 2025-12.md", "claude-session-history 2026-02.md"]
    assert open(os.path.join(folder, "claude-session-history 2025-12.md"), encoding="utf-8").read() == \
        "December, written by hand.\n"
    kept = open(february, encoding="utf-8").read()
    assert "My February review: the importer month." in kept and titles(february) == []
    assert "Every session is in [[claude-session-history]] now" in kept
    swept(env)                                                   # and it stays so
    assert open(february, encoding="utf-8").read() == kept


def test_the_month_notes_folder_goes_with_the_last_of_our_month_notes(env, settings):
    notes_of = vault_of(settings, {"2026-01": 3, "2026-02": 250, "2026-03": 248})        # 501 sessions
    swept(env)
    assert len(month_notes(settings)) == 3
    os.unlink(settings.vault_path(notes_of["2026-02"][0]))
    swept(env)
    assert not os.path.exists(os.path.dirname(month_path(settings, "2026-01")))
    assert len(titles(settings.vault_path(settings.history_note))) == 500


def test_a_month_that_loses_its_last_session_loses_its_note_and_its_link(env, settings):
    notes_of = vault_of(settings, {"2026-01": 2, "2026-02": 251, "2026-03": 250})        # 503 sessions
    swept(env)
    assert os.path.isfile(month_path(settings, "2026-01"))
    for path in notes_of["2026-01"]:                              # 501 left: still more than the note shows
        os.unlink(settings.vault_path(path))
    swept(env)
    text = open(settings.vault_path(settings.history_note), encoding="utf-8").read()
    assert "month by month" in text and "2026-02|2026-02" in text and "2026-01" not in text
    assert month_notes(settings) == ["claude-session-history 2026-02.md", "claude-session-history 2026-03.md"]
    assert len(titles(month_path(settings, "2026-02"))) == 251


def test_a_note_made_private_leaves_its_month_note_at_the_next_sweep(env, settings):
    """The sweep's own look at the vault (to learn other machines' sessions) is the one that sees
    the edit: the month stays to be written until the history writes it."""
    notes_of = vault_of(settings, {"2026-01": 3, "2026-02": 250, "2026-03": 250})        # 503 sessions
    swept(env)
    january = month_path(settings, "2026-01")
    assert titles(january) == ["topic 2", "topic 1", "topic 0"]
    with open(settings.vault_path(notes_of["2026-01"][1]), "a", encoding="utf-8") as handle:
        handle.write("\n#private\n")
    swept(env)
    assert titles(january) == ["topic 2", "topic 0"]
    assert "topic 1 " not in open(january, encoding="utf-8").read()
