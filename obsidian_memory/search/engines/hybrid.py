"""The semantic engines over the vault index and the vector store (the optional extra).

- semantic: the notes closest to the query in embedding space; a note scores by its head
  vector, or by a section chunk clearly closer than its head.
- hybrid: the words' ranking (BM25 and its signals, FUSION_DEPTH deep) and the notes' meaning
  fused by their scores (`fuse`), not their ranks: a note's share of the words' first score
  and its closeness to the query (its head's and best section's cosines, from an unrelated
  note's to the query's best). The words weigh by how much of the query their first note holds
  (`fulltext.Ranking.coverage`): WORDS_SHARE of the whole when it holds all of it, a third of
  that when a third; meaning has the rest. Where every note the words find holds only part of
  the question, meaning's clear first choice leads.
  Two rules stay (`fulltext.Ranking`): a query holding identifiers, paths or markup, which the
  model does not read, keeps the words' order for the notes they find; a first place the words
  settle (the query names the note, or its words stand in a row there) stays first, however
  close another note is in meaning.

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
from obsidian_memory.search.fusion import FUSION_DEPTH, placement
from obsidian_memory.search.links import note_title
from obsidian_memory.search.store import Scope

# hybrid: fused = share x words + (1 - share) x meaning, each in [0, 1], share = WORDS_SHARE x
# the words' coverage of the query; meaning from MEANING_FLOOR, about the cosine this model gives
# an unrelated note (the median note's is ~0.80), to the query's best (tuned on the judged sets'
# dev halves: docs/search.md)
WORDS_SHARE = 0.65
MEANING_FLOOR = 0.78
FUSION_NAMES = ("words", "meaning")     # as --explain names them
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
    """Engine: the words' ranking and the notes' meaning, fused by their scores (mode `hybrid`)."""
    name = "index"

    def search(self, query: Query, request) -> Result:
        from obsidian_memory.search import semantic

        depth = max(query.limit, FUSION_DEPTH)
        words = fulltext.rank(request.index(), query.replace(limit=depth), excerpts=False, drawn=False)
        lexical, total = words.hits, words.total
        try:
            meaning, covered = _semantic(request, query, depth, hybrid=True)
        except semantic.Unavailable as exc:         # found installed, but the model does not load here
            alone = fulltext.Fulltext().search(query, request)
            return Result(alone.hits, alone.total, alone.mode,
                          [f"semantic search is off ({exc}): fulltext results", *alone.notes])
        fused = fuse(lexical, meaning, depth, WORDS_SHARE * words.coverage, query.explain)
        if words.literal:
            fused = _words_first(fused, lexical)
        elif words.decisive and lexical:
            fused = _words_first(fused, lexical[:1])
        fused = fused[:query.limit]
        fused = fulltext.add_excerpts(request.index(), fused, query.text)     # only the hits shown
        hits = [h.replace(engine="hybrid") for h in _with_excerpts(request.settings, fused, query.text)]
        return Result(hits, max(total, len(fused)), "hybrid", _coverage_note(covered))


def fuse(lexical: list[Hit], meaning: "Meaning", depth: int, share: float, explain: bool = False) -> list[Hit]:
    """The words' hits and the `depth` notes closest in meaning, by `share` x the note's words'
    score over the first's + (1 - `share`) x its closeness (`Meaning`); a note absent from the
    words' list has 0 for them; ties by path. A note the words found keeps their
    hit (its excerpt their passage, from the index: no note file read); one only meaning found
    shows its closest chunk. With `explain`, each hit's `extra["explain"]["fused"]` gives each
    list's place and share, as `fusion` does."""
    first = lexical[0].score if lexical and lexical[0].score > 0 else 1.0
    words = {h.path: (rank, h) for rank, h in enumerate(lexical, start=1)}
    close = {h.path: h for h in meaning.ranked(depth)}
    fused = []
    for path in dict.fromkeys([*words, *close]):
        rank, word_hit = words.get(path, (0, None))
        word_share = share * max(0.0, word_hit.score) / first if word_hit else 0.0
        meaning_share = (1 - share) * meaning.closeness.get(path, 0.0)
        hit = word_hit or close[path]
        extra = dict(hit.extra)
        if explain:
            extra["explain"] = {"fused": [
                *([placement(FUSION_NAMES[0], rank, word_share, word_hit)] if word_hit else []),
                *([placement(FUSION_NAMES[1], meaning.place(path), meaning_share)] if meaning_share else [])]}
        fused.append(hit.replace(score=word_share + meaning_share, extra=extra))
    fused.sort(key=lambda h: (-h.score, h.path))
    return fused


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
    """The semantic ranking (excerpts left empty) and (embedded notes in scope, notes in scope).
    For `semantic`: one list, a note scoring by its head, or by a section chunk that beats the
    head by SECTION_MARGIN (long notes have many chunks, and the best of many is high by chance).
    For `hybrid`: the notes' `Meaning` (of none when none is embedded). The query is embedded only
    when notes in scope are."""
    from obsidian_memory.search import semantic
    from obsidian_memory.search.store import vectors

    matrix = vectors.load_matrix(request.settings, semantic.model_id())
    allowed = set(request.index().paths_in_scope(Scope.of(query)))
    embedded = sum(1 for p in (matrix.paths if matrix else ()) if p in allowed)
    covered = (embedded, len(allowed))
    query_vector = semantic.query_vector(query.text) if embedded else None
    if query_vector is None:
        return (Meaning(NoteScores([], [], [], []), set()) if hybrid else []), covered
    scores = score_notes(matrix, query_vector)
    _prefer_here(request, query, scores)
    if hybrid:
        return Meaning(scores, allowed), covered
    by_section = [section - SECTION_MARGIN > head for section, head in zip(scores.section, scores.head)]
    combined = [section - SECTION_MARGIN if chosen else head
                for section, head, chosen in zip(scores.section, scores.head, by_section)]
    return [_semantic_hit(scores.paths[i], combined[i], scores.section_seq[i] if by_section[i] else 0)
            for i in scores.ranking(combined, allowed, depth)], covered


