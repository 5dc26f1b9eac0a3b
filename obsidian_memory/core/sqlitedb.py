"""SQLite the way every store of ours opens it: the session archive, the vault index and the
vector store.

- `connect`: WAL, synchronous NORMAL, a busy timeout, autocommit mode (transactions are
  explicit), usable from another thread; read-only opens never create or change the file.
- `transaction`: BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception): the write lock is
  taken up front, so that two writers queue on the busy timeout instead of failing half-way
  with a lock upgrade conflict.
- `migrate`: a schema versioned with `PRAGMA user_version`; `migrations[n]` brings version n
  to n + 1, later ones are appended and never edited.
- `meta` / `set_meta`: a `meta(key, value)` table of small facts about the store.
- `index_library`: the SQLite library of the vault index (the one store that may use another
  than Python's own: `connect(..., library=)`).

On the SessionStart path (the archive): imports only os, re and sqlite3.
"""
from __future__ import annotations

import os
import re
import sqlite3
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

BUSY_TIMEOUT = 30.0


def connect(path: str, *, readonly: bool = False, timeout: float = BUSY_TIMEOUT,
            foreign_keys: bool = False, page_size: int | None = None, library=sqlite3) -> sqlite3.Connection:
    """An open connection to the database at `path` (its folder is created unless `readonly`);
    `page_size` is that of a new file (an existing one keeps its own); `library`: the DB-API
    module (`index_library`)."""
    if readonly:
        return library.connect(f"file:{uri_path(path)}?mode=ro", uri=True, timeout=timeout,
                               isolation_level=None, check_same_thread=False)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    conn = library.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    try:
        if page_size:
            conn.execute(f"PRAGMA page_size = {int(page_size)}")     # (before WAL mode: then it is fixed)
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        if foreign_keys:
            conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def uri_path(path: str) -> str:
    """`path` as the path part of a `file:` URI (`?`, `#` and `%` in a folder name escaped)."""
    absolute = os.path.abspath(path).replace(os.sep, "/")
    if not absolute.startswith("/"):
        absolute = "/" + absolute  # Windows drive letter
    return absolute.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


class transaction:
    """`with transaction(conn):` BEGIN IMMEDIATE, then COMMIT, or ROLLBACK when the block raises."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
            return
        try:
            self.conn.execute("ROLLBACK")
        except errors("Error"):
            pass       # SQLite rolled back already (e.g. the disk is full); the first error is the one to see


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations) -> int:
    """Apply the migrations the database lacks, in one transaction; returns the version it is
    at afterwards (higher than len(migrations) when a newer program wrote it: untouched)."""
    if schema_version(conn) < len(migrations):
        with transaction(conn):
            for version in range(schema_version(conn), len(migrations)):
                migrations[version](conn)
                conn.execute(f"PRAGMA user_version = {version + 1}")
    return schema_version(conn)


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Statement by statement (`--` comments allowed): executescript() would commit the caller's
    transaction first. A statement holding `;` itself (a trigger) has to be executed on its own."""
    for statement in re.sub(r"--[^\n]*", "", script).split(";"):
        if statement.strip():
            conn.execute(statement)


def meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (key, value))


def damaged(exc: BaseException) -> bool:
    """Whether an error says the database file itself is damaged (not busy, not out of space):
    SQLITE_CORRUPT ("database disk image is malformed") or SQLITE_NOTADB ("file is not a database")."""
    if not isinstance(exc, errors("DatabaseError")):
        return False
    code = getattr(exc, "sqlite_errorcode", None)         # Python 3.11+
    if code is not None:
        return code & 0xFF in (11, 26)
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def again_if_damaged(work: Callable[[], T], discard: Callable[[BaseException], None]) -> T:
    """`work()` on a disposable database (the vault index, the vector store); when it finds the
    file `damaged`, `discard(why)` lets go of the file and deletes it, and `work()` runs once
    more, on a file built again. The one way a cache meets damage."""
    try:
        return work()
    except errors("DatabaseError") as exc:
        if not damaged(exc):
            raise
        discard(exc)
    return work()


# -- the SQLite library of the vault index -----------------------------------------------------------
# The index's FTS5 table holds no copy of the notes' text. SQLite before 3.43 can take a row out
# of such a table only when given the very text it was written with, so on it the index keeps
# that text (compressed) for the purpose; 3.43 and later delete by rowid (`contentless_delete`).
# Python's own sqlite3 is used when it is new enough (many builds are), else sqlean.py (SQLite
# 3.50 in a wheel, a dependency where wheels exist), else Python's own with the text kept. Only
# the index uses it: the archive and the vector store stay on Python's sqlite3.

DELETE_BY_ID = (3, 43, 0)
# "keep-text": Python's own sqlite3 and the text kept, whatever its version (a fallback to test,
# or to fall back on should another library misbehave)
LIBRARY_ENV = "OBSIDIAN_MEMORY_INDEX_SQLITE"
_library: tuple | None = None


def index_library() -> tuple:
    """(the DB-API module of the vault index, whether its FTS5 deletes by rowid); see above.
    Decided, and sqlean imported, once per process."""
    global _library
    if _library is None:
        module = _pick_library()
        _library = (module, module.sqlite_version_info >= DELETE_BY_ID and os.environ.get(LIBRARY_ENV) != "keep-text")
    return _library


def _pick_library():
    if sqlite3.sqlite_version_info >= DELETE_BY_ID or os.environ.get(LIBRARY_ENV) == "keep-text":
        return sqlite3
    try:
        import sqlean
    except ImportError:
        return sqlite3
    return sqlean if sqlean.sqlite_version_info >= DELETE_BY_ID else sqlite3


def errors(name: str) -> tuple:
    """The exception class `name` ("Error", "DatabaseError", "OperationalError") of every SQLite
    library loaded: `except sqlitedb.errors("DatabaseError")` catches the index's too."""
    found = [getattr(sqlite3, name)]
    lean = sys.modules.get("sqlean")
    if lean is not None:
        found.append(getattr(lean, name))
    return tuple(found)


def remove_files(path: str) -> None:
    """The database and its WAL, shared-memory and journal files (those that exist)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        remove_files_with(path, suffix)


def remove_files_with(path: str, suffix: str) -> None:
    try:
        os.unlink(path + suffix)
    except FileNotFoundError:
        pass


def size_on_disk(path: str) -> int:
    """Bytes of the database and its WAL (which SQLite deletes when its last connection closes: in
    a server, while another thread reads its size)."""
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += os.path.getsize(path + suffix)
        except FileNotFoundError:
            pass
    return total
