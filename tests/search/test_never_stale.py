"""A search never answers from a stale index: every change made to the vault before a search
starts is in its results, however the change was made and however soon after the last search.

The searches are the real CLI (one process each, as the skill runs them), one right after the
other, every change made within the same second and most of them keeping the file's size and
modification time, so that nothing but the check itself can tell them apart."""
from __future__ import annotations

import json
import os
import shutil
import time

import pytest
from hypothesis import given, settings as settings_of_hypothesis, strategies as st

from obsidian_memory.search import store
from obsidian_memory.search.store import VaultIndex, build
from obsidian_memory.search.store.walk import Walk
from obsidian_memory.search.engines import fulltext
from obsidian_memory.search.base import Query
from testkit import local_linux_only, write_note as write

on_local_linux = local_linux_only("folders are checked instead of listed on Linux's local file systems only")


def found(env, text: str, *options: str) -> list[str]:
    result = env.search(text, "--source", "index", "--json", "-n", "50", *options)
    assert result.returncode == 0, result.stderr.decode()
    return sorted(hit["path"] for hit in json.loads(result.stdout)["results"])


def rewrite_keeping_stamp(path, text: str) -> None:
    """Replace the content in place (same inode), same size, and put the mtime back to the
    nanosecond: what an editor saving twice within one tick of a coarse clock leaves behind."""
    before = os.stat(path)
    assert len(text.encode()) == before.st_size
    with open(path, "r+b") as handle:
        handle.write(text.encode())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)


def test_edits_adds_renames_moves_and_deletes_are_all_seen_by_the_next_search(env):
    vault = env.vault
    write(vault, "a.md", "The zebra sleeps under a tree.")
    write(vault, "Projects/b.md", "A giraffe eats leaves.")
    write(vault, "Projects/Old/c.md", "The okapi hides in the forest.")
    write(vault, "d.md", "A narwhal swims in cold water.")
    assert found(env, "zebra") == ["a.md"]

    rewrite_keeping_stamp(vault / "a.md", "The quoll sleeps under a tree.")
    assert found(env, "zebra") == []
    assert found(env, "quoll") == ["a.md"]

    write(vault, "Projects/new.md", "A zebra arrives.")
    assert found(env, "zebra") == ["Projects/new.md"]

    os.rename(vault / "Projects/new.md", vault / "Projects/renamed.md")
    assert found(env, "zebra") == ["Projects/renamed.md"]

    os.rename(vault / "Projects/b.md", vault / "b-moved.md")
    assert found(env, "giraffe") == ["b-moved.md"]

    os.rename(vault / "Projects/Old", vault / "Projects/Archive")
    assert found(env, "okapi") == ["Projects/Archive/c.md"]

    (vault / "d.md").unlink()
    assert found(env, "narwhal") == []

    shutil.rmtree(vault / "Projects")
    assert found(env, "zebra okapi") == []

    write(vault, "Projects/again.md", "The okapi is back.")
    assert found(env, "okapi") == ["Projects/again.md"]


