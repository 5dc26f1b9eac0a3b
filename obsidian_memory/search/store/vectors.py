"""The vector store of the semantic extra: the embeddings of every note's chunks (`markdown.chunks_of`),
computed incrementally, and read back as one matrix per model.

Where: a SQLite file beside the vault index in `settings.cache_dir` (`vectors-<vault digest>.sqlite`),
not tables inside the index. The index is a cheap cache that is deleted and rebuilt whenever
its schema changes; embeddings cost minutes to hours of CPU, so they must survive that, and a
separate file keeps the two schemas from coupling (and this one migrates forward, MIGRATIONS).

Keys: a vector is stored once per (model, text hash) and notes point to their chunks' hashes,
so an unchanged note is never read twice (mtime + size), an edited note re-embeds only the
chunks whose text changed, a renamed note re-embeds nothing, and a model change re-embeds all.
Work is committed a few notes at a time: a killed run keeps what it finished. This module is
the only code that speaks SQL to the store.
"""
from __future__ import annotations

import os
import sqlite3
import time

from obsidian_memory.core import sqlitedb
from obsidian_memory.core.fsutil import read_text
from obsidian_memory.vault.canvas import searched_text
from obsidian_memory.vault.privacy import Privacy
from obsidian_memory.search.links import note_title
from obsidian_memory.core.locks import LockBusy
from obsidian_memory.search.store.build import update_lock
from obsidian_memory.search.store.index import VaultIndex, index_path
from obsidian_memory.core.sqlitedb import meta, set_meta, transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from concurrent.futures import Future
    from typing import Any, Protocol

    from obsidian_memory.core.settings import Settings
    from obsidian_memory.vault.markdown import Chunk

    Stamp = tuple[int, int]              # a note's (mtime_ns, size)

    class Embedder(Protocol):
        """What embeds the notes (`search.semantic`, or a test's stand-in)."""
        def model_id(self) -> str: ...
        def embed_passages(self, texts: list[str]) -> Any: ...   # one vector per text

BATCH_NOTES = 8            # notes embedded per commit
CALL_CHARS = 2000          # characters of text per model call (see model_calls)
AHEAD = 2                  # batches read ahead per worker
# What a note is embedded by (`note_chunks`); a store chunked otherwise has every note read again
# by the next `embed`, and a chunk whose text did not change keeps its vector (searches use the
# stored vectors meanwhile). 2: session notes by what tells them apart.
CHUNKING = "2"
DTYPE = "float16"          # on disk; searched as float32


def _migration_1(conn: sqlite3.Connection) -> None:
    sqlitedb.run_script(conn, """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE notes (
            path TEXT PRIMARY KEY,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            model TEXT NOT NULL,
            embedded_at REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE chunks (
            path TEXT NOT NULL,
            seq INTEGER NOT NULL,
            text_hash TEXT NOT NULL,
            PRIMARY KEY (path, seq)
        ) WITHOUT ROWID;
        CREATE INDEX chunks_by_hash ON chunks(text_hash);
        CREATE TABLE embeddings (
            model TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model, text_hash)
        ) WITHOUT ROWID;
    """)


MIGRATIONS = [_migration_1]
SCHEMA_VERSION = len(MIGRATIONS)


# -- the file ---------------------------------------------------------------------------------------

def store_path(settings: Settings) -> str:
    """Beside the index, named from the same digest of the vault's real path."""
    name = os.path.basename(index_path(settings))
    return os.path.join(settings.cache_dir, "vectors-" + name[len("index-"):])


def connect(path: str, readonly: bool = False) -> sqlite3.Connection:
    """The store at the current schema. Writing, a damaged file or one written by a newer
    version is replaced (it holds only what `embed` can compute again); read-only, such a file
    is an error."""
    if readonly:
        conn = sqlitedb.connect(path, readonly=True)
        if sqlitedb.schema_version(conn) != SCHEMA_VERSION:
            conn.close()
            raise sqlite3.DatabaseError("vector store of another version")
        return conn
    try:
        return _open_current(path)
    except sqlite3.DatabaseError:
        sqlitedb.remove_files(path)
        return _open_current(path)


