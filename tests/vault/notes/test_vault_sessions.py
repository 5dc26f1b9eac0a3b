"""The session notes in the vault as the archive last read them: only changed notes are
read, conflict copies and second notes never count, and the same notes count on every machine."""
from __future__ import annotations

import os

import pytest
import yaml
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import Prompt, Session
from obsidian_memory.vault.notes import sessions as notes
from obsidian_memory.vault.notes import vault_sessions
from obsidian_memory.core.textclean import yaml_scalar


@pytest.fixture
def archive(settings):
    with open_archive(settings.archive) as db:
        yield db


def write(settings, n: int, machine: str = "desk-000001", day: str = "04") -> str:
    session = Session(session_id=f"{n:08x}-bbbb-4ccc-8ddd-{n:012x}", title=f"session {n}", project="demo",
                      machine=machine, started_at=f"2026-03-{day}T09:00:00.000Z", prompts=[Prompt(f"prompt {n}")])
    return notes.write_note(session, settings).path


def counting_reads(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = vault_sessions.read_facts

    def read_facts(vault, relative, stamp, privacy=None):
        seen.append(relative)
        return real(vault, relative, stamp, privacy)
    monkeypatch.setattr(vault_sessions, "read_facts", read_facts)
    return seen


def test_only_new_or_changed_notes_are_read_again(settings, archive, monkeypatch):
    paths = [write(settings, n) for n in range(1, 6)]
    reads = counting_reads(monkeypatch)
    first = vault_sessions.refresh(settings, archive)
    assert sorted(reads) == sorted(paths) and first.sessions_changed
    reads.clear()
    again = vault_sessions.refresh(settings, archive)
    assert reads == [] and not again.sessions_changed and again.rows == first.rows
    changed = settings.vault_path(paths[2])
    with open(changed, "a", encoding="utf-8") as handle:
        handle.write("\nmore of my notes\n")
    os.unlink(settings.vault_path(paths[0]))
    third = vault_sessions.refresh(settings, archive)
    assert reads == [paths[2]] and third.sessions_changed
    assert [r["path"] for r in third.rows] == sorted(paths[1:])


def test_conflict_copies_and_second_notes_never_count_and_the_choice_is_the_same_everywhere(settings, archive):
    original = write(settings, 1)
    folder = os.path.dirname(settings.vault_path(original))
    text = open(settings.vault_path(original), encoding="utf-8").read()
    for name in ("2026-03-04_00000001.sync-conflict-20260304-101500-ABCDEF7.md", "2026-03-04_00000001 2.md",
                 "copy of my session.md"):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    with open(os.path.join(folder, "my own note.md"), "w", encoding="utf-8") as handle:
        handle.write("---\ntitle: mine\n---\nno session here\n")
    rows = vault_sessions.refresh(settings, archive).rows
    counted, duplicates, conflicts = vault_sessions.canonical(rows)
    assert [r["path"] for r in counted] == [original]
    assert [r["path"].rsplit("/", 1)[1] for r in duplicates] == ["copy of my session.md"]
    assert sorted(r["path"].rsplit("/", 1)[1] for r in conflicts) == [
        "2026-03-04_00000001 2.md", "2026-03-04_00000001.sync-conflict-20260304-101500-ABCDEF7.md"]
    assert vault_sessions.canonical(list(reversed(rows))) == (counted, duplicates, conflicts)


def test_dot_folders_links_and_the_history_note_are_left_out(settings, archive, tmp_path):
    write(settings, 1)
    root = settings.vault_path(settings.sessions_folder)
    os.makedirs(os.path.join(settings.vault, ".trash"))
    with open(os.path.join(settings.vault, ".trash", "2026-03-04_00000009.md"), "w", encoding="utf-8") as handle:
        handle.write("---\nsession_id: \"x\"\n---\n")
    outside = tmp_path / "outside.md"
    outside.write_text("---\nsession_id: \"00000002-x\"\n---\n", encoding="utf-8")
    os.symlink(outside, os.path.join(root, "2026-03-04_00000002.md"))
    history_inside = settings.replace(history_note=settings.sessions_folder + "/history.md")
    with open(history_inside.vault_path(history_inside.history_note), "w", encoding="utf-8") as handle:
        handle.write("---\nsession_id: \"not a session\"\n---\n")
    rows = vault_sessions.refresh(history_inside, archive).rows
    assert [r["path"].rsplit("/", 1)[1] for r in rows] == ["2026-03-04_00000001.md"]


def test_a_note_the_user_moved_anywhere_in_the_vault_still_counts_and_their_notes_are_read_once(
        settings, archive, monkeypatch):
    moved = settings.vault_path(write(settings, 1))
    target = os.path.join(settings.vault, "Projects", "parser", "what we did.md")
    os.makedirs(os.path.dirname(target))
    os.replace(moved, target)
    with open(os.path.join(settings.vault, "Projects", "plan.md"), "w", encoding="utf-8") as handle:
        handle.write("---\ntags: [plan]\n---\n# My plan\n" + "long line\n" * 5000)
    reads = counting_reads(monkeypatch)
    rows = vault_sessions.refresh(settings, archive).rows
    assert [r["path"] for r in vault_sessions.canonical(rows)[0]] == ["Projects/parser/what we did.md"]
    assert [r["kind"] for r in rows if r["path"] == "Projects/plan.md"] == ["other"] and len(reads) == 2
    reads.clear()
    vault_sessions.refresh(settings, archive)
    assert reads == []


def test_reading_stops_at_the_deadline_and_keeps_what_it_read(settings, archive, monkeypatch):
    import time
    for n in range(1, 4):
        write(settings, n)
    now, real_read = [0.0], vault_sessions.read_facts

    def read_then_time_passes(*args, **kwargs):     # the deadline passes once two notes are read
        row = real_read(*args, **kwargs)
        now[0] += 2.5 if now[0] < 2.5 else 10.0
        return row
    monkeypatch.setattr(vault_sessions, "read_facts", read_then_time_passes)
    monkeypatch.setattr(vault_sessions.time, "monotonic", lambda: now[0])
    with pytest.raises(vault_sessions.Incomplete):
        vault_sessions.refresh(settings, archive, deadline=5.0)
    monkeypatch.setattr(vault_sessions.time, "monotonic", time.monotonic)
    assert len(archive.vault_notes.notes(vault_sessions.vault_root(settings))) == 2
    assert len(vault_sessions.refresh(settings, archive).rows) == 3


# -- the properties as we write them, read as PyYAML reads them ------------------------------------

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                     st.text(max_size=40), st.sampled_from(["2026-03-04T09:00:00", "main", "a b", "yes", "0123"]))


