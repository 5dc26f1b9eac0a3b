"""Keeping the index in step with the vault: the walk, the freshness check, the update.

Freshness is by each note's stamp (mtime_ns, size, ctime_ns): a walk of the vault plus one bulk
select; only notes that changed are parsed again (README, "How fresh the local index is", says
what this guarantees). The check that finds nothing changed, which every search makes, imports
nothing heavy: `markdown` only once a note has to be read. Concurrent processes are serialised
by an update lock (a lock file beside the index) on top of SQLite's own locking (WAL, busy timeout, BEGIN IMMEDIATE), and
every write is an idempotent upsert keyed by the note's path. `VaultIndex.update` is the way in.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import time
import zlib

from obsidian_memory.core import cjk
from obsidian_memory.core.fsutil import read_text
from obsidian_memory.core.locks import FileLock, LockBusy
from obsidian_memory.vault.privacy import Privacy
from obsidian_memory.search import links as link_resolution
from obsidian_memory.search.store import walk
from obsidian_memory.search.store.walk import Walk
from obsidian_memory.search.tokens import identifiers
from obsidian_memory.search.store.schema import (FTS_COLUMNS, PACKED_COLUMNS, PLAIN_COLUMNS, Codec, Content,
                                                 StoredLink, drop_lookup_indexes, ensure_lookup_indexes,
                                                 ensure_scratch, keeps_text)
from obsidian_memory.core.sqlitedb import errors, meta, set_meta, transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, TypeVar

    from obsidian_memory.vault.markdown import Note

    T = TypeVar("T")

    Stamp = tuple[int, int, int]                  # a note's (mtime_ns, size, ctime_ns)
    Stored = dict[str, tuple[Stamp, "int | None"]]  # {path: (stamp, its id; None: a private note)}
    Todo = tuple[str, Stamp, bool]                # (path, stamp, whether the index had it)
    Resolve = Callable[[str, str, str], "str | None"]   # (target, source, kind) -> the path it names

LOCK_WAIT_SECONDS = 60.0
BATCH_SIZE = 500
PROGRESS_THRESHOLD = 200          # a build this large shows a progress bar on a terminal
SWITCH_INTERVAL = 0.0005          # seconds, while the parse thread runs (see _parsed_batches)


class UpdateStats:
    def __init__(self) -> None:
        self.added = self.updated = self.removed = self.unchanged = 0
        self.seconds = 0.0
        self.rebuilt = False          # the file was (re)created: missing, old schema or corrupt
        self.skipped = False          # another process held the update lock too long: answered as is
        self.link_seconds = 0.0       # of `seconds`, the time spent resolving links
        self.skipped_names: list[str] = []   # notes and folders left out: names not UTF-8
        self.removed_paths: list[str] = []   # the notes that left the index (deleted, moved, private)
        self.failed_names: list[str] = []    # notes left out because they could not be parsed

    def __repr__(self) -> str:
        return f"UpdateStats({self.summary()})"

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed

    def summary(self) -> str:
        text = (f"{self.added} added, {self.updated} updated, {self.removed} removed, "
                f"{self.unchanged} unchanged in {self.seconds:.2f}s")
        if self.rebuilt:
            text += " (index rebuilt)"
        if self.skipped:
            text += " (another process is updating the index; answered from its current state)"
        if self.skipped_names:
            text += f"; {skipped_text(self.skipped_names)}"
        if self.failed_names:
            shown = ", ".join(self.failed_names[:3]) + (", ..." if len(self.failed_names) > 3 else "")
            text += f"; {len(self.failed_names)} left out: could not be parsed ({shown})"
        return text


def skipped_text(names: list[str], count: int | None = None) -> str:
    """"2 skipped: names not valid UTF-8 (a\\xff.md, b\\xfe/); rename them to find them"."""
    count = len(names) if count is None else count
    shown = ", ".join(names[:3]) + (f" (+{count - 3} more)" if count > 3 else "")
    return f"{count} skipped: names not valid UTF-8 ({shown}); rename them to find them"


def cut_text(cut: dict[str, Any]) -> str:
    """"1 note over 1 MB: only its first 1 MB is searched (2.1 MB left out)", of index.status's `cut`."""
    count, limit = cut["count"], cut["searched_bytes"] / 2**20
    return (f"{count} note{'s' if count != 1 else ''} over {limit:g} MB: only {'their' if count != 1 else 'its'} "
            f"first {limit:g} MB {'are' if count != 1 else 'is'} searched ({cut['bytes'] / 2**20:.1f} MB left out)")


# -- the update lock ---------------------------------------------------------------------------

def update_lock(path: str, wait: float = LOCK_WAIT_SECONDS) -> FileLock:
    """The lock file beside the index (or the vector store), so that one process updates at a
    time and the others, once they get it (`waited`), find the work done."""
    return FileLock(path + ".lock", timeout=wait)


# -- the vault walk (`walk`) ------------------------------------------------------------------

def walk_vault(vault: str, ignore: tuple[str, ...] = (), skipped: list[str] | None = None,
               privacy: Privacy | None = None, known: str | None = None) -> Walk:
    """Every note of the vault and its stamp (`walk.walk_vault`), as the update walks it;
    `known`: the state of an earlier walk (`walk_state`), whose folders then need no listing."""
    return walk.walk_vault(vault, ignore, skipped, privacy, known)


WALK_STATE = "walk_state"       # meta: the state of the last walk that listed the folders (Walk.state)


def walk_state(conn: sqlite3.Connection) -> str | None:
    return meta(conn, WALK_STATE)