def test_a_note_replaced_by_another_file_of_the_same_size_and_mtime_is_read_again(env):
    """Editors that save through a temp file and a rename (vim, sync tools) give the note a new
    file; a sync tool also sets its mtime to the one the other machine had."""
    vault = env.vault
    write(vault, "note.md", "The wombat digs.")
    assert found(env, "wombat") == ["note.md"]
    before = os.stat(vault / "note.md")
    write(vault, ".tmp-note", "The numbat digs.")
    os.utime(vault / ".tmp-note", ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(vault / ".tmp-note", vault / "note.md")
    assert found(env, "wombat") == []
    assert found(env, "numbat") == ["note.md"]


# -- the same clock step: a file system whose timestamps cannot show the second edit ----------------

def _fresh_paths(settings, text: str) -> list[str]:
    with VaultIndex.open_fresh(settings) as index:
        hits, _ = fulltext.search(index, Query(text))
    return [hit.path for hit in hits]


def _stamps_frozen_for(monkeypatch, vault, names: list[str]) -> None:
    """The walk reports the stamps these notes have now, with their mtime cut to the second,
    whatever happens to them next: a file system that counts time in seconds (HFS+, FAT, many
    network ones) when the next edit comes within the same second; ctime and size unchanged too,
    as on Windows, where ctime is the creation time. (The step of such a file system is taken to
    be 3 s; here a minute, so that a slow test machine cannot step out of it.)"""
    monkeypatch.setattr(build, "SECONDS_STEP_NS", 60_000_000_000)
    walked = build.walk_vault(str(vault)).by_path()
    frozen = {name: (walked[name][0] // 10**9 * 10**9, *walked[name][1:]) for name in names}
    real = build.walk_vault

    def walk(*args, **kwargs):
        found = real(*args, **kwargs)
        stamps = found.by_path()
        stamps.update({name: stamp for name, stamp in frozen.items() if name in stamps})
        return Walk.of(stamps, found.skipped)
    monkeypatch.setattr(build, "walk_vault", walk)


def test_an_edit_that_leaves_every_timestamp_as_it_was_is_still_seen(vault, settings, monkeypatch):
    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "b.md", "A giraffe eats.")
    _stamps_frozen_for(monkeypatch, vault, ["a.md", "b.md"])
    assert _fresh_paths(settings, "zebra") == ["a.md"]
    (vault / "a.md").write_text("The quoll sleeps.", encoding="utf-8")
    assert _fresh_paths(settings, "zebra") == []
    assert _fresh_paths(settings, "quoll") == ["a.md"]
    (vault / "a.md").write_text("The zebra sleeps.", encoding="utf-8")
    assert _fresh_paths(settings, "zebra") == ["a.md"]


def test_notes_are_read_again_only_while_their_stamp_is_too_recent_to_trust(vault, settings, monkeypatch):
    old = time.time() - 60
    write(vault, "old.md", "An old note about otters.")
    os.utime(vault / "old.md", (old, old))
    write(vault, "new.md", "A new note about otters.")
    monkeypatch.setattr(build, "SUBSECOND_STEP_NS", 300_000_000)
    monkeypatch.setattr(build, "SECONDS_STEP_NS", 300_000_000)
    store.update(settings)
    assert _unsettled(settings) == ["new.md"]
    reads = []
    real = build.read_text
    monkeypatch.setattr(build, "read_text", lambda path: reads.append(os.path.basename(path)) or real(path))
    assert store.update(settings).changed == 0
    assert reads == ["new.md"]                      # too soon: read again, still the same
    assert _unsettled(settings) == ["new.md"]
    time.sleep(0.4)
    assert store.update(settings).changed == 0
    assert _unsettled(settings) == []               # the same content, read late enough: settled
    reads.clear()
    assert store.update(settings).changed == 0
    assert reads == []                              # from now on the stamp alone tells


def _unsettled(settings) -> list[str]:
    with VaultIndex.open(settings) as index:
        return [p for (p,) in index.conn.execute("SELECT n.path FROM unsettled u JOIN notes n ON n.id = u.note_id")]


# -- the check before the reads (every search: `VaultIndex.open_fresh`) -------------------------------

def _settled(vault, *names: str) -> None:
    """Put the notes' mtimes a minute back, so that the index trusts their stamps at once."""
    old = time.time() - 60
    for name in names:
        os.utime(vault / name, (old, old))


def _ranked(index, text: str) -> list[str]:
    return [hit.path for hit in fulltext.search(index, Query(text))[0]]


def test_a_search_reads_the_vault_as_it_is_when_it_opens_the_index(vault, settings):
    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "b.md", "A giraffe eats.")
    _settled(vault, "a.md", "b.md")
    store.update(settings)
    with VaultIndex.open_fresh(settings) as index:
        assert _ranked(index, "zebra") == ["a.md"]
    (vault / "a.md").write_text("The quoll sleeps.", encoding="utf-8")
    write(vault, "c.md", "Another zebra.")
    with VaultIndex.open_fresh(settings) as index:
        assert _ranked(index, "zebra") == ["c.md"]
        assert _ranked(index, "quoll") == ["a.md"]


def test_notes_too_recent_for_their_stamp_are_read_again_before_the_reads(vault, settings, monkeypatch):
    write(vault, "a.md", "The zebra sleeps.")
    _stamps_frozen_for(monkeypatch, vault, ["a.md"])
    store.update(settings)                              # a.md is unsettled: its stamp cannot show an edit
    (vault / "a.md").write_text("The quoll sleeps.", encoding="utf-8")
    with VaultIndex.open_fresh(settings) as index:
        assert _ranked(index, "quoll") == ["a.md"]


def test_a_search_process_answers_from_the_vault_as_it_is_when_it_starts_again_and_again(env):
    """The same search, ten processes in a row, a note rewritten (same size) before each."""
    vault = env.vault
    write(vault, "a.md", "The animal: zebra00.")
    write(vault, "b.md", "Nothing here.")
    for n in range(10):
        (vault / "a.md").write_text(f"The animal: zebra{n:02d}.", encoding="utf-8")
        assert found(env, f"zebra{n:02d}") == ["a.md"]
        assert n == 0 or found(env, f"zebra{n - 1:02d}") == []


# -- a check that does not list the folders (walk.walk_vault with the state of an earlier walk) ------
# A folder's entries change only with its stamp, so a check whose folders all have the stamp they
# had when an earlier walk listed them stats that walk's notes by name instead of listing again.
# Folders made a moment ago may change again within their clock step: the searches below age every
# folder (and note) after each search, so that the checks that follow do skip the listing.

def _age(vault) -> None:
    """Every folder and note's mtime a minute back: a vault last changed long ago (the folders'
    ctimes move to now: a check made before this cannot vouch for them)."""
    old = time.time() - 60
    for folder, _, files in os.walk(vault):
        for name in files:
            os.utime(os.path.join(folder, name), (old, old))
        os.utime(folder, (old, old))


@pytest.fixture
def listings(monkeypatch):
    """The folders listed (os.scandir) in this process."""
    from obsidian_memory.search.store import walk

    listed = []
    real = os.scandir

    def scandir(path="."):
        listed.append(path)
        return real(path)
    monkeypatch.setattr(walk.os, "scandir", scandir)
    return listed


@on_local_linux
def test_a_check_lists_no_folder_while_none_changed_and_all_again_once_one_did(vault, settings, listings):
    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "Projects/b.md", "A giraffe eats.")
    write(vault, "Projects/Old/c.md", "The okapi hides.")
    _age(vault)
    store.update(settings)                          # lists every folder; they are old enough: kept
    listings.clear()
    assert _fresh_paths(settings, "giraffe") == ["Projects/b.md"]
    assert listings == []                           # checked, not listed
    rewrite_keeping_stamp(vault / "Projects/b.md", "A wallaby eats.")
    assert _fresh_paths(settings, "wallaby") == ["Projects/b.md"]    # an edit in place: its stat tells
    assert listings == []
    write(vault, "Projects/Old/d.md", "Another okapi.")
    assert sorted(_fresh_paths(settings, "okapi")) == ["Projects/Old/c.md", "Projects/Old/d.md"]
    assert len(listings) == 3                       # a folder changed: all listed again
    with VaultIndex.open_fresh(settings) as index:     # the check of a search
        assert _ranked(index, "zebra") == ["a.md"]


