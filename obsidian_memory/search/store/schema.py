"""The index file's schema: its tables, their version, creating them.

The index is a disposable cache: a file of another version is deleted and built again from
the vault (re-reading every note is what a change to the tables or to what `markdown` reads
from a note needs anyway), so the schema is one script and one version number, bumped on any
such change, instead of a list of migrations.
"""
from __future__ import annotations

import re
import sqlite3
import time
import zlib
from collections import Counter, namedtuple

from obsidian_memory.core import sqlitedb

TYPE_CHECKING = False

# Bump when the tables or what is stored in them change (a change to `markdown` parsing
# included): the cache is then rebuilt.
SCHEMA_VERSION = 19

# Pages of 32 KiB rather than 4: a note's row (its compressed text, about 3 KB) no longer
# leaves much of a page empty (a fifth of the file at 4 KiB, a twentieth at 32).
PAGE_SIZE = 32768

# The FTS columns, in order, and their bm25 weights: names far above headings, headings above
# the body; code stays searchable without dominating a note's score.
FTS_COLUMNS = ("title", "aliases", "headings", "tags", "meta", "folder", "body", "code", "idents")
COLUMN_WEIGHTS = (10.0, 8.0, 3.0, 3.0, 2.0, 1.5, 1.0, 0.2, 2.0)
# The FTS columns whose text is kept in `notes.content` (Codec) when the file keeps the text to
# delete a note's FTS row with (FTS_DELETE "text"), not in a column of its own: all but those a
# query reads (names, and the folder a scope tests). Else they are empty there.
PACKED_COLUMNS = ("body", "code", "headings", "tags", "meta", "idents")
PLAIN_COLUMNS = tuple(c for c in FTS_COLUMNS if c not in PACKED_COLUMNS)
# The tokenizer of the index, and of the scratch table that stems text exactly as it does.
TOKENIZER = "porter unicode61 remove_diacritics 2"

_COLUMNS = ", ".join(FTS_COLUMNS)

STATEMENTS = (
    # AUTOINCREMENT: an id is never given to another note, so that a link to a note that is gone
    # names no note (until links are resolved again) rather than a new one.
    """CREATE TABLE notes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL UNIQUE,
        mtime_ns INTEGER NOT NULL,
        size INTEGER NOT NULL,
        ctime_ns INTEGER NOT NULL,        -- with mtime_ns and size: the note's stamp (build.walk_vault)
        title TEXT NOT NULL,
        aliases TEXT NOT NULL,
        folder TEXT NOT NULL,
        content BLOB NOT NULL,            -- its links and their contexts (and its other FTS columns: FTS_DELETE), compressed (Codec)
        indexed_at REAL NOT NULL
    )""",
    "CREATE INDEX notes_freshness ON notes(path, mtime_ns, size, ctime_ns, id)",
    # the names of a query's candidates (VaultIndex.names), read without the rows' pages of content
    "CREATE INDEX notes_names ON notes(id, path, title, aliases)",
    # notes read so soon after they changed that their stamp may not show the next edit (build)
    """CREATE TABLE unsettled (
        note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
        digest TEXT NOT NULL
    )""",
    """CREATE TABLE note_tags (
        note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (note_id, tag)
    ) WITHOUT ROWID""",
    """CREATE TABLE note_props (
        note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (note_id, key, value)
    ) WITHOUT ROWID""",
    # The link graph; what a link says (target as written, anchor, label, kind, line, context) is
    # in its note's content (Codec: StoredLink number `seq`).
    """CREATE TABLE links (
        source_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        target_id INTEGER,                -- the note it resolves to (notes.id), NULL when it names none
        name_hash INTEGER NOT NULL,       -- of its name key (build.name_hash): the links a note added or gone may change
        PRIMARY KEY (source_id, seq)
    ) WITHOUT ROWID""",
    "CREATE TABLE vocab (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID",
    # Notes private by their text (`privacy`): only what the freshness check needs, never their words.
    """CREATE TABLE private_notes (
        path TEXT PRIMARY KEY,
        mtime_ns INTEGER NOT NULL,
        size INTEGER NOT NULL,
        ctime_ns INTEGER NOT NULL
    ) WITHOUT ROWID""",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
)