def keep_walk_state(conn: sqlite3.Connection, lock_path: str, found: Walk) -> None:
    """After a check whose walk listed the folders: its state, for the next walk to check the
    folders instead (or none, when the walk cannot vouch for them). Best effort, and only while
    no other process updates the index (a search does not wait for that)."""
    if not found.listed:
        return
    try:
        with update_lock(lock_path, wait=0):
            _set_walk_state(conn, found)
    except (OSError, *errors("OperationalError")):     # (LockBusy among them; a lock file that cannot be made)
        pass


def _set_walk_state(conn: sqlite3.Connection, found: Walk | None) -> None:
    state = found.state(_settled) if found is not None else None
    if state == meta(conn, WALK_STATE):
        return
    if state is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (WALK_STATE,))
    else:
        set_meta(conn, WALK_STATE, state)


# -- the update ------------------------------------------------------------------------------

def update(conn: sqlite3.Connection, vault: str, ignore: tuple[str, ...], *, lock_path: str, force: bool = False,
           progress: bool | None = None, lock_wait: float = LOCK_WAIT_SECONDS,
           privacy: Privacy | None = None) -> UpdateStats:
    """Bring the index in step with the vault; only changed notes are parsed again.

    The check with nothing changed is a walk plus one comparison: the fingerprint of the walk
    (paths and stamps in walk order) against the one stored by the last complete update, then
    the content of the few notes whose stamp cannot tell a later edit apart (`unsettled`).
    When the fingerprints differ the per-note comparison decides what to re-read. Private notes
    (`privacy`) are never indexed: those private by path are not walked, those private by their
    text are kept in `private_notes` (path and stamp only) so that they are read again only when
    they change; when the rules change, every note is read again."""
    started = time.perf_counter()
    stats = UpdateStats()
    privacy = privacy if privacy is not None else Privacy(tag=None)
    found = walk_vault(vault, ignore, None, privacy, walk_state(conn))
    stats.skipped_names[:] = found.skipped
    on_disk = found.by_path()
    stored: Stored | None = None
    edited: set[str] = set()
    if not force and meta(conn, PRIVACY_RULES) != privacy.signature():
        force = True
    if not force:
        fingerprint = found.fingerprint()
        same = fingerprint == meta(conn, "fingerprint")
        pending = meta(conn, LINKS_PENDING) == "1"      # an update was cut off before resolving links
        if not same and not pending:
            stored = _stored_stats(conn)
        if not pending and (same or stored is not None and not _differs(on_disk, stored)):
            edited = _edited_unseen(conn, vault)
            if not edited:
                if not same:
                    _remember(conn, found, stats.skipped_names)
                else:
                    keep_walk_state(conn, lock_path, found)
                stats.unchanged = len(on_disk)
                stats.seconds = time.perf_counter() - started
                return stats
    try:
        with update_lock(lock_path, wait=lock_wait) as lock:
            if lock.waited or stored is None:
                found = walk_vault(vault, ignore, None, privacy)   # what the vault holds now that we may write
                stats.skipped_names[:] = found.skipped
                on_disk = found.by_path()
                stored = _stored_stats(conn)           # another process may have done the work meanwhile
            complete = _apply(conn, vault, on_disk, stored, force, progress, stats, edited, privacy)
            _remember(conn, found if complete else None, stats.skipped_names)
            set_meta(conn, PRIVACY_RULES, privacy.signature() if complete else "")
    except LockBusy:
        stats.skipped = True
    stats.seconds = time.perf_counter() - started
    return stats


SKIPPED = "skipped_names"       # meta: the names left out of the last walk (JSON list, capped)
SKIPPED_KEPT = 50


def _remember(conn: sqlite3.Connection, found: Walk | None, skipped: list[str]) -> None:
    """The fingerprint of the walk that found the vault as the index now has it (None: the
    update is incomplete), so that the next check is a single comparison, the walk's state
    (`keep_walk_state`), and the names it left out (for `status` and `doctor`). Best effort."""
    import json

    try:
        set_meta(conn, "fingerprint", found.fingerprint() if found is not None else "")
        _set_walk_state(conn, found)
        set_meta(conn, SKIPPED, json.dumps({"count": len(skipped), "names": skipped[:SKIPPED_KEPT]}))
    except errors("OperationalError"):
        pass


PRIVACY_RULES = "privacy_rules"      # meta: Privacy.signature() of the rules the index was built with


def _stored_stats(conn: sqlite3.Connection) -> Stored:
    """{path: (stamp, id)} of the indexed notes, and of the private ones with id None; the
    covering index keeps this from reading the note texts."""
    stored: Stored = {path: ((mtime, size, ctime), rowid) for path, mtime, size, ctime, rowid
                      in conn.execute("SELECT path, mtime_ns, size, ctime_ns, id FROM notes INDEXED BY notes_freshness")}
    stored.update((path, ((mtime, size, ctime), None)) for path, mtime, size, ctime
                  in conn.execute("SELECT path, mtime_ns, size, ctime_ns FROM private_notes"))
    return stored


def _differs(on_disk: dict[str, Stamp], stored: Stored) -> bool:
    if len(on_disk) != len(stored):
        return True
    for path, stamp in on_disk.items():
        row = stored.get(path)
        if row is None or row[0] != stamp:
            return True
    return False


# -- notes changed too recently for their stamp to show the next edit ---------------------------
# A file's timestamps tick in steps: a few milliseconds on Linux before 6.13 (the kernel's tick)
# and on Windows (15.6 ms), whole seconds on HFS+, ext3 and many network or synced file systems,
# two seconds on FAT. An edit made within the same step as the version we read, keeping the size,
# leaves the stamp as it was. So a note read less than a step's worth after its mtime keeps the
# digest of what was read (`unsettled`), and every check reads it again until its content
# matches that digest at a time a step's worth past its mtime: any edit after that moves the
# mtime. (git calls such entries "racily clean".) The step is taken as 3 s when the mtime is a
# whole second (the file system may count in seconds), else as 100 ms (a tick of any clock a
# system with sub-second timestamps uses), so that a vault just synced or written by a script is
# not read again at every search for seconds.