@on_local_linux
def test_a_folder_listed_too_soon_after_it_changed_is_listed_again_by_the_next_check(vault, settings, listings):
    """A folder's stamp ticks in steps, like a note's: one changed within the step before it was
    listed may change again without its stamp showing it (`build.unsettled`)."""
    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "Projects/b.md", "A giraffe eats.")
    found = build.walk_vault(str(vault))
    assert found.state(build._settled) is None                      # folders changed just now
    _age(vault)
    os.utime(vault / "Projects", (time.time(),) * 2)                # one folder changed just now
    assert build.walk_vault(str(vault)).state(build._settled) is None
    store.update(settings)
    listings.clear()
    store.update(settings)
    assert len(listings) == 2                                       # no state kept: listed again
    _age(vault)
    store.update(settings)
    listings.clear()
    store.update(settings)
    assert listings == []


@on_local_linux
def test_a_linked_note_keeps_the_checks_listing_the_folders(vault, settings, listings):
    """A note that is a symbolic link changes with its target, wherever that is: no state."""
    write(vault, "Real/target.md", "The zebra sleeps.")
    os.symlink(vault / "Real/target.md", vault / "link.md")
    _age(vault)
    store.update(settings)
    listings.clear()
    store.update(settings)
    assert len(listings) == 2
    write(vault, "Real/target.md", "The quoll sleeps.")         # (in place: no folder changes)
    assert sorted(_fresh_paths(settings, "quoll")) == ["Real/target.md", "link.md"]


