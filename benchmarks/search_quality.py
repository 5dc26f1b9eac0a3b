#!/usr/bin/env python3
"""Search quality on every judged set, half by half: the table issue 14 asks for.

1. Engines side by side on each set (per set, per half, per category; nDCG@5, MRR, Hit@1, Hit@5):
   - `index`: our local index, fulltext mode;
   - `plain bm25`: the baseline, a plain FTS5 BM25 built here in memory from the vault's files
     (file name weighted 10, the whole file 1, OR of the words minus stopwords, nothing else), so
     that it does not move when the index changes;
   - `scan`: the standard-library scanner;
   - `hybrid` and `semantic`: when the semantic extra loads here (each vault is embedded once; the
     stores are kept in --cache, so later runs reuse them).
2. Fan-out (the fan-out set: entries with alternative phrasings): per mode, the query alone, each
   phrasing alone (mean over the phrasings), and all of them fused as `search_vault.py "q1" "q2"`
   does; then the fusion cases of issue 14: the rank of their note for each phrasing alone and fused.

Sets (benchmarks/golden, see its README): obsidian-help-en (the repo's first set, tuned on before
issue 14), obsidian-help-asked, obsidian-help-anchors, obsidian-help-semantic over the Help vault
(../shared/eval/obsidian-help-en); dev-notes and dev-notes-anchors over benchmarks/vaults/dev-notes;
handbook over benchmarks/vaults/debian-handbook (a team wiki export); handbook-blind over the same
vault, written after the ranking work by a writer who saw only the pages' titles and outlines, and
handbook-blind2, a second such writer's, after the fusion work (all of it test); help-blind over the
Help vault, by a writer who saw only its notes' paths and headings (all of it test).
Tune on dev, report test. `--save FILE` keeps the figures, `--compare FILE` prints the change of
each figure against a saved run (the way to measure a ranking change: same machine, same sets).

    .venv/bin/python benchmarks/search_quality.py [--sets asked,dev-notes] [--engines index,bm25]
        [--split dev] [--no-hybrid] [--skip-fanout] [--save FILE] [--compare FILE] [--cache DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import tempfile
import unicodedata

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from obsidian_memory.search import evaluation  # noqa: E402
from obsidian_memory.core import settings as settings_module  # noqa: E402
from obsidian_memory.search import search  # noqa: E402

GOLDEN = os.path.join(REPO, "benchmarks", "golden")
HELP_VAULT = os.path.join(os.path.dirname(REPO), "shared", "eval", "obsidian-help-en")
DEV_VAULT = os.path.join(REPO, "benchmarks", "vaults", "dev-notes")
HANDBOOK_VAULT = os.path.join(REPO, "benchmarks", "vaults", "debian-handbook")
SETS = {                      # name -> (file, vault)
    "en": ("obsidian-help-en.json", HELP_VAULT),
    "asked": ("obsidian-help-asked.json", HELP_VAULT),
    "anchors": ("obsidian-help-anchors.json", HELP_VAULT),
    "semantic": ("obsidian-help-semantic.json", HELP_VAULT),
    "dev-notes": ("dev-notes.json", DEV_VAULT),
    "dev-anchors": ("dev-notes-anchors.json", DEV_VAULT),
    "handbook": ("debian-handbook.json", HANDBOOK_VAULT),
    "handbook-blind": ("debian-handbook-blind.json", HANDBOOK_VAULT),
    "handbook-blind2": ("debian-handbook-blind2.json", HANDBOOK_VAULT),
    "help-blind": ("obsidian-help-blind.json", HELP_VAULT),
}
FANOUT = ("obsidian-help-fanout.json", HELP_VAULT)
ENGINES = ("index", "bm25", "scan", "hybrid", "semantic")
ENGINE_LABELS = {"index": "index", "bm25": "plain bm25", "scan": "scan", "hybrid": "hybrid", "semantic": "semantic"}
SEMANTIC_ENGINES = ("hybrid", "semantic")
SHOWN = ("ndcg@5", "mrr", "hit@1", "hit@5")
HALVES = ("dev", "test")
K = 10


# -- the plain BM25 baseline --------------------------------------------------------------------

BASELINE_STOPWORDS = frozenset("""
a an and are as at be but by can do does did for from had has have how i if in into is it its me my no
not of on or our so than that the their them then there these they this to was we were what when where
which who why will with would you your
""".split())


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


class PlainBM25:
    """FTS5 BM25 over (file name, file text) of every note, in memory: the yardstick."""

    def __init__(self, vault: str):
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, name, text, "
                          "tokenize='porter unicode61 remove_diacritics 2')")
        rows = []
        for root, dirs, files in os.walk(vault):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if name.endswith(".md"):
                    full = os.path.join(root, name)
                    with open(full, encoding="utf-8", errors="replace") as handle:
                        rows.append((os.path.relpath(full, vault).replace(os.sep, "/"), name[:-3], handle.read()))
        self.conn.executemany("INSERT INTO docs(path, name, text) VALUES (?, ?, ?)", rows)

    def __call__(self, queries: list[str]) -> list[str]:
        words = re.findall(r"[^\W_]+", _fold(" ".join(queries)))
        words = [w for w in words if w not in BASELINE_STOPWORDS] or words
        if not words:
            return []
        expr = " OR ".join('"' + w.replace('"', '""') + '"' for w in dict.fromkeys(words))
        sql = "SELECT path FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 0, 10.0, 1.0) LIMIT ?"
        return [path for (path,) in self.conn.execute(sql, (expr, K + 5))]


# -- engines and measuring ----------------------------------------------------------------------

def engine(settings, source: str, mode: str | None):
    def ranked(queries: list[str]) -> list[str]:
        return [h.path for h in search(queries, settings, source=source, limit=K + 5, mode=mode).hits]
    return ranked


def rankers(settings, vault: str, engines: list[str]) -> dict:
    made = {"index": lambda: engine(settings, "index", "fulltext"), "bm25": lambda: PlainBM25(vault),
            "scan": lambda: engine(settings, "scan", None), "hybrid": lambda: engine(settings, "index", "hybrid"),
            "semantic": lambda: engine(settings, "index", "semantic")}
    return {name: made[name]() for name in engines}


def measure(golden: list[dict], ranked_for, phrasings_of=lambda q: [q["query"]]) -> dict:
    """{"all": summarise, "dev": ..., "test": ...} of one engine over one set."""
    results = []
    for item in golden:
        ranked = evaluation.judged_ranking(ranked_for(phrasings_of(item)), item)[:K]
        results.append({"category": item["category"], "split": item.get("split"),
                        "metrics": evaluation.query_metrics(ranked, item["relevant_paths"], item["partial_paths"])})
    return {"all": evaluation.summarise(results), **evaluation.summarise_splits(results)}


def _row(summary: dict | None, category: str) -> dict | None:
    if summary is None:
        return None
    return summary["overall"] if category == "overall" else summary["categories"].get(category)


def _cell(summary: dict | None, category: str, metric: str, width: int = 7) -> str:
    row = _row(summary, category)
    return f"{row[metric]:>{width}.3f}" if row else f"{'-':>{width}}"


def print_set(title: str, figures: dict[str, dict], halves: tuple[str, ...]) -> None:
    print(title)
    print(f"{'':<24}{'':<12}" + "".join(f"{m:>{7 * len(halves)}}" for m in SHOWN))
    print(f"{'category (n ' + '/'.join(halves) + ')':<24}{'engine':<12}"
          + "".join(f"{h:>7}" for _ in SHOWN for h in halves))
    first = next(iter(figures.values()))
    categories = ["overall"] + sorted(first["all"]["categories"])
    for category in categories:
        counts = "/".join(str((_row(first.get(h), category) or {"queries": 0})["queries"]) for h in halves)
        for number, (name, result) in enumerate(figures.items()):
            label = f"{category} ({counts})" if number == 0 else ""
            print(f"{label:<24}{ENGINE_LABELS[name]:<12}"
                  + "".join(_cell(result.get(h), category, m) for m in SHOWN for h in halves))
    print()


# -- fan-out ------------------------------------------------------------------------------------

def fan_out_figures(golden: list[dict], ranked) -> dict:
    """{"query alone", "phrasings alone", "fused"} -> measure() figures, for one engine."""
    width = max(len(q.get("queries") or []) for q in golden)
    singles = [measure(golden, ranked, lambda q, n=n: [_nth_phrasing(q, n)]) for n in range(width)]
    return {"query alone": measure(golden, ranked),
            "phrasings alone": {h: _mean_of([s[h] for s in singles]) for h in singles[0]},
            "fused": measure(golden, ranked, lambda q: evaluation.phrasings(q, fan_out=True))}


def _nth_phrasing(item: dict, n: int) -> str:
    phrasings = item.get("queries") or [item["query"]]
    return phrasings[min(n, len(phrasings) - 1)]        # fewer phrasings: the last one again


def _mean_of(summaries: list[dict]) -> dict:
    def mean(rows: list[dict]) -> dict:
        return {"queries": rows[0]["queries"], **{m: round(sum(r[m] for r in rows) / len(rows), 3)
                                                  for m in evaluation.METRICS}}
    return {"overall": mean([s["overall"] for s in summaries]),
            "categories": {c: mean([s["categories"][c] for s in summaries]) for c in summaries[0]["categories"]}}


def print_fan_out(golden: list[dict], by_engine: dict, halves: tuple[str, ...]) -> None:
    phrasings = sum(len(q.get("queries") or []) for q in golden)
    print(f"fan-out: {len(golden)} queries from {FANOUT[0]}, {phrasings} alternative phrasings")
    print(f"{'':<24}{'':<10}{'':<17}" + "".join(f"{m:>{7 * len(halves)}}" for m in SHOWN))
    print(f"{'category (n ' + '/'.join(halves) + ')':<24}{'engine':<10}{'searched':<17}"
          + "".join(f"{h:>7}" for _ in SHOWN for h in halves))
    first = next(iter(by_engine.values()))["fused"]
    for category in ["overall"] + sorted(first["all"]["categories"]):
        counts = "/".join(str((_row(first.get(h), category) or {"queries": 0})["queries"]) for h in halves)
        for number, (name, kinds) in enumerate(by_engine.items()):
            for kind, result in kinds.items():
                label = f"{category} ({counts})" if number == 0 and kind == "query alone" else ""
                shown = ENGINE_LABELS[name] if kind == "query alone" else ""
                print(f"{label:<24}{shown:<10}{kind:<17}"
                      + "".join(_cell(result.get(h), category, m) for m in SHOWN for h in halves))
    print()


def print_fusion_cases(golden: list[dict], by_engine: dict) -> None:
    """Issue 14's cases: where their note ranks for each phrasing alone and for all of them fused."""
    cases = [q for q in golden if q["category"] == "issue"]
    if not cases:
        return
    print("fusion cases of issue 14 (rank of the first relevant note; '-' = not in the top "
          f"{K + 5}; target: fused in the top 3)")
    for item in cases:
        phrasings = evaluation.phrasings(item, fan_out=True)
        for name, ranked in by_engine.items():
            alone = [_rank(ranked([p]), item) for p in phrasings]
            fused = _rank(ranked(phrasings), item)
            print(f"  {ENGINE_LABELS[name]:<10}" + "  ".join(f"{p!r}: {r}" for p, r in zip(phrasings, alone))
                  + f"  -> fused: {fused}")
    print()


