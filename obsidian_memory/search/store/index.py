"""The vault index: one SQLite file per vault in the cache folder, and the only code that
speaks SQL to it (its schema is `schema`, its update `build`).

`VaultIndex` owns the connection. A request opens it once (`open_fresh`: the freshness update,
then one read snapshot that every query of the request sees, even while another process
updates the file) and passes it to the engines, the graph and the output. The file is a
disposable cache: a missing file is built, a file of another schema version or a damaged one
is deleted and built again.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3

from obsidian_memory.core import sqlitedb
from obsidian_memory.search.store import build, freshness, schema, walk
from obsidian_memory.core.locks import FileLock, LockBusy
from obsidian_memory.search.store.build import UpdateStats, update_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any, Protocol, TypeVar

    from obsidian_memory.core.settings import Settings
    from obsidian_memory.vault.markdown import Note

    T = TypeVar("T")
    Param = str | int | float | None         # a value bound to a statement's `?`

    class Scoped(Protocol):
        """What of a query limits its notes (search.base.Query)."""
        @property
        def folders(self) -> Sequence[str]: ...
        @property
        def excludes(self) -> Sequence[str]: ...
        @property
        def tags(self) -> Sequence[str]: ...
        @property
        def not_tags(self) -> Sequence[str]: ...
        @property
        def frontmatter(self) -> Sequence[tuple[str, str]]: ...
        @property
        def not_frontmatter(self) -> Sequence[tuple[str, str]]: ...

SEARCH_LOCK_WAIT = 30.0      # a search waits this long for another process's build, then answers as is
CHUNK = 500                  # ids or paths per `IN (...)` list


def index_path(settings: Settings) -> str:
    """One index file per vault, named from a hash of the vault's real path."""
    real = os.path.realpath(settings.vault)
    digest = hashlib.sha256(os.path.normcase(real).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(settings.cache_dir, f"index-{digest}.sqlite")


class Scope:
    """Which notes a query may return, as a WHERE fragment over `n` (notes): folders (any of
    them), excluded folders, required and excluded tags (a tag matches its nested tags too) and
    frontmatter values (`key:` alone: the key is present)."""
    __slots__ = ("sql", "params")

    def __init__(self, sql: str = "", params: tuple[Param, ...] = ()) -> None:
        self.sql, self.params = sql, params

    @classmethod
    def of(cls, query: Scoped) -> "Scope":
        clauses: list[str] = []
        params: list[Param] = []
        folders = [f for f in query.folders if f]
        if folders and len(folders) == len(query.folders):     # (a folder is matched with its case)
            clauses.append("(" + " OR ".join(_UNDER for _ in folders) + ")")
            params += [p for f in folders for p in _under_params(f)]
        for folder in (x for x in query.excludes if x):
            clauses.append(f"NOT {_UNDER}")
            params += _under_params(folder)
        for tags, test in ((query.tags, "EXISTS"), (query.not_tags, "NOT EXISTS")):
            for tag in tags:
                clauses.append(f"{test} ({_TAG_SQL})")
                params += _tag_params(tag)
        for pairs, test in ((query.frontmatter, "EXISTS"), (query.not_frontmatter, "NOT EXISTS")):
            for key, value in pairs:
                sql, extra = _prop_sql(key, value)
                clauses.append(f"{test} ({sql})")
                params += extra
        return cls(" AND ".join(clauses), tuple(params))

    def where(self) -> str:
        return f"WHERE {self.sql}" if self.sql else ""


EVERYTHING = Scope()
_TAG_SQL = "SELECT 1 FROM note_tags t WHERE t.note_id = n.id AND (t.tag = ? OR t.tag LIKE ? ESCAPE '\\')"


def _tag_params(tag: str) -> list[Param]:
    tag = tag.strip().lstrip("#").strip("/").lower()
    return [tag, _escape_like(tag) + "/%"]


def _prop_sql(key: str, value: str) -> tuple[str, list[Param]]:
    key, value = key.strip().lower(), value.strip().lower()
    if key in ("tags", "tag"):
        value = value.lstrip("#")
    if not value:
        return "SELECT 1 FROM note_props p WHERE p.note_id = n.id AND p.key = ?", [key]
    return "SELECT 1 FROM note_props p WHERE p.note_id = n.id AND p.key = ? AND p.value = ?", [key, value]


_UNDER = "(substr(n.path, 1, ?) = ?)"


def _under_params(folder: str) -> list[Param]:
    prefix = folder.strip("/") + "/"
    return [len(prefix), prefix]


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _bm25(weights: Iterable[float]) -> str:
    return "bm25(notes_fts, " + ", ".join(str(w) for w in weights) + ")"


def _ids(rowids: Iterable[int]) -> str:
    return ",".join(str(int(r)) for r in rowids)


def _chunks(items: list[T], size: int = CHUNK) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


class VaultIndex:
    """An open index. Use `open_fresh` for a request, `open` to update it, `open_readonly` to
    read it as it stands; close it (or use it in a `with` block)."""

    def __init__(self, conn: sqlite3.Connection, settings: Settings, path: str, *, created: bool = False) -> None:
        self.conn = conn
        self.settings = settings
        self.path = path
        self.created = created        # the file was (re)built on opening: missing, outdated or damaged
        self._codec: schema.Codec | None = None

    # -- opening and closing ---------------------------------------------------------------------------
    @classmethod
    def open(cls, settings: Settings) -> "VaultIndex":
        """The vault's index, created (or recreated if outdated or damaged) as needed."""
        _check_vault(settings)
        path = index_path(settings)
        try:
            conn, created = _connect(path)
        except LockBusy:
            conn, created = _connect(path)   # the rebuild another process held the lock for is done by now or never
        except sqlitedb.errors("DatabaseError") as exc:
            if sqlitedb.damaged(exc):
                discard(settings, exc)
            conn, created = _connect(path)   # (else a file another process was replacing: once more)
        return cls(conn, settings, path, created=created)

    @classmethod
    def open_fresh(cls, settings: Settings) -> "VaultIndex":
        """The index brought up to date (as a search does), then read in one snapshot. A file
        found damaged on the way is deleted and built again. In a long-running process, requests
        that arrive together share one check, and one that watches the vault skips the check
        while nothing changed (`freshness`, `watch_vault`)."""
        gate = freshness.gate(index_path(settings))
        ticket = gate.ticket()

        def check_first(index: "VaultIndex") -> None:
            if index.created:    # a new file: no earlier check counts for it
                index.update(lock_wait=SEARCH_LOCK_WAIT)
            else:
                gate.run(ticket, lambda: not index.update(lock_wait=SEARCH_LOCK_WAIT).skipped, SEARCH_LOCK_WAIT,
                         basis=index._freshness_basis())
            index.conn.execute("BEGIN")
        return cls._open_to_read(settings, check_first)

    @classmethod
    def _open_to_read(cls, settings: Settings, prepare: Callable[["VaultIndex"], None]) -> "VaultIndex":
        """`open`, then `prepare(index)`, which leaves it in a read snapshot. A file found damaged
        on the way is deleted and built again (once: `sqlitedb.again_if_damaged`)."""
        def opened() -> "VaultIndex":
            index = cls.open(settings)
            try:
                prepare(index)
                return index
            except BaseException:
                index.close()
                raise
        return sqlitedb.again_if_damaged(opened, lambda why: discard(settings, why))

    @classmethod
    def watch_vault(cls, settings: Settings) -> str | None:
        """For a process that lives long (the HTTP MCP server): from now on, `open_fresh` skips
        the walk of the vault while a watch hears of no change in it. None: watching; else why
        there is no watch (not Linux, a network or FUSE file system...): every open walks, as before."""
        return freshness.gate(index_path(settings)).watch(settings.vault)

    def _freshness_basis(self) -> tuple[Any, ...]:
        """What a check depends on besides the vault: this very file (not one rebuilt meanwhile)
        and the settings of the walk, the private rules included (a rule added while nothing in
        the vault changed takes notes out at the next check)."""
        from obsidian_memory.vault.privacy import Privacy

        info = os.stat(self.path)
        return (info.st_dev, info.st_ino, os.path.realpath(self.settings.vault), walk.ignore_patterns(self.settings),
                Privacy.of(self.settings).signature())

    @classmethod
    def open_readonly(cls, settings: Settings) -> "VaultIndex | None":
        """The index as it stands, read-only, or None when it is missing, outdated or unreadable."""
        path = index_path(settings)
        if not os.path.exists(path):
            return None
        try:
            conn = _open(path, readonly=True)
        except sqlitedb.errors("DatabaseError"):
            return None
        try:
            if _current(conn):
                return cls(conn, settings, path)
        except sqlitedb.errors("DatabaseError"):
            pass
        conn.close()
        return None

    def update(self, *, force: bool = False, progress: bool | None = None,
               lock_wait: float | None = None) -> UpdateStats:
        """Re-index what changed in the vault since the last update (everything with `force`).
        Private notes (`privacy`) are left out; the notes that left the index leave the vector
        store too."""
        from obsidian_memory.vault.privacy import Privacy

        stats = build.update(self.conn, self.settings.vault, walk.ignore_patterns(self.settings),
                             lock_path=self.path, force=force, progress=progress,
                             lock_wait=build.LOCK_WAIT_SECONDS if lock_wait is None else lock_wait,
                             privacy=Privacy.of(self.settings))
        stats.rebuilt = stats.rebuilt or self.created
        self.created = False
        if stats.removed_paths:
            from obsidian_memory.search.store import vectors

            vectors.forget(self.settings, stats.removed_paths)
        return stats

    def close(self) -> None:
        try:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")      # the read snapshot
        except sqlitedb.errors("DatabaseError"):
            pass                                 # (a damaged file: what matters is closing it)
        finally:
            self.conn.close()

    def __enter__(self) -> "VaultIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- notes ---------------------------------------------------------------------------------------
    def note_count(self) -> int:
        """Notes in the index (at least 1: a divisor)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'notes'").fetchone()
        if row and str(row[0]).isdigit():
            return int(row[0]) or 1
        return int(self.conn.execute("SELECT count(*) FROM notes").fetchone()[0]) or 1

    def paths(self) -> list[str]:
        return [p for (p,) in self.conn.execute("SELECT path FROM notes ORDER BY path")]

    def stats_of_notes(self) -> dict[str, tuple[int, int]]:
        """{path: (mtime_ns, size)} of every indexed note (private notes are never indexed)."""
        return {p: (m, s) for p, m, s in self.conn.execute("SELECT path, mtime_ns, size FROM notes"
                                                            " INDEXED BY notes_freshness")}

    def private_count(self) -> int:
        """The notes left out as private by their text (those private by path are never walked)."""
        return int(self.conn.execute("SELECT count(*) FROM private_notes").fetchone()[0])

    def note_id(self, path: str) -> int | None:
        row = self.conn.execute("SELECT id FROM notes WHERE path = ?", (path,)).fetchone()
        return row[0] if row else None

    def names(self, ids: Iterable[int]) -> dict[int, tuple[str, str, str]]:
        """{id: (path, title, aliases)}: from the covering index (a query's few hundred candidates
        would otherwise read as many pages of the notes' rows: ~11 MB at 20,000 notes)."""
        return {r: (p, t, a) for r, p, t, a in self.conn.execute(
            f"SELECT id, path, title, aliases FROM notes INDEXED BY notes_names WHERE id IN ({_ids(ids)})")}

    def titles(self, ids: Iterable[int]) -> dict[int, tuple[str, str]]:
        """{id: (path, title)}."""
        out: dict[int, tuple[str, str]] = {}
        for chunk in _chunks(list(ids)):
            out.update({i: (p, t) for i, p, t in self.conn.execute(
                f"SELECT id, path, title FROM notes WHERE id IN ({','.join('?' * len(chunk))})", chunk)})
        return out

    def body_and_code(self, note_id: int) -> tuple[str, str]:
        """The note's body and code as its file says now (`parsed_note`; empty when it cannot)."""
        path, title = self.conn.execute("SELECT path, title FROM notes WHERE id = ?", (note_id,)).fetchone()
        note = self.parsed_note(path, title)
        return (note.body, note.code) if note else ("", "")

    def words_text(self, note_id: int) -> str:
        """What a note says in words: its title, aliases, headings and body."""
        path, title, aliases = self.conn.execute("SELECT path, title, aliases FROM notes WHERE id = ?",
                                                 (note_id,)).fetchone()
        note = self.parsed_note(path, title)
        return "\n".join((title, aliases, *(("\n".join(note.headings), note.body) if note else ())))

    def parsed_note(self, path: str, title: str) -> Note | None:
        """The indexed note `path` parsed from its file (`markdown.Note`: its body, code and
        headings only): the index keeps no copy of its text. The check
        that made the snapshot fresh found the file as indexed; one gone, unreadable or made
        private since is None."""
        from obsidian_memory.core.fsutil import read_note
        from obsidian_memory.vault import markdown
        from obsidian_memory.vault.canvas import searched_text
        from obsidian_memory.vault.privacy import Privacy

        text = read_note(self.settings.vault, path)
        text = searched_text(path, text) if text is not None else None
        if text is None or Privacy.of(self.settings).text_is_private(text):
            return None
        return markdown.parse_note(markdown.searched_part(text), title, text_only=True)

    def _content(self, note_id: int) -> schema.Content:
        """A note's links as written and their context lines (`schema.Codec`)."""
        (blob,) = self.conn.execute("SELECT content FROM notes WHERE id = ?", (note_id,)).fetchone()
        return self._unpack(blob)

    def _unpack(self, blob: bytes) -> schema.Content:
        if self._codec is None:
            self._codec = schema.Codec.to_read(self.conn)
        return self._codec.unpack(blob)

    def names_in_scope(self, scope: Scope) -> list[tuple[str, str, str]]:
        """(path, title, aliases) of every note in scope."""
        return self.conn.execute(f"SELECT n.path, n.title, n.aliases FROM notes n {scope.where()}",
                                 scope.params).fetchall()

    def paths_in_scope(self, scope: Scope) -> list[str]:
        """Every path in scope; only the path is read (the covering index: the rows hold whole notes)."""
        return [p for (p,) in self.conn.execute(f"SELECT n.path FROM notes n {scope.where()}", scope.params)]

    def paths_with_property(self, key: str, value: str, among: Iterable[int] | None = None) -> list[str]:
        """The notes whose frontmatter has `key: value` (both as `markdown.frontmatter_pairs` folds
        them); given `among` (note ids), those of them only."""
        sql = "SELECT n.path FROM note_props p JOIN notes n ON n.id = p.note_id WHERE p.key = ? AND p.value = ?"
        if among is not None:
            sql += f" AND p.note_id IN ({_ids(among)})"
        return [p for (p,) in self.conn.execute(sql, (key, value))]

    def recent(self, scope: Scope, limit: int) -> tuple[int, list[tuple[str, str, str]]]:
        """(notes in scope, (path, title, body) of the `limit` newest): a session note by when its
        session started (its `started_utc`: a January session re-rendered today is still January's),
        any other note by its last change."""
        total = self.conn.execute(f"SELECT count(*) FROM notes n {scope.where()}", scope.params).fetchone()[0]
        # (frontmatter values are kept lower-cased: SQLite reads `2026-02-11T20:31:53Z`, not its lower case)
        started = ("(SELECT CAST(strftime('%s', upper(p.value)) AS INTEGER) * 1000000000 FROM note_props p "
                   "WHERE p.note_id = n.id AND p.key = 'started_utc' LIMIT 1)")
        rows = self.conn.execute(f"SELECT n.path, n.title FROM notes n {scope.where()}"
                                 f" ORDER BY COALESCE({started}, n.mtime_ns) DESC, n.path LIMIT {max(0, int(limit))}",
                                 scope.params).fetchall()
        return total, [(path, title, note.body if note else "")
                       for path, title, note in ((p, t, self.parsed_note(p, t)) for p, t in rows)]

    # -- full text: FTS5 match expressions (built by `fulltext`, passed as a value) ------------------------
    def ranked(self, match: str, scope: Scope, limit: int, *, weights: Sequence[float] = schema.COLUMN_WEIGHTS,
               exclude: int | None = None) -> dict[int, float]:
        """{id: BM25 score (higher is better)} of the `limit` best notes matching in scope."""
        sql, params = self._fts(f"f.rowid, -{_bm25(weights)} AS s", match, scope)
        if exclude is not None:
            sql, params = sql + " AND f.rowid != ?", [*params, exclude]
        return dict(self.conn.execute(f"{sql} ORDER BY s DESC LIMIT {int(limit)}", params).fetchall())

    def every_score(self, match: str, scope: Scope) -> dict[int, float]:
        """{id: BM25 score} of every note matching in scope, in the order FTS5 finds them (by id):
        one pass, for a caller that needs both the best (`best`) and the scores of others."""
        sql, params = self._fts(f"f.rowid, -{_bm25(schema.COLUMN_WEIGHTS)}", match, scope)
        return dict(self.conn.execute(sql, params).fetchall())

    def matching(self, match: str, among: Iterable[int] | None = None) -> set[int]:
        """Every note matching, whatever the scope (or those of `among`). FTS5 evaluates a whole
        expression driven by its rarest word far faster than it seeks a long list of ids."""
        sql = "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?"
        if among is not None:
            sql += f" AND rowid IN ({_ids(among)})"
        return {r for (r,) in self.conn.execute(sql, [match])}

    def inlink_ranked(self, match: str, scope: Scope, limit: int) -> dict[int, float]:
        """{id: BM25 score} of the `limit` notes in scope whose incoming link text matches best."""
        join = " JOIN notes n ON n.id = f.rowid" if scope.sql else ""
        where = " AND " + scope.sql if scope.sql else ""
        sql = (f"SELECT f.rowid, -bm25(inlinks_fts) AS s FROM inlinks_fts f{join} WHERE inlinks_fts MATCH ?{where}"
               f" ORDER BY s DESC LIMIT {int(limit)}")
        return dict(self.conn.execute(sql, [match, *scope.params]).fetchall())

    def count(self, match: str, scope: Scope) -> int:
        sql, params = self._fts("count(*)", match, scope)
        return int(self.conn.execute(sql, params).fetchone()[0])

    def _fts(self, select: str, match: str, scope: Scope) -> tuple[str, list[Param]]:
        join = " JOIN notes n ON n.id = f.rowid" if scope.sql else ""
        where = " AND " + scope.sql if scope.sql else ""
        return f"SELECT {select} FROM notes_fts f{join} WHERE notes_fts MATCH ?{where}", [match, *scope.params]

    # -- the vocabulary ------------------------------------------------------------------------------------
    def stems(self, words: list[str]) -> list[str]:
        """The index's stem of each word (through a scratch table with the same tokenizer); the
        words themselves when they do not come out one stem each."""
        if not words:
            return []
        scratch = schema.ensure_scratch(self.conn)
        self.conn.execute(f"DELETE FROM {scratch}")
        self.conn.execute(f"INSERT INTO {scratch}(rowid, x) VALUES (1, ?)", (" ".join(words),))
        rows = self.conn.execute(f"SELECT term, offset FROM {scratch}_tokens ORDER BY offset").fetchall()
        self.conn.execute(f"DELETE FROM {scratch}")
        if len(rows) != len(words):
            return list(words)
        return [term for term, _ in rows]

    def doc_count(self, term: str) -> int:
        """How many notes use the stemmed `term`."""
        row = self.conn.execute("SELECT df FROM vocab WHERE term = ?", (term,)).fetchone()
        return row[0] if row else 0

    def doc_counts(self, terms: list[str]) -> dict[str, int]:
        """{term: notes using it} for the terms of `terms` the vocabulary has."""
        out: dict[str, int] = {}
        for chunk in _chunks(terms, 900):
            out.update(self.conn.execute(f"SELECT term, df FROM vocab WHERE term IN ({','.join('?' * len(chunk))})",
                                         chunk))
        return out

    # -- tags ------------------------------------------------------------------------------------------
    def tags_of(self, note_id: int) -> list[str]:
        return [t for (t,) in self.conn.execute("SELECT tag FROM note_tags WHERE note_id = ? ORDER BY tag", (note_id,))]

    def tagged(self, tag: str) -> list[int]:
        return [n for (n,) in self.conn.execute("SELECT note_id FROM note_tags WHERE tag = ?", (tag,))]

    def tag_count(self, tag: str) -> int:
        return int(self.conn.execute("SELECT count(*) FROM note_tags WHERE tag = ?", (tag,)).fetchone()[0])

    def tags_among(self, ids: Iterable[int], tags: Sequence[str]) -> list[tuple[int, str]]:
        """(note id, tag) for each of `tags` that a note of `ids` has, by tag."""
        marks = ",".join("?" * len(tags))
        out: list[tuple[int, str]] = []
        for chunk in _chunks(sorted(ids)):
            out += self.conn.execute(f"SELECT note_id, tag FROM note_tags WHERE note_id IN ({_ids(chunk)})"
                                     f" AND tag IN ({marks}) ORDER BY tag", list(tags)).fetchall()
        return out

    # -- links -----------------------------------------------------------------------------------------
    def link_steps(self, ids: list[int], outgoing: bool) -> list[tuple[Any, ...]]:
        """One link away from `ids`: (from id, to id, seq, context) following links out of
        them, or (to id, from id, from path, seq, context) following links into them."""
        marks = ",".join("?" * len(ids))
        if outgoing:
            rows = self.conn.execute(f"SELECT l.source_id, t.id, l.seq FROM links l"
                                     f" JOIN notes t ON t.id = l.target_id WHERE l.source_id IN ({marks})",
                                     ids).fetchall()
            return self._with_contexts(rows, source=0)
        rows = self.conn.execute(f"SELECT l.target_id, l.source_id, n.path, l.seq FROM links l"
                                 f" JOIN notes n ON n.id = l.source_id WHERE l.target_id IN ({marks})", ids).fetchall()
        return self._with_contexts(rows, source=1)

    def unresolved(self, note_id: int) -> list[tuple[str, str]]:
        """(target, context) of the note's links that name no note, in order."""
        seqs = [seq for (seq,) in self.conn.execute("SELECT seq FROM links WHERE source_id = ? AND target_id IS NULL"
                                                     " ORDER BY seq", (note_id,))]
        if not seqs:
            return []
        content = self._content(note_id)
        return [(content.links[seq].target, content.contexts[content.links[seq].context_no]) for seq in seqs]

    def _with_contexts(self, rows: list[tuple[Any, ...]], source: int) -> list[tuple[Any, ...]]:
        """The rows, whose last value is a link's seq in the note whose id is at `source`, with
        that link's context line added."""
        contents = {note_id: self._content(note_id) for note_id in {row[source] for row in rows}}
        out = []
        for row in rows:
            content = contents[row[source]]
            out.append((*row, content.contexts[content.links[row[-1]].context_no]))
        return out

    def links_of(self, paths: list[str]) -> dict[str, dict[str, list[str]]]:
        """{path: {"links": outgoing note paths in link order, "backlinks": linking note paths sorted}}."""
        result: dict[str, dict[str, list[str]]] = {p: {"links": [], "backlinks": []} for p in paths}
        for chunk in _chunks(list(result), 400):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT s.path, t.path, 0, l.seq FROM links l JOIN notes s ON s.id = l.source_id"
                f" JOIN notes t ON t.id = l.target_id WHERE s.path IN ({marks})"
                f" UNION ALL SELECT t.path, s.path, 1, 0 FROM notes t JOIN links l ON l.target_id = t.id"
                f" JOIN notes s ON s.id = l.source_id WHERE t.path IN ({marks})"
                f" ORDER BY 1, 3, 4, 2", chunk + chunk).fetchall()
            for note, other, backward, _ in rows:
                if other == note:
                    continue
                bucket = result[note]["backlinks" if backward else "links"]
                if other not in bucket:
                    bucket.append(other)
        return result

    def neighbours(self, ids: list[int]) -> dict[int, set[int]]:
        """{id: the notes it links to or is linked from}."""
        out: dict[int, set[int]] = {i: set() for i in ids}
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            for a, b in self.conn.execute(
                    f"SELECT l.source_id, t.id FROM links l JOIN notes t ON t.id = l.target_id"
                    f" WHERE l.source_id IN ({marks}) UNION SELECT target_id, source_id FROM links"
                    f" WHERE target_id IN ({marks})", chunk + chunk):
                if a != b:
                    out[a].add(b)
        return out

    def direct_links(self, note_id: int, among: Iterable[int]) -> tuple[set[int], set[int]]:
        """(the notes of `among` the note links to, those that link to it)."""
        ids = _ids(among)
        outgoing = {t for (t,) in self.conn.execute(f"SELECT target_id FROM links WHERE source_id = ?"
                                                    f" AND target_id IN ({ids})", (note_id,))}
        incoming = {s for (s,) in self.conn.execute(f"SELECT source_id FROM links WHERE target_id = ?"
                                                    f" AND source_id IN ({ids})", (note_id,))}
        return outgoing, incoming


# -- damage and rebuilds -------------------------------------------------------------------------------

def discard(settings: Settings, why: BaseException | None = None) -> None:
    """Delete the index file (found damaged: `why`); the next open builds it again."""
    path = index_path(settings)
    if why is not None:
        from obsidian_memory.core import logs

        logs.log_for(settings, f"the local index {path} is damaged ({why}): deleted, it is built again")
    with update_lock(path):
        sqlitedb.remove_files(path)


def using_fresh(settings: Settings, work: Callable[[VaultIndex], T]) -> T:
    """`work(index)` on the index brought up to date, in one snapshot; a file found damaged on the
    way is deleted, built again and `work` runs once more (`sqlitedb.again_if_damaged`)."""
    def read() -> T:
        with VaultIndex.open_fresh(settings) as index:
            return work(index)
    return sqlitedb.again_if_damaged(read, lambda why: discard(settings, why))


def rebuild(settings: Settings, *, progress: bool | None = None) -> UpdateStats:
    """Every note read again into a new file beside the index, which then takes its place: until
    then searches answer from the previous index (and a damaged one is never read)."""
    _check_vault(settings)
    path = index_path(settings)
    fresh = path + ".rebuild"
    with FileLock(fresh + ".busy", timeout=0.0):
        sqlitedb.remove_files(fresh)
        conn, _ = _connect(fresh)
        index = VaultIndex(conn, settings, fresh)
        try:
            stats = index.update(progress=progress)
            _compared_with_previous(stats, settings, set(index.paths()))
        finally:
            index.close()            # the last connection: its WAL is merged into the file
        with update_lock(path):
            for suffix in ("-wal", "-shm", "-journal"):   # the old file's: never to be read with the new one
                sqlitedb.remove_files_with(path, suffix)
            os.replace(fresh, path)
        sqlitedb.remove_files(fresh)
    return stats


def _compared_with_previous(stats: UpdateStats, settings: Settings, paths: set[str]) -> None:
    """A rebuild's counts as against the index it replaces: notes it had are `updated`; none to
    read (missing or damaged): the index was `rebuilt`."""
    previous: set[str] | None = None
    try:
        old = VaultIndex.open_readonly(settings)
        if old is not None:
            with old:
                previous = set(old.paths())
    except sqlitedb.errors("DatabaseError"):
        previous = None
    if previous is None:
        stats.rebuilt = True
        return
    stats.updated = len(paths & previous)
    stats.added = len(paths - previous)
    stats.removed = len(previous - paths)


# -- opening the file ------------------------------------------------------------------------------------

def _connect(path: str) -> tuple[sqlite3.Connection, bool]:
    """(an open index with the current schema, whether it was created); a file of another schema
    version is emptied and made again. A damaged file raises (the caller decides: `discard`)."""
    conn = _open_current(path)
    if conn is not None:
        return conn, False
    with update_lock(path):
        conn = _open_current(path)        # another process may have made it meanwhile
        if conn is not None:
            return conn, False
        conn = _emptied(path)
        schema.create(conn, sqlitedb.index_library()[1])
        return conn, True


def _open_current(path: str) -> sqlite3.Connection | None:
    """The file opened when it holds the current schema, else None. A missing file is not made
    here: only `_emptied`, under the update lock, makes one."""
    if not os.path.exists(path):
        return None
    conn = _open(path)
    try:
        if _current(conn):
            return conn
    except BaseException:
        conn.close()
        raise
    conn.close()
    return None


def _emptied(path: str) -> sqlite3.Connection:
    """The file at `path` opened with nothing in it: a new file, or the old one with its tables
    dropped. The old file is not deleted while it can be: a process that found it outdated a
    moment ago may still have it open, and closing the last connection to a deleted file deletes
    the WAL file by its name, which by then is the new file's, with the tables just made in it.
    Deleted only when its tables cannot be dropped (damaged, or made by a newer SQLite) or its
    pages are not of the index's size (an upgrade from before 32 KiB pages)."""
    if os.path.exists(path):
        conn = _open(path)
        try:
            if conn.execute("PRAGMA page_size").fetchone()[0] == schema.PAGE_SIZE:
                with sqlitedb.transaction(conn):
                    _drop_everything(conn)
                return conn
        except sqlitedb.errors("DatabaseError"):
            pass
        conn.close()
    sqlitedb.remove_files(path)
    return _open(path)


def _drop_everything(conn: sqlite3.Connection) -> None:
    """Every view, trigger and table of the file dropped; virtual tables first, which drop their
    own shadow tables."""
    def names(where: str) -> list[str]:
        rows = conn.execute(f"SELECT name FROM sqlite_master WHERE {where} AND name NOT LIKE 'sqlite_%'")
        return ['"' + name.replace('"', '""') + '"' for (name,) in rows]

    for kind in ("VIEW", "TRIGGER"):
        for name in names(f"type = '{kind.lower()}'"):
            conn.execute(f"DROP {kind} IF EXISTS {name}")
    for name in names("type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'") + names("type = 'table'"):
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute("PRAGMA user_version = 0")


def _open(path: str, readonly: bool = False) -> sqlite3.Connection:
    """The file opened with the index's SQLite library (`sqlitedb.index_library`)."""
    library = sqlitedb.index_library()[0]
    if readonly:
        return sqlitedb.connect(path, readonly=True, timeout=5, library=library)
    return sqlitedb.connect(path, foreign_keys=True, page_size=schema.PAGE_SIZE, library=library)


def _current(conn: sqlite3.Connection) -> bool:
    """Whether the file holds the current schema, made the way this process's SQLite library
    removes FTS rows (else it is built again: a disposable cache)."""
    if sqlitedb.schema_version(conn) != schema.SCHEMA_VERSION:
        return False
    mode = sqlitedb.meta(conn, schema.FTS_DELETE)      # (a damaged file fails here)
    return mode == schema.fts_delete_mode(sqlitedb.index_library()[1])


def _check_vault(settings: Settings) -> None:
    if not os.path.isdir(settings.vault):
        from obsidian_memory.core.errors import UserError

        raise UserError(f"vault not found: {settings.vault} (set OBSIDIAN_VAULT or pass --vault)")


def status(settings: Settings) -> dict[str, Any]:
    """For `status` and `doctor`: where the index is, how big and how fresh (never builds it)."""
    from obsidian_memory.vault.markdown import SEARCHED_BYTES

    path = index_path(settings)
    info: dict[str, Any] = {
        "engine": "index", "vault": settings.vault, "index_path": path, "exists": os.path.exists(path),
        "schema_version": schema.SCHEMA_VERSION, "notes_indexed": 0, "size_bytes": 0, "last_update": None,
        "skipped": {"count": 0, "names": []}, "cut": {"count": 0, "bytes": 0, "searched_bytes": SEARCHED_BYTES},
        "sqlite": sqlite_used()}
    if not info["exists"]:
        return info
    info["size_bytes"] = sqlitedb.size_on_disk(path)
    try:
        conn = _open(path, readonly=True)
        try:
            info["schema_version"] = sqlitedb.schema_version(conn)
            info["notes_indexed"] = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
            last = sqlitedb.meta(conn, "last_update")
            info["last_update"] = float(last) if last else None
            cut, over = conn.execute("SELECT count(*), total(size - ?) FROM notes WHERE size > ?",
                                     (SEARCHED_BYTES, SEARCHED_BYTES)).fetchone()
            info["cut"] = {"count": cut, "bytes": int(over), "searched_bytes": SEARCHED_BYTES}
            skipped = sqlitedb.meta(conn, build.SKIPPED)
            if skipped:
                import json

                info["skipped"] = json.loads(skipped)
        finally:
            conn.close()
    except sqlitedb.errors("DatabaseError") as exc:
        info["error"] = f"damaged index ({exc}): the next search or reindex deletes it and builds it again"
    return info


def sqlite_used() -> str:
    """Which SQLite the index uses and what that means for its size (for `status` and `doctor`)."""
    library, by_id = sqlitedb.index_library()
    name = "sqlean.py" if library.__name__.startswith("sqlean") else "Python's sqlite3"
    if by_id:
        return f"SQLite {library.sqlite_version} ({name}): no copy of the notes' text"
    return (f"SQLite {library.sqlite_version} ({name}): each note's text kept, compressed, to delete with"
            f" (with SQLite 3.43 or later, e.g. `pip install sqlean.py` in its venv, the index is about a fifth smaller)")


def integrity(settings: Settings) -> str:
    """'ok', or what SQLite's quick check finds wrong with the index file (for `doctor`: it reads
    the whole file)."""
    path = index_path(settings)
    try:
        conn = _open(path, readonly=True)
        try:
            problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check(3)")]
        finally:
            conn.close()
    except sqlitedb.errors("DatabaseError") as exc:
        return str(exc)
    return "ok" if problems == ["ok"] else "; ".join(problems)