def _open_current(path: str) -> sqlite3.Connection:
    conn = sqlitedb.connect(path)
    try:
        if sqlitedb.migrate(conn, MIGRATIONS) != SCHEMA_VERSION:
            raise sqlite3.DatabaseError("vector store of a newer version")
        meta(conn, "generation")            # a damaged file fails here
    except BaseException:
        conn.close()
        raise
    return conn


# -- embedding the vault -----------------------------------------------------------------------------

class EmbedStats:
    def __init__(self, model: str = "") -> None:
        self.notes = 0             # notes in the vault
        self.embedded = 0          # notes (re-)embedded by this run
        self.reused = 0            # notes whose content was already embedded (moved, touched)
        self.unchanged = 0
        self.removed = 0
        self.chunks_embedded = 0   # texts actually sent to the model
        self.chunks_reused = 0
        self.remaining = 0         # notes still to embed (after --limit or an interruption)
        self.seconds = 0.0
        self.model = model

    def summary(self) -> str:
        text = (f"{self.embedded} notes embedded ({self.chunks_embedded} texts, {self.chunks_reused} reused), "
                f"{self.unchanged + self.reused} unchanged, {self.removed} removed in {self.seconds:.1f}s")
        if self.remaining:
            text += f"; {self.remaining} notes left (run `embed` again)"
        return text


class Busy(Exception):
    """Another process is embedding this vault."""


def embed_vault(settings: Settings, *, limit: int | None = None, embedder: Embedder | None = None,
                progress: bool | None = None, batch_notes: int = BATCH_NOTES, threads: int = 1) -> EmbedStats:
    """Bring the store in step with the vault: embed new and changed notes (most recently
    modified first, at most `limit` of them), forget deleted ones. The notes are those the
    vault index holds, brought up to date first: a private note is never embedded. `embedder`
    provides `model_id()` and `embed_passages(texts)` (default: the real model), called from
    `threads` worker threads at once (`semantic.cap_threads` lets the real model run that many
    calls side by side). `progress`: True shows a bar with an ETA on stderr, None only on a
    terminal, False never. A store found damaged on the way is deleted and filled again."""
    if embedder is None:
        from obsidian_memory.search import semantic
        embedder = semantic
    chosen = embedder
    return sqlitedb.again_if_damaged(lambda: _embed_vault(settings, limit, chosen, progress, batch_notes,
                                                          max(1, int(threads))), lambda why: discard(settings, why))


def discard(settings: Settings, why: BaseException) -> None:
    """Delete the vector store (found damaged: `why`); `embed` fills a new one."""
    from obsidian_memory.core import logs

    path = store_path(settings)
    logs.log_for(settings, f"the vector store {path} is damaged ({why}): deleted; `embed` fills it again")
    sqlitedb.remove_files(path)


def _embed_vault(settings: Settings, limit: int | None, embedder: Embedder, progress: bool | None,
                 batch_notes: int, threads: int) -> EmbedStats:
    started = time.perf_counter()
    model = embedder.model_id()
    stats = EmbedStats(model=model)
    path = store_path(settings)
    conn = connect(path)
    try:
        try:
            with update_lock(path, wait=0.5):
                with VaultIndex.open_fresh(settings) as index:     # (its removals are then ours to count)
                    on_disk = index.stats_of_notes()
                stats.notes = len(on_disk)
                _forget_other_models(conn, model)
                _forget_other_chunking(conn)
                stats.removed = _forget_deleted(conn, on_disk)
                todo = _todo(conn, on_disk, model, stats)
                if limit is not None:
                    stats.remaining = max(0, len(todo) - limit)
                    todo = todo[:max(0, limit)]
                _embed_notes(conn, settings, todo, model, embedder, stats, progress, batch_notes, threads)
                _collect_garbage(conn)
        except LockBusy as exc:
            raise Busy(f"another process is embedding this vault ({exc})") from exc
    finally:
        conn.close()
    stats.seconds = time.perf_counter() - started
    return stats


