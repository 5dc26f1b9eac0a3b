"""The local index engine: freshness, ranking properties, filters, safety of odd queries, and the cache's robustness."""
from __future__ import annotations

import multiprocessing
import time

import pytest

from obsidian_memory.core import settings as settings_module
from obsidian_memory.core import sqlitedb
from obsidian_memory.search.engines import fulltext
from obsidian_memory.search import store
from obsidian_memory.search.base import Query
from obsidian_memory.search.store import VaultIndex, build, walk_vault
from testkit import index_file, write_note as write


def ranked(settings, query: Query, *, fresh: bool = True):
    """The fulltext engine's (hits, total), on the index brought up to date first (`fresh`) or as it is."""
    with VaultIndex.open_fresh(settings) if fresh else VaultIndex.open(settings) as index:
        return fulltext.search(index, query)


def paths(settings, text: str, **filters) -> list[str]:
    hits, _ = ranked(settings, Query(text, **filters))
    return [h.path for h in hits]


FILLER = "Some ordinary words about daily life, cooking and walking the dog in the park. "


# -- freshness ----------------------------------------------------------------------------------

def test_new_modified_and_deleted_notes_are_seen_by_the_next_search(vault, settings):
    write(vault, "a.md", "The zebra sleeps.")
    write(vault, "b.md", "The giraffe eats.")
    assert paths(settings, "zebra") == ["a.md"]
    write(vault, "c.md", "Another zebra appears.")
    write(vault, "b.md", "The giraffe met a zebra today.", bump=5)
    (vault / "a.md").unlink()
    assert sorted(paths(settings, "zebra")) == ["b.md", "c.md"]
    assert paths(settings, "sleeps") == []


def test_unchanged_vault_reindexes_nothing(vault, settings):
    for n in range(5):
        write(vault, f"n{n}.md", f"note number {n}")
    first = store.update(settings)
    second = store.update(settings)
    assert (first.added, first.rebuilt) == (5, True)
    assert (second.added, second.updated, second.removed, second.unchanged) == (0, 0, 0, 5)


def test_force_rereads_every_note(vault, settings):
    write(vault, "a.md", "alpha")
    store.update(settings)
    stats = store.update(settings, force=True)
    assert (stats.updated, stats.added) == (1, 0)


def test_deleting_the_cache_file_loses_nothing(vault, settings):
    write(vault, "a.md", "The quokka smiles.")
    assert paths(settings, "quokka") == ["a.md"]
    sqlitedb.remove_files(store.index_path(settings))
    assert paths(settings, "quokka") == ["a.md"]


def test_hidden_folders_and_ignore_patterns_are_skipped(vault, settings):
    write(vault, ".obsidian/workspace.md", "wombat")
    write(vault, ".trash/old.md", "wombat")
    write(vault, "Archive/2020/old.md", "wombat")
    write(vault, "drafts/x.excalidraw.md", "wombat")
    write(vault, "Notes/keep.md", "wombat")
    ignoring = settings.replace(index_ignore=["Archive", "*.excalidraw.md"])
    assert paths(ignoring, "wombat") == ["Notes/keep.md"]


def test_index_lives_outside_the_vault_one_file_per_vault(vault, settings, tmp_path):
    other = settings.replace(vault=str(tmp_path))
    assert store.index_path(settings) != store.index_path(other)
    assert not store.index_path(settings).startswith(str(vault))
    assert store.index_path(settings).startswith(settings.cache_dir)


# -- ranking ------------------------------------------------------------------------------------

def test_title_match_ranks_above_body_match(vault, settings):
    write(vault, "Gardening.md", FILLER * 3 + "Some notes on soil.")
    write(vault, "Diary.md", FILLER + "Today I did some gardening, gardening all day, gardening again.")
    assert paths(settings, "gardening")[0] == "Gardening.md"


def test_alias_counts_like_a_title(vault, settings):
    write(vault, "GTD.md", "---\naliases: [Getting Things Done]\n---\n" + FILLER)
    write(vault, "Other.md", FILLER + "things get done when they are done, things, done")
    assert paths(settings, "getting things done")[0] == "GTD.md"


