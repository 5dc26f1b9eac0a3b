"""Reciprocal rank fusion: one ranking from several, so that a note ranking well in any of them
rises. Used for a fan-out over several phrasings of a query (equal weights) and for hybrid
search (BM25 and the semantic lists, weighted).

Plain RRF buries a ranking's clear winner: a note first for one phrasing and absent from the
others scores 1/61, less than a note third in two lists (2/63). So a ranking's first note also
gets a share for how clearly it leads: CONFIDENT_BONUS times the gap between its score and the
second's, relative to its own (0 when they tie, 1 when it is alone). The gap is a ratio of one
engine's own scores, so it means the same for BM25, cosine or Omnisearch scores."""
from __future__ import annotations

from obsidian_memory.search.base import Hit

RRF_K = 60
FUSION_DEPTH = 50          # how deep each ranking is taken before it is fused
# A first place leading the second by a sixth of its score outweighs a note second in two lists
# (measured on the fan-out set's dev half: 0.05-0.2 give the same figures; benchmarks/search_quality.py)
CONFIDENT_BONUS = 0.1


def reciprocal_rank_fusion(rankings: list[list[Hit]], weights=None, k: int = RRF_K,
                           confident_bonus: float = CONFIDENT_BONUS, names: list[str] | None = None) -> list[Hit]:
    """score(note) = sum over rankings of weight / (k + rank), rank from 1, weight 1 by default,
    plus weight x confident_bonus x lead for each ranking's first note (see above).

    A ranking that lists a note twice counts it once. A note keeps the hit (excerpt, engine,
    extra fields) of the ranking that gives it the largest share (on a tie, the earlier
    ranking). Ties in score: the larger best share first, then the path, so the order is stable.
    With `names` (one per ranking), each note's `extra["explain"]` lists the rankings that placed
    it: name, rank, share of the fused score, and the signals that ranking gave (`--explain`).
    """
    fused: dict[str, float] = {}
    best: dict[str, tuple[float, Hit]] = {}
    placed: dict[str, list[dict]] = {}
    for number, (ranking, weight) in enumerate(zip(rankings, weights if weights is not None else [1.0] * len(rankings))):
        seen = set()
        lead = confident_bonus * _lead(ranking)
        for rank, hit in enumerate(ranking, start=1):
            if hit.path in seen:
                continue
            seen.add(hit.path)
            share = weight / (k + rank) + (weight * lead if rank == 1 else 0.0)
            fused[hit.path] = fused.get(hit.path, 0.0) + share
            if hit.path not in best or share > best[hit.path][0]:
                best[hit.path] = (share, hit)
            if names is not None:
                placed.setdefault(hit.path, []).append(_placement(names[number], rank, share, hit))
    order = sorted(fused, key=lambda path: (-fused[path], -best[path][0], path))
    return [best[path][1].replace(score=fused[path], extra=_extra(best[path][1], placed.get(path)))
            for path in order]


def _placement(name: str, rank: int, share: float, hit: Hit) -> dict:
    out = {"ranking": name, "rank": rank, "share": round(share, 4)}
    signals = hit.extra.get("explain", {}).get("signals")
    if signals:
        out["signals"] = signals
    return out


def _extra(hit: Hit, placements: list[dict] | None) -> dict:
    extra = dict(hit.extra)
    if placements is not None:
        extra["explain"] = {"fused": placements}
    return extra


def _lead(ranking: list[Hit]) -> float:
    """How clearly the first hit leads: (first - second) / first, in [0, 1]; 0 without scores."""
    if not ranking or ranking[0].score <= 0:
        return 0.0
    second = next((h.score for h in ranking[1:] if h.path != ranking[0].path), 0.0)
    return min(1.0, max(0.0, (ranking[0].score - second) / ranking[0].score))
