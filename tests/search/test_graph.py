"""The vault as a graph: links resolved the way Obsidian resolves them, kept right through
incremental updates, and `related`, `similar`, `links_of`, `suggest_paths` over them."""
from __future__ import annotations

import os

import pytest

from obsidian_memory.core import settings as settings_module
from obsidian_memory.core.errors import UserError
from obsidian_memory.search import graph, store
from obsidian_memory.search.store import build, schema
from obsidian_memory.search.links import Resolver
from testkit import index_file, shared_path, write_note

# What Obsidian shows for the fixture vault (tests/fixtures/graph-vault), worked out by hand.
FIXTURE_LINKS = {
    "Home.md": ["Projects/Alpha plan.md", "Café ☕.md", "Projects/Beta.md", "Projects/Notes.md"],
    "Projects/Alpha plan.md": ["Projects/Notes.md", "C# notes.md", "[draft] ideas.md", "Home.md"],
    "Projects/Beta.md": ["Deep/Inside/Leaf.md"],
    "Projects/Notes.md": [],
    "Archive/Old/Notes.md": ["Home.md"],
    "Café ☕.md": ["Home.md"],
    "C# notes.md": ["Projects/Alpha plan.md"],
    "[draft] ideas.md": ["Projects/Beta.md"],
    "Deep/Inside/Leaf.md": ["Archive/Old/Notes.md", "Café ☕.md"],
}


def backlinks_from(outgoing: dict) -> dict:
    back = {path: [] for path in outgoing}
    for source, targets in outgoing.items():
        for target in targets:
            back[target].append(source)
    return {path: sorted(sources) for path, sources in back.items()}


@pytest.fixture
def vault(graph):
    return graph


def write(vault, relative: str, text: str) -> None:
    write_note(vault, relative, text, bump=10)


def outgoing(settings, path: str) -> list[str]:
    return graph.links_of(settings, [path])[path]["links"]


def backlinks(settings, path: str) -> list[str]:
    return graph.links_of(settings, [path])[path]["backlinks"]


def stored_links(settings) -> list[tuple]:
    """Every link as stored, its context line read from its note's content."""
    conn = index_file(store.index_path(settings))
    try:
        codec = schema.Codec.of(conn)
        found = []
        for source, seq, target, content in conn.execute(
                "SELECT s.path, l.seq, t.path, s.content FROM links l JOIN notes s ON s.id = l.source_id"
                " LEFT JOIN notes t ON t.id = l.target_id"):
            content = codec.unpack(content)
            link = content.links[seq]
            found.append((source, seq, target, link.target, link.anchor, link.kind, int(link.embed), link.line,
                          content.contexts[link.context_no]))
        return sorted(found)
    finally:
        conn.close()


# -- resolution ---------------------------------------------------------------------------------

def test_fixture_vault_links_and_backlinks_are_what_obsidian_shows(settings):
    store.update(settings)
    found = graph.links_of(settings, list(FIXTURE_LINKS))
    assert {p: v["links"] for p, v in found.items()} == FIXTURE_LINKS
    assert {p: v["backlinks"] for p, v in found.items()} == backlinks_from(FIXTURE_LINKS)


def test_links_in_code_comments_and_to_attachments_are_not_links(settings):
    store.update(settings)
    targets = {row[3] for row in stored_links(settings)}
    assert not targets & {"Inline code", "Fenced link", "Commented out", "diagram.png"}
    assert {"Missing note", "Someday"} <= targets


def test_each_link_keeps_its_line_anchor_kind_and_context(settings):
    store.update(settings)
    rows = [r for r in stored_links(settings) if r[0] == "Projects/Alpha plan.md"]
    by_target = {(r[3], r[4]): r for r in rows}
    section = by_target[("Home", "Section")]
    assert section[5:8] == ("wiki", 0, 6)
    assert "Back to Home > Section" in section[8]          # the link as Obsidian shows it
    block = by_target[("Home", "^block1")]
    assert block[5:7] == ("wiki", 1)
    c_sharp = by_target[("../C# notes.md", "")]     # URL-decoded, relative to the note
    assert c_sharp[2] == "C# notes.md" and c_sharp[5] == "markdown" and c_sharp[7] == 5
    frontmatter = [r for r in stored_links(settings) if r[0] == "[draft] ideas.md" and r[5] == "frontmatter"]
    assert [(r[2], r[7]) for r in frontmatter] == [("Projects/Beta.md", 2)]


