"""Search modes over the local index: `hybrid`, `semantic`, `fulltext`, `title`.

- fulltext: the BM25 index alone (`obsidian_memory.search.index`).
- semantic: the notes closest to the query in embedding space (`vectors`, `semantic`); a note
  scores by its head vector, or by a section chunk clearly closer than its head.
- hybrid: weighted reciprocal rank fusion (k = 60) of three lists ranked FUSION_DEPTH deep: BM25,
  notes by their head vector and notes by their best section chunk (the two semantic lists at
  half weight each). BM25 keeps exact names and rare words on top; the vectors add what shares
  no word with the query (paraphrases, other languages).
- title: a fuzzy match of the query against note names and aliases (no body, no vectors).

The default is hybrid when the model loads and some notes are embedded, else fulltext. A
search never embeds a note (only the query): it uses what `embed` stored so far and says how
much of the vault that covers. Scope and filters come from the index, so the semantic list
obeys --folder/--tag/--frontmatter exactly as BM25 does, and a deleted note is never returned.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from obsidian_memory.errors import UserError
from obsidian_memory.search.base import Hit, Query

MODES = ("hybrid", "semantic", "fulltext", "title")
FUSION_DEPTH = 50
# hybrid: BM25, then the semantic list by note heads and the one by section chunks; the two
# semantic lists together weigh as much as BM25 (measured on the judged sets: see benchmarks/semantic.py)
FUSION_WEIGHTS = (1.0, 0.5, 0.5)
SECTION_MARGIN = 0.02      # semantic mode: a section outranks its note's head only by this much
TITLE_MIN_SCORE = 0.6


@dataclass
class Result:
    hits: list[Hit]
    total: int
    mode: str                                  # the mode that answered (hybrid may fall back to fulltext)
    notes: list[str] = field(default_factory=list)


def search(settings, query: Query, mode: str | None = None) -> Result:
    """Hits for `query` in `mode` (None: the default for this vault)."""
    notes: list[str] = []
    if mode is None:
        mode, why = default_mode(settings)
    elif mode not in MODES:
        raise UserError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    if mode == "title":
        hits, total = title_search(settings, query)
        return Result(hits, total, mode)
    if mode == "fulltext":
        hits, total = _bm25(settings, query, query.limit)
        return Result(hits, total, mode)
    ready, why = semantic_ready(settings)
    if not ready:
        if mode == "semantic":
            raise UserError(f"semantic search is off: {why}")
        notes.append(f"semantic search is off ({why}): fulltext results")
        hits, total = _bm25(settings, query, query.limit)
        return Result(hits, total, "fulltext", notes)
    if mode == "semantic":
        _update_index(settings)
        hits, covered = _semantic(settings, query, max(query.limit, FUSION_DEPTH))
        notes += _coverage_note(covered)
        return Result(_with_excerpts(settings, hits[:query.limit], query.text), len(hits), mode, notes)
    depth = max(query.limit, FUSION_DEPTH)
    lexical, total = _bm25(settings, query, depth)
    (heads, sections), covered = _semantic(settings, query, depth, hybrid=True)
    notes += _coverage_note(covered)
    fused = weighted_rrf([lexical, heads, sections], list(FUSION_WEIGHTS))[:query.limit]
    hits = [dataclasses.replace(h, engine="hybrid") for h in _with_excerpts(settings, fused, query.text)]
    return Result(hits, max(total, len(fused)), mode, notes)


def default_mode(settings) -> tuple[str, str]:
    """("hybrid", "") when semantic search can answer here, else ("fulltext", why not)."""
    ready, why = semantic_ready(settings)
    return ("hybrid", "") if ready else ("fulltext", why)


def semantic_ready(settings) -> tuple[bool, str]:
    """Whether a query can be answered from vectors: some notes embedded, the model loads, and
    the vectors were made by that model. Cheap checks first: no numpy for a vault never embedded."""
    from obsidian_memory.search import vectors

    store = vectors.store_path(settings)
    if not os.path.exists(store):
        return False, "no embeddings yet; run `obsidian_memory.py embed`"
    from obsidian_memory.search import semantic

    ok, why = semantic.available()
    if not ok:
        return False, why
    info = vectors.coverage(settings, semantic.model_id())
    if info.get("error"):
        return False, info["error"]
    if not info["embedded"]:
        if info["models"]:
            return False, "the embeddings were made by another model; run `obsidian_memory.py embed`"
        return False, "no embeddings yet; run `obsidian_memory.py embed`"
    return True, ""


def status(settings) -> dict:
    """For `status` / `doctor`: is semantic search on, why not, and how much is embedded."""
    from obsidian_memory.search import semantic, vectors

    ok, why = semantic.available()
    model = semantic.model_id() if ok else None
    info = vectors.coverage(settings, model)
    indexed = _indexed_count(settings)
    ready, reason = semantic_ready(settings) if ok else (False, why)
    return {"available": ok, "reason": "" if ok else why, "model": model, "on": ready,
            "off_reason": "" if ready else reason, "embedded": info["embedded"], "notes": indexed,
            "store_path": info["path"], "size_bytes": info["size_bytes"], "vectors": info["vectors"],
            "default_mode": "hybrid" if ready else "fulltext"}


def status_line(info: dict) -> str:
    """One line for `status`: e.g. "semantic:   on, 171 of 171 notes embedded (3.1 MB)"."""
    if not info["available"]:
        return f"semantic:   off ({info['reason']})"
    size = (f"{info['size_bytes'] / 1048576:.1f} MB" if info["size_bytes"] >= 1048576
            else f"{info['size_bytes'] / 1024:.0f} KB")
    if info["on"]:
        return f"semantic:   on, {info['embedded']} of {info['notes']} notes embedded ({size}); default mode hybrid"
    return f"semantic:   off ({info['off_reason']})"


# -- the lists ----------------------------------------------------------------------------------

def _bm25(settings, query: Query, depth: int) -> tuple[list[Hit], int]:
    from obsidian_memory.search import index

    return index.search(settings, dataclasses.replace(query, limit=depth))


def _update_index(settings) -> None:
    from obsidian_memory.search import index

    index.update(settings, lock_wait=index.SEARCH_LOCK_WAIT)


def _in_scope(settings, query: Query) -> list[tuple[str, str]]:
    """(path, title) of every indexed note in the query's scope (the index decides the filters).
    Only the path is read (from the index's covering index: the rows hold whole note texts);
    the title is the file name, as the index has it."""
    from obsidian_memory.search import index
    from obsidian_memory.search.index_query import scope_sql

    scope, params = scope_sql(query)
    conn = index.open_index(settings)
    try:
        paths = conn.execute(f"SELECT n.path FROM notes n {'WHERE ' + scope if scope else ''}", params).fetchall()
    finally:
        conn.close()
    return [(path, _basename(path)) for (path,) in paths]


def _semantic(settings, query: Query, depth: int, hybrid: bool = False):
    """The semantic rankings (excerpts left empty) and (embedded notes in scope, notes in scope).
    For `semantic`: one list, a note scoring by its head, or by a section chunk that beats the
    head by SECTION_MARGIN (long notes have many chunks, and the best of many is high by chance).
    For `hybrid`: two lists, by heads and by best chunks, each fused with half the weight of BM25."""
    from obsidian_memory.search import semantic, vectors

    matrix = vectors.load_matrix(settings, semantic.model_id())
    scope = dict(_in_scope(settings, query))
    allowed = set(scope)
    embedded = sum(1 for p in (matrix.paths if matrix else ()) if p in allowed)
    covered = (embedded, len(allowed))
    if not embedded or not query.text.strip():
        return ([], []) if hybrid else [], covered
    scores = vectors.score_notes(matrix, semantic.embed_query(query.text))

    def hits(values, seq_of) -> list[Hit]:
        return [Hit(path=scores.paths[i], basename=scope.get(scores.paths[i]) or _basename(scores.paths[i]),
                    score=round(float(values[i]), 4), excerpt="", engine="semantic", extra={"_chunk": seq_of(i)})
                for i in scores.ranking(values, allowed, depth)]

    if hybrid:
        return (hits(scores.head, lambda i: 0), hits(scores.section, lambda i: int(scores.section_seq[i]))), covered
    import numpy as np

    by_section = scores.section - SECTION_MARGIN > scores.head
    combined = np.where(by_section, scores.section - SECTION_MARGIN, scores.head)
    return hits(combined, lambda i: int(scores.section_seq[i]) if by_section[i] else 0), covered


def weighted_rrf(rankings: list[list[Hit]], weights: list[float], k: int | None = None) -> list[Hit]:
    """Reciprocal rank fusion with a weight per list: score = sum of weight / (k + rank).
    A note keeps the hit (excerpt, engine) of the list that weighs most for it."""
    from obsidian_memory.search.fusion import RRF_K

    k = RRF_K if k is None else k
    fused: dict[str, float] = {}
    best: dict[str, tuple[float, Hit]] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, hit in enumerate(ranking, start=1):
            share = weight / (k + rank)
            fused[hit.path] = fused.get(hit.path, 0.0) + share
            if hit.path not in best or share > best[hit.path][0]:
                best[hit.path] = (share, hit)
    order = sorted(fused, key=lambda path: (-fused[path], -best[path][0], path))
    return [dataclasses.replace(best[p][1], score=round(fused[p], 6)) for p in order]


def _with_excerpts(settings, hits: list[Hit], text: str = "") -> list[Hit]:
    """Semantic-only hits show the chunk that matched (read again from the note: a few files),
    from its line sharing most words with the query."""
    from obsidian_memory.search.vectors import chunks_of

    out = []
    for hit in hits:
        extra = dict(hit.extra)
        seq = extra.pop("_chunk", None)
        excerpt = hit.excerpt
        if not excerpt and seq is not None:
            try:
                with open(settings.vault_path(hit.path), encoding="utf-8", errors="replace") as handle:
                    chunks = chunks_of(handle.read(), hit.basename)
                excerpt = _excerpt(chunks[seq] if seq < len(chunks) else chunks[0], text)
            except OSError:
                excerpt = ""
        out.append(dataclasses.replace(hit, excerpt=excerpt, extra=extra))
    return out


def _excerpt(chunk, text: str) -> str:
    from obsidian_memory.search.index_query import words
    from obsidian_memory.search.vectors import excerpt_text

    wanted = set(words(text))
    lines = chunk.text.split("\n")[1:] or [chunk.text]
    overlap = [len(wanted & set(words(line))) for line in lines]
    best = max(range(len(lines)), key=lambda i: (overlap[i], -i)) if wanted else 0
    if not overlap or overlap[best] == 0:
        return chunk.excerpt
    return excerpt_text(" ".join(lines[best:]))


def _coverage_note(covered: tuple[int, int]) -> list[str]:
    embedded, total = covered
    if total and embedded < total:
        return [f"semantic ranking covers {embedded} of {total} notes so far; "
                f"`obsidian_memory.py embed` embeds the rest"]
    return []


def _indexed_count(settings) -> int:
    from obsidian_memory.search import index

    try:
        return int(index.status(settings).get("notes_indexed") or 0)
    except Exception:
        return 0


def _basename(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


# -- title mode --------------------------------------------------------------------------------

def title_search(settings, query: Query) -> tuple[list[Hit], int]:
    """Notes whose name or an alias matches the query: the exact name, then a name starting
    with or containing the query, then names sharing its words, a word counting when it is
    the same, a prefix (3+ letters) or one typo away (4+ letters: an edit or a swap)."""
    from obsidian_memory.search import index
    from obsidian_memory.search.index_query import fold, scope_sql, words

    wanted = " ".join(words(query.text))
    if not wanted:
        return [], 0
    index.update(settings, lock_wait=index.SEARCH_LOCK_WAIT)
    scope, params = scope_sql(query)
    conn = index.open_index(settings)
    try:
        rows = conn.execute(f"SELECT n.path, n.title, n.aliases FROM notes n {'WHERE ' + scope if scope else ''}",
                            params).fetchall()
    finally:
        conn.close()
    wanted_words = wanted.split()
    # a name worth scoring holds the start or the end of a query word (a typo rarely hits both)
    pieces = tuple({w[:2] for w in wanted_words} | {w[-2:] for w in wanted_words})
    scored = []
    for path, title, aliases in rows:
        best, label = 0.0, ""
        for name in [title, *(aliases.split("\n") if aliases else ())]:
            lowered = name.lower() if name.isascii() else fold(name)
            if not any(piece in lowered for piece in pieces):
                continue
            score = _name_score(wanted, wanted_words, " ".join(words(name)))
            if score > best:
                best, label = score, name
        if best >= TITLE_MIN_SCORE:
            scored.append((best, path, title, label))
    scored.sort(key=lambda item: (-item[0], len(item[3]), item[1]))
    hits = [Hit(path=p, basename=t, score=round(s, 4), excerpt="" if label == t else f"alias: {label}",
                engine="title") for s, p, t, label in scored[:query.limit]]
    return hits, len(scored)


def _name_score(wanted: str, wanted_words: list[str], name: str) -> float:
    """3 for the exact name, 2-3 for a name starting with the query, 1.5-2.5 for one containing
    it, else up to 1 by the share of query words found (and of the name's words covered)."""
    if not name:
        return 0.0
    if name == wanted:
        return 3.0
    closeness = min(len(wanted), len(name)) / max(len(wanted), len(name))
    if name.startswith(wanted):
        return 2.0 + closeness
    if wanted in name:
        return 1.5 + closeness
    name_words = name.split()
    found, covered = 0.0, set()
    for word in wanted_words:
        best, where = 0.0, -1
        for i, candidate in enumerate(name_words):
            value = _word_match(word, candidate)
            if value > best:
                best, where = value, i
        found += best
        if where >= 0:
            covered.add(where)
    share = found / len(wanted_words)
    return share * (0.7 + 0.3 * len(covered) / len(name_words))


def _word_match(word: str, candidate: str) -> float:
    if word == candidate:
        return 1.0
    if len(word) >= 3 and candidate.startswith(word):
        return 0.8
    if len(word) >= 4 and len(candidate) >= 4 and _one_typo(word, candidate):
        return 0.7
    return 0.0


def _one_typo(a: str, b: str) -> bool:
    """Damerau distance 1: one letter changed, added, removed, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
                                           and a[i + 2:] == b[i + 2:])
    return a[i:] == b[i + 1:]


# -- similar notes -------------------------------------------------------------------------------

def similar(settings, path: str, limit: int = 10) -> list[Hit] | None:
    """The notes closest to `path` by their vectors (None when that note has none: the caller
    falls back to its lexical `similar`)."""
    import numpy as np

    from obsidian_memory.search import semantic, vectors

    if not semantic_ready(settings)[0]:
        return None
    matrix = vectors.load_matrix(settings, semantic.model_id())
    if matrix is None or path not in matrix.paths:
        return None
    rows = np.flatnonzero(matrix.owner == matrix.paths.index(path))
    centre = matrix.vectors[rows].astype(np.float32).mean(axis=0)
    centre /= np.linalg.norm(centre) or 1.0
    _update_index(settings)
    scope = dict(_in_scope(settings, Query(text="")))
    allowed = set(scope) - {path}
    scores = vectors.score_notes(matrix, centre)
    hits = [Hit(path=scores.paths[i], basename=scope.get(scores.paths[i]) or _basename(scores.paths[i]),
                score=round(float(scores.head[i]), 4), excerpt="", engine="semantic", extra={"_chunk": 0})
            for i in scores.ranking(scores.head, allowed, limit)]
    return _with_excerpts(settings, hits)
