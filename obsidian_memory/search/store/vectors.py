"""The embedding store: which texts of a note get a vector, computing them incrementally, and
the nearest notes to a query vector.

Where: a SQLite file beside the index in `settings.cache_dir` (`vectors-<vault digest>.sqlite`),
not tables inside the index. The index is a cheap cache that is deleted and rebuilt whenever
its schema changes; embeddings cost minutes to hours of CPU, so they must survive that, and a
separate file keeps the two schemas from coupling.

What gets a vector (see `chunks_of`): one "head" per note (title, aliases, description,
headings, start of the body) and, for notes longer than a head, chunks of ~1,000 characters
that follow the sections: small sections are packed together, a long section is cut at line
boundaries, and every chunk carries its note title and heading path. Fenced code is kept
(archived session notes keep their prompts and summaries in fences).

Keys: a vector is stored once per (model, text hash) and notes point to their chunks' hashes,
so an unchanged note is never read twice (mtime + size), an edited note re-embeds only the
chunks whose text changed, a renamed note re-embeds nothing, and a model change re-embeds all.
Work is committed a few notes at a time: a killed run keeps what it finished.
"""
from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import time
from dataclasses import dataclass, field

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 30_000
HEAD_CHARS = 1200          # characters of a note's head (~300 tokens)
CHUNK_CHARS = 1000         # target size of a section chunk
MAX_CHUNKS = 400           # per note; beyond this (~400 KB of text) the rest of a note gets no vector
BATCH_NOTES = 8            # notes embedded per commit
TEXTS_PER_CALL = 16        # texts per model call (memory grows with the batch)
DTYPE = "float16"          # on disk; searched as float32

SCHEMA = """
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
"""


# -- what gets a vector ---------------------------------------------------------------------------

@dataclass
class Chunk:
    heading: str          # the heading path ("" for the head and text before the first heading)
    text: str             # what is embedded
    excerpt: str          # what a hit shows

    @property
    def hash(self) -> str:
        return text_hash(self.text)


_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]*))?\]\]")
_ATTACHMENT = re.compile(r"\.(?!md$)[A-Za-z0-9]{2,5}$")


def _link_words(match: re.Match) -> str:
    """A wikilink as a reader sees it: its label, else the note name (and heading); an embedded
    image or PDF says nothing. The index keeps target and label; a sentence embeds better."""
    bang, target, label = match.group(1), match.group(2), match.group(3)
    if label and label.strip():
        return label.strip()
    name, _, anchor = target.partition("#")
    name = name.rsplit("/", 1)[-1].strip()
    if bang and _ATTACHMENT.search(name):
        return ""
    name = name[:-3] if name.lower().endswith(".md") else name
    anchor = "" if anchor.startswith("^") else anchor.replace("#", " ").strip()
    return " ".join(p for p in (name, anchor) if p)


def chunks_of(text: str, title: str) -> list[Chunk]:
    """The head of a note, then its section chunks when the head could not hold the whole body."""
    from obsidian_memory.search import markdown

    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    note = markdown.parse_note(text, title)
    sections = _sections(markdown.split_frontmatter(text)[1])
    body = "\n".join(line for _, lines in sections for line in lines)
    head, complete = _head(note, body)
    if complete:
        return [head]
    return [head] + _section_chunks(title, sections)[:MAX_CHUNKS]


def _head(note, body: str) -> tuple[Chunk, bool]:
    """(the head chunk, whether it holds the whole body)."""
    description = note.frontmatter.get("description") if isinstance(note.frontmatter, dict) else None
    parts = [note.title]
    if note.aliases:
        parts.append("Also called: " + ", ".join(note.aliases[:10]))
    if isinstance(description, str) and description.strip():
        parts.append(description.strip())
    if note.headings:
        parts.append("Sections: " + "; ".join(note.headings[:30]))
    prefix = "\n".join(parts)[:HEAD_CHARS]
    room = max(0, HEAD_CHARS - len(prefix) - 1)
    text = prefix + "\n" + body[:room] if body else prefix
    return Chunk(heading="", text=text, excerpt=excerpt_text(body or prefix)), len(body) <= room