SECONDS_STEP_NS = 3_000_000_000
SUBSECOND_STEP_NS = 100_000_000


def unsettled(mtime_ns: int, now_ns: int) -> bool:
    """Whether a note with this mtime, read at `now_ns`, may be edited again without its stamp
    changing."""
    step = SECONDS_STEP_NS if mtime_ns % 1_000_000_000 == 0 else SUBSECOND_STEP_NS
    return mtime_ns > now_ns - step


def _settled(mtime_ns: int, now_ns: int) -> bool:
    """Whether a folder listed at `now_ns` with this mtime shows any later change in its stamp."""
    return not unsettled(mtime_ns, now_ns)


def content_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _edited_unseen(conn: sqlite3.Connection, vault: str) -> set[str]:
    """The unsettled notes whose content is no longer what the index holds; those that settle
    (same content, read late enough) leave the list (best effort: a read-only check)."""
    rows = conn.execute("SELECT n.path, n.mtime_ns, u.digest, u.note_id FROM unsettled u"
                        " JOIN notes n ON n.id = u.note_id").fetchall()
    edited: set[str] = set()
    settled: list[tuple[int]] = []
    for path, mtime_ns, digest, note_id in rows:
        now = time.time_ns()
        text = read_text(os.path.join(vault, *path.split("/")))
        if text is not None and content_digest(text) != digest:
            edited.add(path)          # (a note gone since the walk: the next walk says so)
        elif not unsettled(mtime_ns, now):
            settled.append((note_id,))
    if settled and not edited:
        try:
            with transaction(conn):
                conn.executemany("DELETE FROM unsettled WHERE note_id = ?", settled)
        except errors("OperationalError"):
            pass
    return edited


def _apply(conn: sqlite3.Connection, vault: str, on_disk: dict[str, Stamp], stored: Stored, force: bool,
           progress: bool | None, stats: UpdateStats, edited: set[str], privacy: Privacy) -> bool:
    """Write the differences (and the notes of `edited`, whatever their stamp); True when every
    note on disk could be read."""
    complete = True
    gone = [path for path in stored if path not in on_disk]
    left = [path for path in gone if stored[path][1] is not None]     # indexed notes gone (not private ones)
    removed = [_indexed_id(stored, path) for path in left]
    removed_keys = {link_resolution.note_key(path) for path in left}
    stats.removed_paths += left
    private_keys: set[str] = set()     # of notes found private, or no longer private: links re-resolved
    todo: list[Todo] = []
    for path, stamp in on_disk.items():
        known = stored.get(path)
        if known is None:
            todo.append((path, stamp, False))
        elif force or known[0] != stamp or path in edited:
            todo.append((path, stamp, True))
        else:
            stats.unchanged += 1
    from obsidian_memory.core.progress import progress_bar

    bar = progress_bar(len(todo), progress, desc="indexing notes", unit="note", minimum=PROGRESS_THRESHOLD,
                       leave=False)
    resolve_all = meta(conn, LINKS_PENDING) == "1"
    if todo or removed:
        set_meta(conn, LINKS_PENDING, "1")
    resolvable = [path for path in on_disk if stored.get(path, (None, 0))[1] is not None]
    resolve = _lazy_resolver(resolvable, len(todo) < PROGRESS_THRESHOLD)
    changed_ids: list[int] = []
    deferred: list[tuple[int, int, str]] = []     # links to notes not yet written (_point_deferred)
    inlinks = IncomingText(conn, every=resolve_all or force or len(todo) >= PROGRESS_THRESHOLD)
    if len(todo) >= PROGRESS_THRESHOLD:
        drop_lookup_indexes(conn)
    try:
        if gone:
            with transaction(conn):
                inlinks.drop(_targets_of(conn, removed) | set(removed))
                forget_fts(conn, removed)
                conn.executemany("DELETE FROM notes WHERE id = ?", [(r,) for r in removed])
                conn.executemany("DELETE FROM private_notes WHERE path = ?",
                                 [(path,) for path in gone if stored[path][1] is None])
            stats.removed = len(removed)
        for batch, rows in _parsed_batches(vault, todo, privacy):
            with transaction(conn):
                private_keys |= _write_private(conn, rows, stored, stats, inlinks)
                indexed = [row for row in rows if isinstance(row, _Row)]
                changed_ids.extend(_write_batch(conn, indexed, resolve, inlinks, deferred))
                if len(todo) < PROGRESS_THRESHOLD:
                    _add_terms_of(conn, indexed)
            for (_, _, existed), row in zip(batch, rows):
                if row is None:
                    complete = False
                    continue
                if isinstance(row, _Private):
                    continue
                if existed and stored[row.path][1] is not None:
                    stats.updated += 1
                else:
                    stats.added += 1
            if bar is not None:
                bar.update(len(batch))
        _point_deferred(conn, deferred, inlinks)
        ensure_lookup_indexes(conn)
        added_keys = {link_resolution.note_key(path) for path, _, existed in todo if not existed}
        started = time.perf_counter()
        resolve_links(conn, None if resolve_all else (removed_keys | added_keys, changed_ids), inlinks)
        if private_keys and not resolve_all:     # links written this run may name a note found private later
            resolve_links(conn, (private_keys, []), inlinks)
        inlinks.write()
        stats.link_seconds = time.perf_counter() - started
        set_meta(conn, LINKS_PENDING, "0")
        _refresh_vocab(conn, len(todo), len(removed))
        set_meta(conn, "notes", str(conn.execute("SELECT count(*) FROM notes").fetchone()[0]))
        set_meta(conn, "last_update", str(time.time()))
        return complete
    finally:
        if bar is not None:
            bar.close()


