"""The semantic engines over the vault index and the vector store (the optional extra).

- semantic: the notes closest to the query in embedding space; a note scores by its head
  vector, or by a section chunk clearly closer than its head.
- hybrid: weighted reciprocal rank fusion (`fusion`) of three lists ranked FUSION_DEPTH deep:
  BM25, notes by their head vector and notes by their best section chunk (the two semantic
  lists at half weight each). BM25 keeps exact names and rare words on top; the vectors add
  what shares no word with the query (paraphrases, other languages). The fusion knows when the
  words decide (`fulltext.Ranking`): a query holding identifiers, paths or markup keeps the
  words' order for the notes they find; a first place the words settle (the query names the
  note, or its words stand in a row there) stays first.

`default_mode` is hybrid when the model loads and some notes are embedded, else fulltext. A
search never embeds a note (only the query): it uses what `embed` stored so far and says how
much of the vault that covers. Scope and filters come from the vault index, so the semantic
lists obey --folder/--tag/--frontmatter exactly as BM25 does, and a deleted note is never
returned.
"""
from __future__ import annotations

import math
import os
import sys

from obsidian_memory.core.errors import UserError
from obsidian_memory.search.engines import fulltext
from obsidian_memory.search.base import Hit, Query, Result
from obsidian_memory.search.fusion import FUSION_DEPTH, reciprocal_rank_fusion
from obsidian_memory.search.links import note_title
from obsidian_memory.search.store import Scope

# hybrid: BM25, then the semantic list by note heads and the one by section chunks; the two
# semantic lists together weigh as much as BM25 (measured on the judged sets: see benchmarks/semantic.py)
FUSION_WEIGHTS = (1.0, 0.5, 0.5)
FUSION_NAMES = ("words", "meaning of notes", "meaning of sections")     # as --explain names them
SECTION_MARGIN = 0.02      # semantic mode: a section outranks its note's head only by this much
HERE_COSINE = 0.02         # added to the cosines of the session notes of the repository the search runs in
SCORE_BLOCK = 8192         # vectors converted to float32 at a time
SMALL_STORE_ROWS = 2000    # vectors scored without numpy up to this many (see `rows_of`)


class Semantic:
    """Engine: the notes nearest the query's vector (mode `semantic`)."""
    name = "index"

    def search(self, query: Query, request) -> Result:
        from obsidian_memory.search import semantic

        try:
            hits, covered = _semantic(request, query, max(query.limit, FUSION_DEPTH))
        except semantic.Unavailable as exc:         # found installed, but the model does not load here
            raise UserError(f"semantic search is off: {exc}") from exc
        return Result(_with_excerpts(request.settings, hits[:query.limit], query.text), len(hits), "semantic",
                      _coverage_note(covered))


class Hybrid:
    """Engine: BM25 and the two semantic lists, fused (mode `hybrid`)."""
    name = "index"

    def search(self, query: Query, request) -> Result:
        from obsidian_memory.search import semantic

        depth = max(query.limit, FUSION_DEPTH)
        words = fulltext.rank(request.index(), query.replace(limit=depth), excerpts=False)
        lexical, total = words.hits, words.total
        try:
            (heads, sections), covered = _semantic(request, query, depth, hybrid=True)
        except semantic.Unavailable as exc:         # found installed, but the model does not load here
            alone = fulltext.Fulltext().search(query, request)
            return Result(alone.hits, alone.total, alone.mode,
                          [f"semantic search is off ({exc}): fulltext results", *alone.notes])
        fused = reciprocal_rank_fusion([lexical, heads, sections], FUSION_WEIGHTS,
                                       names=list(FUSION_NAMES) if query.explain else None)
        if words.literal:
            fused = _words_first(fused, lexical)
        elif words.decisive and lexical:
            fused = _words_first(fused, lexical[:1])
        fused = fused[:query.limit]
        fused = fulltext.add_excerpts(request.index(), fused, query.text)     # only the hits shown
        hits = [h.replace(engine="hybrid") for h in _with_excerpts(request.settings, fused, query.text)]
        return Result(hits, max(total, len(fused)), "hybrid", _coverage_note(covered))