def fts_tables(delete_by_id: bool) -> tuple[str, ...]:
    """The FTS tables' statements (after STATEMENTS).

    Contentless: the index holds no copy of the text (excerpts are read from the note file). So
    the build writes a note's FTS row itself, and removes it before the note changes or goes
    (build.forget_fts): by its rowid (`delete_by_id`, SQLite >= 3.43: FTS_DELETE "rowid"), or
    with the values it was written with, which the file then keeps ("text")."""
    by_id = "contentless_delete=1, " if delete_by_id else ""
    return (
        f"CREATE VIRTUAL TABLE notes_fts USING fts5({_COLUMNS}, content='', {by_id}tokenize='{TOKENIZER}')",
        "CREATE VIRTUAL TABLE notes_terms USING fts5vocab(notes_fts, 'row')",
        # What other notes say where they link to a note (the link's line, its alias included), one
        # row per linked note (rowid = its id): the words people use for a note, as a field of it.
        # Contentless too, deleted by its text either way: the text is derived from the links
        # (build.IncomingText), which the file keeps.
        f"CREATE VIRTUAL TABLE inlinks_fts USING fts5(text, content='', tokenize='{TOKENIZER}')",
    )


# Built after a large batch of inserts rather than kept up during it: row by row, indexes on
# random keys outgrow SQLite's page cache and the build slows down several times.
LOOKUP_INDEXES = ("CREATE INDEX IF NOT EXISTS links_by_target ON links(target_id)",
                  "CREATE INDEX IF NOT EXISTS links_by_name ON links(name_hash)",
                  "CREATE INDEX IF NOT EXISTS note_tags_by_tag ON note_tags(tag)",
                  "CREATE INDEX IF NOT EXISTS note_props_by_key ON note_props(key, value)")


# meta: how the file takes a note's row out of notes_fts, "rowid" (SQLite >= 3.43) or "text"
# (older: the text is kept); a file made the other way than the running SQLite library can
# (`sqlitedb.index_library`) is built again.
FTS_DELETE = "fts_delete"


def fts_delete_mode(delete_by_id: bool) -> str:
    return "rowid" if delete_by_id else "text"


def keeps_text(conn: sqlite3.Connection) -> bool:
    """Whether the file keeps a note's FTS texts, to remove its FTS row with (FTS_DELETE)."""
    return sqlitedb.meta(conn, FTS_DELETE) == "text"


def create(conn: sqlite3.Connection, delete_by_id: bool) -> None:
    """The tables of an empty file, at SCHEMA_VERSION, deleting FTS rows by id or by text."""
    with sqlitedb.transaction(conn):
        for statement in STATEMENTS + fts_tables(delete_by_id):
            conn.execute(statement)
        ensure_lookup_indexes(conn)
        sqlitedb.set_meta(conn, "created", str(time.time()))
        sqlitedb.set_meta(conn, FTS_DELETE, fts_delete_mode(delete_by_id))
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def drop_lookup_indexes(conn: sqlite3.Connection) -> None:
    for statement in LOOKUP_INDEXES:
        conn.execute("DROP INDEX IF EXISTS " + statement.split(" EXISTS ")[1].split(" ON ")[0])


def ensure_lookup_indexes(conn: sqlite3.Connection) -> None:
    for statement in LOOKUP_INDEXES:
        conn.execute(statement)


