"""Reciprocal rank fusion: merge several rankings so that a note ranking well for any phrasing rises."""
from __future__ import annotations

from obsidian_memory.search.base import Hit

RRF_K = 60


def reciprocal_rank_fusion(rankings: list[list[Hit]], k: int = RRF_K) -> list[Hit]:
    """One ranking from several: score(note) = sum over rankings of 1 / (k + rank), rank from 1.

    A note keeps the excerpt (and engine, extra fields) of the ranking where it ranked best.
    Ties: the better best rank first, then the path, so the order is stable.
    """
    fused: dict[str, float] = {}
    best: dict[str, tuple[int, Hit]] = {}
    for ranking in rankings:
        seen = set()
        for rank, hit in enumerate(ranking, start=1):
            if hit.path in seen:  # a ranking that lists a note twice counts it once
                continue
            seen.add(hit.path)
            fused[hit.path] = fused.get(hit.path, 0.0) + 1.0 / (k + rank)
            if hit.path not in best or rank < best[hit.path][0]:
                best[hit.path] = (rank, hit)
    order = sorted(fused, key=lambda path: (-fused[path], best[path][0], path))
    return [_with_score(best[path][1], fused[path]) for path in order]


def _with_score(hit: Hit, score: float) -> Hit:
    return Hit(path=hit.path, basename=hit.basename, score=score, excerpt=hit.excerpt,
               engine=hit.engine, extra=dict(hit.extra))
