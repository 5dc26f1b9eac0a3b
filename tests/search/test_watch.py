"""search/store/watch: in a long-running process, the index skips its freshness walk while an
inotify watch hears of no change in the vault, and never answers from an older state: every
kind of change (a note written, touched, deleted, renamed; a folder made, moved or deleted; a
note written into a folder made a moment before) is heard before the next request reads."""
from __future__ import annotations

import os
import random
import shutil
import pytest

from obsidian_memory.search.store import VaultIndex, build, freshness, index_path, watch
from obsidian_memory.search.store.watch import LINKED_NOTE, VaultWatch, foreign_filesystem
from testkit import local_linux_only

linux_only = local_linux_only("the vault watch uses Linux's inotify on a local file system; elsewhere every "
                             "search walks the vault, as the other tests check")
WAIT = 30.0


@pytest.fixture(autouse=True)
def stop_watching(settings):
    """The index's watch (one inotify instance, a scarce thing per user) closed after each test."""
    yield
    gate = freshness.gate(index_path(settings))
    if gate._watch is not None:
        gate._watch.close()


@pytest.fixture
def watched(vault):
    (vault / "Garden").mkdir()
    (vault / "Garden" / "Beans.md").write_text("# Beans\nsow after frost\n", encoding="utf-8")
    started = VaultWatch.start(str(vault))[0]
    assert started is not None
    yield started
    started.close()


@linux_only
def test_a_watch_hears_every_change_the_walk_would_see_and_nothing_it_would_not(watched, vault):
    assert watched.changed() is False
    note = vault / "Garden" / "Beans.md"
    with open(note, "a", encoding="utf-8") as handle:
        handle.write("more\n")
    assert watched.changed() is True and watched.changed() is False
    os.utime(note, (1, 1))
    assert watched.changed() is True
    note.rename(vault / "Garden" / "Peas.md")
    assert watched.changed() is True
    (vault / "Garden" / "Peas.md").unlink()
    assert watched.changed() is True
    (vault / ".obsidian").mkdir()
    watched.changed()
    (vault / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")   # Obsidian, all day long
    (vault / ".hidden.md").write_text("x", encoding="utf-8")
    assert watched.changed() is False
    assert watched.broken is False


@linux_only
def test_a_note_written_into_a_folder_made_a_moment_before_is_heard_and_so_is_its_next_edit(watched, vault):
    (vault / "New" / "Deeper").mkdir(parents=True)
    (vault / "New" / "Deeper" / "Idea.md").write_text("# Idea\n", encoding="utf-8")   # before any watch on it
    assert watched.changed() is True
    assert watched.changed() is False
    (vault / "New" / "Deeper" / "Idea.md").write_text("# Idea\nlonger now\n", encoding="utf-8")
    assert watched.changed() is True


@linux_only
def test_a_folder_moved_or_deleted_is_heard_and_the_notes_in_its_new_place_are_watched(watched, vault):
    (vault / "Garden").rename(vault / "Yard")
    assert watched.changed() is True
    (vault / "Yard" / "Beans.md").write_text("# Beans\nmoved\n", encoding="utf-8")
    assert watched.changed() is True
    shutil.rmtree(vault / "Yard")
    assert watched.changed() is True
    watched.changed()
    assert watched.changed() is False and watched.broken is False


@linux_only
def test_a_symlinked_note_or_a_vault_moved_away_breaks_the_watch_for_good(vault, tmp_path):
    (vault / "Beans.md").write_text("# Beans\n", encoding="utf-8")
    first = VaultWatch.start(str(vault))[0]
    (vault / "Link.md").symlink_to(vault / "Beans.md")   # its target may change where no watch hears it
    assert first.changed() is True and first.broken is True and first.changed() is True
    assert VaultWatch.start(str(vault)) == (None, LINKED_NOTE)   # nor does a new one start over it
    (vault / "Link.md").unlink()
    second = VaultWatch.start(str(vault))[0]
    vault.rename(tmp_path / "elsewhere")
    assert second.changed() is True
    assert second.broken is True


@linux_only
def test_a_note_hard_linked_from_outside_the_vault_means_no_watch(vault, tmp_path):
    """Written through its other name, the note changes in a folder no watch covers."""
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n", encoding="utf-8")
    plain = VaultWatch.start(str(vault))[0]
    os.link(outside, vault / "Shared.md")
    assert plain.changed() is True and plain.broken is True
    assert VaultWatch.start(str(vault)) == (None, LINKED_NOTE)


def test_only_a_vault_on_a_local_file_system_is_watched(tmp_path):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "40 27 0:50 / /home/ann/Shared rw - nfs4 server:/vaults rw\n"
        "41 27 0:51 / /home/ann/Cloud\\040Drive rw - fuse.rclone drive: rw\n"
        "42 27 0:52 / /home/ann/Notes/attachments rw - cifs //nas/att rw\n"
        "43 27 0:53 / /mnt/c rw - 9p drvfs rw\n", encoding="utf-8")
    assert foreign_filesystem("/home/ann/Vault", str(mountinfo)) is None
    assert foreign_filesystem("/home/ann/Shared/Vault", str(mountinfo)) == "nfs4"
    assert foreign_filesystem("/home/ann/Cloud Drive/Vault", str(mountinfo)) == "fuse.rclone"
    assert foreign_filesystem("/home/ann/Notes", str(mountinfo)) == "cifs"       # a share mounted inside it
    assert foreign_filesystem("/mnt/c/Users/ann/Vault", str(mountinfo)) == "9p"
    assert foreign_filesystem("/home/ann/Vault", str(tmp_path / "missing")) == "unknown"


