"""`VaultIndex.scores`: the BM25 scores of given notes, by one pass over the matches when they are
many, by id when they are few: the same scores either way, in scope."""
from __future__ import annotations

from obsidian_memory.search.base import Query
from obsidian_memory.search.store import Scope, VaultIndex
from obsidian_memory.search.store import index as index_module
from testkit import write_note as write


def test_the_scores_of_many_notes_are_those_of_the_same_notes_taken_a_few_at_a_time(vault, settings):
    for n in range(80):
        folder = "Zoo" if n % 2 else "Farm"
        write(vault, f"{folder}/n{n}.md", f"# Note {n}\n" + "The zebra grazes. " * (1 + n % 7) + "Filler words. " * n)
    write(vault, "other.md", "Nothing about that animal.")
    with VaultIndex.open_fresh(settings) as index:
        ids = [index.note_id(f"{'Zoo' if n % 2 else 'Farm'}/n{n}.md") for n in range(80)] + [index.note_id("other.md")]
        for scope in (Scope(), Scope.of(Query("zebra", folders=("Zoo",)))):
            together = index.scores("zebra", ids, scope)
            assert len(ids) > index_module.SCORES_BY_ID
            few = index_module.SCORES_BY_ID
            apart = {}
            for start in range(0, len(ids), few):
                apart.update(index.scores("zebra", ids[start:start + few], scope))
            assert together == apart
            assert len(together) == (80 if not scope.sql else 40)
            assert index.note_id("other.md") not in together
