"""A note's content as the index stores it (schema.Codec: one zlib stream primed with a dictionary
of the vault's words, lengths first): whatever the texts hold, they come back as they went in."""
from __future__ import annotations

import ast
import sqlite3
from pathlib import Path

from hypothesis import given, settings, strategies as st

from obsidian_memory.core import sqlitedb
from obsidian_memory.search.store import schema
from obsidian_memory.search.store.schema import Codec, Content, StoredLink

TEXT = st.text(st.characters(blacklist_categories=("Cs",)) | st.sampled_from(["\n", " ", "7", "\udc80"]), max_size=40)
LINK = st.builds(StoredLink, TEXT, TEXT, TEXT, st.sampled_from(schema.LINK_KINDS), st.booleans(),
                 st.integers(0, 10**6), st.integers(0, 5))


def made_codec(texts: list[str]) -> Codec:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    made = Codec.made_for(conn, texts)
    assert Codec.of(conn).zdict == made.zdict        # kept in the file, read back the same
    return made


CODEC = made_codec(["the quick brown fox jumps over the lazy dog " * 3, "the dog sleeps, the fox jumps"])


@settings(max_examples=300, deadline=None)
@given(fields=st.lists(TEXT, min_size=len(schema.PACKED_COLUMNS), max_size=len(schema.PACKED_COLUMNS)),
       contexts=st.lists(TEXT, max_size=4), links=st.lists(LINK, max_size=5))
def test_any_content_comes_back_as_it_went_in(fields, contexts, links):
    content = Content(*fields, contexts, links)
    assert CODEC.unpack(CODEC.pack(content)) == content
    assert Codec().unpack(Codec().pack(content)) == content        # (no dictionary)


def test_the_dictionary_holds_the_words_used_most_and_makes_notes_smaller():
    common = "harbour lantern thistle quartz meadow falcon " * 5
    codec = made_codec([common + f"note {n}" for n in range(20)])
    words = codec.zdict.decode().split()
    assert set(words) == {"harbour", "lantern", "thistle", "quartz", "meadow", "falcon", "note"}
    note = Content("A falcon over the meadow by the harbour lantern.", "", "", "", "", "", [], [])
    assert len(codec.pack(note)) < len(Codec().pack(note))


def test_a_vault_with_no_repeated_word_gets_an_empty_dictionary():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    codec = Codec.made_for(conn, ["unique words only"])
    assert codec.zdict == b"" and sqlitedb.meta(conn, schema.CONTENT_DICT) == ""
    content = Content("body", "code", "", "", "", "", ["ctx"], [StoredLink("T", "", "", "wiki", False, 1, 0)])
    assert Codec.of(conn).unpack(codec.pack(content)) == content


def test_the_checker_reads_the_fields_the_records_have():
    """The records are namedtuples at run time and NamedTuple classes for the type checker (a
    search process does not import `typing`): both name the same fields, in the same order."""
    tree = ast.parse(Path(schema.__file__).read_text(encoding="utf-8"))
    declared = {node.name: tuple(item.target.id for item in node.body if isinstance(item, ast.AnnAssign))
                for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node.name in ("Content", "StoredLink")}
    assert declared == {"Content": Content._fields, "StoredLink": StoredLink._fields}
    assert Content._fields == (*schema.PACKED_COLUMNS, "contexts", "links")