def forget(settings: Settings, paths: list[str]) -> None:
    """Drop the chunks of notes that left the index (deleted, moved, or private now), so that
    no vector of them is read again; the vectors themselves are collected by the next `embed`
    (a moved note's text is then found already embedded). Never waits: while an `embed` runs,
    the next one does it (searches read only the vectors of indexed notes meanwhile)."""
    path = store_path(settings)
    if not paths or not os.path.exists(path):
        return
    try:
        with update_lock(path, wait=0):
            conn = connect(path)
            try:
                with transaction(conn):
                    conn.executemany("DELETE FROM notes WHERE path = ?", [(p,) for p in paths])
                    conn.executemany("DELETE FROM chunks WHERE path = ?", [(p,) for p in paths])
                    _bump_generation(conn)
            finally:
                conn.close()
    except (LockBusy, sqlite3.DatabaseError, OSError):
        pass


def _forget_other_models(conn: sqlite3.Connection, model: str) -> None:
    if conn.execute("SELECT 1 FROM embeddings WHERE model != ? LIMIT 1", (model,)).fetchone() is None:
        return
    with transaction(conn):
        conn.execute("DELETE FROM embeddings WHERE model != ?", (model,))


def _forget_other_chunking(conn: sqlite3.Connection) -> None:
    """Notes chunked by another CHUNKING are read again (their stamps forgotten), once."""
    if meta(conn, "chunking") != CHUNKING:
        with transaction(conn):
            conn.execute("UPDATE notes SET mtime_ns = -1")
            set_meta(conn, "chunking", CHUNKING)


def _forget_deleted(conn: sqlite3.Connection, on_disk: dict[str, Stamp]) -> int:
    gone = [p for (p,) in conn.execute("SELECT path FROM notes") if p not in on_disk]
    if gone:
        with transaction(conn):
            conn.executemany("DELETE FROM notes WHERE path = ?", [(p,) for p in gone])
            conn.executemany("DELETE FROM chunks WHERE path = ?", [(p,) for p in gone])
        _bump(conn)
    return len(gone)


def _todo(conn: sqlite3.Connection, on_disk: dict[str, Stamp], model: str,
          stats: EmbedStats) -> list[tuple[str, Stamp]]:
    stored = {p: (m, s, mod) for p, m, s, mod in conn.execute("SELECT path, mtime_ns, size, model FROM notes")}
    todo: list[tuple[str, Stamp]] = []
    for path, stat in on_disk.items():
        row = stored.get(path)
        if row is not None and row[0] == stat[0] and row[1] == stat[1] and row[2] == model:
            stats.unchanged += 1
        else:
            todo.append((path, stat))
    todo.sort(key=lambda item: (-item[1][0], item[0]))      # the most recently changed first
    return todo