class _Row:
    """A note read and parsed: `stamp` (mtime_ns, size, ctime_ns) as the walk saw it, before the
    read; `digest` of the text read when the stamp may not show the next edit (`unsettled`)."""
    __slots__ = ("path", "stamp", "note", "digest")

    def __init__(self, path: str, stamp: Stamp, note: Note, digest: str | None) -> None:
        self.path, self.stamp, self.note, self.digest = path, stamp, note, digest


class _Private:
    """A note read and kept out of the index: private by its text (never parsed), or one that
    could not be parsed (`failed`: why), kept out as a private one is."""
    __slots__ = ("path", "stamp", "failed")

    def __init__(self, path: str, stamp: Stamp, failed: str | None = None) -> None:
        self.path, self.stamp, self.failed = path, stamp, failed


def _row(vault: str, path: str, stamp: Stamp, privacy: Privacy) -> _Row | _Private | None:
    from obsidian_memory.vault import canvas, markdown

    read_at = time.time_ns()
    text = read_text(os.path.join(vault, *path.split("/")))
    if text is None:
        return None                       # vanished or unreadable: the next check sees it again
    shown = canvas.searched_text(path, text)
    if privacy.text_is_private(shown):
        return _Private(path, stamp)
    digest = content_digest(text) if unsettled(stamp[0], read_at) else None
    try:
        note = markdown.parse_note(markdown.searched_part(shown), link_resolution.note_title(path))
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:   # one bad note costs itself only
        return _Private(path, stamp, failed=type(exc).__name__)
    return _Row(path, stamp, note, digest)


def _write_private(conn: sqlite3.Connection, rows: list[_Row | _Private | None], stored: Stored,
                   stats: UpdateStats, inlinks: "IncomingText") -> set[str]:
    """Keep the batch's private notes out of the index (an indexed one leaves it, with its tags,
    links, words and the link text it gave its targets and had from others) and their stamps in
    `private_notes`; a note no longer private leaves that table (its row is written as a new
    note). Returns the name keys of both: the links that name them are resolved again, by every
    note."""
    private = [row for row in rows if isinstance(row, _Private)]
    public = [row.path for row in rows if isinstance(row, _Row) and row.path in stored and stored[row.path][1] is None]
    if public:
        conn.executemany("DELETE FROM private_notes WHERE path = ?", [(path,) for path in public])
    left = [row.path for row in private if stored.get(row.path, (None, None))[1] is not None]
    left_ids = [_indexed_id(stored, path) for path in left]
    if left_ids:
        inlinks.drop(_targets_of(conn, left_ids) | set(left_ids))
    forget_fts(conn, left_ids)
    conn.executemany("DELETE FROM notes WHERE id = ?", [(i,) for i in left_ids])
    conn.executemany("INSERT OR REPLACE INTO private_notes(path, mtime_ns, size, ctime_ns) VALUES (?, ?, ?, ?)",
                     [(row.path, *row.stamp) for row in private])
    stats.removed += len(left)
    stats.removed_paths += left
    stats.failed_names += [row.path for row in private if row.failed]
    return {link_resolution.note_key(path) for path in [*public, *(row.path for row in private)]}


def _indexed_id(stored: Stored, path: str) -> int:
    """The id of a note of `stored` that is indexed (not private)."""
    note_id = stored[path][1]
    assert note_id is not None
    return note_id


def _parsed_batches(vault: str, todo: list[Todo],
                    privacy: Privacy) -> Iterator[tuple[list[Todo], list[_Row | _Private | None]]]:
    """(batch of todo, its rows) in BATCH_SIZE pieces. A large update parses in a thread ahead of
    the writer: SQLite releases the GIL while it tokenises a batch, so parsing the next one
    (pure Python) and writing this one overlap on two cores."""
    batches = [todo[start:start + BATCH_SIZE] for start in range(0, len(todo), BATCH_SIZE)]
    if len(todo) < PROGRESS_THRESHOLD:
        for batch in batches:
            yield batch, [_row(vault, path, stat, privacy) for path, stat, _ in batch]
        return
    import queue
    import threading

    ready: queue.Queue[tuple[list[Todo], list[_Row | _Private | None]] | BaseException | None] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def offer(item: tuple[list[Todo], list[_Row | _Private | None]] | BaseException | None) -> bool:
        """Queue `item` unless the writer has stopped (then it no longer takes any)."""
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def parse_all() -> None:
        try:
            for batch in batches:
                if not offer((batch, [_row(vault, path, stat, privacy) for path, stat, _ in batch])):
                    return
            offer(None)
        except BaseException as exc:      # handed to the writer, which raises it
            offer(exc)

    # The writer gets the GIL back after each SQLite step only when the parser yields it, at
    # most every switch interval (docs/decisions/003-the-build-switch-interval.md).
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, SWITCH_INTERVAL))
    worker = threading.Thread(target=parse_all, name="index-parse", daemon=True)
    worker.start()
    try:
        while True:
            item = ready.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(switch)


NOTE_COLUMNS = ("path", "mtime_ns", "size", "ctime_ns", *PLAIN_COLUMNS, "content", "indexed_at")
_UPSERT_NOTE_SUFFIX = " ON CONFLICT(path) DO UPDATE SET " + ", ".join(f"{c}=excluded.{c}" for c in NOTE_COLUMNS[1:])
MAX_PARAMETERS = 30_000           # SQLite allows 32766 per statement since 3.32