def test_exact_word_ranks_above_a_typo_variant(vault, settings):
    write(vault, "exact.md", FILLER + "We talk about the cannon.")
    write(vault, "variant.md", FILLER + "We talk about the canyon.")
    hits = paths(settings, "cannon")
    assert hits[0] == "exact.md"


def test_a_typo_still_finds_the_note(vault, settings):
    write(vault, "Callouts.md", "Use callouts to highlight content. A callout has a type.")
    write(vault, "Other.md", FILLER)
    assert paths(settings, "calout")[:1] == ["Callouts.md"]
    assert paths(settings, "bakclinks") == []      # nothing near it: no invented match


def test_a_word_the_vault_uses_even_once_is_taken_as_written(vault, settings):
    # a user's word the vault rarely uses ("folder" where it says "directory") is no typo of a
    # common word one letter away
    write(vault, "Samba.md", "Share a directory with Windows machines: the shared folder appears in Explorer.")
    for n in range(12):
        write(vault, f"Keys{n}.md", f"The key holder of machine {n} keeps the keyring.")
    assert paths(settings, "folder") == ["Samba.md"]
    assert paths(settings, "foldr") == ["Samba.md"]      # a word no note holds still finds its note


def test_note_with_all_terms_ranks_above_notes_with_some(vault, settings):
    write(vault, "some1.md", FILLER + "kayak kayak kayak on the river")
    write(vault, "some2.md", FILLER + "paddle paddle paddle in the rain")
    write(vault, "all.md", FILLER * 2 + "a kayak needs a paddle")
    assert paths(settings, "kayak paddle")[0] == "all.md"


def test_exact_phrase_ranks_above_scattered_words(vault, settings):
    write(vault, "scattered.md", "Keyboard layouts differ. " + FILLER + " A shortcut for everything.")
    write(vault, "phrase.md", "Each keyboard shortcut is listed here. " + FILLER)
    assert paths(settings, "keyboard shortcut")[0] == "phrase.md"


def test_last_word_matches_as_a_prefix(vault, settings):
    write(vault, "a.md", "Photosynthesis happens in leaves.")
    write(vault, "b.md", FILLER)
    assert paths(settings, "photosyn") == ["a.md"]


def test_accents_are_folded_both_ways(vault, settings):
    write(vault, "cafe.md", "Meeting at the café near the station.")
    write(vault, "resume.md", "My resume is up to date.")
    assert paths(settings, "cafe") == ["cafe.md"]
    assert paths(settings, "résumé") == ["resume.md"]


def test_stemming_matches_other_forms_of_a_word(vault, settings):
    write(vault, "a.md", "Embedding files in notes.")
    write(vault, "b.md", FILLER)
    assert paths(settings, "embedded") == ["a.md"]
    assert paths(settings, "embeds") == ["a.md"]


def test_code_stays_searchable_without_dominating(vault, settings):
    for n in range(4):
        write(vault, f"background{n}.md", FILLER)
    write(vault, "prose.md", FILLER + "The tokenizer splits words.")
    write(vault, "code.md", FILLER + "\n```python\ntokenizer = tokenizer(tokenizer)\nprint(tokenizer)\n```")
    assert paths(settings, "tokenizer") == ["prose.md", "code.md"]


def test_one_hit_per_note_and_total_counts_all_matches(vault, settings):
    for n in range(15):
        write(vault, f"n{n:02d}.md", f"# Lemur {n}\nlemur lemur facts, lemur again")
    hits, total = ranked(settings, Query("lemur", limit=10))
    assert len(hits) == 10 and len({h.path for h in hits}) == 10
    assert total == 15
    assert all(h.engine == "index" and h.basename == h.path[:-3] for h in hits)


