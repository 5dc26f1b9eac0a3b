"""`VaultIndex.every_score`: the BM25 score of every note matching, in one pass; `fulltext.best`
takes the leading ones from it exactly as SQLite's `ORDER BY score DESC LIMIT n` would (the
ranking once had both passes: the same notes, the same order, ties included), in scope."""
from __future__ import annotations

from obsidian_memory.search.engines import fulltext
from obsidian_memory.search.base import Query
from obsidian_memory.search.store import Scope, VaultIndex
from testkit import write_note as write


def test_the_best_of_every_score_are_the_notes_sqlite_ranks_first_ties_included(vault, settings):
    for n in range(80):
        folder = "Zoo" if n % 2 else "Farm"
        # notes n and n + 14 have the same text: equal scores, in and across folders
        write(vault, f"{folder}/n{n}.md", "The zebra grazes. " * (1 + n % 7) + "Filler words. " * (n % 14))
    write(vault, "other.md", "Nothing about that animal.")
    with VaultIndex.open_fresh(settings) as index:
        for scope in (Scope(), Scope.of(Query("zebra", folders=("Zoo",)))):
            every = index.every_score("zebra", scope)
            assert len(every) == (80 if not scope.sql else 40)
            assert index.note_id("other.md") not in every
            assert len(set(every.values())) < len(every)          # (ties there are)
            for limit in (1, 5, 13, 14, 15, 39, 40, 41, 200):
                assert list(fulltext.best(every, limit).items()) == list(index.ranked("zebra", scope, limit).items())