def _embed_notes(conn: sqlite3.Connection, settings: Settings, todo: list[tuple[str, Stamp]], model: str,
                 embedder: Embedder, stats: EmbedStats, progress: bool | None, batch_notes: int,
                 threads: int) -> None:
    """Notes read, chunked and written here while `threads` workers run the model: a few
    batches ahead, so that the model never waits for a file or a commit."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    bar = EmbedProgress(todo, progress)
    in_flight: deque[tuple[list[tuple[str, Stamp]], list[_Read], dict[str, str], list[Future[Any]]]] = deque()
    coming: set[str] = set()       # texts a batch in flight embeds (a later batch need not)
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="embed")
    try:
        for start in range(0, len(todo), batch_notes):
            part = todo[start:start + batch_notes]
            batch = [item for item in (_read(settings, path, stat) for path, stat in part) if item is not None]
            known = _known_hashes(conn, model, {c.hash for item in batch for c in item.chunks})
            missing: dict[str, str] = {}
            for item in batch:
                for chunk in item.chunks:
                    if chunk.hash not in known and chunk.hash not in coming:
                        missing.setdefault(chunk.hash, chunk.text)
            coming.update(missing)
            calls = [pool.submit(embedder.embed_passages, texts) for texts in model_calls(list(missing.values()))]
            in_flight.append((part, batch, missing, calls))
            while len(in_flight) > AHEAD * threads:
                coming.difference_update(_store(conn, model, stats, bar, *in_flight.popleft()))
        while in_flight:
            _store(conn, model, stats, bar, *in_flight.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()


def model_calls(texts: list[str]) -> list[list[str]]:
    """The texts in the order given, cut into model calls of about CALL_CHARS characters (a
    longer text alone): the engine's cost per token grows with its batch (the activations leave
    the cache), and a call of one tiny text would stream the weights for a few tokens."""
    calls: list[list[str]] = []
    size = CALL_CHARS
    for text in texts:
        if size + len(text) > CALL_CHARS:
            calls.append([])
            size = 0
        calls[-1].append(text)
        size += len(text)
    return calls


def _store(conn: sqlite3.Connection, model: str, stats: EmbedStats, bar: EmbedProgress,
           part: list[tuple[str, Stamp]], batch: list[_Read], missing: dict[str, str],
           calls: list[Future[Any]]) -> dict[str, str]:
    """Wait for a batch's model calls and commit it; its `missing` texts are stored now."""
    from obsidian_memory.search import semantic

    vectors = [vector for call in calls for vector in call.result()]
    blobs = [(model, h, blob) for h, blob in zip(missing, semantic.stored(vectors))]
    _write_batch(conn, batch, blobs, model)
    stats.chunks_embedded += len(missing)
    stats.chunks_reused += sum(len(item.chunks) for item in batch) - len(missing)
    for item in batch:
        if any(c.hash in missing for c in item.chunks):
            stats.embedded += 1
        else:
            stats.reused += 1
    bar.done(part)
    return missing


LINE_SECONDS = 10.0   # off a terminal, a progress line this often


class EmbedProgress:
    """The bar of `embed` (`progress.progress_bar`): notes done and an ETA from the bytes of the
    notes left, not from their count (a note may be 100 bytes or 100 KB). Off a terminal, a line
    every LINE_SECONDS instead."""

    def __init__(self, todo: list[tuple[str, Stamp]], progress: bool | None) -> None:
        from obsidian_memory.core.progress import progress_bar

        self.notes, self.total = 0, len(todo)
        self.bar = progress_bar(sum(_weight(stat) for _, stat in todo), progress, desc=self._desc(), unit="B",
                                unit_scale=True, mininterval=0.5, lines_every=LINE_SECONDS,
                                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} elapsed, ETA {remaining}")

    def _desc(self) -> str:
        return f"embedding {self.notes}/{self.total} notes"

    def done(self, part: list[tuple[str, Stamp]]) -> None:
        if self.bar is None:
            return
        self.notes += len(part)
        self.bar.set_description_str(self._desc(), refresh=False)
        self.bar.update(sum(_weight(stat) for _, stat in part))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _weight(stat: Stamp) -> int:
    return max(1, int(stat[1]))


class _Read:
    """A note read for embedding: its stamp, the hash of its text and its chunks (`markdown.Chunk`)."""
    __slots__ = ("path", "stat", "content_hash", "chunks")

    def __init__(self, path: str, stat: Stamp, content_hash: str, chunks: list[Chunk]) -> None:
        self.path, self.stat, self.content_hash, self.chunks = path, stat, content_hash, chunks


def _read(settings: Settings, path: str, stat: Stamp) -> _Read | None:
    from obsidian_memory.vault.markdown import text_hash

    text = read_text(os.path.join(settings.vault, *path.split("/")))
    searched = searched_text(path, text) if text is not None else None
    if text is None or searched is None or Privacy.of(settings).text_is_private(searched):
        return None                 # vanished, unreadable, or private since the index saw it: the next run sees it
    return _Read(path, stat, text_hash(searched), note_chunks(path, text))