def test_excerpt_is_plain_text_around_the_best_passage(vault, settings):
    text = ("---\ntags: [x]\n---\n# Intro\n" + FILLER * 4 + "\n\n"
            "> [!tip] Remember\n> The **[[Capybara|capybara]]** is the largest rodent \x1b[31m alive.\n\n" + FILLER)
    write(vault, "a.md", text)
    hit = ranked(settings, Query("largest rodent"))[0][0]
    assert "capybara is the largest rodent" in hit.excerpt.lower().replace("capybara capybara", "capybara")
    for noise in ("[!tip]", "**", "[[", "\x1b", "---"):
        assert noise not in hit.excerpt


def test_quoted_phrase_is_required(vault, settings):
    write(vault, "a.md", "the red fox jumps")
    write(vault, "b.md", "the fox is red")
    assert paths(settings, '"red fox"') == ["a.md"]


def test_a_negated_word_excludes_notes(vault, settings):
    write(vault, "a.md", "apple pie recipe")
    write(vault, "b.md", "apple cider vinegar")
    assert paths(settings, "apple -cider") == ["a.md"]


@pytest.mark.parametrize("text", [
    '"', '""', '"unbalanced', "a AND", "OR", "NOT x", "(", ")", "a (b", "col:val", "title:zebra", "*", "zeb*",
    "-", "--", "-zebra", "a - b", "NEAR(a b)", "^x", "{title}: x", "a + b", "x\" OR \"y", "'; DROP TABLE notes; --",
    "\x00\x1b[31m", "🦓 zebra", "中文", "a" * 300, "AND OR NOT", "#tag", "[[zebra]]",
])
def test_fts_syntax_in_a_query_never_raises(vault, settings, text):
    write(vault, "a.md", "zebra crossing")
    hits, total = ranked(settings, Query(text))
    assert total >= len(hits)


def test_empty_query_lists_notes_in_scope(vault, settings):
    write(vault, "A/one.md", "x")
    write(vault, "B/two.md", "y")
    assert paths(settings, "", folders=("A",)) == ["A/one.md"]


# -- filters ------------------------------------------------------------------------------------

@pytest.fixture
def tagged(vault, settings):
    write(vault, "Work/plan.md", "---\ntags: [project, area/work]\nstatus: active\n---\nOtter plan #urgent")
    write(vault, "Work/old.md", "---\ntags: project\nstatus: done\n---\nOtter archive")
    write(vault, "Home/list.md", "---\nstatus: [active, home]\n---\nOtter list #area/home/garden")
    write(vault, "Misc/other.md", "Otter without metadata")
    return settings


def test_folders_are_ored_and_excludes_dropped(tagged):
    assert sorted(paths(tagged, "otter", folders=("Work", "Home"))) == ["Home/list.md", "Work/old.md", "Work/plan.md"]
    assert sorted(paths(tagged, "otter", excludes=("Work",))) == ["Home/list.md", "Misc/other.md"]


def test_folder_filter_does_not_match_a_longer_sibling_name(tagged, vault):
    write(vault, "Work2/x.md", "otter")
    assert "Work2/x.md" not in paths(tagged, "otter", folders=("Work",))


def test_tags_are_required_and_nested_tags_match_their_parent(tagged):
    assert sorted(paths(tagged, "otter", tags=("project",))) == ["Work/old.md", "Work/plan.md"]
    assert paths(tagged, "otter", tags=("project", "urgent")) == ["Work/plan.md"]
    assert sorted(paths(tagged, "otter", tags=("area",))) == ["Home/list.md", "Work/plan.md"]
    assert paths(tagged, "otter", tags=("area/home",)) == ["Home/list.md"]
    assert paths(tagged, "otter", tags=("URGENT",)) == ["Work/plan.md"]


def test_excluded_tags_drop_notes(tagged):
    assert sorted(paths(tagged, "otter", not_tags=("project",))) == ["Home/list.md", "Misc/other.md"]


def test_frontmatter_filters_match_values_and_list_items(tagged):
    assert sorted(paths(tagged, "otter", frontmatter=(("status", "active"),))) == ["Home/list.md", "Work/plan.md"]
    assert paths(tagged, "otter", frontmatter=(("Status", "Done"),)) == ["Work/old.md"]
    assert sorted(paths(tagged, "otter", not_frontmatter=(("status", "active"),))) == ["Misc/other.md", "Work/old.md"]


