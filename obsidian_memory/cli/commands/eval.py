"""`obsidian_memory.py eval --golden FILE [--vault V] [--source S] [--mode M ...] [--fan-out] [--split H] [-k 10] [--json]`:
search quality on a judged query set (nDCG@5/10, MRR, Hit@1/3/5, Recall@10), overall and per category.

A set split into dev and test halves (each entry's "split") is reported half by half, side by side
with the whole; `--split dev` measures only the half you tune on. Notes an entry says to ignore
("ignore_paths") are left out of its ranking before it is judged.

`--mode` is repeatable: each mode is measured on the same queries and the reports are printed side
by side (with `--json`: one report object for one mode, else {"reports": [...]}, one per mode).
`--fan-out` searches each entry's query together with its alternative phrasings (the entry's
"queries" list), fused as `search_vault.py "q1" "q2"` does; without it only the query is searched.
"""
from __future__ import annotations

import json
import os
import sys
import time

from obsidian_memory.cli.cliutil import bounded_number
from obsidian_memory.core.errors import UserError
from obsidian_memory.search.evaluation import SPLITS
from obsidian_memory.search.dispatch import MODES, SOURCES

DEFAULT = "default"          # the label of a report made without --mode (the vault's default mode)


def add_arguments(parser) -> None:
    parser.add_argument("--golden", required=True, help="judged queries: a JSON list of "
                        "{id, query, relevant_paths, partial_paths, category[, queries]}")
    parser.add_argument("--vault", default=None, help="the vault the paths are relative to (default: settings)")
    parser.add_argument("--source", default="auto", choices=SOURCES, help="the engine to measure (default: auto)")
    parser.add_argument("--mode", action="append", choices=MODES, default=None,
                        help="the ranking to measure (repeatable: reports side by side; default: the "
                             "vault's default, hybrid when embeddings exist, else fulltext)")
    parser.add_argument("--fan-out", action="store_true",
                        help="search each query with its alternative phrasings (the entry's \"queries\"), fused")
    parser.add_argument("--split", default="all", choices=("all",) + SPLITS,
                        help="measure only this half of a split set (default: all, halves side by side)")
    parser.add_argument("-k", type=bounded_number(1, 10_000), default=10, help="results fetched per query (default: 10)")
    parser.add_argument("--json", action="store_true", help="print figures and per-query results as JSON")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module

    golden = _load(args.golden)
    if args.split != "all":
        golden = [item for item in golden if item.get("split") == args.split]
        if not golden:
            raise UserError(f"{args.golden}: no queries in the {args.split} half (entries have no \"split\")")
    if args.k < 1:
        raise UserError("-k must be at least 1")
    settings = settings_module.load(vault=args.vault)
    modes = list(dict.fromkeys(args.mode)) if args.mode else [None]
    reports = [measure(golden, settings, args.source, mode, args.k, args.fan_out) for mode in modes]
    for report in reports:
        report["golden"] = os.path.abspath(args.golden)
        report["split"] = args.split
    if args.json:
        data = reports[0] if len(reports) == 1 else {"golden": os.path.abspath(args.golden), "reports": reports}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(format_report(reports[0]) if len(reports) == 1 else format_side_by_side(reports))
    return 0


def measure(golden: list[dict], settings, source: str, mode: str | None, k: int, fan_out: bool) -> dict:
    """One report: every query of `golden` searched in `mode` (None: the default), with its metrics."""
    from obsidian_memory.search import evaluation

    results, engines, answered, started = [], [], [], time.perf_counter()
    for item in golden:
        queries = evaluation.phrasings(item, fan_out)
        ranked, engine, used = _ranked(queries, settings, source, mode, k + len(item.get("ignore_paths") or ()))
        ranked = evaluation.judged_ranking(ranked, item)[:k]
        engines += [e for e in engine.split("+") if e not in engines]
        answered += [m for m in used.split("+") if m not in answered]
        results.append({**item, "searched": queries, "ranked": ranked,
                        "metrics": evaluation.query_metrics(ranked, item["relevant_paths"], item["partial_paths"])})
    return {"vault": settings.vault, "source": source, "mode": mode or DEFAULT, "answered_modes": answered,
            "fan_out": fan_out, "fanned_out": sum(1 for r in results if len(r["searched"]) > 1),
            "engines": engines, "k": k, "seconds": round(time.perf_counter() - started, 3),
            **evaluation.summarise(results), "splits": evaluation.summarise_splits(results), "queries": results}


