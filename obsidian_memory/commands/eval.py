"""`obsidian_memory.py eval --golden FILE [--vault V] [--source S] [-k 10] [--json]`:
search quality on a judged query set (nDCG@5/10, MRR, Hit@1/3/5, Recall@10), overall and per category."""
from __future__ import annotations

import json
import os
import sys
import time

from obsidian_memory.errors import UserError

SOURCES = ("auto", "omnisearch", "local", "index", "scan")


def add_arguments(parser) -> None:
    parser.add_argument("--golden", required=True, help="judged queries: a JSON list of "
                        "{id, query, relevant_paths, partial_paths, category}")
    parser.add_argument("--vault", default=None, help="the vault the paths are relative to (default: settings)")
    parser.add_argument("--source", default="auto", choices=SOURCES, help="the engine to measure (default: auto)")
    parser.add_argument("-k", type=int, default=10, help="results fetched per query (default: 10)")
    parser.add_argument("--json", action="store_true", help="print figures and per-query results as JSON")


def run(args) -> int:
    from obsidian_memory import evaluation, settings as settings_module

    golden = _load(args.golden)
    if args.k < 1:
        raise UserError("-k must be at least 1")
    settings = settings_module.load(vault=args.vault)
    results, engines, started = [], [], time.perf_counter()
    for item in golden:
        ranked, engine = _ranked(item["query"], settings, args.source, args.k)
        if engine not in engines:
            engines.append(engine)
        results.append({**item, "ranked": ranked,
                        "metrics": evaluation.query_metrics(ranked, item["relevant_paths"], item["partial_paths"])})
    report = {"golden": os.path.abspath(args.golden), "vault": settings.vault, "source": args.source,
              "engines": engines, "k": args.k, "seconds": round(time.perf_counter() - started, 3),
              **evaluation.summarise(results), "queries": results}
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if args.json else format_report(report))
    return 0


def _load(path: str) -> list[dict]:
    from obsidian_memory import evaluation

    try:
        golden = evaluation.load_golden(path)
    except OSError as exc:
        raise UserError(f"cannot read the golden set {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise UserError(f"{path}: not a golden set ({exc})") from exc
    if not golden:
        raise UserError(f"{path}: the golden set has no queries")
    return golden


def _ranked(text: str, settings, source: str, k: int) -> tuple[list[str], str]:
    from obsidian_memory.search import search

    response = search(text, settings, source=source, limit=k)
    return [hit.path for hit in response.hits], response.engine


def format_report(report: dict) -> str:
    from obsidian_memory.evaluation import METRICS

    lines = [f"{report['overall']['queries']} queries, source {report['source']} "
             f"(answered by {', '.join(report['engines']) or 'nothing'}), k={report['k']}, "
             f"{report['seconds']:.1f}s", ""]
    header = f"{'':<14}{'n':>4}" + "".join(f"{m:>11}" for m in METRICS)
    lines.append(header)
    rows = [("overall", report["overall"])] + list(report["categories"].items())
    for name, figures in rows:
        lines.append(f"{name:<14}{figures['queries']:>4}" + "".join(f"{figures[m]:>11.3f}" for m in METRICS))
    misses = [q for q in report["queries"] if q["metrics"]["hit@5"] == 0]
    if misses:
        lines += ["", f"no relevant note in the top 5 ({len(misses)}):"]
        lines += [f"  [{q['category']}] {q['query']!r} -> {', '.join(q['ranked'][:3]) or 'no results'}" for q in misses]
    return "\n".join(lines) + "\n"