def _words_first(fused: list[Hit], lexical: list[Hit]) -> list[Hit]:
    """`fused` with the notes of `lexical` first, in its order, the others after in theirs: when
    the query holds identifiers, paths or markup (which the model does not read) the words order
    the notes that hold them, and meaning only what they leave; else `lexical[:1]`, a first place
    the words settle (`fulltext.Ranking.decisive`)."""
    first = {h.path for h in lexical}
    by_path = {h.path: h for h in fused}
    return [by_path[h.path] for h in lexical if h.path in by_path] + [h for h in fused if h.path not in first]


# -- whether semantic search can answer here ------------------------------------------------------

def default_mode(settings) -> tuple[str, str]:
    """("hybrid", "") when semantic search can answer here, else ("fulltext", why not)."""
    ready, why = semantic_ready(settings)
    return ("hybrid", "") if ready else ("fulltext", why)


def semantic_ready(settings) -> tuple[bool, str]:
    """Whether a query can be answered from vectors: some notes embedded, the model loads, and
    the vectors were made by that model. Cheap checks first: no model for a vault never embedded.
    Where the package has the pinned layout the model's id is known before it loads: its load is
    then only started here, beside the rest of the search (a model that turns out not to load
    makes the search say so and answer by words: `Hybrid.search`)."""
    from obsidian_memory.search.store import vectors

    if not os.path.exists(vectors.store_path(settings)):
        return False, "no embeddings yet; run `obsidian_memory.py embed`"
    from obsidian_memory.search import semantic

    if not semantic.start_loading():
        ok, why = semantic.available()
        if not ok:
            return False, why
    found = vectors.embedded_by(settings, semantic.model_id())
    if found == "this model":
        return True, ""
    if found == "another model":
        return False, "the embeddings were made by another model; run `obsidian_memory.py embed`"
    if found == "none":
        return False, "no embeddings yet; run `obsidian_memory.py embed`"
    return False, found


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

def _semantic(request, query: Query, depth: int, hybrid: bool = False):
    """The semantic rankings (excerpts left empty) and (embedded notes in scope, notes in scope).
    For `semantic`: one list, a note scoring by its head, or by a section chunk that beats the
    head by SECTION_MARGIN (long notes have many chunks, and the best of many is high by chance).
    For `hybrid`: two lists, by heads and by best chunks, each fused with half the weight of BM25.
    The query is embedded only when notes in scope are."""
    from obsidian_memory.search import semantic
    from obsidian_memory.search.store import vectors

    matrix = vectors.load_matrix(request.settings, semantic.model_id())
    allowed = set(request.index().paths_in_scope(Scope.of(query)))
    embedded = sum(1 for p in (matrix.paths if matrix else ()) if p in allowed)
    covered = (embedded, len(allowed))
    query_vector = semantic.query_vector(query.text) if embedded else None
    if query_vector is None:
        return ([], []) if hybrid else [], covered
    scores = score_notes(matrix, query_vector)
    _prefer_here(request, query, scores)

    def hits(values, seq_of) -> list[Hit]:
        return [Hit(path=scores.paths[i], basename=note_title(scores.paths[i]), score=round(float(values[i]), 4),
                    excerpt="", engine="semantic", extra={"_chunk": seq_of(i)})
                for i in scores.ranking(values, allowed, depth)]

    if hybrid:
        return (hits(scores.head, lambda i: 0), hits(scores.section, lambda i: scores.section_seq[i])), covered
    by_section = [section - SECTION_MARGIN > head for section, head in zip(scores.section, scores.head)]
    combined = [section - SECTION_MARGIN if chosen else head
                for section, head, chosen in zip(scores.section, scores.head, by_section)]
    return hits(combined, lambda i: scores.section_seq[i] if by_section[i] else 0), covered


def _prefer_here(request, query: Query, scores: "NoteScores") -> None:
    """The session notes of the repository the search runs in (Query.repo) a little closer, as
    the words' ranking has them a little higher (fulltext.BONUS_HERE)."""
    if not query.repo or not HERE_COSINE:
        return
    here = set(request.index().paths_with_property(fulltext.REPO_PROPERTY, query.repo))
    for i, path in enumerate(scores.paths):
        if path in here:
            scores.head[i] += HERE_COSINE
            scores.section[i] += HERE_COSINE