# -- the gate and the real index ------------------------------------------------------------------

@pytest.fixture
def walks(monkeypatch):
    """How many times the index walked the vault."""
    count = []
    real = build.walk_vault

    def counted(*args, **kwargs):
        count.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "walk_vault", counted)
    return count


@linux_only
def test_with_a_watch_requests_that_find_nothing_changed_do_not_walk_the_vault(settings, vault, walks):
    (vault / "Beans.md").write_text("# Beans\nsow after frost\n", encoding="utf-8")
    VaultIndex.open_fresh(settings).close()
    assert VaultIndex.watch_vault(settings) is None
    VaultIndex.open_fresh(settings).close()            # the first check the watch vouches for
    before = len(walks)
    for _ in range(20):
        with VaultIndex.open_fresh(settings) as index:
            assert index.paths() == ["Beans.md"]
    assert len(walks) == before
    (vault / "Peas.md").write_text("# Peas\n", encoding="utf-8")
    with VaultIndex.open_fresh(settings) as index:
        assert sorted(index.paths()) == ["Beans.md", "Peas.md"]
    assert len(walks) > before


@linux_only
def test_with_a_watch_the_index_always_answers_from_the_vault_as_it_is(settings, vault):
    """Random changes of every kind, each followed at once by a request: every answer lists
    exactly the notes on disk, with their latest words."""
    VaultIndex.open_fresh(settings).close()
    assert VaultIndex.watch_vault(settings) is None
    chance = random.Random(22)
    folders = [vault]
    for step in range(150):
        notes = sorted(vault.rglob("*.md"))
        written = None
        action = chance.choice(["write", "write", "edit", "delete", "folder", "move folder", "touch"])
        if action == "write" or not notes:
            written = chance.choice(folders) / f"n{step}.md"
            written.write_text(f"# N{step}\nword{step}\n", encoding="utf-8")
        elif action == "edit":
            written = chance.choice(notes)
            written.write_text(written.read_text(encoding="utf-8") + f"word{step}\n", encoding="utf-8")
        elif action == "delete":
            chance.choice(notes).unlink()
        elif action == "touch":
            os.utime(chance.choice(notes), (step, step))
        elif action == "folder":
            folder = chance.choice(folders) / f"f{step}"
            folder.mkdir()
            folders.append(folder)
            (folder / f"in{step}.md").write_text(f"# In{step}\nword{step}\n", encoding="utf-8")
        elif len(folders) > 1:
            old = chance.choice(folders[1:])
            new = vault / f"moved{step}"
            old.rename(new)
            folders = [vault] + sorted(p for p in vault.rglob("*") if p.is_dir())
        on_disk = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
        with VaultIndex.open_fresh(settings) as index:
            assert sorted(index.paths()) == on_disk, (step, action)
            if written is not None:
                note_id = index.note_id(written.relative_to(vault).as_posix())
                assert note_id in index.matching(f"word{step}"), (step, action)     # its new words indexed


@linux_only
def test_a_changed_setting_or_a_rebuilt_index_file_is_checked_again(settings, vault, walks):
    from obsidian_memory.search import store

    (vault / "Beans.md").write_text("# Beans\n", encoding="utf-8")
    VaultIndex.open_fresh(settings).close()
    VaultIndex.watch_vault(settings)
    VaultIndex.open_fresh(settings).close()
    before = len(walks)
    settings.index_ignore = ("Beans.md",)
    with VaultIndex.open_fresh(settings) as index:
        assert index.paths() == []
    assert len(walks) > before
    settings.index_ignore = ()
    VaultIndex.open_fresh(settings).close()
    store.rebuild(settings)                              # a new file (as `reindex --force` makes)
    before = len(walks)
    VaultIndex.open_fresh(settings).close()
    assert len(walks) > before


def test_without_a_watch_every_request_checks(settings, vault, walks, monkeypatch):
    monkeypatch.setattr(watch, "_libc", lambda: None)    # as on macOS and Windows
    (vault / "Beans.md").write_text("# Beans\n", encoding="utf-8")
    VaultIndex.open_fresh(settings).close()
    assert "inotify" in VaultIndex.watch_vault(settings)
    before = len(walks)
    for _ in range(3):
        VaultIndex.open_fresh(settings).close()
    assert len(walks) == before + 3
    assert freshness.gate(index_path(settings))._watch is None