def test_resolver_prefers_exact_paths_then_the_same_folder_then_the_shallowest_namesake():
    resolver = Resolver(["a/Name.md", "b/c/Name.md", "Name.md", "b/Other.md", "x/y/Deep.md"])
    assert resolver.resolve("Name", "b/Other.md") == "Name.md"             # the vault path exists
    assert resolver.resolve("c/Name", "b/Other.md") == "b/c/Name.md"       # a path suffix
    assert resolver.resolve("NAME.md", "zzz.md") == "Name.md"              # case-insensitive
    assert resolver.resolve("deep", "a/Name.md") == "x/y/Deep.md"          # unique name anywhere
    assert resolver.resolve("Nope", "a/Name.md") is None
    without_root = Resolver(["a/Name.md", "b/c/Name.md", "b/c/Src.md", "q/Src.md"])
    assert without_root.resolve("Name", "b/c/Src.md") == "b/c/Name.md"     # same folder first
    assert without_root.resolve("Name", "q/Src.md") == "a/Name.md"         # else nearest the root
    assert without_root.resolve("../a/Name.md", "q/Src.md", "markdown") == "a/Name.md"
    assert without_root.resolve("../../../etc/passwd", "q/Src.md", "markdown") is None


# -- incremental updates ------------------------------------------------------------------------

def test_a_new_note_resolves_links_that_were_unresolved_and_a_deleted_one_unresolves_them(vault, settings):
    store.update(settings)
    assert graph.related(settings, "Home")["unresolved"][0]["target"] == "Missing note"
    write(vault, "Later/Missing note.md", "Now it exists.")
    store.update(settings)
    assert "Later/Missing note.md" in outgoing(settings, "Home.md")
    assert backlinks(settings, "Later/Missing note.md") == ["Home.md"]
    assert graph.related(settings, "Home")["unresolved"] == []
    (vault / "Later" / "Missing note.md").unlink()
    store.update(settings)
    assert "Later/Missing note.md" not in outgoing(settings, "Home.md")
    assert [u["target"] for u in graph.related(settings, "Home")["unresolved"]] == ["Missing note"]


def test_a_namesake_added_to_the_linking_notes_folder_takes_the_link_and_gives_it_back_when_deleted(vault, settings):
    write(vault, "Deep/Inside/Leaf.md", "Leaf goes to the [[Notes]].")
    store.update(settings)
    assert outgoing(settings, "Deep/Inside/Leaf.md") == ["Projects/Notes.md"]     # nearest the root
    write(vault, "Deep/Inside/Notes.md", "Notes beside Leaf.")
    store.update(settings)
    assert outgoing(settings, "Deep/Inside/Leaf.md") == ["Deep/Inside/Notes.md"]  # same folder wins
    (vault / "Deep" / "Inside" / "Notes.md").unlink()
    store.update(settings)
    assert outgoing(settings, "Deep/Inside/Leaf.md") == ["Projects/Notes.md"]


def test_a_note_at_the_vault_path_a_link_spells_beats_a_namesake_in_the_same_folder(vault, settings):
    write(vault, "Deep/Inside/Home.md", "A second home, beside Leaf.")
    write(vault, "Deep/Inside/Leaf.md", "Leaf goes [[Home]].")
    store.update(settings)
    assert outgoing(settings, "Deep/Inside/Leaf.md") == ["Home.md"]


def test_a_renamed_note_loses_its_backlinks_to_unresolved_links(vault, settings):
    store.update(settings)
    os.rename(vault / "Projects" / "Beta.md", vault / "Projects" / "Gamma.md")
    store.update(settings)
    assert backlinks(settings, "Projects/Gamma.md") == []
    assert "Projects/Beta.md" not in outgoing(settings, "Home.md")
    assert "beta" in [u["target"] for u in graph.related(settings, "Home")["unresolved"]]


def test_an_edited_note_gets_its_new_links_and_loses_the_old_ones(vault, settings):
    store.update(settings)
    write(vault, "Café ☕.md", "Now about [C# notes](C%23%20notes.md) only; [[C# notes]] means note C.")
    store.update(settings)
    assert outgoing(settings, "Café ☕.md") == ["C# notes.md"]
    assert "Café ☕.md" not in backlinks(settings, "Home.md")
    assert backlinks(settings, "C# notes.md") == ["Café ☕.md", "Projects/Alpha plan.md"]
    assert [u["target"] for u in graph.related(settings, "Café ☕")["unresolved"]] == ["C"]