def _rank(ranked: list[str], item: dict) -> str:
    relevant = set(item["relevant_paths"])
    return next((str(n) for n, path in enumerate(ranked, 1) if path in relevant), "-")


# -- saving and comparing -----------------------------------------------------------------------

def flat(figures: dict) -> dict[str, float]:
    """{"set|engine|half|category|metric": value} for --save and --compare."""
    out = {}
    for set_name, by_engine in figures.items():
        for name, halves in by_engine.items():
            for half, summary in halves.items():
                rows = {"overall": summary["overall"], **summary["categories"]}
                for category, row in rows.items():
                    for metric in SHOWN:
                        out[f"{set_name}|{name}|{half}|{category}|{metric}"] = row[metric]
    return out


def print_comparison(now: dict[str, float], before: dict[str, float]) -> None:
    print("change against the saved run (overall rows; * = category rows changed by 0.02 or more)")
    changed = [(key, now[key] - before[key]) for key in sorted(now) if key in before]
    for key, delta in changed:
        set_name, name, half, category, metric = key.split("|")
        if category == "overall" or (metric == "ndcg@5" and abs(delta) >= 0.02):
            mark = "" if category == "overall" else "*"
            print(f"  {mark}{set_name:<12}{name:<22}{half:<5}{category:<14}{metric:<7}"
                  f"{before[key]:>7.3f} -> {now[key]:.3f}  ({delta:+.3f})")
    print()


