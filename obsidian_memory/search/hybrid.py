"""The semantic engines over the vault index and the vector store (the optional extra).

- semantic: the notes closest to the query in embedding space; a note scores by its head
  vector, or by a section chunk clearly closer than its head.
- hybrid: weighted reciprocal rank fusion (`fusion`) of three lists ranked FUSION_DEPTH deep:
  BM25, notes by their head vector and notes by their best section chunk (the two semantic
  lists at half weight each). BM25 keeps exact names and rare words on top; the vectors add
  what shares no word with the query (paraphrases, other languages).

`default_mode` is hybrid when the model loads and some notes are embedded, else fulltext. A
search never embeds a note (only the query): it uses what `embed` stored so far and says how
much of the vault that covers. Scope and filters come from the vault index, so the semantic
lists obey --folder/--tag/--frontmatter exactly as BM25 does, and a deleted note is never
returned.
"""
from __future__ import annotations

import os
import threading

from obsidian_memory.search import fulltext
from obsidian_memory.search.base import Hit, Query, Result
from obsidian_memory.search.fusion import FUSION_DEPTH, reciprocal_rank_fusion
from obsidian_memory.search.links import note_title
from obsidian_memory.search.store import Scope

# hybrid: BM25, then the semantic list by note heads and the one by section chunks; the two
# semantic lists together weigh as much as BM25 (measured on the judged sets: see benchmarks/semantic.py)
FUSION_WEIGHTS = (1.0, 0.5, 0.5)
FUSION_NAMES = ("words", "meaning of notes", "meaning of sections")     # as --explain names them
SECTION_MARGIN = 0.02      # semantic mode: a section outranks its note's head only by this much
SCORE_BLOCK = 8192         # vectors converted to float32 at a time


class Semantic:
    """Engine: the notes nearest the query's vector (mode `semantic`)."""
    name = "index"

    def search(self, query: Query, request) -> Result:
        hits, covered = _semantic(request, query, max(query.limit, FUSION_DEPTH))
        return Result(_with_excerpts(request.settings, hits[:query.limit], query.text), len(hits), "semantic",
                      _coverage_note(covered))


class Hybrid:
    """Engine: BM25 and the two semantic lists, fused (mode `hybrid`)."""
    name = "index"

    def search(self, query: Query, request) -> Result:
        depth = max(query.limit, FUSION_DEPTH)
        meaning = _vectors_soon(request.settings, query.text)      # while BM25 ranks
        lexical, total = fulltext.search(request.index(), query.replace(limit=depth), excerpts=False)
        (heads, sections), covered = _semantic(request, query, depth, hybrid=True, vectors_of=meaning.result)
        fused = reciprocal_rank_fusion([lexical, heads, sections], FUSION_WEIGHTS,
                                       names=list(FUSION_NAMES) if query.explain else None)[:query.limit]
        fused = fulltext.add_excerpts(request.index(), fused, query.text)     # only the hits shown
        hits = [h.replace(engine="hybrid") for h in _with_excerpts(request.settings, fused, query.text)]
        return Result(hits, max(total, len(fused)), "hybrid", _coverage_note(covered))


# -- whether semantic search can answer here ------------------------------------------------------

def default_mode(settings) -> tuple[str, str]:
    """("hybrid", "") when semantic search can answer here, else ("fulltext", why not)."""
    ready, why = semantic_ready(settings)
    return ("hybrid", "") if ready else ("fulltext", why)


def semantic_ready(settings) -> tuple[bool, str]:
    """Whether a query can be answered from vectors: some notes embedded, the model loads, and
    the vectors were made by that model. Cheap checks first: no numpy for a vault never embedded."""
    from obsidian_memory.search.store import vectors

    if not os.path.exists(vectors.store_path(settings)):
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
    from obsidian_memory.search import semantic, store
    from obsidian_memory.search.store import vectors

    ok, why = semantic.available()
    model = semantic.model_id() if ok else None
    info = vectors.coverage(settings, model)
    indexed = int(store.status(settings).get("notes_indexed") or 0)
    ready, reason = semantic_ready(settings) if ok else (False, why)
    return {"available": ok, "reason": "" if ok else why, "model": model, "on": ready,
            "off_reason": "" if ready else reason, "embedded": info["embedded"], "notes": indexed,
            "store_path": info["path"], "size_bytes": info["size_bytes"], "vectors": info["vectors"],
            "default_mode": "hybrid" if ready else "fulltext"}


# -- the semantic lists -----------------------------------------------------------------------------