@on_local_linux
def test_changed_ignore_patterns_or_private_folders_are_not_checked_against_the_old_walk(vault, tmp_path, listings):
    from obsidian_memory.core import settings as settings_module

    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "Drafts/b.md", "A zebra draft.")
    write(vault, "Diary/c.md", "A zebra diary.")
    _age(vault)
    plain = settings_module.Settings(str(tmp_path / "claude"), vault=str(vault))
    store.update(plain)
    assert sorted(_fresh_paths(plain, "zebra")) == ["Diary/c.md", "Drafts/b.md", "a.md"]
    ignoring = settings_module.Settings(str(tmp_path / "claude"), vault=str(vault), index_ignore=["Drafts"])
    assert sorted(_fresh_paths(ignoring, "zebra")) == ["Diary/c.md", "a.md"]
    private = settings_module.Settings(str(tmp_path / "claude"), vault=str(vault), index_ignore=["Drafts"],
                                       private=["Diary"])
    assert _fresh_paths(private, "zebra") == ["a.md"]


@on_local_linux
def test_search_processes_see_every_change_to_a_vault_whose_folders_are_checked_not_listed(env):
    """The CLI, one process per search, each change made after the folders aged (so that the
    check before it skipped the listing)."""
    vault = env.vault
    write(vault, "a.md", "The zebra sleeps under a tree.")
    write(vault, "Projects/b.md", "A giraffe eats leaves.")
    write(vault, "Projects/Old/c.md", "The okapi hides in the forest.")
    write(vault, "d.md", "A narwhal swims in cold water.")

    def settled_then_found(text: str) -> list[str]:
        _age(vault)
        found(env, text)                 # lists every folder, keeps the state
        return found(env, text)          # checks the folders instead

    assert settled_then_found("zebra") == ["a.md"]
    rewrite_keeping_stamp(vault / "a.md", "The quoll sleeps under a tree.")
    assert found(env, "zebra") == [] and found(env, "quoll") == ["a.md"]
    assert settled_then_found("quoll") == ["a.md"]
    write(vault, "Projects/new.md", "A zebra arrives.")
    assert found(env, "zebra") == ["Projects/new.md"]
    assert settled_then_found("zebra") == ["Projects/new.md"]
    os.rename(vault / "Projects/new.md", vault / "Projects/renamed.md")
    assert found(env, "zebra") == ["Projects/renamed.md"]
    settled_then_found("zebra")
    os.rename(vault / "Projects/Old", vault / "Projects/Archive")
    assert found(env, "okapi") == ["Projects/Archive/c.md"]
    settled_then_found("okapi")
    (vault / "d.md").unlink()
    assert found(env, "narwhal") == []
    settled_then_found("narwhal")
    write(vault, "Projects/Archive/.hidden.md", "A hidden okapi.")
    write(vault, "Projects/Archive/e.md", "A second okapi.")
    assert found(env, "okapi") == ["Projects/Archive/c.md", "Projects/Archive/e.md"]


_FOLDERS = ["", "A/", "A/B/", "C/"]
_OPERATIONS = st.lists(st.tuples(st.sampled_from(["add", "edit", "delete", "rename", "move", "mkdir", "rmdir",
                                                  "rename folder", "hidden", "other file"]),
                                 st.integers(0, 7), st.integers(0, 3)), min_size=1, max_size=12)


@on_local_linux
@settings_of_hypothesis(max_examples=40, deadline=None)
@given(operations=_OPERATIONS)
def test_a_walk_that_checks_the_folders_finds_what_a_walk_that_lists_them_finds(tmp_path_factory, operations):
    """Whatever happens to the vault between two walks, a walk given the state of the first
    finds the same notes, stamps and skipped names as a walk that lists every folder."""
    vault = tmp_path_factory.mktemp("vault")
    for folder in _FOLDERS:
        write(vault, f"{folder}n0.md", "first note")
    for kind, number, where in operations:
        _age(vault)
        state = build.walk_vault(str(vault)).state(build._settled)
        assert state is not None
        done = _apply(vault, kind, number, _FOLDERS[where])
        checked, listed = build.walk_vault(str(vault), known=state), build.walk_vault(str(vault))
        assert checked.listed != (done in (None, "edit")) or done in ("mkdir", "hidden", "other file")
        assert checked.by_path() == listed.by_path()
        assert sorted(checked.skipped) == sorted(listed.skipped)


