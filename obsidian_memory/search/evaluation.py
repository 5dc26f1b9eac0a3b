"""Search-quality metrics over a judged query set (pure functions).

Definitions: gain 1.0 for a relevant note, 0.5 for a partial one; DCG = sum of
gain / log2(i + 2) over the top k (i from 0); the ideal list is all relevant then all partial
notes, cut at k; MRR and Hit@k count relevant notes only; Recall@k is the share of the relevant
notes found in the top k. Each query's values are rounded to 3 decimals, then averaged.

A set may be split into a `dev` half (tune on it) and a `test` half (report it), each entry saying
which in its "split"; `assign_splits` draws the halves once, by a fixed seed, and the files keep them.
"""
from __future__ import annotations

import hashlib
import json
import math

METRICS = ("ndcg@5", "ndcg@10", "mrr", "hit@1", "hit@3", "hit@5", "recall@10")
RELEVANT_GAIN = 1.0
PARTIAL_GAIN = 0.5
SPLITS = ("dev", "test")
SPLIT_SEED = "issue-14"


def gain(path: str, relevant: set[str], partial: set[str]) -> float:
    if path in relevant:
        return RELEVANT_GAIN
    if path in partial:
        return PARTIAL_GAIN
    return 0.0


def dcg(gains: list[float], k: int) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))


def ndcg(ranked: list[str], relevant, partial, k: int) -> float:
    relevant, partial = set(relevant), set(partial) - set(relevant)
    ideal = dcg([RELEVANT_GAIN] * len(relevant) + [PARTIAL_GAIN] * len(partial), k)
    if ideal == 0:
        return 0.0
    return dcg([gain(p, relevant, partial) for p in _unique(ranked)], k) / ideal


def reciprocal_rank(ranked: list[str], relevant) -> float:
    relevant = set(relevant)
    for i, path in enumerate(_unique(ranked)):
        if path in relevant:
            return 1.0 / (i + 1)
    return 0.0


def hit_at(ranked: list[str], relevant, k: int) -> float:
    relevant = set(relevant)
    return 1.0 if any(p in relevant for p in _unique(ranked)[:k]) else 0.0


def recall_at(ranked: list[str], relevant, k: int) -> float:
    relevant = set(relevant)
    if not relevant:
        return 0.0
    return len(relevant & set(_unique(ranked)[:k])) / len(relevant)


def query_metrics(ranked: list[str], relevant, partial=()) -> dict[str, float]:
    """Every metric for one query, each rounded to 3 decimals."""
    values = {
        "ndcg@5": ndcg(ranked, relevant, partial, 5),
        "ndcg@10": ndcg(ranked, relevant, partial, 10),
        "mrr": reciprocal_rank(ranked, relevant),
        "hit@1": hit_at(ranked, relevant, 1),
        "hit@3": hit_at(ranked, relevant, 3),
        "hit@5": hit_at(ranked, relevant, 5),
        "recall@10": recall_at(ranked, relevant, 10),
    }
    return {name: round(value, 3) for name, value in values.items()}