def test_filters_apply_to_the_total(tagged):
    _, total = ranked(tagged, Query("otter", tags=("project",)))
    assert total == 2


# -- robustness of the cache -----------------------------------------------------------------------

def test_broken_frontmatter_does_not_stop_indexing(vault, settings):
    write(vault, "broken.md", "---\ntitle: [unclosed\ntags: a: b: c\n---\nThe narwhal swims.")
    write(vault, "fine.md", "narwhal")
    assert sorted(paths(settings, "narwhal")) == ["broken.md", "fine.md"]


def test_a_schema_version_change_rebuilds_the_cache(vault, settings):
    write(vault, "a.md", "The ibex climbs.")
    store.update(settings)
    conn = index_file(store.index_path(settings))
    conn.execute("PRAGMA user_version = 999")
    conn.execute("DELETE FROM notes")
    conn.commit()
    conn.close()
    assert paths(settings, "ibex") == ["a.md"]
    conn = index_file(store.index_path(settings))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    conn.close()


def test_a_corrupt_cache_file_is_rebuilt(vault, settings):
    write(vault, "a.md", "The okapi hides.")
    store.update(settings)
    path = store.index_path(settings)
    sqlitedb.remove_files(path)
    with open(path, "wb") as handle:
        handle.write(b"this is not a database" * 200)
    assert paths(settings, "okapi") == ["a.md"]
    assert store.status(settings)["notes_indexed"] == 1


def test_status_reports_the_index(vault, settings):
    write(vault, "a.md", "x")
    before = store.status(settings)
    store.update(settings)
    after = store.status(settings)
    assert (before["exists"], before["notes_indexed"]) == (False, 0)
    assert after["exists"] and after["notes_indexed"] == 1 and after["size_bytes"] > 0
    assert after["schema_version"] == store.SCHEMA_VERSION and after["last_update"] > 0


def _build_in_another_process(config_dir: str, vault: str, queue) -> None:
    try:
        settings = settings_module.Settings(config_dir, vault=vault)
        hits, _ = ranked(settings, Query("marmot", limit=5))
        queue.put(("ok", len(hits)))
    except BaseException as exc:  # report to the parent rather than dying silently
        queue.put(("error", repr(exc)))


def test_processes_building_at_once_index_each_note_once(vault, settings):
    for n in range(400):
        write(vault, f"F{n % 7}/note{n}.md", f"# Note {n}\nmarmot {n} " + FILLER * 3)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=_build_in_another_process, args=(settings.config_dir, str(vault), queue))
               for _ in range(3)]
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert results == [("ok", 5)] * 3
    conn = index_file(store.index_path(settings))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*), count(DISTINCT path) FROM notes").fetchone() == (400, 400)
        conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()


def test_a_search_answers_while_another_process_holds_the_update_lock(vault, settings):
    write(vault, "a.md", "The tapir naps.")
    store.update(settings)
    write(vault, "b.md", "Another tapir.")
    with build.update_lock(store.index_path(settings)):
        started = time.monotonic()
        stats = store.update(settings, lock_wait=0.3)
        hits, _ = ranked(settings, Query("tapir"), fresh=False)
    assert stats.skipped and time.monotonic() - started < 10
    assert [h.path for h in hits] == ["a.md"]
    assert sorted(paths(settings, "tapir")) == ["a.md", "b.md"]


def test_the_walk_skips_symlinked_folders_and_notes_that_resolve_outside_the_vault(tmp_path):
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "Notes").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("outside\n", encoding="utf-8")
    (vault / "Notes" / "own.md").write_text("inside\n", encoding="utf-8")
    (vault / "linked-folder").symlink_to(outside, target_is_directory=True)
    (vault / "loop").symlink_to(vault / "Notes", target_is_directory=True)
    (vault / "linked-out.md").symlink_to(outside / "secret.md")
    (vault / "alias.md").symlink_to(vault / "Notes" / "own.md")
    assert sorted(walk_vault(str(vault))) == ["Notes/own.md", "alias.md"]
