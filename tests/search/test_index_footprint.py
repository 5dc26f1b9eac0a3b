"""The index holds no plain copy of the vault: the FTS index is contentless, and its
links' context lines are stored compressed (a note's text too, where SQLite is older than 3.43
and needs it to take the note out of the FTS index: test_index_text_from_files). It answers what
it answered with a copy: the same hits, scores, excerpts and link contexts, after any mix of
edits, renames and deletes, whichever way it deletes (`fts_delete`)."""
from __future__ import annotations

import os
import random

from obsidian_memory.core import settings as settings_module
from obsidian_memory.search.engines import fulltext
from obsidian_memory.search import graph, store
from obsidian_memory.search.base import Query
from obsidian_memory.search.store import VaultIndex
from testkit import index_file, write_note as write

SENTENCE = "The quick marmoset juggles seventeen tangerines beside the lighthouse"


def index_bytes(settings) -> bytes:
    """The index file and its WAL, as they lie on disk."""
    path = store.index_path(settings)
    return b"".join(open(path + suffix, "rb").read() for suffix in ("", "-wal") if os.path.exists(path + suffix))


def test_the_index_file_holds_no_plain_copy_of_a_note_yet_shows_its_excerpts_and_link_contexts(vault, settings):
    write(vault, "Zoo.md", f"# Animals\n\n{SENTENCE}, every morning.\n\nLater: see [[Keeper]] for {SENTENCE.lower()}.\n")
    write(vault, "Keeper.md", "The keeper feeds everyone.")
    with VaultIndex.open_fresh(settings) as index:
        hits, _ = fulltext.search(index, Query("marmoset tangerines"))
    assert hits[0].path == "Zoo.md"             # (Keeper.md follows: the words its link is in)
    assert SENTENCE in hits[0].excerpt
    backlinks = graph.related(settings, "Keeper.md", direction="backlinks")["notes"]
    assert [(n["path"], n["context"]) for n in backlinks] == [("Zoo.md", f"Later: see Keeper for {SENTENCE.lower()}.")]
    data = index_bytes(settings)
    assert SENTENCE.encode() not in data
    assert b"every morning" not in data
    assert b"see Keeper for" not in data      # the words around a link rank its note, yet are not stored


WORDS = ("otter badger heron salmon willow bramble meadow lantern harbour pebble quartz ember "
         "falcon thistle cobalt marble").split()


def _text(rng: random.Random, n: int) -> str:
    lines = [f"# Note {n} {rng.choice(WORDS)}", ""]
    for _ in range(rng.randint(2, 6)):
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 25)))
        if rng.random() < 0.5:
            line += f" see [[n{rng.randrange(40)}]] and [[n{rng.randrange(40)}|that one]] {line[:20]}"
        lines.append(line.capitalize() + ".")
    if rng.random() < 0.3:
        lines += ["```", f"{rng.choice(WORDS)} = {n}", "```"]
    return "\n".join(lines)


def _answers(settings) -> dict:
    """What the index answers: hits with scores and excerpts for each word (one word: its
    ranking does not use the vocabulary table, which an update may leave slightly behind a
    rebuild), and every note's links with their context lines."""
    with VaultIndex.open_fresh(settings) as index:
        found = {word: [(h.path, h.score, h.excerpt) for h in fulltext.search(index, Query(word, limit=50))[0]]
                 for word in WORDS}
        paths = index.paths()
    found["links"] = {path: graph.related(settings, path)["notes"] for path in paths}
    return found


def _fts_intact(settings) -> None:
    conn = index_file(store.index_path(settings), isolation_level=None)
    try:
        conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")
        conn.execute("INSERT INTO inlinks_fts(inlinks_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()


def _incoming_words(settings) -> dict:
    """{note path: its incoming link words as the (contentless) index holds them, counted}: what a
    row taken out with other words than it was written with would leave wrong."""
    conn = index_file(store.index_path(settings), isolation_level=None)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.incoming USING fts5vocab(main, inlinks_fts, 'instance')")
        paths = dict(conn.execute("SELECT id, path FROM notes"))
        found: dict = {}
        for term, doc in conn.execute("SELECT term, doc FROM temp.incoming"):
            words = found.setdefault(paths.get(doc, f"(no note {doc})"), {})
            words[term] = words.get(term, 0) + 1
        return found
    finally:
        conn.close()


def test_edits_renames_and_deletes_answer_as_a_fresh_build_would(vault, settings, tmp_path, fts_delete):
    rng = random.Random(20)
    names = [f"F{n % 3}/n{n}.md" for n in range(30)]
    for n, name in enumerate(names):
        write(vault, name, _text(rng, n))
    _answers(settings)
    for round_ in range(4):
        for name in rng.sample(names, 6):                    # edited (a newer mtime: see test_freshness)
            write(vault, name, _text(rng, rng.randrange(100)), bump=round_ + 1)
        gone = rng.choice(names)                             # deleted
        (vault / gone).unlink()
        names.remove(gone)
        moved = rng.choice(names)                            # renamed into another folder
        target = f"F{(int(moved[1]) + 1) % 3}/moved{round_}.md"
        os.rename(vault / moved, vault / target)
        names[names.index(moved)] = target
        names.append(f"F0/new{round_}.md")                   # added
        write(vault, names[-1], _text(rng, 200 + round_))
        incremental = _answers(settings)
        _fts_intact(settings)
        fresh = settings_module.Settings(str(tmp_path / f"fresh{round_}"), vault=str(vault))
        assert _answers(fresh) == incremental
        assert _incoming_words(fresh) == _incoming_words(settings)