def _semantic_hit(path: str, score: float, chunk: int) -> Hit:
    """A note found by meaning; `_with_excerpts` shows its chunk number `chunk`."""
    return Hit(path=path, basename=note_title(path), score=round(float(score), 4), excerpt="", engine="semantic",
               extra={"_chunk": chunk})


class Meaning:
    """For hybrid, how close each embedded note in scope is to the query, in [0, 1]: the mean
    of the cosines of its head and of its best section (a note is judged by both: what it is
    about and its best passage), from MEANING_FLOOR (0) to the query's closest note (1)."""

    def __init__(self, scores: "NoteScores", allowed: set[str]):
        self.scores = scores
        self.mean = [(head + section) / 2 for head, section in zip(scores.head, scores.section)]
        self.allowed = allowed
        found = [i for i, path in enumerate(scores.paths) if path in allowed and self.mean[i] > -math.inf]
        best = max((self.mean[i] for i in found), default=MEANING_FLOOR)
        span = max(best - MEANING_FLOOR, 1e-9)
        self.closeness = {scores.paths[i]: max(0.0, (self.mean[i] - MEANING_FLOOR) / span) for i in found}

    def ranked(self, depth: int) -> list[Hit]:
        """The `depth` closest notes, closest first, each with its best section's chunk when that
        is closer than its head."""
        scores = self.scores
        return [_semantic_hit(scores.paths[i], self.closeness[scores.paths[i]],
                              scores.section_seq[i] if scores.section[i] > scores.head[i] else 0)
                for i in scores.ranking(self.mean, self.allowed, depth)]

    def place(self, path: str) -> int:
        """The note's place by closeness (for `--explain`)."""
        own = self.closeness.get(path, 0.0)
        return 1 + sum(1 for value in self.closeness.values() if value > own)


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