def _apply(vault, kind: str, number: int, folder: str) -> str | None:
    """Make the change; which one was made (None: none could be). Only an add, a delete, a rename,
    a move, a folder removed or renamed always change a folder; an edit in place never does."""
    notes = sorted(p for p in vault.rglob("*.md") if not p.name.startswith("."))
    note = notes[number % len(notes)] if notes else None
    target = vault / folder
    if kind == "add" or note is None:
        if not target.is_dir() or (target / f"n{number}.md").exists():
            return None
        write(vault, f"{folder}n{number}.md", f"note {number}")
        return "add"
    if kind == "edit":
        rewrite_keeping_stamp(note, "x" * note.stat().st_size)
    elif kind == "delete":
        note.unlink()
    elif kind == "rename" and note.name != f"r{number}.md":
        note.rename(note.with_name(f"r{number}.md"))
    elif kind == "move" and target.is_dir():
        note.rename(target / f"m{number}-{note.name}")
    elif kind == "mkdir":
        (target / f"D{number}").mkdir(parents=True, exist_ok=True)
        write(vault, f"{folder}D{number}/in{number}.md", "in a new folder")
    elif kind == "rmdir" and folder and target.is_dir():
        shutil.rmtree(target)
    elif kind == "rename folder" and folder and target.is_dir() and not target.with_name(target.name + f"{number}").exists():
        target.rename(target.with_name(target.name + f"{number}"))
    elif kind == "hidden" and target.is_dir():
        write(vault, f"{folder}.h{number}.md", "hidden")
    elif kind == "other file" and target.is_dir():
        (target / f"f{number}.txt").write_text("not a note", encoding="utf-8")
    else:
        return None
    return kind


@on_local_linux
def test_a_search_that_listed_the_folders_keeps_its_walk_state_for_the_next(vault, settings):
    write(vault, "Projects/b.md", "A giraffe eats.")
    _age(vault)
    store.update(settings)
    with VaultIndex.open(settings) as index:           # no state kept: the next walk lists the folders
        index.conn.execute("DELETE FROM meta WHERE key = ?", (build.WALK_STATE,))
    with VaultIndex.open_fresh(settings) as index:
        assert _ranked(index, "giraffe") == ["Projects/b.md"]
    with VaultIndex.open(settings) as index:
        state = build.walk_state(index.conn)
    from obsidian_memory.vault.privacy import Privacy

    assert state is not None and not build.walk_vault(str(vault), (), None, Privacy.of(settings), known=state).listed


@on_local_linux
def test_a_search_whose_walk_state_cannot_be_kept_answers_all_the_same(vault, settings, monkeypatch):
    write(vault, "Projects/b.md", "A giraffe eats.")
    _age(vault)
    store.update(settings)
    with VaultIndex.open(settings) as index:           # no state kept: the next walk lists the folders
        index.conn.execute("DELETE FROM meta WHERE key = ?", (build.WALK_STATE,))

    def no_lock(path, wait=build.LOCK_WAIT_SECONDS):
        raise PermissionError(13, "Permission denied", path + ".lock")
    monkeypatch.setattr(build, "update_lock", no_lock)
    with VaultIndex.open_fresh(settings) as index:   # its walk lists the folders, finds nothing changed
        assert _ranked(index, "giraffe") == ["Projects/b.md"]
    assert build.walk_vault(str(vault)).state(build._settled) is not None


@on_local_linux
def test_a_state_of_another_format_or_cut_short_is_not_used(vault):
    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "Projects/b.md", "A giraffe eats.")
    _age(vault)
    listed = build.walk_vault(str(vault))
    state = listed.state(build._settled)
    for known in ('{"basis": []}', state[:len(state) // 2], state.replace("walk state", "walk stat", 1), ""):
        found = build.walk_vault(str(vault), known=known)
        assert found.listed and found.by_path() == listed.by_path()