def _load(path: str) -> list[dict]:
    from obsidian_memory.search import evaluation

    try:
        golden = evaluation.load_golden(path)
    except OSError as exc:
        raise UserError(f"cannot read the golden set {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise UserError(f"{path}: not a golden set ({exc})") from exc
    if not golden:
        raise UserError(f"{path}: the golden set has no queries")
    return golden


def _ranked(queries: list[str], settings, source: str, mode: str | None, k: int) -> tuple[list[str], str, str]:
    from obsidian_memory.search import search

    response = search(queries, settings, source=source, limit=k, mode=mode)
    return [hit.path for hit in response.hits], response.engine, response.mode


def _heading(report: dict) -> str:
    fan = f", fan-out over {report['fanned_out']} queries" if report["fan_out"] else ""
    return (f"{report['overall']['queries']} queries, source {report['source']}, mode {report['mode']} "
            f"(answered by {', '.join(report['engines']) or 'nothing'} in "
            f"{', '.join(report['answered_modes']) or '-'}), k={report['k']}{fan}, {report['seconds']:.1f}s")


HALF_METRICS = ("ndcg@5", "mrr", "hit@1", "hit@5")


def format_report(report: dict) -> str:
    return format_side_by_side([report])


def format_side_by_side(reports: list[dict]) -> str:
    """One table: each category, then one row per mode; a split set shows dev, test and all for
    the main metrics, an unsplit one (or one half) every metric."""
    lines = [_heading(r) for r in reports] + [""]
    halved = any(len(r.get("splits") or {}) > 1 for r in reports)
    lines += _halves_table(reports) if halved else _metrics_table(reports)
    for report in reports:
        lines += _misses(report, f" in mode {report['mode']}" if len(reports) > 1 else "")
    return "\n".join(lines) + "\n"


def _categories(reports: list[dict]) -> list[str]:
    return ["overall"] + sorted({c for r in reports for c in r["categories"]})


def _figures(summary: dict | None, category: str) -> dict | None:
    if summary is None:
        return None
    return summary["overall"] if category == "overall" else summary["categories"].get(category)


def _metrics_table(reports: list[dict]) -> list[str]:
    from obsidian_memory.search.evaluation import METRICS

    lines = [f"{'':<14}{'mode':<10}{'n':>4}" + "".join(f"{m:>11}" for m in METRICS)]
    for category in _categories(reports):
        for number, report in enumerate(reports):
            figures = _figures(report, category)
            if figures is None:
                continue
            label = category if number == 0 else ""
            lines.append(f"{label:<14}{report['mode']:<10}{figures['queries']:>4}"
                         + "".join(f"{figures[m]:>11.3f}" for m in METRICS))
    return lines


def _halves_table(reports: list[dict]) -> list[str]:
    halves = ("dev", "test", "all")
    lines = [f"{'':<14}{'':<10}{'n dev/test':>11}" + "".join(f"{m:>21}" for m in HALF_METRICS),
             f"{'':<14}{'mode':<10}{'':>11}" + "".join(f"{h:>7}" for _ in HALF_METRICS for h in halves)]
    for category in _categories(reports):
        for number, report in enumerate(reports):
            figures = {"all": _figures(report, category),
                       **{h: _figures(report["splits"].get(h), category) for h in ("dev", "test")}}
            if figures["all"] is None:
                continue
            counts = "/".join(str(figures[h]["queries"]) if figures[h] else "0" for h in ("dev", "test"))
            label = category if number == 0 else ""
            lines.append(f"{label:<14}{report['mode']:<10}{counts:>11}"
                         + "".join(f"{figures[h][m]:>7.3f}" if figures[h] else f"{'-':>7}"
                                   for m in HALF_METRICS for h in halves))
    return lines


def _misses(report: dict, where: str = "") -> list[str]:
    misses = [q for q in report["queries"] if q["metrics"]["hit@5"] == 0]
    if not misses:
        return []
    lines = ["", f"no relevant note in the top 5{where} ({len(misses)}):"]
    return lines + [f"  [{q['category']}{'/' + q['split'] if q.get('split') else ''}] {q['query']!r} -> "
                    f"{', '.join(q['ranked'][:3]) or 'no results'}" for q in misses]
