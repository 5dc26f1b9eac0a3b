"""A link is stored with the id of the note it resolves to (ids, not paths, in the
index). These follow a link's target through the ways a note comes and goes (created after the
link, renamed, deleted and created again, private, written in a later batch of a large update)
and check every reader of the link graph: outgoing links, backlinks, `related` with its
unresolved list, and the words around a link, which rank the note it points at."""
from __future__ import annotations

import os

from obsidian_memory.search import graph, store
from obsidian_memory.search.store import EVERYTHING, VaultIndex, build
from testkit import write_note


def write(vault, relative: str, text: str, bump: float = 10) -> None:
    write_note(vault, relative, text, bump=bump)


def outgoing(settings, path: str) -> list[str]:
    return graph.links_of(settings, [path])[path]["links"]


def backlinks(settings, path: str) -> list[str]:
    return graph.links_of(settings, [path])[path]["backlinks"]


def unresolved(settings, path: str) -> list[str]:
    return [u["target"] for u in graph.related(settings, path, direction="outgoing")["unresolved"]]


def linked_by_words(settings, words: str) -> list[str]:
    """The notes whose incoming links are written among `words` (the link-text field of ranking)."""
    with VaultIndex.open_fresh(settings) as index:
        found = index.inlink_ranked(words, EVERYTHING, 10)
        names = index.titles(found)
    return sorted(names[i][0] for i in found)


def test_a_link_to_a_note_created_later_points_at_it_once_it_exists(vault, settings):
    write(vault, "Source.md", "The zebrafish protocol is in [[Protocol]], read it first.")
    write(vault, "Other.md", "Unrelated words.")
    store.update(settings)
    assert unresolved(settings, "Source.md") == ["Protocol"]
    assert linked_by_words(settings, "zebrafish") == []
    write(vault, "Lab/Protocol.md", "Steps.", bump=20)
    store.update(settings)
    assert outgoing(settings, "Source.md") == ["Lab/Protocol.md"]
    assert backlinks(settings, "Lab/Protocol.md") == ["Source.md"]
    assert unresolved(settings, "Source.md") == []
    assert linked_by_words(settings, "zebrafish") == ["Lab/Protocol.md"]
    assert backlinks(settings, "Other.md") == []


def test_a_renamed_target_loses_the_links_and_a_new_note_under_the_old_name_takes_them(vault, settings):
    write(vault, "Source.md", "Ask the [[Beta]] team about the quokka census.")
    write(vault, "Beta.md", "The first beta.")
    write(vault, "Zeta.md", "Another note.")
    store.update(settings)
    assert linked_by_words(settings, "quokka") == ["Beta.md"]
    os.rename(vault / "Beta.md", vault / "Gamma.md")
    store.update(settings)
    assert outgoing(settings, "Source.md") == []
    assert backlinks(settings, "Gamma.md") == []
    assert unresolved(settings, "Source.md") == ["Beta"]
    assert linked_by_words(settings, "quokka") == []
    write(vault, "Archive/Beta.md", "A second beta, somewhere else.", bump=30)
    store.update(settings)
    assert outgoing(settings, "Source.md") == ["Archive/Beta.md"]
    assert backlinks(settings, "Archive/Beta.md") == ["Source.md"]
    assert backlinks(settings, "Gamma.md") == []
    assert linked_by_words(settings, "quokka") == ["Archive/Beta.md"]


def test_a_deleted_target_created_again_gets_its_links_back_and_no_other_note_inherits_them(vault, settings):
    write(vault, "Source.md", "Feed the [[Axolotl]] twice daily.")
    write(vault, "Keeper.md", "The [[Capybara]] watches the tank.")
    write(vault, "Axolotl.md", "An amphibian.")
    write(vault, "Capybara.md", "A rodent.")     # the newest note: the largest id
    store.update(settings)
    (vault / "Capybara.md").unlink()
    write(vault, "Newcomer.md", "Written in the same update the capybara note went.", bump=20)
    store.update(settings)
    assert backlinks(settings, "Newcomer.md") == []            # not the id the deleted note had
    assert unresolved(settings, "Keeper.md") == ["Capybara"]
    assert linked_by_words(settings, "watches") == []
    (vault / "Axolotl.md").unlink()
    store.update(settings)
    assert unresolved(settings, "Source.md") == ["Axolotl"]
    write(vault, "Axolotl.md", "An amphibian, back again.", bump=30)
    write(vault, "Capybara.md", "A rodent, back again.", bump=30)
    store.update(settings)
    assert outgoing(settings, "Source.md") == ["Axolotl.md"]
    assert backlinks(settings, "Capybara.md") == ["Keeper.md"]
    assert linked_by_words(settings, "twice") == ["Axolotl.md"]
    assert linked_by_words(settings, "watches") == ["Capybara.md"]
    assert backlinks(settings, "Newcomer.md") == []


def test_a_target_turned_private_is_unlinked_and_linked_again_once_public(vault, settings):
    write(vault, "Source.md", "The narwhal plan: [[Plan]].")
    write(vault, "Plan.md", "Open plan.")
    store.update(settings)
    assert outgoing(settings, "Source.md") == ["Plan.md"]
    write(vault, "Plan.md", "---\ntags: [private]\n---\nNow private.", bump=20)
    store.update(settings)
    assert outgoing(settings, "Source.md") == []
    assert linked_by_words(settings, "narwhal") == []
    write(vault, "Plan.md", "Open again.", bump=30)
    store.update(settings)
    assert outgoing(settings, "Source.md") == ["Plan.md"]
    assert linked_by_words(settings, "narwhal") == ["Plan.md"]


def test_links_to_notes_of_a_later_batch_point_at_them_in_a_large_build_and_update(vault, settings):
    count = build.BATCH_SIZE + 120        # two batches at least, in any walk order
    for n in range(count):
        write(vault, f"F{n % 4}/n{n}.md", f"Note {n} links [[n{(n + 1) % count}]] and [[n{(n * 7) % count}|seven]].",
              bump=0)
    store.update(settings)

    def name(n: int) -> str:
        return f"F{n % 4}/n{n}.md"

    expected = {name(n): [name(m) for m in dict.fromkeys(((n + 1) % count, (n * 7) % count)) if m != n]
                for n in range(count)}            # (a link to the note itself is not listed)
    found = graph.links_of(settings, list(expected))
    assert {path: value["links"] for path, value in found.items()} == expected
    for n in range(count):                # every note changes: a large update, new links to later notes
        write(vault, name(n), f"Note {n} now links [[n{(n + 3) % count}]].", bump=20)
    write(vault, "F0/late.md", "Links [[n5]].", bump=20)
    store.update(settings)
    found = graph.links_of(settings, [name(n) for n in range(count)])
    assert all(found[name(n)]["links"] == [name((n + 3) % count)] for n in range(count))
    assert backlinks(settings, "F1/n5.md") == ["F0/late.md", "F2/n2.md"]