def test_links_after_many_incremental_changes_equal_a_full_rebuild(vault, settings, tmp_path):
    store.update(settings)
    write(vault, "Someday.md", "See [[Beta]] and [[Notes]].")
    write(vault, "Archive/Beta.md", "An archived namesake: [[Missing note]].")
    (vault / "Projects" / "Notes.md").unlink()
    write(vault, "Projects/Beta.md", "Beta now links [[Someday]] and [[Old/Notes]].")
    store.update(settings)
    write(vault, "Missing note.md", "Found.")
    os.rename(vault / "C# notes.md", vault / "Projects" / "C# notes.md")
    store.update(settings)
    incremental = stored_links(settings)
    fresh = settings_module.Settings(str(tmp_path / "other-claude"), vault=str(vault))
    store.update(fresh)
    assert stored_links(fresh) == incremental
    assert any(r[2] == "Missing note.md" for r in incremental)


def test_an_edited_note_resolves_its_links_as_a_full_rebuild_does(vault, settings, tmp_path):
    # a small update resolves against only the notes sharing a name key with its links
    write(vault, "Deep/Sub/Ärger.md", "umlaut")
    write(vault, "Twice.md.md", "a double extension")
    store.update(settings)
    write(vault, "Someday.md", "[[beta]] [[ärger]] [[Sub/Ärger]] [[Twice.md]] [[Projects/Beta.md]] "
                               "[the umlaut note](Deep/Sub/%C3%84rger.md) [[Nowhere]]")
    assert store.update(settings).changed == 1
    incremental = stored_links(settings)
    fresh = settings_module.Settings(str(tmp_path / "other-claude"), vault=str(vault))
    store.update(fresh)
    assert stored_links(fresh) == incremental
    someday = [r[2] for r in incremental if r[0] == "Someday.md"]
    assert "Deep/Sub/Ärger.md" in someday and "Twice.md.md" in someday and someday[-1] is None


def test_an_update_cut_off_before_resolving_links_is_finished_by_the_next_one(settings):
    store.update(settings)
    expected = stored_links(settings)
    conn = index_file(store.index_path(settings))
    conn.execute("UPDATE links SET target_id = NULL")
    conn.execute("UPDATE meta SET value = '1' WHERE key = ?", (build.LINKS_PENDING,))
    conn.commit()
    conn.close()
    store.update(settings)          # nothing changed on disk, yet the links are resolved again
    assert stored_links(settings) == expected


def test_an_index_of_the_previous_schema_is_rebuilt_with_links(settings):
    store.update(settings)
    conn = index_file(store.index_path(settings))
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    assert graph.links_of(settings, ["Home.md"])["Home.md"]["links"] == []   # outdated: not read
    assert graph.related(settings, "Home", direction="outgoing")["notes"]       # rebuilt on use
    assert outgoing(settings, "Home.md") == FIXTURE_LINKS["Home.md"]


# -- related -------------------------------------------------------------------------------------

def test_related_walks_outgoing_links_breadth_first_with_depths(settings):
    result = graph.related(settings, "Projects/Beta.md", depth=3, direction="outgoing")
    assert result["path"] == "Projects/Beta.md" and result["direction"] == "outgoing" and result["depth"] == 3
    assert [(n["path"], n["depth"]) for n in result["notes"]] == [
        ("Deep/Inside/Leaf.md", 1), ("Archive/Old/Notes.md", 2), ("Café ☕.md", 2), ("Home.md", 3)]
    leaf = result["notes"][0]
    assert leaf["title"] == "Leaf" and leaf["context"] == "Beta goes deep: Leaf."


def test_related_backlinks_have_negative_depths_and_the_linking_line(settings):
    result = graph.related(settings, "C# notes", depth=2, direction="backlinks")
    assert [(n["path"], n["depth"]) for n in result["notes"]] == [
        ("Projects/Alpha plan.md", -1), ("Home.md", -2)]
    assert result["notes"][0]["context"].startswith("See the C# page")
    assert result["unresolved"] == []


def test_related_both_ways_lists_a_note_once_at_its_nearest_depth(settings):
    result = graph.related(settings, "Home.md", depth=1)
    depths = {n["path"]: n["depth"] for n in result["notes"]}
    assert depths == {"Projects/Alpha plan.md": 1, "Café ☕.md": 1, "Projects/Beta.md": 1, "Projects/Notes.md": 1,
                      "Archive/Old/Notes.md": -1}
    assert [n["path"] for n in result["notes"]][-1] == "Archive/Old/Notes.md"
    assert result["unresolved"] == [{"target": "Missing note",
                                     "context": "Still to write: Missing note. A picture:"}]


