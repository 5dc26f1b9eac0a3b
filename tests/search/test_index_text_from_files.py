"""The index keeps no copy of a note's text where SQLite can delete an FTS row by its rowid
(3.43 or later: Python's own sqlite3, else sqlean.py): excerpts, a browse's previews and a note's
words for `similar` are read from the note file, as it is when they are shown. On an older
SQLite the file keeps the text, only to take a note's FTS row out with it."""
from __future__ import annotations

import json
import os
import zlib

import pytest

from obsidian_memory.core import sqlitedb
from obsidian_memory.search.engines import fulltext
from obsidian_memory.search import graph, store
from obsidian_memory.search.base import Query
from obsidian_memory.search.store import VaultIndex, schema
from testkit import fts_deletes_by_rowid_here, index_file, write_note as write

SENTENCE = "A pangolin named Hortensia catalogues seventeen brass telescopes every Thursday"


def everything_stored(path: str) -> list[str]:
    """Every value of every table in the index file at `path` as text, compressed values (the
    notes' content, with the file's dictionary) decompressed."""
    conn = index_file(path)
    try:
        codec = schema.Codec.of(conn)
        zdict = codec.zdict if codec else b""
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                                   " AND sql NOT LIKE 'CREATE VIRTUAL%'")]
        found = []
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, bytes):
                        value = _inflated(value, zdict).decode("utf-8", "replace")
                    found.append(str(value))
        return found
    finally:
        conn.close()


def _inflated(blob: bytes, zdict: bytes) -> bytes:
    """`blob` decompressed (with the dictionary, or without one), or as it is when it is not zlib's."""
    try:
        return zlib.decompressobj(zdict=zdict).decompress(blob) if zdict else zlib.decompress(blob)
    except zlib.error:
        return blob


def index_files(root) -> list[str]:
    return [os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names
            if name.startswith("index-") and name.endswith(".sqlite")]


def test_the_index_keeps_a_notes_text_only_where_sqlite_needs_it_to_delete(env, fts_delete):
    write(env.vault, "Zoo.md", f"# Keepers\n\n{SENTENCE}, say the keepers.\n\nSee [[Telescopes]] again.\n")
    write(env.vault, "Telescopes.md", "Brass ones.\n")
    result = env.search("pangolin hortensia", "--json", "--source", "index",
                        env={"OBSIDIAN_MEMORY_INDEX_SQLITE": "keep-text" if fts_delete == "text" else ""})
    assert result.returncode == 0, result.stderr.decode()
    hits = json.loads(result.stdout)["results"]
    assert hits[0]["path"] == "Zoo.md" and SENTENCE in hits[0]["excerpt"]
    (path,) = index_files(env.root)
    stored = "\n".join(everything_stored(path))
    assert "See Telescopes again." in stored            # a link's context line is kept (links show it)
    assert (SENTENCE in stored) == (fts_delete == "text")
    with open(path, "rb") as handle:
        assert SENTENCE.encode() not in handle.read()


def test_switching_sqlite_rebuilds_the_index_with_the_same_answers(env, monkeypatch):
    monkeypatch.setattr(sqlitedb, "_library", None)
    monkeypatch.delenv(sqlitedb.LIBRARY_ENV, raising=False)
    if not fts_deletes_by_rowid_here():
        pytest.skip("this Python's SQLite is older than 3.43 and sqlean.py is not installed: only one way to test")
    for n in range(12):
        write(env.vault, f"N{n}.md", f"# Note {n}\n\nOtters and herons, {n} of them. See [[N{(n + 1) % 12}]].\n")

    def search(mode: str) -> tuple[list, str]:
        result = env.search("otters herons", "--json", "--source", "index", "-n", "20",
                            env={"OBSIDIAN_MEMORY_INDEX_SQLITE": "keep-text" if mode == "text" else ""})
        assert result.returncode == 0, result.stderr.decode()
        (path,) = index_files(env.root)
        conn = index_file(path)
        try:
            made = sqlitedb.meta(conn, schema.FTS_DELETE)
        finally:
            conn.close()
        return [(h["path"], h["score"], h["excerpt"], h["links"], h["backlinks"])
                for h in json.loads(result.stdout)["results"]], made

    by_id, made = search("rowid")
    assert made == "rowid" and len(by_id) == 12
    assert search("text") == (by_id, "text")          # another SQLite: the file is built again its way
    assert search("rowid") == (by_id, "rowid")


def test_an_excerpt_is_read_from_the_note_as_it_is_when_shown(vault, settings, fts_delete):
    write(vault, "Zoo.md", f"# Keepers\n\n{SENTENCE}.\n")
    write(vault, "Gone.md", "The pangolin left the zoo.\n")
    write(vault, "Secret.md", "The pangolin ate the diary.\n")
    store.update(settings)
    write(vault, "Zoo.md", "# Keepers\n\nThe pangolin now counts brass buttons instead.\n")    # since indexed
    (vault / "Gone.md").unlink()
    write(vault, "Secret.md", "The pangolin ate the diary. #private\n")
    with VaultIndex.open(settings) as index:          # (no freshness check: the snapshot as indexed)
        hits, _ = fulltext.search(index, Query("pangolin"))
        browsed, _ = fulltext.search(index, Query(""))
    excerpts = {hit.path: hit.excerpt for hit in hits}
    assert excerpts == {"Zoo.md": "The pangolin now counts brass buttons instead.", "Gone.md": "", "Secret.md": ""}
    assert {hit.path: hit.excerpt for hit in browsed} == excerpts
    with VaultIndex.open_fresh(settings) as index:     # the check re-reads them: found as they are
        assert [hit.path for hit in fulltext.search(index, Query("pangolin"))[0]] == ["Zoo.md"]
        assert not fulltext.search(index, Query("telescopes"))[0]


def test_similar_reads_the_notes_words_from_its_file(vault, settings, fts_delete):
    write(vault, "Astronomy.md", "Brass telescopes, lenses, eyepieces and star charts for telescopes.\n")
    write(vault, "Optics.md", "Lenses and eyepieces: how telescopes gather light.\n")
    write(vault, "Cooking.md", "Onions, garlic and butter.\n")
    found = graph.similar(settings, "Astronomy.md")
    assert [note["path"] for note in found["results"]][:1] == ["Optics.md"]


def test_status_says_which_sqlite_the_index_uses_and_what_it_keeps(vault, settings, fts_delete):
    said = store.status(settings)["sqlite"]
    assert said.startswith("SQLite 3.")
    assert ("no copy of the notes' text" in said) == (fts_delete == "rowid")
    assert ("each note's text kept" in said) == (fts_delete == "text")