# -- main ---------------------------------------------------------------------------------------

def _half(golden: list[dict], halves: tuple[str, ...]) -> list[dict]:
    """Only the entries of the half asked for: tuning on dev never searches the test queries."""
    return golden if len(halves) > 1 else [item for item in golden if item.get("split") in halves]


def settings_for(vault: str):
    return settings_module.Settings(os.path.join(os.environ["OBSIDIAN_MEMORY_CACHE_DIR"], "config"), vault=vault)


def semantic_ready(settings, vault: str) -> str | None:
    """Embed the vault (incremental) when the model loads here; None when it does, else why not."""
    from obsidian_memory.search import semantic
    from obsidian_memory.search.store import vectors

    ok, why = semantic.available()
    if not ok:
        return why
    stats = vectors.embed_vault(settings, progress=False)
    print(f"embeddings of {os.path.basename(vault)}: {stats.summary()}")
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"comma-separated, from {', '.join(ENGINES)}")
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both",
                        help="the half to show (default: both side by side)")
    parser.add_argument("--no-hybrid", action="store_true", help="leave out hybrid and semantic (no embedding)")
    parser.add_argument("--skip-fanout", action="store_true")
    parser.add_argument("--save", help="write the figures to this JSON file")
    parser.add_argument("--compare", help="print the change of each figure against this saved JSON file")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "obsidian-memory-quality-bench"),
                        help="indexes and embeddings of the vaults, kept between runs")
    args = parser.parse_args()
    chosen_sets = [s for s in args.sets.split(",") if s]
    engines = [e for e in args.engines.split(",") if e]
    unknown = [s for s in chosen_sets if s not in SETS] + [e for e in engines if e not in ENGINES]
    if unknown:
        print(f"unknown set or engine: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.no_hybrid:
        engines = [e for e in engines if e not in SEMANTIC_ENGINES]
    halves = HALVES if args.split == "both" else (args.split,)
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = args.cache

    figures: dict[str, dict] = {}
    by_vault: dict[str, list[str]] = {}
    for name in chosen_sets:
        by_vault.setdefault(SETS[name][1], []).append(name)
    for vault, names in by_vault.items():
        if not os.path.isdir(vault):
            print(f"vault not found, skipped {', '.join(names)}: {vault}\n")
            continue
        settings = settings_for(vault)
        vault_engines = list(engines)
        if any(e in SEMANTIC_ENGINES for e in vault_engines):
            why = semantic_ready(settings, vault)
            if why:
                print(f"hybrid and semantic skipped: semantic search unavailable here ({why})")
                vault_engines = [e for e in vault_engines if e not in SEMANTIC_ENGINES]
        ranked = rankers(settings, vault, vault_engines)
        print()
        for name in names:
            golden = _half(evaluation.load_golden(os.path.join(GOLDEN, SETS[name][0])), halves)
            figures[name] = {e: measure(golden, r) for e, r in ranked.items()}
            print_set(f"{name}: {len(golden)} queries from {SETS[name][0]}, vault {os.path.basename(vault)}",
                      figures[name], halves)

    if not args.skip_fanout and os.path.isdir(FANOUT[1]):
        settings = settings_for(FANOUT[1])
        fan_engines = [e for e in ("index", "hybrid") if e in engines]
        if "hybrid" in fan_engines and semantic_ready(settings, FANOUT[1]):
            fan_engines.remove("hybrid")
        ranked = rankers(settings, FANOUT[1], fan_engines)
        golden = _half(evaluation.load_golden(os.path.join(GOLDEN, FANOUT[0])), halves)
        by_engine = {e: fan_out_figures(golden, r) for e, r in ranked.items()}
        print_fan_out(golden, by_engine, halves)
        print_fusion_cases(golden, ranked)
        figures["fanout"] = {f"{e} {kind}": result for e, kinds in by_engine.items() for kind, result in kinds.items()}

    if args.compare:
        with open(args.compare, encoding="utf-8") as handle:
            print_comparison(flat(figures), json.load(handle))
    if args.save:
        with open(args.save, "w", encoding="utf-8") as handle:
            json.dump(flat(figures), handle, indent=0, sort_keys=True)
        print(f"figures saved to {args.save}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