@hypothesis_settings(max_examples=400, deadline=None)
@given(values=st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True), _SCALARS, max_size=8))
def test_property_our_frontmatter_reads_as_pyyaml_reads_it(values):
    block = "".join(f"{key}: {yaml_scalar(value)}\n" for key, value in values.items()) + "tags: [claude-session]\n"
    assert vault_sessions.properties_of(f"---\n{block}---\nbody\n") == yaml.safe_load(block)


def test_a_new_sessions_note_is_placed_without_reading_every_note_of_the_vault(settings, env, monkeypatch, tmp_path):
    """With thousands of other machines' notes in the vault, a walk for a new session's note would
    read them all in every SessionEnd hook; the vault's record, brought up to date by a listing,
    says no note holds it. A note the user moved is still found and updated where it is."""
    from archive_fixtures import session_id, write_transcript

    from obsidian_memory.capture import archiving as capture

    for n in range(1, 41):
        write(settings, n)   # another machine's notes
    transcripts = {}
    for n in (101, 102):
        sid = session_id(n)
        transcripts[sid] = write_transcript(env.config_dir / "projects" / "-w" / f"{sid}.jsonl", sid,
                                            [f"work {n}"], cwd=str(tmp_path), start="2026-03-05T09:00:00.000Z")
    first, second = transcripts
    walks, reads = [], counting_reads(monkeypatch)
    real_walk = notes._walk_for_notes
    monkeypatch.setattr(notes, "_walk_for_notes", lambda *a: walks.append(a) or real_walk(*a))
    capture.archive_transcript(str(transcripts[first]), settings, session_id=first)   # first sight: reads them all
    reads.clear()
    result = capture.archive_transcript(str(transcripts[second]), settings, session_id=second)
    # of the session notes, the new one only, read once for the history (the activity note is rewritten too)
    assert walks == [] and [r for r in reads if r.startswith(settings.sessions_folder)] == [result.note_path]

    moved = settings.vault_path("Projects/first.md")   # the user moves the first note
    os.makedirs(os.path.dirname(moved))
    with open(moved, "w", encoding="utf-8") as handle, open(settings.vault_path(archiver_note(settings, first)),
                                                            encoding="utf-8") as note:
        handle.write(note.read())
    os.unlink(settings.vault_path(archiver_note(settings, first)))
    write_transcript(transcripts[first], first, ["work 101", "more work"], cwd=str(tmp_path),
                     start="2026-03-05T09:00:00.000Z")
    again = capture.archive_transcript(str(transcripts[first]), settings, session_id=first)
    assert again.note_path == "Projects/first.md" and walks == []
    assert "more work" in open(moved, encoding="utf-8").read()
    assert not [p for p in vault_sessions.list_notes(settings.vault) if first[:8] in p]


def archiver_note(settings, session_id: str) -> str:
    with open_archive(settings.archive, readonly=True) as db:
        return db.sessions.note_path(session_id)


@pytest.mark.parametrize("text, session_id, prompts", [
    ('---\nsession_id: "abc-1"\nprompts: 3\n---\nbody\n', "abc-1", 3),
    ("---\nsession_id: 'abc-1'\nprompts: 3\n...\nbody\n", "abc-1", 3),           # YAML's own closing line
    ('---\ntitle: "mine"\n...\nsession_id: "abc-1"\nprompts: 99\n', None, None),   # the body says it
    ('---\ntitle: "mine"\n---x\nsession_id: "abc-1"\nprompts: 99\n---\n', None, None),
    ('# no properties\nsession_id: "abc-1"\nprompts: 99\n', None, None),
    ('---\nsession_id: &a "abc-1"\nother: *a\n---\n', None, None),                # refused YAML: no session
])
def test_a_notes_session_id_and_prompts_are_its_properties_as_the_sweep_reads_them(text, session_id, prompts):
    """One rule for where the frontmatter ends (frontmatter.locate) and what it says
    (properties_of), for finding a session's note as for learning it."""
    assert notes.note_session_id(text) == session_id
    assert notes.prompts_shown(text) == prompts
    assert notes.note_session_id(text) == (vault_sessions.properties_of(text).get("session_id"))
