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

from obsidian_memory.search import store
from obsidian_memory.search.store import VaultIndex, build
from obsidian_memory.search.store.walk import Walk
from obsidian_memory.search import fulltext
from obsidian_memory.search.base import Query
from testkit import write_note as write


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


# -- the check beside the reads (a one-shot search: `VaultIndex.open_checking`) -------------------

def _settled(vault, *names: str) -> None:
    """Put the notes' mtimes a minute back, so that the index trusts their stamps at once."""
    old = time.time() - 60
    for name in names:
        os.utime(vault / name, (old, old))


def _ranked(index, text: str) -> list[str]:
    return [hit.path for hit in fulltext.search(index, Query(text))[0]]


def test_reads_made_beside_the_check_count_only_when_it_finds_the_vault_unchanged(vault, settings):
    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "b.md", "A giraffe eats.")
    _settled(vault, "a.md", "b.md")
    store.update(settings)
    with VaultIndex.open_checking(settings) as index:
        assert _ranked(index, "zebra") == ["a.md"]
        assert index.confirm()
    (vault / "a.md").write_text("The quoll sleeps.", encoding="utf-8")
    write(vault, "c.md", "Another zebra.")
    with VaultIndex.open_checking(settings) as index:
        assert _ranked(index, "zebra") == ["a.md"]        # the snapshot as it was: not an answer yet
        assert not index.confirm()                        # the vault changed: read again
        assert _ranked(index, "zebra") == ["c.md"]
        assert _ranked(index, "quoll") == ["a.md"]
        assert index.confirm()


def test_notes_too_recent_for_their_stamp_are_checked_before_the_reads(vault, settings, monkeypatch):
    write(vault, "a.md", "The zebra sleeps.")
    _stamps_frozen_for(monkeypatch, vault, ["a.md"])
    store.update(settings)                              # a.md is unsettled: its stamp cannot show an edit
    (vault / "a.md").write_text("The quoll sleeps.", encoding="utf-8")
    with VaultIndex.open_checking(settings) as index:
        assert _ranked(index, "quoll") == ["a.md"]      # read after the check, not beside it
        assert index.confirm()


def test_a_search_process_answers_from_the_vault_as_it_is_when_it_starts_again_and_again(env):
    """The same search, ten processes in a row, a note rewritten (same size) before each."""
    vault = env.vault
    write(vault, "a.md", "The animal: zebra00.")
    write(vault, "b.md", "Nothing here.")
    for n in range(10):
        (vault / "a.md").write_text(f"The animal: zebra{n:02d}.", encoding="utf-8")
        assert found(env, f"zebra{n:02d}") == ["a.md"]
        assert n == 0 or found(env, f"zebra{n - 1:02d}") == []