def note_chunks(path: str, text: str) -> list[Chunk]:
    """The chunks (`markdown.chunks_of`) a note's file text is embedded by: a canvas by its cards'
    text, a session note by what tells it from other sessions (session_reader.told_apart_text),
    any other note by its text. Its excerpts are cut from the same chunks."""
    from obsidian_memory.vault import frontmatter
    from obsidian_memory.vault.markdown import chunks_of

    if path.endswith(".md") and frontmatter.block_mentions(text, "session_id"):
        from obsidian_memory.vault.notes.session_reader import told_apart_text   # (only then: its imports are heavy)

        session = told_apart_text(text)
        if session is not None:
            return chunks_of(session[1], session[0] or note_title(path))
    return chunks_of(searched_text(path, text), note_title(path))


def _known_hashes(conn: sqlite3.Connection, model: str, hashes: set[str]) -> set[str]:
    known: set[str] = set()
    items = list(hashes)
    for start in range(0, len(items), 500):
        part = items[start:start + 500]
        marks = ",".join("?" * len(part))
        known.update(h for (h,) in conn.execute(
            f"SELECT text_hash FROM embeddings WHERE model = ? AND text_hash IN ({marks})", [model, *part]))
    return known


def _write_batch(conn: sqlite3.Connection, batch: list[_Read], blobs: Iterable[tuple[str, str, bytes]],
                 model: str) -> None:
    with transaction(conn):
        conn.executemany("INSERT OR IGNORE INTO embeddings(model, text_hash, vector) VALUES (?, ?, ?)", blobs)
        for item in batch:
            conn.execute("DELETE FROM chunks WHERE path = ?", (item.path,))
            conn.executemany("INSERT INTO chunks(path, seq, text_hash) VALUES (?, ?, ?)",
                             [(item.path, seq, c.hash) for seq, c in enumerate(item.chunks)])
            conn.execute("INSERT INTO notes(path, mtime_ns, size, content_hash, model, embedded_at)"
                         " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET mtime_ns = excluded.mtime_ns,"
                         " size = excluded.size, content_hash = excluded.content_hash, model = excluded.model,"
                         " embedded_at = excluded.embedded_at",
                         (item.path, item.stat[0], item.stat[1], item.content_hash, model, time.time()))
        _bump_generation(conn)


def _collect_garbage(conn: sqlite3.Connection) -> None:
    """Vectors no chunk points to any more (edited or deleted notes)."""
    with transaction(conn):
        conn.execute("DELETE FROM embeddings WHERE NOT EXISTS"
                     " (SELECT 1 FROM chunks c WHERE c.text_hash = embeddings.text_hash)")


def _bump(conn: sqlite3.Connection) -> None:
    with transaction(conn):
        _bump_generation(conn)


def _bump_generation(conn: sqlite3.Connection) -> None:
    """Readers keep the matrix they loaded until the generation changes."""
    set_meta(conn, "generation", str(int(meta(conn, "generation") or 0) + 1))


# -- reading it back ------------------------------------------------------------------------------------

class Matrix:
    """Every vector of one model, with the note and chunk number of each row: `paths` (the notes),
    `owner` (row -> index into `paths`), `seqs` (row -> chunk number) and `blobs` (row -> its
    vector as stored: DIM float16 in native byte order). Read without numpy: a small store is
    scored in plain Python (`hybrid.rows_of`); `vectors` is the numpy matrix (rows x DIM float16,
    read-only) for a large one, made on first use (the blobs are then let go: one copy in memory)."""

    def __init__(self, model: str, paths: list[str], owner: list[int], seqs: list[int], blobs: list[bytes]) -> None:
        self.model, self.paths, self.owner, self.seqs = model, paths, owner, seqs
        self.blobs: list[bytes] | None = blobs     # (None once `vectors` holds them)
        self._vectors: Any = None
        self.scored = False        # whether a search of this process scored it already (`hybrid.rows_of`)

    @property
    def vectors(self) -> Any:
        """(numpy's ndarray: numpy comes with the semantic extra only)"""
        if self._vectors is None:
            import numpy as np

            blobs = self.blobs or []
            dim = len(blobs[0]) // 2 if blobs else 0
            self._vectors = np.frombuffer(b"".join(blobs), dtype=DTYPE).reshape(len(blobs), dim)
            self.blobs = None
        return self._vectors


