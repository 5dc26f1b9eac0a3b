#!/usr/bin/env python3
"""Search quality on judged sets.

1. Engines side by side on --golden: the index, a plain BM25 baseline over the same index
   (weighted columns, OR of the words, nothing else), and the scanner (nDCG@5/10, MRR, Hit@1/3/5,
   Recall@10, overall and per category).
2. Multi-query fan-out on --fanout-golden (entries with alternative phrasings, "queries"): the
   index engine in fulltext mode and, when the semantic model loads here, in hybrid mode (the Help
   vault is embedded first; the store is kept in --cache, so later runs reuse it). For each mode:
   the query alone, each alternative phrasing alone (mean over the phrasings), and all of them
   fused by reciprocal rank fusion, as `search_vault.py "q1" "q2" "q3"` does; nDCG@5, MRR and
   Hit@5, and the ratio fused / query alone.

    .venv/bin/python benchmarks/search_quality.py [--golden benchmarks/golden/obsidian-help-en.json]
        [--fanout-golden benchmarks/golden/obsidian-help-fanout.json]
        [--vault ../shared/eval/obsidian-help-en] [--cache DIR] [--skip-engines]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from obsidian_memory import evaluation, settings as settings_module  # noqa: E402
from obsidian_memory.evaluation import METRICS  # noqa: E402
from obsidian_memory.search import index, index_query, search  # noqa: E402

FAN_METRICS = ("ndcg@5", "mrr", "hit@5")


def plain_bm25(settings):
    conn = index.open_index(settings)
    index.update(settings)

    def ranked(text: str) -> list[str]:
        words = [w for w in index_query.words(text) if w not in index_query.STOPWORDS] or index_query.words(text)
        if not words:
            return []
        expr = " OR ".join(index_query._quote(w) for w in words)
        rows = conn.execute(f"SELECT n.path FROM notes_fts f JOIN notes n ON n.id = f.rowid WHERE notes_fts MATCH ? "
                            f"ORDER BY {index_query._BM25} LIMIT 10", (expr,))
        return [r[0] for r in rows]
    return ranked


def engine(settings, source: str, mode: str | None = None):
    return lambda queries: [h.path for h in search(queries, settings, source=source, limit=10, mode=mode).hits]


def measure(golden, ranked_for, queries_of=lambda q: q["query"]) -> dict:
    results = [{"category": q["category"],
                "metrics": evaluation.query_metrics(ranked_for(queries_of(q)), q["relevant_paths"], q["partial_paths"])}
               for q in golden]
    return evaluation.summarise(results)


def compare_engines(settings, golden_path: str) -> None:
    golden = evaluation.load_golden(golden_path)
    engines = {"index": engine(settings, "index", "fulltext"), "plain bm25": plain_bm25(settings),
               "scan": engine(settings, "scan")}
    figures = {name: measure(golden, ranked) for name, ranked in engines.items()}
    print(f"{len(golden)} queries from {os.path.relpath(golden_path, REPO)}\n")
    categories = ["overall"] + sorted(figures["index"]["categories"])
    print(f"{'category':<16}{'engine':<12}" + "".join(f"{m:>10}" for m in METRICS))
    for category in categories:
        for name, result in figures.items():
            row = result["overall"] if category == "overall" else result["categories"][category]
            label = f"{category} ({row['queries']})" if name == "index" else ""
            print(f"{label:<16}{name:<12}" + "".join(f"{row[m]:>10.3f}" for m in METRICS))
    print()


# -- fan-out ------------------------------------------------------------------------------------

def fan_out_figures(settings, golden: list[dict], mode: str) -> dict:
    """{"query alone", "alternatives alone", "fused"} -> summarise() figures, for one mode."""
    ranked = engine(settings, "index", mode)
    alone = measure(golden, ranked)
    fused = measure(golden, ranked, lambda q: evaluation.phrasings(q, fan_out=True))
    width = max(len(q.get("queries") or []) for q in golden)
    # each alternative phrasing alone; an entry with fewer phrasings repeats its last one
    singles = [measure(golden, ranked, lambda q, n=n: _nth_alternative(q, n)) for n in range(width)]
    return {"query alone": alone, "alternatives alone": _mean_of(singles), "fused": fused}


def _nth_alternative(item: dict, n: int) -> str:
    alternatives = item.get("queries") or [item["query"]]
    return alternatives[min(n, len(alternatives) - 1)]


def _mean_of(summaries: list[dict]) -> dict:
    def mean(rows: list[dict]) -> dict:
        return {"queries": rows[0]["queries"],
                **{m: round(sum(r[m] for r in rows) / len(rows), 3) for m in METRICS}}
    return {"overall": mean([s["overall"] for s in summaries]),
            "categories": {c: mean([s["categories"][c] for s in summaries]) for c in summaries[0]["categories"]}}


def print_fan_out(golden_path: str, golden: list[dict], by_mode: dict) -> None:
    phrasings = sum(len(q.get("queries") or []) for q in golden)
    print(f"fan-out: {len(golden)} queries from {os.path.relpath(golden_path, REPO)}, "
          f"{phrasings} alternative phrasings, index engine\n")
    print(f"{'category':<16}{'mode':<10}{'searched':<20}" + "".join(f"{m:>9}" for m in FAN_METRICS)
          + "".join(f"{'ratio ' + m.split('@')[0]:>13}" for m in FAN_METRICS))
    categories = ["overall"] + sorted(next(iter(by_mode.values()))["fused"]["categories"])
    for category in categories:
        for number, (mode, figures) in enumerate(by_mode.items()):
            base = _row(figures["query alone"], category)
            for kind, result in figures.items():
                row = _row(result, category)
                label = f"{category} ({row['queries']})" if number == 0 and kind == "query alone" else ""
                ratios = "".join(f"{_ratio(row[m], base[m]):>13}" for m in FAN_METRICS) if kind != "query alone" else ""
                print(f"{label:<16}{mode if kind == 'query alone' else '':<10}{kind:<20}"
                      + "".join(f"{row[m]:>9.3f}" for m in FAN_METRICS) + ratios)
    print("\nratio: that row / the query alone, in the same mode")


def _row(result: dict, category: str) -> dict:
    return result["overall"] if category == "overall" else result["categories"][category]


def _ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}x" if base else ("=" if value == base else "inf")


def embedded_settings(settings) -> bool:
    """Embed the vault (incremental) when the model loads here; False when it does not."""
    from obsidian_memory.search import semantic, vectors

    ok, why = semantic.available()
    if not ok:
        print(f"hybrid skipped: semantic search unavailable here ({why})\n")
        return False
    stats = vectors.embed_vault(settings, progress=False)
    print(f"embeddings: {stats.summary()}\n")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", default=os.path.join(REPO, "benchmarks", "golden", "obsidian-help-en.json"))
    parser.add_argument("--fanout-golden",
                        default=os.path.join(REPO, "benchmarks", "golden", "obsidian-help-fanout.json"))
    parser.add_argument("--vault", default=os.path.join(os.path.dirname(REPO), "shared", "eval", "obsidian-help-en"))
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "obsidian-memory-semantic-bench"),
                        help="index and embeddings of the vault, kept between runs (shared with semantic.py)")
    parser.add_argument("--skip-engines", action="store_true", help="only the fan-out part")
    parser.add_argument("--no-hybrid", action="store_true", help="fan-out in fulltext mode only (no embedding)")
    args = parser.parse_args()
    if not os.path.isdir(args.vault):
        print(f"vault not found: {args.vault}", file=sys.stderr)
        return 2
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = args.cache
    settings = settings_module.load(vault=args.vault)
    index.update(settings)
    print(f"vault {args.vault}\n")
    if not args.skip_engines:
        compare_engines(settings, args.golden)
    golden = evaluation.load_golden(args.fanout_golden)
    modes = ["fulltext"] + ([] if args.no_hybrid or not embedded_settings(settings) else ["hybrid"])
    print_fan_out(args.fanout_golden, golden, {mode: fan_out_figures(settings, golden, mode) for mode in modes})
    return 0


if __name__ == "__main__":
    sys.exit(main())