def test_related_refuses_a_bad_direction_depth_or_path(settings):
    with pytest.raises(UserError, match="direction"):
        graph.related(settings, "Home", direction="sideways")
    with pytest.raises(UserError, match="depth"):
        graph.related(settings, "Home", depth=0)
    with pytest.raises(UserError) as caught:
        graph.related(settings, "Projects/Alpah plan")
    assert "Projects/Alpha plan.md" in str(caught.value)


def test_a_bare_name_shared_by_two_notes_asks_for_the_path(settings):
    with pytest.raises(UserError, match="names 2 notes"):
        graph.related(settings, "Notes")
    assert graph.related(settings, "Old/Notes")["path"] == "Archive/Old/Notes.md"


# -- suggestions ---------------------------------------------------------------------------------

def test_suggest_paths_finds_the_closest_notes_for_typos_case_and_missing_folders(settings):
    assert graph.suggest_paths(settings, "Projects/Alpah plan")[0] == "Projects/Alpha plan.md"
    assert graph.suggest_paths(settings, "cafe")[0] == "Café ☕.md"
    assert graph.suggest_paths(settings, "leaf.md")[0] == "Deep/Inside/Leaf.md"
    assert len(graph.suggest_paths(settings, "Notes", n=3)) == 3
    assert graph.suggest_paths(settings, "x", n=0) == []


# -- links_of --------------------------------------------------------------------------------------

def test_links_of_answers_empty_lists_without_an_index_or_for_unknown_paths(settings):
    assert graph.links_of(settings, ["Home.md"]) == {"Home.md": {"links": [], "backlinks": []}}
    store.update(settings)
    assert graph.links_of(settings, ["Nope.md"]) == {"Nope.md": {"links": [], "backlinks": []}}
    assert graph.links_of(settings, []) == {}


# -- similar ----------------------------------------------------------------------------------------

FILLER = ("Plain words about the weather, the garden, walking, reading and other daily things that "
          "many notes mention. ")


@pytest.fixture
def similar_vault(tmp_path, monkeypatch):
    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    root = tmp_path / "similar"
    notes = {
        "Bread/Sourdough.md": "Feed the levain, autolyse the flour, watch the hydration and the crumb. " * 3,
        "Bread/Baguette.md": "A baguette needs a long autolyse, careful hydration and a lively levain. " * 2,
        "Bread/Rye.md": "Rye flour holds water: hydration matters, the crumb stays dense.",
        "Cars/Engine.md": "Pistons, crankshaft, gasket and oil pressure in the engine block.",
        "Cars/Brakes.md": "Brake pads, rotors, calipers and fluid; the gasket of the master cylinder.",
        "Tags/One.md": "---\ntags: [rare-topic]\n---\nSomething about pistons.",
        "Tags/Two.md": "---\ntags: [rare-topic]\n---\nSomething about bread crust.",
        "Hubs/Left.md": "Points at [[Shared A]] and [[Shared B]].",
        "Hubs/Right.md": "Also points at [[Shared A]] and [[Shared B]].",
        "Hubs/Shared A.md": "A target.",
        "Hubs/Shared B.md": "Another target.",
    }
    for n in range(12):
        notes[f"Filler/Note {n}.md"] = FILLER * 2 + f"Filler number {n}."
    for relative, text in notes.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def similar_paths(settings, path, **kw) -> list[str]:
    return [r["path"] for r in graph.similar(settings, path, **kw)["results"]]


def test_similar_ranks_notes_sharing_rare_words_first_and_says_which(similar_vault, tmp_path):
    settings = settings_module.Settings(str(tmp_path / "claude"), vault=str(similar_vault))
    result = graph.similar(settings, "Bread/Sourdough", limit=3)
    assert result["engine"] == "lexical" and result["path"] == "Bread/Sourdough.md"
    assert [r["path"] for r in result["results"]][:2] == ["Bread/Baguette.md", "Bread/Rye.md"]
    top = result["results"][0]
    assert top["title"] == "Baguette" and top["score"] > result["results"][1]["score"] > 0
    shared = top["why"][0]
    assert shared.startswith("shared terms:") and "levain" in shared and "autolyse" in shared
    assert "Bread/Sourdough.md" not in [r["path"] for r in result["results"]]
    assert similar_paths(settings, "Cars/Engine")[0] in ("Cars/Brakes.md", "Tags/One.md")