def _with_excerpts(settings, hits: list[Hit], text: str = "") -> list[Hit]:
    """Hits that came from a semantic list show the chunk that matched, from its line sharing
    most words with the query. The store keeps vectors, not texts: only such hits read their
    note again (a few files; the Markdown grammar is imported only then, ~10 ms of a process);
    the others have the index's excerpt."""
    from obsidian_memory.core.fsutil import read_text

    out = []
    for hit in hits:
        extra = dict(hit.extra)
        seq = extra.pop("_chunk", None)
        excerpt = hit.excerpt
        if not excerpt and seq is not None:
            note = read_text(settings.vault_path(hit.path))
            if note is not None:
                from obsidian_memory.search.store.vectors import note_chunks

                chunks = note_chunks(hit.path, note)
                excerpt = _excerpt(chunks[seq] if seq < len(chunks) else chunks[0], text)
        out.append(hit.replace(excerpt=excerpt, extra=extra))
    return out


def _excerpt(chunk, text: str) -> str:
    from obsidian_memory.vault.markdown import excerpt_text

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

    def __init__(self, paths: list[str], head: list[float], section: list[float], section_seq: list[int]):
        self.paths, self.head, self.section, self.section_seq = paths, head, section, section_seq

    def ranking(self, values, allowed: set[str] | None, depth: int) -> list[int]:
        """Indexes of the `depth` best notes by `values`, among `allowed` paths (ties: in
        `paths` order)."""
        import heapq

        candidates = [i for i, (path, value) in enumerate(zip(self.paths, values))
                      if value > -math.inf and (allowed is None or path in allowed)]
        return heapq.nsmallest(depth, candidates, key=lambda i: -values[i])


def rows_of(matrix):
    """What scores the rows of `matrix` (`store.vectors.Matrix`): for a small store plain Python
    (`_PythonRows`), as importing numpy costs a search process more than scoring up to SMALL_STORE_ROWS rows so
    (benchmarks/semantic.py --crossover measures both); a larger one by numpy (`_NumpyRows`), and
    so any once numpy is loaded anyway, or when this process scores the same matrix again (the MCP
    server, which keeps it: numpy's import then pays for itself over its searches)."""
    again, matrix.scored = matrix.scored, True
    if len(matrix.owner) <= SMALL_STORE_ROWS and "numpy" not in sys.modules and not again:
        return _PythonRows(matrix.blobs)
    return _NumpyRows(matrix.vectors)


class _PythonRows:
    """The float16 rows scored in plain Python (`semantic.cosines`). (Rows decoded while the
    query's vector is on its way made a search slower, not faster: the vector comes first where
    a core is free, and where none is, decoding ahead takes the model's turn on the core.)"""

    def __init__(self, blobs: list[bytes]):
        self.blobs = blobs

    def cosines(self, query) -> list[float]:
        from obsidian_memory.search import semantic

        return semantic.cosines(self.blobs, query)


class _NumpyRows:
    """The float16 matrix, multiplied in float32 through one small reused buffer: converting a
    whole float16 matrix at once costs a fresh float32 copy of it (page faults dominate at 10k notes)."""

    def __init__(self, vectors):
        self.vectors = vectors

    def cosines(self, query) -> list[float]:
        import numpy as np

        vectors = self.vectors
        query_vector = np.asarray(query, dtype=np.float32)
        out = np.empty(len(vectors), dtype=np.float32)
        buffer = np.empty((min(SCORE_BLOCK, len(vectors)), vectors.shape[1] if len(vectors) else 0), dtype=np.float32)
        for start in range(0, len(vectors), SCORE_BLOCK):
            block = vectors[start:start + SCORE_BLOCK]
            np.copyto(buffer[:len(block)], block)
            out[start:start + len(block)] = buffer[:len(block)] @ query_vector
        return out.tolist()


def score_notes(matrix, query_vector, rows=None) -> NoteScores:
    """Every note of `matrix` (`store.vectors.Matrix`) scored against the query's vector;
    `rows`: `rows_of(matrix)` when already made."""
    notes = len(matrix.paths)
    head, section, seq = [-math.inf] * notes, [-math.inf] * notes, [0] * notes
    for note, chunk, score in zip(matrix.owner, matrix.seqs, (rows if rows is not None else rows_of(matrix)).cosines(query_vector)):
        if chunk == 0:
            head[note] = score
        elif score >= section[note]:        # a tie: the later chunk
            section[note], seq[note] = score, chunk
    section = [best if best > -math.inf else own_head for best, own_head in zip(section, head)]
    return NoteScores(matrix.paths, head, section, seq)
