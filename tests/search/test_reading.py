"""Reading notes: body, names, tags, links and backlinks; paths as users type them; fuzzy
suggestions for a path that names no note; nothing outside the vault is ever read."""
from __future__ import annotations

import json
import os

import pytest

from obsidian_memory.core import settings as settings_module
from obsidian_memory.core.errors import UserError
from obsidian_memory.search.reading import read_notes
from testkit import shared_path


@pytest.fixture
def vault(graph):
    return graph


def read_one(settings, path, **kw) -> dict:
    [note] = read_notes(settings, [path], **kw)
    return note


def test_a_note_comes_with_its_body_names_tags_frontmatter_links_and_backlinks(settings):
    note = read_one(settings, "Home.md")
    assert note["path"] == "Home.md" and note["title"] == "Home"
    assert note["aliases"] == ["Start"] and note["tags"] == ["hub"]
    assert note["frontmatter"] == {"aliases": ["Start"], "tags": ["hub"], "created": "2025-01-02"}
    assert note["body"].startswith("# Home\n\nStart with [[Projects/Alpha plan|the plan]]")
    assert "---" not in note["body"] and note["truncated"] is False
    assert note["links"] == ["Projects/Alpha plan.md", "Café ☕.md", "Projects/Beta.md", "Projects/Notes.md"]
    assert note["backlinks"] == ["Archive/Old/Notes.md", "Café ☕.md", "Projects/Alpha plan.md"]
    json.dumps(note)     # JSON-ready: the frontmatter date became text


def test_raw_keeps_the_frontmatter_and_max_chars_cuts_the_body(vault, settings):
    raw = read_one(settings, "Home", raw=True)
    assert raw["body"] == (vault / "Home.md").read_text(encoding="utf-8")
    cut = read_one(settings, "Home", max_chars=10)
    assert cut["body"] == "# Home\n\nSt" and cut["truncated"] is True
    whole = read_one(settings, "Home", max_chars=10_000)
    assert whole["truncated"] is False
    with pytest.raises(UserError, match="max-chars"):
        read_one(settings, "Home", max_chars=-1)


@pytest.mark.parametrize("typed, expected", [
    ("Projects/Alpha plan.md", "Projects/Alpha plan.md"),
    ("Projects/Alpha plan", "Projects/Alpha plan.md"),
    ("projects/alpha PLAN", "Projects/Alpha plan.md"),
    ("Alpha plan", "Projects/Alpha plan.md"),
    ("Leaf", "Deep/Inside/Leaf.md"),
    ("Old/Notes", "Archive/Old/Notes.md"),
    ("C# notes", "C# notes.md"),
    ("[draft] ideas.md", "[draft] ideas.md"),
    ("Café ☕", "Café ☕.md"),
    ("./Projects//Beta", "Projects/Beta.md"),
    ("Projects\\Beta.md", "Projects/Beta.md"),
])
def test_paths_are_taken_with_or_without_md_case_and_folders(settings, typed, expected):
    assert read_one(settings, typed)["path"] == expected


def test_an_absolute_path_into_the_vault_is_read_as_its_vault_path(vault, settings):
    assert read_one(settings, str(vault / "Projects" / "Beta.md"))["path"] == "Projects/Beta.md"


def test_several_notes_are_read_in_the_order_given(settings):
    notes = read_notes(settings, ["Leaf", "Home", "Leaf"])
    assert [n["path"] for n in notes] == ["Deep/Inside/Leaf.md", "Home.md", "Deep/Inside/Leaf.md"]


def test_a_missing_note_names_the_three_closest_paths(settings):
    with pytest.raises(UserError) as caught:
        read_one(settings, "Projects/Alpah plan")
    message = str(caught.value)
    assert "no note 'Projects/Alpah plan'" in message
    suggestions = message.split("did you mean: ", 1)[1].rstrip("?").split(", ")
    assert len(suggestions) == 3 and suggestions[0] == "Projects/Alpha plan.md"


def test_an_ambiguous_bare_name_lists_the_notes_it_could_mean(settings):
    with pytest.raises(UserError, match=r"'Notes' names 2 notes \(Archive/Old/Notes.md, Projects/Notes.md\)"):
        read_one(settings, "Notes")


@pytest.mark.parametrize("path", ["../outside.md", "Projects/../../outside.md", "/etc/passwd", "C:/x.md"])
def test_paths_leaving_the_vault_are_refused(settings, path):
    with pytest.raises(UserError, match="vault"):
        read_one(settings, path)


def test_a_symlink_pointing_outside_the_vault_is_not_read(vault, settings, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET CONTENT", encoding="utf-8")
    outside_dir = tmp_path / "elsewhere"
    outside_dir.mkdir()
    (outside_dir / "Far.md").write_text("FAR CONTENT", encoding="utf-8")
    try:
        os.symlink(secret, vault / "Looks local.md")
        os.symlink(outside_dir, vault / "Linked folder")
    except OSError:
        pytest.skip("symlinks are not available here")
    for path in ("Looks local.md", "Looks local", "Linked folder/Far.md"):
        with pytest.raises(UserError, match="outside the vault"):
            read_one(settings, path)


def test_a_symlink_inside_the_vault_is_read(vault, settings):
    try:
        os.symlink(vault / "Projects" / "Beta.md", vault / "Beta link.md")
    except OSError:
        pytest.skip("symlinks are not available here")
    assert read_one(settings, "Beta link")["body"] == "Beta goes deep: [[Leaf]].\n"


def test_a_note_the_index_skips_is_still_read_when_named_exactly(vault, tmp_path):
    (vault / "Private").mkdir()
    (vault / "Private" / "Diary.md").write_text("Dear diary.", encoding="utf-8")
    settings = settings_module.Settings(str(tmp_path / "claude"), vault=str(vault), index_ignore=["Private"])
    assert read_one(settings, "Private/Diary")["body"] == "Dear diary."
    assert read_one(settings, "Private/Diary")["links"] == []


def test_no_path_is_an_error(settings):
    with pytest.raises(UserError):
        read_notes(settings, [])
    with pytest.raises(UserError):
        read_one(settings, "")


# -- Done when: misspelled paths in the Obsidian help vault -----------------------------------------

@pytest.mark.parametrize("typed, meant", [
    ("Linking notes and files/Internal link", "Linking notes and files/Internal links.md"),
    ("Interal links", "Linking notes and files/Internal links.md"),
    ("Plugins/Bakclinks.md", "Plugins/Backlinks.md"),
    ("aliasses", "Linking notes and files/Aliases.md"),
    ("Getting started/Create a valut", "Getting started/Create a vault.md"),
    ("obsidian sync/security and privcy", "Obsidian Sync/Security and privacy.md"),
])
def test_help_vault_misspelled_paths_suggest_the_right_note_first(tmp_path, monkeypatch, typed, meant):
    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    settings = settings_module.Settings(str(tmp_path / "claude"), vault=str(shared_path("eval", "obsidian-help-en")))
    with pytest.raises(UserError) as caught:
        read_one(settings, typed)
    assert str(caught.value).split("did you mean: ", 1)[1].split(", ")[0].rstrip("?") == meant
    assert read_one(settings, meant)["path"] == meant