def ensure_scratch(conn: sqlite3.Connection) -> str:
    """A temporary FTS table with the index's tokenizer (it stems text exactly as the index
    does), with its vocabulary (`_terms`) and token (`_tokens`) views; returns its name."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.scratch USING fts5(x, tokenize='{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.scratch_terms USING fts5vocab(temp, scratch, 'row')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.scratch_tokens USING fts5vocab(temp, scratch, 'instance')")
    return "temp.scratch"


# -- what the index keeps of a note, compressed ------------------------------------------------------
# The index keeps a note's links as written and the context line of each (shown with links and
# backlinks, and the incoming link text of the notes they point to), and, in a file that removes
# FTS rows by their text (FTS_DELETE "text"), the note's body, code and other FTS texts
# (PACKED_COLUMNS; never read but to remove its FTS row), all in one zlib stream: there the
# contexts are lines of the body and cost next to nothing. The lengths and numbers come first,
# so that any character may appear in any part.
# A note of a few KB alone gives zlib little to learn from, so every stream starts from a
# dictionary of the vault's frequent words (a fifth smaller), made from the first notes
# written to the file and kept in `meta` as long as it lives.

CONTENT_DICT = "content_dict"        # meta: the dictionary's words
DICT_BYTES = 32768                   # zlib's window: a longer dictionary is never looked back to
_WORD = re.compile(r"\w{3,}")
LINK_KINDS = ("wiki", "markdown", "frontmatter")


# A link as its note's content keeps it (`links` holds where it points); context_no: its
# context line, a number into its note's contexts. A note's content: its PACKED_COLUMNS' texts,
# its context lines and its links. (The checker reads the fields' types; a search process does
# not import `typing` for them.)
if TYPE_CHECKING:
    from typing import NamedTuple

    class StoredLink(NamedTuple):
        target: str
        anchor: str
        label: str
        kind: str
        embed: bool
        line: int
        context_no: int

    class Content(NamedTuple):
        body: str
        code: str
        headings: str
        tags: str
        meta: str
        idents: str
        contexts: list[str]
        links: list[StoredLink]
else:
    StoredLink = namedtuple("StoredLink", "target anchor label kind embed line context_no")
    Content = namedtuple("Content", PACKED_COLUMNS + ("contexts", "links"))


class Codec:
    """Packs and unpacks `notes.content` with the file's dictionary (`of`, `made_for`)."""
    __slots__ = ("zdict",)

    def __init__(self, zdict: bytes = b"") -> None:
        self.zdict = zdict

    @classmethod
    def of(cls, conn: sqlite3.Connection) -> "Codec | None":
        """The file's codec; None before its first note is written."""
        words = sqlitedb.meta(conn, CONTENT_DICT)
        return None if words is None else cls(words.encode("utf-8", "surrogatepass"))

    @classmethod
    def to_read(cls, conn: sqlite3.Connection) -> "Codec":
        """The codec to unpack a note's content with: the file's (a file with notes has one, made
        with its first), else one without a dictionary."""
        return cls.of(conn) or cls()

    @classmethod
    def made_for(cls, conn: sqlite3.Connection, texts: list[str]) -> "Codec":
        """A codec whose dictionary holds the words most used in `texts` (the first notes to be
        written), the most used last (nearest, so cheapest to refer to); kept in the file."""
        counts = Counter(word for text in texts for word in _WORD.findall(text))
        chosen: list[str] = []
        size = 0
        for word, count in counts.most_common():
            size += len(word.encode("utf-8", "surrogatepass")) + 1
            if count < 2 or size > DICT_BYTES:
                break
            chosen.append(word)
        words = " ".join(reversed(chosen))
        sqlitedb.set_meta(conn, CONTENT_DICT, words)
        return cls(words.encode("utf-8", "surrogatepass"))

    def pack(self, content: Content) -> bytes:
        texts: list[str] = [*(getattr(content, column) for column in PACKED_COLUMNS), *content.contexts]
        numbers = [len(content.contexts), len(content.links)]
        for link in content.links:
            texts += (link.target, link.anchor, link.label)
            numbers += (LINK_KINDS.index(link.kind), int(link.embed), link.line, link.context_no)
        head = " ".join(map(str, numbers + [len(text) for text in texts]))
        raw = (head + "\n" + "".join(texts)).encode("utf-8", "surrogatepass")
        if not self.zdict:
            return zlib.compress(raw, 6)
        packer = zlib.compressobj(6, zdict=self.zdict)
        return packer.compress(raw) + packer.flush()

    def unpack(self, blob: bytes) -> Content:
        raw = zlib.decompressobj(zdict=self.zdict).decompress(blob) if self.zdict else zlib.decompress(blob)
        head, _, rest = raw.decode("utf-8", "surrogatepass").partition("\n")
        numbers = list(map(int, head.split()))
        contexts, links = numbers[0], numbers[1]
        lengths = numbers[2 + 4 * links:]
        texts: list[str] = []
        at = 0
        for length in lengths:
            texts.append(rest[at:at + length])
            at += length
        fields = len(PACKED_COLUMNS)
        first = fields + contexts
        stored = [StoredLink(texts[first + 3 * n], texts[first + 3 * n + 1], texts[first + 3 * n + 2],
                             LINK_KINDS[numbers[2 + 4 * n]], bool(numbers[3 + 4 * n]), numbers[4 + 4 * n],
                             numbers[5 + 4 * n]) for n in range(links)]
        return Content._make([*texts[:fields], texts[fields:first], stored])