def _sections(body_text: str) -> list[tuple[str, list[str]]]:
    """[(heading path, plain-text lines)] in order; code fences keep their lines as they are."""
    from obsidian_memory.search.markdown import clean_inline, clean_line

    sections: list[tuple[str, list[str]]] = [("", [])]
    path: list[tuple[int, str]] = []
    fence = None
    for line in body_text.split("\n"):
        if fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            elif line.strip():
                sections[-1][1].append(line.strip())
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)
            continue
        heading = _HEADING.match(line)
        if heading:
            level, name = len(heading.group(1)), clean_inline(_WIKILINK.sub(_link_words, heading.group(2)))
            path = [(lv, n) for lv, n in path if lv < level] + [(level, name)]
            sections.append((" > ".join(n for _, n in path), []))
            continue
        if "[[" in line:
            line = _WIKILINK.sub(_link_words, line)
        cleaned = clean_line(line)
        if cleaned:
            sections[-1][1].append(cleaned)
    return [(h, lines) for h, lines in sections if lines or h]


def _section_chunks(title: str, sections) -> list[Chunk]:
    """Pack small sections together and cut long ones, at line boundaries, near CHUNK_CHARS."""
    pieces: list[tuple[str, str]] = []          # (heading, text) of at most CHUNK_CHARS
    for heading, lines in sections:
        for piece in _cut(lines):
            pieces.append((heading, piece))
        if not lines and heading:
            pieces.append((heading, ""))
    chunks, group = [], []
    for heading, piece in pieces:
        if group and sum(len(h) + len(p) + 2 for h, p in group) + len(heading) + len(piece) > CHUNK_CHARS:
            chunks.append(_chunk(title, group))
            group = []
        group.append((heading, piece))
    if group:
        chunks.append(_chunk(title, group))
    return [c for c in chunks if c.excerpt]


