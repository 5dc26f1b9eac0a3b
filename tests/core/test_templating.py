"""The session template is compiled once: kept in the process and in the cache folder, never at
the cost of a note (an edited override is compiled again; a damaged or unwritable cache is a miss)."""
from __future__ import annotations

import os
import shutil

import pytest
from testkit import FIXTURES

from obsidian_memory.core import settings as settings_module
from obsidian_memory.core import templating
from obsidian_memory.vault.notes import sessions as notes

CRAFTED = FIXTURES / "transcripts" / "outcomes.jsonl"
SESSION_ID = "outcomes"


@pytest.fixture
def archived(env):
    """A user with one transcript; `archive()` archives it afresh (a new archive and vault, the
    same cache folder) with the real CLI and returns the note's text."""
    target = env.config_dir / "projects" / "-home-dev-importer" / f"{SESSION_ID}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_bytes(CRAFTED.read_bytes())

    def archive() -> str:
        for path in env.config_dir.glob("session-archive.db*"):
            path.unlink()
        shutil.rmtree(env.vault / "Meta", ignore_errors=True)
        done = env.run("archive", target)
        assert done.returncode == 0, done.stderr.decode()
        notes_found = list((env.vault / "Meta" / "claude-sessions").rglob("*.md"))
        assert len(notes_found) == 1
        return notes_found[0].read_text(encoding="utf-8")
    return archive


def cache_folder(env):
    return env.config_dir / "obsidian-memory" / "cache" / templating.CACHE_FOLDER


def test_the_compiled_template_is_kept_in_the_cache_folder_and_gives_the_same_note(env, archived):
    first = archived()
    kept = list(cache_folder(env).iterdir())
    assert len(kept) == 1 and kept[0].stat().st_size > 1000
    stamp = kept[0].stat().st_mtime_ns
    assert archived() == first                                  # the second process read it back
    assert [p.stat().st_mtime_ns for p in cache_folder(env).iterdir()] == [stamp]   # and did not write it again


def test_an_edited_override_is_compiled_again(env, archived):
    archived()
    folder = env.config_dir / "obsidian-memory" / "templates"
    folder.mkdir(parents=True)
    (folder / notes.TEMPLATE).write_text("---\ntitle: {{ session.title | yaml }}\n---\nmine one\n", encoding="utf-8")
    assert "\nmine one\n" in archived()
    (folder / notes.TEMPLATE).write_text("---\ntitle: {{ session.title | yaml }}\n---\nmine two\n", encoding="utf-8")
    assert "\nmine two\n" in archived()


@pytest.mark.parametrize("damage", [b"", b"j2\x00garbage", os.urandom(4096)])
def test_a_damaged_cache_file_is_a_miss(env, archived, damage):
    first = archived()
    (kept,) = cache_folder(env).iterdir()
    kept.write_bytes(damage)
    assert archived() == first
    assert "Traceback" not in (env.log_file.read_text(encoding="utf-8") if env.log_file.exists() else "")


def test_a_cache_that_cannot_be_written_costs_nothing(env, archived):
    cache_folder(env).parent.mkdir(parents=True)
    cache_folder(env).write_text("a file where the folder would be", encoding="utf-8")
    note = archived()
    assert "## Outcome" in note and "## Prompts" in note


def test_one_environment_per_search_path_and_filters_in_a_process(env, monkeypatch):
    env.apply(monkeypatch)
    settings = settings_module.load()
    first = templating.environment(settings, notes.FILTERS)
    assert templating.environment(settings, notes.FILTERS) is first
    assert templating.environment(settings, {}) is not first
    os.makedirs(settings.user_templates_dir)   # an override folder made meanwhile is searched
    assert settings.user_templates_dir in templating.environment(settings, notes.FILTERS).loader.searchpath
