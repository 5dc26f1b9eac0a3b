#!/usr/bin/env python3
"""Search quality on a judged set, engines side by side: the index, a plain BM25 baseline over
the same index (weighted columns, OR of the words, nothing else), and the scanner.

    .venv/bin/python benchmarks/search_quality.py [--golden benchmarks/golden/obsidian-help-en.json]
        [--vault ../shared/eval/obsidian-help-en]

Prints nDCG@5, nDCG@10, MRR, Hit@1/3/5 and Recall@10 overall and per category for each engine.
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


def engine(settings, source: str):
    return lambda text: [h.path for h in search(text, settings, source=source, limit=10).hits]


def measure(golden, ranked_for) -> dict:
    results = [{"category": q["category"],
                "metrics": evaluation.query_metrics(ranked_for(q["query"]), q["relevant_paths"], q["partial_paths"])}
               for q in golden]
    return evaluation.summarise(results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", default=os.path.join(REPO, "benchmarks", "golden", "obsidian-help-en.json"))
    parser.add_argument("--vault", default=os.path.join(os.path.dirname(REPO), "shared", "eval", "obsidian-help-en"))
    args = parser.parse_args()
    if not os.path.isdir(args.vault):
        print(f"vault not found: {args.vault}", file=sys.stderr)
        return 2
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = tempfile.mkdtemp(prefix="om-quality-")
    settings = settings_module.load(vault=args.vault)
    golden = evaluation.load_golden(args.golden)
    engines = {"index": engine(settings, "index"), "plain bm25": plain_bm25(settings), "scan": engine(settings, "scan")}
    figures = {name: measure(golden, ranked) for name, ranked in engines.items()}
    print(f"{len(golden)} queries from {os.path.relpath(args.golden, REPO)} over {args.vault}\n")
    categories = ["overall"] + sorted(figures["index"]["categories"])
    print(f"{'category':<16}{'engine':<12}" + "".join(f"{m:>10}" for m in METRICS))
    for category in categories:
        for name, result in figures.items():
            row = result["overall"] if category == "overall" else result["categories"][category]
            label = f"{category} ({row['queries']})" if name == "index" else ""
            print(f"{label:<16}{name:<12}" + "".join(f"{row[m]:>10.3f}" for m in METRICS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