def _insert_rows(conn: sqlite3.Connection, head: str, rows: list[tuple[Any, ...]] | list[list[Any]],
                 tail: str = "") -> None:
    """`head VALUES (..), (..), .. tail` with many rows per statement. Not executemany: each row
    would be a step of its own, and while the parser thread runs every step waits for the GIL
    (up to the switch interval), which made the writer three times slower."""
    if not rows:
        return
    width = len(rows[0])
    per = max(1, MAX_PARAMETERS // width)
    one = "(" + ",".join("?" * width) + ")"
    for start in range(0, len(rows), per):
        chunk = rows[start:start + per]
        conn.execute(f"{head} VALUES {','.join([one] * len(chunk))}{tail}",
                     [value for row in chunk for value in row])


def _fts_values(row: _Row) -> dict[str, str]:
    """{FTS column: the note's text for it}."""
    from obsidian_memory.vault import markdown

    note = row.note
    folder = row.path.rsplit("/", 1)[0] if "/" in row.path else ""
    meta_text = markdown.frontmatter_text(note.frontmatter)
    idents = identifiers("\n".join((note.title, *note.aliases, *note.headings, meta_text, note.body, note.code)))
    return {"title": note.title, "aliases": "\n".join(note.aliases), "headings": "\n".join(note.headings),
            "tags": " ".join(note.tags), "meta": meta_text, "folder": folder.replace("/", " / "),
            "body": note.body, "code": note.code, "idents": " ".join(idents)}


def _fts_texts(fts: dict[str, str]) -> tuple[str, ...]:
    """The FTS row of a note's texts, in FTS_COLUMNS order, CJK runs as their bigrams (core.cjk:
    the tokenizer would take a whole run for one word); the same for adding and deleting it."""
    return tuple(cjk.spaced(fts[c]) for c in FTS_COLUMNS)


def _note_values(row: _Row, fts: dict[str, str], content: Content, now: float, codec: Codec) -> tuple[Any, ...]:
    return (row.path, *row.stamp, *(fts[c] for c in PLAIN_COLUMNS), codec.pack(content), now)


def _content_of(note: Note, fts: dict[str, str], keep_text: bool) -> Content:
    """What `notes.content` keeps of a note: its links and their context lines (each distinct
    line once), and its FTS texts of PACKED_COLUMNS when the file removes FTS rows by their
    text (`keep_text`; else empty)."""
    contexts = list(dict.fromkeys(link.context for link in note.outlinks))
    number = {context: n for n, context in enumerate(contexts)}
    return Content._make([*(fts[c] if keep_text else "" for c in PACKED_COLUMNS), contexts,
                          [StoredLink(link.target, link.anchor, link.label, link.kind, link.embed, link.line,
                                      number[link.context]) for link in note.outlinks]])


def forget_fts(conn: sqlite3.Connection, ids: list[int]) -> None:
    """Take these notes out of the (contentless) FTS index: by rowid, or with the values they
    were added with in a file that keeps them (schema.FTS_DELETE)."""
    if not ids:
        return
    if not keeps_text(conn):
        _delete_by_id(conn, ids)
        return
    codec = Codec.to_read(conn)
    for chunk in _chunked(ids):
        rows = conn.execute(f"SELECT id, {', '.join(PLAIN_COLUMNS)}, content FROM notes"
                            f" WHERE id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        values: list[tuple[Any, ...]] = []
        for note_id, *plain, content in rows:
            fts: dict[str, str] = dict(zip(PLAIN_COLUMNS, plain))
            packed = codec.unpack(content)
            fts.update((column, getattr(packed, column)) for column in PACKED_COLUMNS)
            values.append(("delete", note_id, *_fts_texts(fts)))
        _insert_rows(conn, f"INSERT INTO notes_fts(notes_fts, rowid, {', '.join(FTS_COLUMNS)})", values)


def _delete_by_id(conn: sqlite3.Connection, ids: list[int]) -> None:
    """Delete these notes' FTS rows by rowid (contentless_delete), then take the table's row count
    and column token totals down by what the rows held. bm25 reads them (the number of notes,
    the average length of each column), and FTS5 (3.50 still) leaves them as they were when it
    deletes a row of such a table: an updated note would then rank a little differently than
    after a fresh build. The sizes are in notes_fts_docsize until the rows go. The SAVEPOINT makes
    FTS5 write its totals out now and read them back when next needed, so that the ones written
    here are not overwritten at COMMIT."""
    rows, sizes = 0, [0] * len(FTS_COLUMNS)
    for chunk in _chunked(ids):
        for (blob,) in conn.execute(f"SELECT sz FROM notes_fts_docsize WHERE id IN ({_id_list(chunk)})"):
            rows += 1
            for column, size in enumerate(_varints(blob)[:len(sizes)]):
                sizes[column] += size
        conn.execute(f"DELETE FROM notes_fts WHERE rowid IN ({_id_list(chunk)})")
    if not rows:
        return
    conn.execute("SAVEPOINT fts_totals")
    (block,) = conn.execute(f"SELECT block FROM notes_fts_data WHERE id = {FTS_AVERAGES}").fetchone()
    totals = _varints(block)
    totals[0] -= rows
    for column, size in enumerate(sizes):
        totals[1 + column] -= size
    conn.execute(f"UPDATE notes_fts_data SET block = ? WHERE id = {FTS_AVERAGES}", (_varint_bytes(totals),))
    conn.execute("RELEASE fts_totals")


FTS_AVERAGES = 1          # the rowid of FTS5's "averages" record in %_data: row count, then each column's tokens


def _varints(blob: bytes) -> list[int]:
    """The integers of an FTS5 record (SQLite varints, big-endian 7 bits a byte; values below 2^56)."""
    values: list[int] = []
    value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            values.append(value)
            value = 0
    return values


def _varint_bytes(values: list[int]) -> bytes:
    out = bytearray()
    for value in values:
        groups = [value & 0x7F]
        value >>= 7
        while value:
            groups.append(0x80 | (value & 0x7F))
            value >>= 7
        out += bytes(reversed(groups))
    return bytes(out)


def _id_list(ids: Iterable[int]) -> str:
    return ",".join(str(int(i)) for i in ids)


def _chunked(values: list[T], size: int = 900) -> Iterator[list[T]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _write_batch(conn: sqlite3.Connection, rows: list[_Row], resolve: Resolve | _LazyResolver,
                 inlinks: "IncomingText", deferred: list[tuple[int, int, str]]) -> list[int]:
    """Upsert a batch of parsed notes with their tags, properties and links (inside the caller's
    transaction); returns their ids. An updated note keeps its id, and its FTS row is taken
    out (with its old values) before it is written again; the new notes get ids above the
    largest before the batch. A link is stored with the id of the note it resolves to; one to a
    note not in the index yet (a later batch) goes to `deferred` (source id, seq, target path)."""
    if not rows:
        return []
    top = conn.execute("SELECT coalesce(max(id), 0) FROM notes").fetchone()[0]
    old = _ids_in_index(conn, [row.path for row in rows])
    inlinks.drop(_targets_of(conn, list(old.values())))      # before the text of the notes linking to them changes
    forget_fts(conn, list(old.values()))
    now = time.time()
    fts = [_fts_values(row) for row in rows]
    keep_text = keeps_text(conn)
    contents = [_content_of(row.note, values, keep_text) for row, values in zip(rows, fts)]
    codec = Codec.of(conn) or Codec.made_for(conn, [row.note.body for row in rows])
    _insert_rows(conn, f"INSERT INTO notes({', '.join(NOTE_COLUMNS)})",
                 [_note_values(row, values, content, now, codec) for row, values, content in zip(rows, fts, contents)],
                 _UPSERT_NOTE_SUFFIX)
    ids = dict(conn.execute("SELECT path, id FROM notes WHERE id > ?", (top,)).fetchall())
    ids.update(old)
    _insert_rows(conn, f"INSERT INTO notes_fts(rowid, {', '.join(FTS_COLUMNS)})",
                 [(ids[row.path], *_fts_texts(values)) for row, values in zip(rows, fts)])
    old_ids = list(old.values())
    for start in range(0, len(old_ids), MAX_PARAMETERS):
        chunk = old_ids[start:start + MAX_PARAMETERS]
        marks = ",".join("?" * len(chunk))
        for table, column in (("note_tags", "note_id"), ("note_props", "note_id"), ("links", "source_id"),
                              ("unsettled", "note_id")):
            conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
    from obsidian_memory.vault import markdown

    if isinstance(resolve, _LazyResolver):
        resolve.prepare(link.target for row in rows for link in row.note.outlinks)
    tags: list[tuple[int, str]] = []
    props: list[tuple[int, str, str]] = []
    links: list[list[Any]] = []       # [source id, seq, target path (then id) or None, name hash]
    name_key = link_resolution.name_key
    for row in rows:
        note_id, note = ids[row.path], row.note
        tags.extend((note_id, tag) for tag in note.tags)
        props.extend((note_id, k, v) for k, v in markdown.frontmatter_pairs(note.frontmatter))
        links.extend([note_id, seq, resolve(link.target, row.path, link.kind), name_hash(name_key(link.target))]
                     for seq, link in enumerate(note.outlinks))
    target_ids = _ids_in_index(conn, list({link[2] for link in links if link[2]}))
    for link in links:
        path = link[2]
        if path:
            link[2] = target_ids.get(path)
            if link[2] is None:
                deferred.append((link[0], link[1], path))
    inlinks.drop({link[2] for link in links if link[2]})      # before links to them are written
    _insert_rows(conn, "INSERT OR IGNORE INTO note_tags(note_id, tag)", tags)
    _insert_rows(conn, "INSERT OR IGNORE INTO note_props(note_id, key, value)", props)
    _insert_rows(conn, "INSERT INTO unsettled(note_id, digest)",
                 [(ids[row.path], row.digest) for row in rows if row.digest is not None])
    _insert_rows(conn, "INSERT INTO links(source_id, seq, target_id, name_hash)", links)
    return [ids[row.path] for row in rows]


def _ids_in_index(conn: sqlite3.Connection, paths: list[str]) -> dict[str, int]:
    """{path: id} of those of `paths` the index holds (the file is asked: a process without the
    update lock may have written some meanwhile)."""
    found: dict[str, int] = {}
    for chunk in _chunked(paths):
        found.update(conn.execute(f"SELECT path, id FROM notes WHERE path IN ({','.join('?' * len(chunk))})",
                                  chunk).fetchall())
    return found


def _point_deferred(conn: sqlite3.Connection, deferred: list[tuple[int, int, str]], inlinks: "IncomingText") -> None:
    """Point the links written before the note they resolve to (in a later batch) at its id; a
    note that was not written after all (private, unreadable) leaves its links unresolved."""
    if not deferred:
        return
    ids = _ids_in_index(conn, sorted({path for _, _, path in deferred}))
    changes = [(ids[path], source_id, seq) for source_id, seq, path in deferred if path in ids]
    with transaction(conn):
        inlinks.drop({target_id for target_id, _, _ in changes})
        conn.executemany("UPDATE links SET target_id = ? WHERE source_id = ? AND seq = ?", changes)
    deferred.clear()


# -- links: resolved against the notes the update leaves ----------------------------------------
# A changed note's links are resolved as they are written, against every note on disk. A link's
# target can also change without its note changing: a new note may be the one an unresolved
# link names, a deleted one leaves its backlinks unresolved (or resolving to a namesake). Every
# candidate shares the link's name key, so the other notes' links re-resolved after an update
# are those whose name key is that of an added or removed note (found by a hash of the key: a
# collision only re-resolves a few more links). A link holds its note's id, never reused: one
# to a note that is gone names nothing until it is resolved again. A flag in `meta` marks an
# update cut off before that pass: the next one re-resolves every link.

LINKS_PENDING = "links_pending"


def name_hash(key: str) -> int:
    """A link's name key as a 32-bit integer (4 bytes in the file, where the key would take 20)."""
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) - 0x80000000


def _lazy_resolver(paths: list[str], few: bool) -> Resolve | _LazyResolver:
    """resolve(target, source, kind) for the notes being written: for a few notes, a
    `_LazyResolver`."""
    return _LazyResolver(paths) if few else _memo_resolver(paths)


class _LazyResolver:
    """resolve(target, source, kind) for a few notes being written: it holds only the paths whose
    name key is one their links can resolve to (see `links`): the same answers, without folding
    every path of a large vault; `prepare(targets)` names the links' targets before they are
    resolved."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.keys: set[str] = set()
        self.resolve: Resolve | None = None

    def prepare(self, targets: Iterable[str]) -> None:
        keys = set()
        for target in targets:
            keys.add(link_resolution.name_key(target))
            keys.add(link_resolution.name_key(target + ".md"))    # `[[a.md]]` may name a.md.md
        if self.resolve is None or not keys <= self.keys:
            self.keys |= keys
            self.resolve = _memo_resolver(_paths_with_keys(self.paths, self.keys))

    def __call__(self, target: str, source: str, kind: str) -> str | None:
        assert self.resolve is not None, "prepare() names the targets first"
        return self.resolve(target, source, kind)


def _paths_with_keys(paths: list[str], wanted: set[str]) -> list[str]:
    out = []
    for path in paths:
        if path.isascii() and "\\" not in path:      # note_key without its general cases
            key = path[path.rfind("/") + 1:-3].strip().lower()
        else:
            key = link_resolution.note_key(path)
        if key in wanted:
            out.append(path)
    return out


def _memo_resolver(paths: Iterable[str]) -> Resolve:
    """resolve(target, source, kind) -> path or None; one answer per (target, kind, folder)."""
    resolver = link_resolution.Resolver(paths)
    memo: dict[tuple[str, str, str], str | None] = {}

    def resolve(target: str, source: str, kind: str) -> str | None:
        folder = source.rsplit("/", 1)[0] if "/" in source else ""
        key = (target, kind, folder)
        if key not in memo:
            memo[key] = resolver.resolve(target, source, kind)
        return memo[key]
    return resolve


def resolve_links(conn: sqlite3.Connection, scope: tuple[set[str], list[int]] | None,
                  inlinks: "IncomingText") -> int:
    """Point links at their notes: every link (`scope` None) or those with one of the name keys
    whose note is not in the given source ids (those were resolved when written). Returns the
    number of links that changed (the incoming text of the notes they pointed at and point at
    now is dropped first)."""
    select = "SELECT l.source_id, l.seq, l.target_id, n.path FROM links l JOIN notes n ON n.id = l.source_id"
    if scope is None:
        rows = conn.execute(select + " ORDER BY l.source_id, l.seq").fetchall()
    else:
        keys, written = scope
        if not keys or len(written) >= conn.execute("SELECT count(*) FROM notes").fetchone()[0]:
            return 0          # every note's links were resolved as they were written
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS link_scope_ids (id INTEGER PRIMARY KEY)")
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS link_scope_keys (k INTEGER PRIMARY KEY)")
        conn.execute("DELETE FROM link_scope_ids")
        conn.execute("DELETE FROM link_scope_keys")
        conn.executemany("INSERT OR IGNORE INTO link_scope_ids(id) VALUES (?)", [(i,) for i in written])
        conn.executemany("INSERT OR IGNORE INTO link_scope_keys(k) VALUES (?)", [(name_hash(k),) for k in keys])
        rows = conn.execute(select + " WHERE l.name_hash IN (SELECT k FROM link_scope_keys)"
                            " AND l.source_id NOT IN (SELECT id FROM link_scope_ids)"
                            " ORDER BY l.source_id, l.seq").fetchall()
    if not rows:
        return 0
    ids = dict(conn.execute("SELECT path, id FROM notes"))
    resolve = _memo_resolver(ids)
    changes: list[tuple[int | None, int, int]] = []
    touched: set[int] = set()
    codec, of = Codec.to_read(conn), None
    links: list[StoredLink] = []
    for source_id, seq, current, source in rows:
        if source_id != of:          # (by linking note: each note's links unpacked once)
            (blob,) = conn.execute("SELECT content FROM notes WHERE id = ?", (source_id,)).fetchone()
            links, of = codec.unpack(blob).links, source_id
        found = ids.get(resolve(links[seq].target, source, links[seq].kind))
        if found != current:
            changes.append((found, source_id, seq))
            touched.update(i for i in (found, current) if i)
    if changes:
        with transaction(conn):
            inlinks.drop(touched)
            conn.executemany("UPDATE links SET target_id = ? WHERE source_id = ? AND seq = ?", changes)
    return len(changes)


# -- incoming link text ------------------------------------------------------------------------------
# inlinks_fts holds, for each note, the lines other notes link to it from (at most INLINKS_PER_NOTE,
# so that a hub does not grow a field larger than any note). It is contentless (the text is
# derived from the links and their context lines, stored once): see IncomingText for how it is
# kept in step with the links.

INLINKS_PER_NOTE = 40
INLINK_WORDS = 8          # words kept on each side of the link
_INLINK_LINKS = ("SELECT t.id, l.source_id, l.seq FROM links l"
                 " JOIN notes t ON t.id = l.target_id"
                 " WHERE l.source_id != t.id {where} ORDER BY l.source_id, l.seq")


class IncomingText:
    """inlinks_fts through an update. Being contentless, a note's row is taken out with the very
    text it was written with, derived again from what it was derived from: the links to the note,
    the context lines of the notes they are in, the note itself. So a row is dropped before any
    of these changes (`drop`: before a link to the note is written, removed or pointed elsewhere,
    before a linking note's text changes, before the note goes) and written again at the end
    (`write`). An update large enough (`every`) drops nothing and at the end empties the table
    and writes every row, in one transaction, as does the update after one cut off before its
    end (`links_pending`)."""

    def __init__(self, conn: sqlite3.Connection, every: bool) -> None:
        self.conn, self.every = conn, every
        self.dropped: set[int] = set()

    def drop(self, ids: Iterable[int]) -> None:
        """Take the rows of these notes out, once per update (inside the caller's transaction)."""
        if self.every:
            return
        fresh = sorted(set(ids) - self.dropped)
        self.dropped.update(fresh)
        for chunk in _chunked(fresh):
            _insert_rows(self.conn, "INSERT INTO inlinks_fts(inlinks_fts, rowid, text)",
                         [("delete", note_id, text) for note_id, text in self._rows(chunk)])

    def write(self) -> None:
        """Write the rows dropped (every row, in `every` mode) as the links now stand."""
        with transaction(self.conn):
            if self.every:
                self.conn.execute("INSERT INTO inlinks_fts(inlinks_fts) VALUES ('delete-all')")
                _insert_rows(self.conn, "INSERT INTO inlinks_fts(rowid, text)", list(_inlink_rows(self.conn)))
                return
            for chunk in _chunked(sorted(self.dropped)):
                _insert_rows(self.conn, "INSERT INTO inlinks_fts(rowid, text)", list(self._rows(chunk)))
        self.dropped.clear()

    def _rows(self, ids: list[int]) -> Iterator[tuple[int, str]]:
        return _inlink_rows(self.conn, f"AND l.target_id IN ({_id_list(ids)})")


def _inlink_rows(conn: sqlite3.Connection, where: str = "") -> Iterator[tuple[int, str]]:
    """(note id, its incoming link text) for the notes the links select, by id. The links are
    read by linking note, so that each one's links and context lines are unpacked once."""
    pieces: dict[int, list[str]] = {}
    source: int | None = None
    codec: Codec | None = None
    links: list[StoredLink] = []
    contexts: list[str] = []
    for note_id, source_id, seq in conn.execute(_INLINK_LINKS.format(where=where)):
        if source_id != source:
            codec = codec or Codec.to_read(conn)
            (blob,) = conn.execute("SELECT content FROM notes WHERE id = ?", (source_id,)).fetchone()
            content = codec.unpack(blob)
            source, links, contexts = source_id, content.links, content.contexts
        found = pieces.setdefault(note_id, [])
        if len(found) < INLINKS_PER_NOTE:
            link = links[seq]
            found.append(_around_link(contexts[link.context_no],
                                      link.label or link.target.rsplit("/", 1)[-1].split("#", 1)[0]))
    for note_id in sorted(pieces):
        yield note_id, cjk.spaced(" \n ".join(pieces[note_id]))


def _around_link(context: str, shown: str) -> str:
    """INLINK_WORDS words of `context` on each side of where the link's text is."""
    at = context.lower().find(shown.lower()) if shown else -1
    if at < 0:
        words = context.split()
        return " ".join(words[:2 * INLINK_WORDS])
    before = context[:at].split()[-INLINK_WORDS:]
    after = context[at + len(shown):].split()[:INLINK_WORDS]
    return " ".join(before + [shown] + after)


def _targets_of(conn: sqlite3.Connection, source_ids: list[int]) -> set[int]:
    found: set[int] = set()
    for start in range(0, len(source_ids), MAX_PARAMETERS):
        chunk = source_ids[start:start + MAX_PARAMETERS]
        found.update(i for (i,) in conn.execute(f"SELECT DISTINCT target_id FROM links WHERE source_id IN"
                                                f" ({','.join('?' * len(chunk))}) AND target_id IS NOT NULL", chunk))
    return found


# -- the vocabulary: document frequencies and typo tolerance ----------------------------------------
# `vocab` holds every stemmed term of the index with the number of notes that use it (FTS5's
# own vocabulary table counts by walking a term's whole doclist: too slow at query time). A
# large change rebuilds it from the FTS vocabulary; a small one adds the new terms of the
# changed notes through a scratch FTS table and counts as staleness (frequencies of known
# terms drift, deleted terms linger and match nothing) until a rebuild is due.

def _refresh_vocab(conn: sqlite3.Connection, changed: int, removed: int) -> None:
    if not changed and not removed:
        return
    notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    stale = int(meta(conn, "vocab_stale") or 0) + changed + removed
    if changed >= PROGRESS_THRESHOLD or stale > max(PROGRESS_THRESHOLD, notes // 10):
        with transaction(conn):
            conn.execute("DELETE FROM vocab")
            conn.execute("INSERT INTO vocab(term, df) SELECT term, doc FROM notes_terms")
            set_meta(conn, "vocab_stale", "0")
    else:
        set_meta(conn, "vocab_stale", str(stale))


def _add_terms_of(conn: sqlite3.Connection, rows: list[_Row]) -> None:
    from obsidian_memory.vault import markdown

    scratch = ensure_scratch(conn)
    conn.execute(f"DELETE FROM {scratch}")
    for row in rows:
        if row is not None:
            n = row.note
            meta_text = markdown.frontmatter_text(n.frontmatter)
            text = "\n".join((n.title, "\n".join(n.aliases), "\n".join(n.headings), " ".join(n.tags),
                              meta_text, row.path, n.body, n.code,
                              " ".join(identifiers("\n".join((n.title, *n.aliases, *n.headings, meta_text, n.body,
                                                              n.code))))))
            conn.execute(f"INSERT INTO {scratch}(x) VALUES (?)", (cjk.spaced(text),))
    conn.execute(f"INSERT OR IGNORE INTO vocab(term, df) SELECT term, doc FROM {scratch}_terms")
    conn.execute(f"DELETE FROM {scratch}")
