"""Reciprocal rank fusion: one ranking from several, so that a note ranking well in any of them
rises. Used for a fan-out over several phrasings of a query (equal weights) and for hybrid
search (BM25 and the semantic lists, weighted)."""
from __future__ import annotations

from obsidian_memory.search.base import Hit

RRF_K = 60
FUSION_DEPTH = 50          # how deep each ranking is taken before it is fused


def reciprocal_rank_fusion(rankings: list[list[Hit]], weights=None, k: int = RRF_K) -> list[Hit]:
    """score(note) = sum over rankings of weight / (k + rank), rank from 1, weight 1 by default.

    A ranking that lists a note twice counts it once. A note keeps the hit (excerpt, engine,
    extra fields) of the ranking that gives it the largest share (on a tie, the earlier
    ranking). Ties in score: the larger best share first, then the path, so the order is stable.
    """
    fused: dict[str, float] = {}
    best: dict[str, tuple[float, Hit]] = {}
    for ranking, weight in zip(rankings, weights if weights is not None else [1.0] * len(rankings)):
        seen = set()
        for rank, hit in enumerate(ranking, start=1):
            if hit.path in seen:
                continue
            seen.add(hit.path)
            share = weight / (k + rank)
            fused[hit.path] = fused.get(hit.path, 0.0) + share
            if hit.path not in best or share > best[hit.path][0]:
                best[hit.path] = (share, hit)
    order = sorted(fused, key=lambda path: (-fused[path], -best[path][0], path))
    return [best[path][1].replace(score=fused[path], extra=dict(best[path][1].extra)) for path in order]