def _cut(lines: list[str]) -> list[str]:
    out, current = [], ""
    for line in lines:
        while len(line) > CHUNK_CHARS:                       # one huge line: cut at a space
            cut = line.rfind(" ", CHUNK_CHARS // 2, CHUNK_CHARS)
            cut = cut if cut > 0 else CHUNK_CHARS
            if current:
                out.append(current)
                current = ""
            out.append(line[:cut])
            line = line[cut:].lstrip()
        if current and len(current) + 1 + len(line) > CHUNK_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out


def _chunk(title: str, group: list[tuple[str, str]]) -> Chunk:
    headings = list(dict.fromkeys(h for h, _ in group if h))
    lines, last = [], group[0][0]        # the first heading is in the context line already
    for heading, piece in group:
        if heading and heading != last:
            lines.append(heading.rsplit(" > ", 1)[-1])
            last = heading
        if piece:
            lines.append(piece)
    context = title + (" > " + headings[0] if headings else "")
    return Chunk(heading=headings[0] if headings else "", text=context + "\n" + "\n".join(lines),
                 excerpt=excerpt_text(" ".join(p for _, p in group if p)))


def excerpt_text(text: str, limit: int = 300) -> str:
    from obsidian_memory.textclean import strip_control

    flat = " ".join(strip_control(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", limit // 2, limit)
    return flat[:cut if cut > 0 else limit].rstrip(" ,;:.-") + "…"


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


# -- the file ---------------------------------------------------------------------------------------

def store_path(settings) -> str:
    """Beside the index, named from the same digest of the vault's real path."""
    from obsidian_memory.search.index_build import index_path

    name = os.path.basename(index_path(settings))
    return os.path.join(settings.cache_dir, "vectors-" + name[len("index-"):])


def connect(path: str, readonly: bool = False) -> sqlite3.Connection:
    """The store with the current schema; an outdated or damaged file is replaced (when writing)."""
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                               isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            conn.close()
            raise sqlite3.DatabaseError("vector store of another version")
        return conn
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        return _open_current(path)
    except sqlite3.DatabaseError:
        from obsidian_memory.search.index_build import remove_index_files
        remove_index_files(path)
        return _open_current(path)


def _open_current(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        conn.execute("SELECT count(*) FROM meta").fetchone()
        return conn
    conn.execute("BEGIN IMMEDIATE")
    if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:   # another process may have won
        for table in ("meta", "notes", "chunks", "embeddings"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in (s.strip() for s in SCHEMA.split(";")):
            if statement:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute("COMMIT")
    return conn


def _set_meta(conn, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (key, value))


def _meta(conn, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


# -- embedding the vault -----------------------------------------------------------------------------

@dataclass
class EmbedStats:
    notes: int = 0             # notes in the vault
    embedded: int = 0          # notes (re-)embedded by this run
    reused: int = 0            # notes whose content was already embedded (moved, touched)
    unchanged: int = 0
    removed: int = 0
    chunks_embedded: int = 0   # texts actually sent to the model
    chunks_reused: int = 0
    remaining: int = 0         # notes still to embed (after --limit or an interruption)
    seconds: float = 0.0
    model: str = ""

    def summary(self) -> str:
        text = (f"{self.embedded} notes embedded ({self.chunks_embedded} texts, {self.chunks_reused} reused), "
                f"{self.unchanged + self.reused} unchanged, {self.removed} removed in {self.seconds:.1f}s")
        if self.remaining:
            text += f"; {self.remaining} notes left (run `embed` again)"
        return text


class Busy(Exception):
    """Another process is embedding this vault."""


def embed_vault(settings, *, limit: int | None = None, embedder=None, progress=None,
                batch_notes: int = BATCH_NOTES) -> EmbedStats:
    """Bring the store in step with the vault: embed new and changed notes (most recently
    modified first, at most `limit` of them), forget deleted ones. `embedder` provides
    `model_id()` and `embed_passages(texts)` (default: the real model)."""
    from obsidian_memory.search.index_build import LockTimeout, update_lock, walk_vault

    if embedder is None:
        from obsidian_memory.search import semantic as embedder
    started = time.perf_counter()
    model = embedder.model_id()
    stats = EmbedStats(model=model)
    path = store_path(settings)
    conn = connect(path)
    try:
        try:
            with update_lock(path, wait=0.5):
                on_disk = walk_vault(settings.vault, tuple(settings.index_ignore or ()))
                stats.notes = len(on_disk)
                _forget_other_models(conn, model)
                stats.removed = _forget_deleted(conn, on_disk)
                todo = _todo(conn, on_disk, model, stats)
                if limit is not None:
                    stats.remaining = max(0, len(todo) - limit)
                    todo = todo[:max(0, limit)]
                _embed_notes(conn, settings.vault, todo, model, embedder, stats, progress, batch_notes)
                _collect_garbage(conn)
        except LockTimeout as exc:
            raise Busy(f"another process is embedding this vault ({exc})") from exc
    finally:
        conn.close()
    stats.seconds = time.perf_counter() - started
    return stats


def _forget_other_models(conn, model: str) -> None:
    if conn.execute("SELECT 1 FROM embeddings WHERE model != ? LIMIT 1", (model,)).fetchone() is None:
        return
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DELETE FROM embeddings WHERE model != ?", (model,))
    conn.execute("COMMIT")


def _forget_deleted(conn, on_disk: dict) -> int:
    gone = [p for (p,) in conn.execute("SELECT path FROM notes") if p not in on_disk]
    if gone:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("DELETE FROM notes WHERE path = ?", [(p,) for p in gone])
        conn.executemany("DELETE FROM chunks WHERE path = ?", [(p,) for p in gone])
        conn.execute("COMMIT")
        _bump(conn)
    return len(gone)


def _todo(conn, on_disk: dict, model: str, stats: EmbedStats) -> list[tuple[str, tuple[int, int]]]:
    stored = {p: (m, s, mod) for p, m, s, mod in conn.execute("SELECT path, mtime_ns, size, model FROM notes")}
    todo = []
    for path, stat in on_disk.items():
        row = stored.get(path)
        if row is not None and row[0] == stat[0] and row[1] == stat[1] and row[2] == model:
            stats.unchanged += 1
        else:
            todo.append((path, stat))
    todo.sort(key=lambda item: (-item[1][0], item[0]))      # the most recently changed first
    return todo


def _embed_notes(conn, vault, todo, model, embedder, stats: EmbedStats, progress, batch_notes: int) -> None:
    import numpy as np

    from obsidian_memory.progress import progress_bar

    bar = progress_bar(len(todo), progress, desc="embedding notes", unit="note")
    try:
        for start in range(0, len(todo), batch_notes):
            batch = [_read(vault, path, stat) for path, stat in todo[start:start + batch_notes]]
            batch = [item for item in batch if item is not None]
            known = _known_hashes(conn, model, {c.hash for item in batch for c in item.chunks})
            missing = {}
            for item in batch:
                for chunk in item.chunks:
                    if chunk.hash not in known:
                        missing.setdefault(chunk.hash, chunk.text)
            vectors = _embed_texts(embedder, list(missing.values()))
            blobs = [(model, h, np.asarray(v, dtype=DTYPE).tobytes()) for h, v in zip(missing, vectors)]
            _write_batch(conn, batch, blobs, model)
            stats.chunks_embedded += len(missing)
            stats.chunks_reused += sum(len(item.chunks) for item in batch) - len(missing)
            for item in batch:
                if any(c.hash in missing for c in item.chunks):
                    stats.embedded += 1
                else:
                    stats.reused += 1
            if bar is not None:
                bar.update(len(todo[start:start + batch_notes]))
    finally:
        if bar is not None:
            bar.close()


def _embed_texts(embedder, texts: list[str]) -> list:
    """A few texts per model call: the engine holds every text's activations at once."""
    out = []
    for start in range(0, len(texts), TEXTS_PER_CALL):
        out.extend(embedder.embed_passages(texts[start:start + TEXTS_PER_CALL]))
    return out


@dataclass
class _Read:
    path: str
    stat: tuple[int, int]
    content_hash: str
    chunks: list[Chunk] = field(default_factory=list)


def _read(vault: str, path: str, stat) -> _Read | None:
    try:
        with open(os.path.join(vault, *path.split("/")), "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None                 # vanished or unreadable: the next run sees it again
    title = path.rsplit("/", 1)[-1][:-3]
    return _Read(path, stat, text_hash(text), chunks_of(text, title))


def _known_hashes(conn, model: str, hashes: set[str]) -> set[str]:
    known = set()
    items = list(hashes)
    for start in range(0, len(items), 500):
        part = items[start:start + 500]
        marks = ",".join("?" * len(part))
        known.update(h for (h,) in conn.execute(
            f"SELECT text_hash FROM embeddings WHERE model = ? AND text_hash IN ({marks})", [model, *part]))
    return known


def _write_batch(conn, batch: list[_Read], blobs, model: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
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
        _set_meta(conn, "generation", str(int(_meta(conn, "generation") or 0) + 1))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _collect_garbage(conn) -> None:
    """Vectors no chunk points to any more (edited or deleted notes)."""
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DELETE FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.text_hash = embeddings.text_hash)")
    conn.execute("COMMIT")


def _bump(conn) -> None:
    conn.execute("BEGIN IMMEDIATE")
    _set_meta(conn, "generation", str(int(_meta(conn, "generation") or 0) + 1))
    conn.execute("COMMIT")


# -- reading it back ------------------------------------------------------------------------------------

@dataclass
class Matrix:
    """Every vector of one model, with the note and chunk number of each row."""
    model: str
    paths: list[str]
    seqs: "object"             # numpy int32 array, one per row
    owner: "object"            # numpy int32 array: row -> index into `paths`
    vectors: "object"          # numpy float16 (rows, DIM), read-only


_cache: dict = {}


def load_matrix(settings, model: str) -> Matrix | None:
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
        generation = _meta(conn, "generation")
        key = (path, model)
        cached = _cache.get(key)
        if cached is not None and cached[0] == generation:
            return cached[1]
        matrix = _read_matrix(conn, model)
    finally:
        conn.close()
    _cache[key] = (generation, matrix)
    return matrix


def _read_matrix(conn, model: str) -> Matrix:
    import numpy as np

    rows = conn.execute("SELECT c.path, c.seq, e.vector FROM chunks c JOIN embeddings e"
                        " ON e.model = ? AND e.text_hash = c.text_hash", (model,)).fetchall()
    paths, owner, seqs = [], [], []
    index: dict[str, int] = {}
    for path, seq, _ in rows:
        if path not in index:
            index[path] = len(paths)
            paths.append(path)
        owner.append(index[path])
        seqs.append(seq)
    if rows:   # kept as stored (float16): half the memory, converted block by block when scored
        vectors = np.frombuffer(b"".join(r[2] for r in rows), dtype=DTYPE).reshape(len(rows), -1)
    else:
        vectors = np.zeros((0, 0), dtype=DTYPE)
    return Matrix(model, paths, np.asarray(seqs, dtype=np.int32), np.asarray(owner, dtype=np.int32), vectors)


@dataclass
class NoteScores:
    """Per note (aligned with `Matrix.paths`): the cosine of its head, of its best section
    chunk (its head again when the head holds the whole note) and that chunk's number."""
    paths: list[str]
    head: "object"
    section: "object"
    section_seq: "object"

    def ranking(self, values, allowed: set[str] | None, depth: int) -> list[int]:
        """Indexes of the `depth` best notes by `values`, among `allowed` paths."""
        import numpy as np

        values = np.array(values, dtype=np.float32, copy=True)
        if allowed is not None:
            mask = np.fromiter((p in allowed for p in self.paths), dtype=bool, count=len(self.paths))
            values[~mask] = -np.inf
        count = int(np.isfinite(values).sum())
        return [int(i) for i in np.argsort(-values, kind="stable")[:min(depth, count)]]


SCORE_BLOCK = 8192


def cosines(vectors, query):
    """vectors @ query in float32 through one small reused buffer: converting a whole float16
    matrix at once costs a fresh float32 copy of it (page faults dominate at 10k notes)."""
    import numpy as np

    out = np.empty(len(vectors), dtype=np.float32)
    buffer = np.empty((min(SCORE_BLOCK, len(vectors)), vectors.shape[1] if len(vectors) else 0), dtype=np.float32)
    for start in range(0, len(vectors), SCORE_BLOCK):
        block = vectors[start:start + SCORE_BLOCK]
        np.copyto(buffer[:len(block)], block)
        out[start:start + len(block)] = buffer[:len(block)] @ query
    return out


def score_notes(matrix: Matrix, query_vector) -> NoteScores:
    import numpy as np

    scores = cosines(matrix.vectors, np.asarray(query_vector, dtype=np.float32))
    notes = len(matrix.paths)
    is_head = matrix.seqs == 0
    head = np.full(notes, -np.inf, dtype=np.float32)
    head[matrix.owner[is_head]] = scores[is_head]
    section = np.full(notes, -np.inf, dtype=np.float32)
    np.maximum.at(section, matrix.owner[~is_head], scores[~is_head])
    seq = np.zeros(notes, dtype=np.int32)
    rows = np.flatnonzero(~is_head)
    if len(rows):
        # the row of each note's best chunk: sort rows by (note, score) and keep each note's last
        order = rows[np.lexsort((scores[rows], matrix.owner[rows]))]
        last = np.r_[matrix.owner[order][1:] != matrix.owner[order][:-1], True]
        seq[matrix.owner[order][last]] = matrix.seqs[order][last]
    no_sections = ~np.isfinite(section)
    section[no_sections] = head[no_sections]
    return NoteScores(matrix.paths, head, section, seq)


def coverage(settings, model: str | None = None) -> dict:
    """How much of the vault the store covers: {"embedded", "stale_model", "size_bytes", "exists"}."""
    path = store_path(settings)
    info = {"path": path, "exists": os.path.exists(path), "embedded": 0, "vectors": 0, "size_bytes": 0,
            "model": model, "models": []}
    if not info["exists"]:
        return info
    info["size_bytes"] = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
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
    finally:
        conn.close()
    return info
