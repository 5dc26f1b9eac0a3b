"""The history table remembers whether each session note's text makes it private:
by the note's stamp (size, mtime_ns, ctime_ns) in the archive's record of the vault's notes, so
that an unchanged vault is not read again on every archive; and never a stale answer: a note
made private, a rules change, a moved note all show at the next rebuild."""
from __future__ import annotations

import os
import shutil
import time

import pytest

from archive_fixtures import hook_payload, session_id, write_transcript
from obsidian_memory.core import fsutil, settings as settings_module
from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import Prompt, Session
from obsidian_memory.vault.notes import history
from obsidian_memory.vault.notes import sessions as notes

TITLES = ("alpha topic", "bravo topic", "charlie topic")


def titles_in(path: str) -> list[str]:
    text = open(path, encoding="utf-8").read()
    return [title for title in TITLES if title in text]


def configure(env, text: str):
    folder = env.config_dir / "obsidian-memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(text, encoding="utf-8")
    return settings_module.load()


@pytest.fixture
def written(settings):
    """Three session notes in the vault, {title: vault-relative path}."""
    paths = {}
    for n, title in enumerate(TITLES):
        session = Session(session_id=session_id(n + 1), project="demo", title=title, machine="desk-000001",
                          started_at=f"2026-03-0{n + 1}T09:05:00.000Z", prompts=[Prompt(f"work on {title}")])
        paths[title] = notes.write_note(session, settings).path
    return paths


def same_size_same_mtime_edit(path: str, old: str, new: str) -> None:
    """Rewrite `old` as `new` (the same length) and put the mtime back: only ctime tells."""
    assert len(old) == len(new)
    before = os.stat(path)
    text = open(path, encoding="utf-8").read()
    assert old in text
    time.sleep(0.01)   # a ctime apart from the one recorded, on filesystems with coarse clocks
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new, 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_an_unchanged_vault_is_not_read_again_to_judge_privacy(settings, written, monkeypatch):
    with open_archive(settings.archive) as archive:
        history.rebuild(settings, archive)
        opened = []
        real = fsutil.open_regular
        monkeypatch.setattr(fsutil, "open_regular", lambda path, *a, **k: opened.append(path) or real(path, *a, **k))
        assert titles_in(history.rebuild(settings, archive)) == list(TITLES)
    assert not [p for p in opened if "claude-sessions" in str(p)]


def test_a_note_made_private_after_it_was_judged_leaves_the_table_at_the_next_sweep(env, settings, written):
    """Through the SessionEnd hook, as Claude Code runs it (it reads only its own note), then the
    sweep, as the next SessionStart starts it; the edit keeps the note's size and mtime (a sync
    tool restores mtimes), so only a stamp with ctime sees it."""
    with open_archive(settings.archive) as archive:
        assert titles_in(history.rebuild(settings, archive)) == list(TITLES)
    bravo = settings.vault_path(written["bravo topic"])
    same_size_same_mtime_edit(bravo, "work on bravo topic", "work #private topic")
    transcript = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{session_id(9)}.jsonl",
                                  session_id(9), ["one more thing"], start="2026-03-05T09:00:00.000Z")
    done = env.hook(["archive"], hook_payload("SessionEnd", transcript, session_id=session_id(9)))
    assert done.returncode == 0 and done.stdout == b""
    assert env.run("sweep").returncode == 0
    table = settings.vault_path(settings.history_note)
    assert titles_in(table) == ["alpha topic", "charlie topic"]
    assert "one more thing" in open(table, encoding="utf-8").read()


def test_a_change_of_the_rules_takes_effect_at_the_next_rebuild(env, settings, written):
    alpha = settings.vault_path(written["alpha topic"])
    with open(alpha, "a", encoding="utf-8") as handle:
        handle.write("\nAbout the #confidential deal.\n")
    with open_archive(settings.archive) as archive:
        assert titles_in(history.rebuild(settings, archive)) == list(TITLES)
        tagged = configure(env, "private_tag: confidential\n")          # the tag: a verdict by text
        assert titles_in(history.rebuild(tagged, archive)) == ["bravo topic", "charlie topic"]
        folder = os.path.dirname(written["charlie topic"])
        both = configure(env, f"private_tag: confidential\nprivate: ['{written['charlie topic']}']\n")
        assert titles_in(history.rebuild(both, archive)) == ["bravo topic"]   # a path rule
        assert folder and titles_in(history.rebuild(configure(env, ""), archive)) == list(TITLES)


def test_a_moved_note_is_judged_where_it_is_now(env, settings, written):
    with open(settings.vault_path(written["bravo topic"]), "a", encoding="utf-8") as handle:
        handle.write("\n#private\n")
    with open_archive(settings.archive) as archive:
        assert titles_in(history.rebuild(settings, archive)) == ["alpha topic", "charlie topic"]
        # a private note moved elsewhere stays private; a public one moved into a private folder leaves
        for title, where in (("bravo topic", "Elsewhere"), ("alpha topic", "Journal")):
            target = env.vault / where / os.path.basename(written[title])
            target.parent.mkdir(exist_ok=True)
            shutil.move(settings.vault_path(written[title]), target)
        journal = configure(env, "private: [Journal]\n")
        assert titles_in(history.rebuild(journal, archive)) == ["charlie topic"]
        # moved back out of the private folder, the public note is listed again
        shutil.move(env.vault / "Journal" / os.path.basename(written["alpha topic"]),
                    env.vault / "Elsewhere" / os.path.basename(written["alpha topic"]))
        assert titles_in(history.rebuild(journal, archive)) == ["alpha topic", "charlie topic"]


def test_a_folder_made_private_leaves_the_table_at_the_next_sweep_though_no_note_changed(env, settings, written):
    assert env.run("sweep", "--quiet-seconds", "0").returncode == 0
    table = settings.vault_path(settings.history_note)
    assert titles_in(table) == list(TITLES)
    configure(env, f"private: ['{written['alpha topic']}']\n")
    swept = env.run("sweep", "--quiet-seconds", "0")
    assert swept.returncode == 0, swept.stderr
    assert titles_in(table) == ["bravo topic", "charlie topic"]