_cache: dict[tuple[str, str], tuple[str | None, Matrix]] = {}


def load_matrix(settings: Settings, model: str) -> Matrix | None:
    """The store's vectors for `model` (None without a store), cached per process until the
    store changes."""
    path = store_path(settings)
    if not os.path.exists(path):
        return None
    try:
        conn = connect(path, readonly=True)
    except sqlite3.DatabaseError:
        return None
    try:
        generation = meta(conn, "generation")
        key = (path, model)
        cached = _cache.get(key)
        if cached is not None and cached[0] == generation:
            return cached[1]
        matrix = _read_matrix(conn, model)
    except sqlite3.DatabaseError as exc:
        if not sqlitedb.damaged(exc):
            raise
        conn.close()
        discard(settings, exc)
        return None
    finally:
        conn.close()
    _cache[key] = (generation, matrix)
    return matrix


def _read_matrix(conn: sqlite3.Connection, model: str) -> Matrix:
    paths: list[str] = []
    owner: list[int] = []
    seqs: list[int] = []
    blobs: list[bytes] = []
    index: dict[str, int] = {}
    for path, seq, blob in conn.execute("SELECT c.path, c.seq, e.vector FROM chunks c JOIN embeddings e"
                                        " ON e.model = ? AND e.text_hash = c.text_hash", (model,)):
        if path not in index:
            index[path] = len(paths)
            paths.append(path)
        owner.append(index[path])
        seqs.append(seq)
        blobs.append(blob)
    return Matrix(model, paths, owner, seqs, blobs)


def embedded_by(settings: Settings, model: str) -> str:
    """Whether some notes are embedded by `model`: "this model", "another model", "none", or
    what makes the store unreadable. (What a search must know, without `coverage`'s counts.)"""
    path = store_path(settings)
    if not os.path.exists(path):
        return "none"
    try:
        conn = connect(path, readonly=True)
    except sqlite3.DatabaseError as exc:
        return f"unreadable vector store ({exc}); `embed` rebuilds it"
    try:
        if conn.execute("SELECT 1 FROM notes WHERE model = ? LIMIT 1", (model,)).fetchone():
            return "this model"
        return "another model" if conn.execute("SELECT 1 FROM notes LIMIT 1").fetchone() else "none"
    except sqlite3.DatabaseError as exc:
        return f"unreadable vector store ({exc}); `embed` rebuilds it"
    finally:
        conn.close()


def coverage(settings: Settings, model: str | None = None) -> dict[str, Any]:
    """How much of the vault the store covers: {"path", "exists", "embedded", "vectors", "size_bytes",
    "model", "models", "last_embed"} (and "error" for a file that cannot be read)."""
    path = store_path(settings)
    info: dict[str, Any] = {"path": path, "exists": os.path.exists(path), "embedded": 0, "vectors": 0,
                            "size_bytes": 0, "model": model, "models": []}
    if not info["exists"]:
        return info
    info["size_bytes"] = sqlitedb.size_on_disk(path)
    try:
        conn = connect(path, readonly=True)
    except sqlite3.DatabaseError as exc:
        info["error"] = f"unreadable vector store ({exc}); `embed` rebuilds it"
        return info
    try:
        info["models"] = [m for (m,) in conn.execute("SELECT DISTINCT model FROM notes")]
        where, params = ("WHERE model = ?", [model]) if model else ("", [])
        info["embedded"] = conn.execute(f"SELECT count(*) FROM notes {where}", params).fetchone()[0]
        info["vectors"] = conn.execute(f"SELECT count(*) FROM embeddings {where}", params).fetchone()[0]
        row = conn.execute("SELECT max(embedded_at) FROM notes").fetchone()
        info["last_embed"] = row[0] if row else None
    except sqlite3.DatabaseError as exc:
        info["error"] = f"unreadable vector store ({exc}); `embed` rebuilds it"
    finally:
        conn.close()
    return info