def test_similar_counts_shared_rare_tags_and_links_in_common(similar_vault, tmp_path):
    settings = settings_module.Settings(str(tmp_path / "claude"), vault=str(similar_vault))
    tagged = graph.similar(settings, "Tags/One", limit=5)["results"]
    two = next(r for r in tagged if r["path"] == "Tags/Two.md")
    assert "shared tags: #rare-topic" in two["why"]
    linked = graph.similar(settings, "Hubs/Left", limit=3)["results"]
    assert linked[0]["path"] == "Hubs/Right.md"
    assert "links in common: Shared A, Shared B" in linked[0]["why"]
    direct = next(r for r in linked if r["path"].startswith("Hubs/Shared"))
    assert "linked from this note" in direct["why"]


def test_similar_of_an_isolated_note_with_common_words_only_is_empty_not_an_error(tmp_path, monkeypatch):
    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    root = tmp_path / "tiny"
    root.mkdir()
    (root / "Alone.md").write_text("zzz", encoding="utf-8")
    (root / "Other.md").write_text("qqq", encoding="utf-8")
    settings = settings_module.Settings(str(tmp_path / "claude"), vault=str(root))
    assert graph.similar(settings, "Alone")["results"] == []


# -- Done when: the Obsidian help vault, checked by hand ------------------------------------------------
# Each expected set was read off the note files: the [[links]] outside code, resolved by name
# (same folder first for the two `Security and privacy` notes), embeds of .svg/.png left out.

HELP_EXPECTED = {
    "Linking notes and files/Aliases.md": (
        ["Linking notes and files/Internal links.md", "Editing and formatting/Properties.md", "Plugins/Backlinks.md"],
        ["Editing and formatting/Advanced formatting syntax.md", "Editing and formatting/Properties.md",
         "Linking notes and files/Internal links.md", "Obsidian Publish/Permalinks.md", "Plugins/Outgoing links.md"]),
    "Plugins/Backlinks.md": (
        ["Plugins/Core plugins.md", "Plugins/Search.md", "Plugins/Command palette.md", "User interface/Settings.md"],
        ["Extending Obsidian/Obsidian CLI.md", "Linking notes and files/Aliases.md", "Obsidian Publish/Manage sites.md",
         "Obsidian/About Obsidian.md", "Plugins/Canvas.md", "Plugins/Core plugins.md", "Plugins/Outgoing links.md",
         "Plugins/Page preview.md", "User interface/Drag and drop.md", "User interface/Settings.md",
         "User interface/Sidebar.md", "User interface/Status bar.md", "User interface/Tabs.md"]),
    "Getting started/Link notes.md": (
        ["Getting started/Create your first note.md", "Plugins/Graph view.md"],
        ["Bases/Bases syntax.md", "Getting started/Create your first note.md", "Home.md",
         "Obsidian Web Clipper/Filters.md"]),
    "Obsidian Publish/Security and privacy.md": (
        None,
        ["Obsidian Publish/Introduction to Obsidian Publish.md", "Obsidian Publish/Manage sites.md",
         "Obsidian Publish/Set up Obsidian Publish.md"]),
    "Obsidian Sync/Security and privacy.md": (
        None,
        ["Obsidian Sync/Collaborate on a shared vault.md", "Obsidian Sync/Frequently asked questions.md",
         "Obsidian Sync/Headless Sync.md", "Obsidian Sync/Introduction to Obsidian Sync.md",
         "Obsidian Sync/Set up Obsidian Sync.md", "Obsidian Sync/Status icon and messages.md",
         "Obsidian Sync/Sync regions.md", "Obsidian Sync/Upgrade Sync encryption.md", "Teams/Syncing for teams.md"]),
}


@pytest.fixture
def help_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    vault = shared_path("eval", "obsidian-help-en")
    return settings_module.Settings(str(tmp_path / "claude"), vault=str(vault))


def test_help_vault_links_and_backlinks_match_what_obsidian_shows(help_settings):
    store.update(help_settings)
    found = graph.links_of(help_settings, list(HELP_EXPECTED))
    for path, (links, back) in HELP_EXPECTED.items():
        if links is not None:
            assert found[path]["links"] == links, path
        assert found[path]["backlinks"] == back, path


def test_help_vault_related_depth_one_is_the_union_of_links_and_backlinks(help_settings):
    result = graph.related(help_settings, "Link notes", depth=1)
    links, back = HELP_EXPECTED["Getting started/Link notes.md"]
    assert {n["path"]: n["depth"] for n in result["notes"]} == {
        **{p: -1 for p in back}, **{p: 1 for p in links}}
    home = next(n for n in result["notes"] if n["path"] == "Home.md")
    assert home["context"] == "Link notes"
    internal = graph.related(help_settings, "Internal links", direction="outgoing")
    assert [u["target"] for u in internal["unresolved"]] == ["Example"]   # the syntax examples