def _semantic(request, query: Query, depth: int, hybrid: bool = False, vectors_of=None):
    """The semantic rankings (excerpts left empty) and (embedded notes in scope, notes in scope).
    For `semantic`: one list, a note scoring by its head, or by a section chunk that beats the
    head by SECTION_MARGIN (long notes have many chunks, and the best of many is high by chance).
    For `hybrid`: two lists, by heads and by best chunks, each fused with half the weight of BM25.
    `vectors_of()`: (the store's matrix, the query's vector), when already under way."""
    matrix, vector = (vectors_of or _vectors_soon(request.settings, query.text).result)()
    allowed = set(request.index().paths_in_scope(Scope.of(query)))
    embedded = sum(1 for p in (matrix.paths if matrix else ()) if p in allowed)
    covered = (embedded, len(allowed))
    if not embedded or vector is None:
        return ([], []) if hybrid else [], covered
    scores = score_notes(matrix, vector)

    def hits(values, seq_of) -> list[Hit]:
        return [Hit(path=scores.paths[i], basename=note_title(scores.paths[i]), score=round(float(values[i]), 4),
                    excerpt="", engine="semantic", extra={"_chunk": seq_of(i)})
                for i in scores.ranking(values, allowed, depth)]

    if hybrid:
        return (hits(scores.head, lambda i: 0), hits(scores.section, lambda i: int(scores.section_seq[i]))), covered
    import numpy as np

    by_section = scores.section - SECTION_MARGIN > scores.head
    combined = np.where(by_section, scores.section - SECTION_MARGIN, scores.head)
    return hits(combined, lambda i: int(scores.section_seq[i]) if by_section[i] else 0), covered


def _vectors_soon(settings, text: str):
    """A future of (the store's matrix for the model, the vector of `text` or None when it has no
    word), computed in a thread: the engine and SQLite release the GIL, so the query's embedding
    and the matrix read overlap with the caller's BM25 ranking (a whole hybrid search process is
    that much shorter)."""
    from concurrent.futures import Future

    future: Future = Future()

    def compute() -> None:
        from obsidian_memory.search import semantic
        from obsidian_memory.search.store import vectors

        try:
            matrix = vectors.load_matrix(settings, semantic.model_id())
            vector = semantic.embed_query(text) if matrix is not None and len(matrix.paths) and text.strip() else None
            future.set_result((matrix, vector))
        except BaseException as exc:       # raised again where the caller waits for it
            future.set_exception(exc)

    threading.Thread(target=compute, name="query-vector", daemon=True).start()
    return future


def _with_excerpts(settings, hits: list[Hit], text: str = "") -> list[Hit]:
    """Hits that came from a semantic list show the chunk that matched, from its line sharing
    most words with the query. The store keeps vectors, not texts: only such hits read their
    note again (a few files); the others have the index's excerpt."""
    from obsidian_memory import markdown
    from obsidian_memory.fsutil import read_text

    out = []
    for hit in hits:
        extra = dict(hit.extra)
        seq = extra.pop("_chunk", None)
        excerpt = hit.excerpt
        if not excerpt and seq is not None:
            note = read_text(settings.vault_path(hit.path))
            if note is not None:
                chunks = markdown.chunks_of(note, hit.basename)
                excerpt = _excerpt(chunks[seq] if seq < len(chunks) else chunks[0], text)
        out.append(hit.replace(excerpt=excerpt, extra=extra))
    return out


def _excerpt(chunk, text: str) -> str:
    from obsidian_memory.markdown import excerpt_text

    wanted = set(fulltext.words(text))
    lines = chunk.text.split("\n")[1:] or [chunk.text]
    overlap = [len(wanted & set(fulltext.words(line))) for line in lines]
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



# -- scoring vectors ----------------------------------------------------------------------------------

class NoteScores:
    """Per note (aligned with `Matrix.paths`): the cosine of its head, of its best section
    chunk (its head again when the head holds the whole note) and that chunk's number."""

    def __init__(self, paths: list[str], head, section, section_seq):
        self.paths, self.head, self.section, self.section_seq = paths, head, section, section_seq

    def ranking(self, values, allowed: set[str] | None, depth: int) -> list[int]:
        """Indexes of the `depth` best notes by `values`, among `allowed` paths."""
        import numpy as np

        values = np.array(values, dtype=np.float32, copy=True)
        if allowed is not None:
            mask = np.fromiter((p in allowed for p in self.paths), dtype=bool, count=len(self.paths))
            values[~mask] = -np.inf
        count = int(np.isfinite(values).sum())
        return [int(i) for i in np.argsort(-values, kind="stable")[:min(depth, count)]]


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


def score_notes(matrix, query_vector) -> NoteScores:
    """Every note of `matrix` (`store.vectors.Matrix`) scored against the query's vector."""
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