def mean_metrics(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {name: 0.0 for name in METRICS}
    return {name: round(sum(r[name] for r in rows) / len(rows), 3) for name in METRICS}


def summarise(results: list[dict]) -> dict:
    """`results`: [{"category", "metrics"}, ...] -> overall and per-category means with counts."""
    by_category: dict[str, list] = {}
    for item in results:
        by_category.setdefault(item.get("category") or "uncategorised", []).append(item["metrics"])
    return {
        "overall": {"queries": len(results), **mean_metrics([r["metrics"] for r in results])},
        "categories": {name: {"queries": len(rows), **mean_metrics(rows)}
                       for name, rows in sorted(by_category.items())},
    }


def summarise_splits(results: list[dict]) -> dict:
    """{"dev": summarise(...), "test": summarise(...)} over the entries of each half that has any."""
    halves = {name: [r for r in results if r.get("split") == name] for name in SPLITS}
    return {name: summarise(rows) for name, rows in halves.items() if rows}


def judged_ranking(ranked: list[str], item: dict) -> list[str]:
    """The ranking the entry is judged on: without the notes it says to ignore (e.g. the note an
    anchor-context query was cut from, which holds the query word for word)."""
    ignore = set(item.get("ignore_paths") or ())
    return [path for path in ranked if path not in ignore] if ignore else ranked


def assign_splits(entries: list[dict], seed: str = SPLIT_SEED, inherited: dict[str, str] | None = None) -> list[dict]:
    """Give every entry without a "split" one, keeping those it has. An entry whose "source" is in
    `inherited` (source id -> split) takes its source's half; the others are taken per category in
    the order of a hash of the seed and their id, each going to the half that has fewer entries of
    that category so far (dev on a tie). The draw depends on neither the file's order nor Python's
    random module, and entries added later keep the halves balanced without moving older ones."""
    inherited = inherited or {}
    out = [dict(e) for e in entries]
    for entry in out:
        if "split" not in entry and entry.get("source") in inherited:
            entry["split"] = inherited[entry["source"]]
    by_category: dict[str, list[dict]] = {}
    for entry in out:
        by_category.setdefault(str(entry.get("category") or "uncategorised"), []).append(entry)
    for rows in by_category.values():
        taken = {name: sum(1 for e in rows if e.get("split") == name) for name in SPLITS}
        for entry in sorted((e for e in rows if "split" not in e), key=lambda e: _draw(seed, str(e["id"]))):
            entry["split"] = "dev" if taken["dev"] <= taken["test"] else "test"
            taken[entry["split"]] += 1
    return out


def _draw(seed: str, entry_id: str) -> str:
    return hashlib.sha256(f"{seed}:{entry_id}".encode("utf-8")).hexdigest()


def load_golden(path: str) -> list[dict]:
    """Read and check a golden set: a JSON list of {id, query, relevant_paths, partial_paths, category},
    each entry optionally with "queries": alternative phrasings of the query (for fan-out), "split":
    "dev" or "test", and "ignore_paths": notes left out of its ranking before it is judged."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, list):
        raise ValueError("a golden set is a JSON list of queries")
    items = []
    for n, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or not str(entry.get("query") or "").strip():
            raise ValueError(f"entry {n}: needs a non-empty 'query'")
        relevant = entry.get("relevant_paths") or []
        partial = entry.get("partial_paths") or []
        if not isinstance(relevant, list) or not isinstance(partial, list):
            raise ValueError(f"entry {n}: relevant_paths and partial_paths are lists")
        item = {"id": str(entry.get("id") or n), "query": str(entry["query"]),
                "relevant_paths": [str(p) for p in relevant], "partial_paths": [str(p) for p in partial],
                "category": str(entry.get("category") or "uncategorised")}
        alternatives = entry.get("queries")
        if alternatives is not None:
            if not isinstance(alternatives, list) or not all(isinstance(q, str) and q.strip() for q in alternatives):
                raise ValueError(f"entry {n}: 'queries' is a list of non-empty phrasings")
            item["queries"] = list(alternatives)
        split = entry.get("split")
        if split is not None:
            if split not in SPLITS:
                raise ValueError(f"entry {n}: 'split' is one of {', '.join(SPLITS)}")
            item["split"] = split
        ignore = entry.get("ignore_paths")
        if ignore is not None:
            if not isinstance(ignore, list) or not all(isinstance(p, str) for p in ignore):
                raise ValueError(f"entry {n}: 'ignore_paths' is a list of paths")
            item["ignore_paths"] = list(ignore)
        items.append(item)
    return items


def dump_golden(entries: list[dict]) -> str:
    """A golden set as its file holds it: a JSON list, one entry per line (small diffs when it grows)."""
    return "[\n" + ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in entries) + "\n]\n"


def phrasings(item: dict, fan_out: bool) -> list[str]:
    """What is searched for an entry: its query, plus its alternative phrasings under fan-out."""
    extra = (item.get("queries") or []) if fan_out else []
    return list(dict.fromkeys([item["query"], *extra]))


def _unique(ranked: list[str]) -> list[str]:
    return list(dict.fromkeys(ranked))
