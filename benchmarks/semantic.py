#!/usr/bin/env python3
"""Semantic search: quality of fulltext vs semantic vs hybrid, and what it costs.

Quality (`--eval`, the default part): every query of the judged sets (D's
`obsidian-help-en.json` and `obsidian-help-semantic.json`) in each mode on the Help vault,
with the metrics of `obsidian_memory.evaluation`, overall and per category. The Help vault is
embedded first (once: the store is kept in --cache, so later runs reuse it).

Speed (`--speed`): on synthetic vaults of 1k and 10k notes of ~5 KB (D's generator): embedding
throughput (notes/s and texts/s, measured on a `--sample` of notes and extrapolated to the whole
vault, said so), query latency in-process (p50/p95) and whole-process per mode, peak memory
(RSS) of a whole-process search, and the sizes of the index and of the vector store. For the
10k vault the store is filled by copying the sample's vectors to the other notes (the search
cost depends on the number of vectors, not on their values): said so in the output.

    .venv/bin/python benchmarks/semantic.py [--eval] [--speed] [--sizes 1000,10000] [--sample 60]

The machine is shared: compare ratios from one run.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "benchmarks"))

from obsidian_memory import evaluation  # noqa: E402
from obsidian_memory import settings as settings_module  # noqa: E402
from obsidian_memory.search import search, semantic, store  # noqa: E402
from obsidian_memory.search.store import vectors  # noqa: E402

HELP_VAULT = os.path.join(os.path.dirname(REPO), "shared", "eval", "obsidian-help-en")
GOLDEN = [os.path.join(REPO, "benchmarks", "golden", name)
          for name in ("obsidian-help-en.json", "obsidian-help-semantic.json")]
MODES = ("fulltext", "semantic", "hybrid")
SPEED_MODES = ("fulltext", "semantic", "hybrid", "title")


# -- quality ------------------------------------------------------------------------------------

def settings_for(vault: str, cache: str):
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = cache
    return settings_module.Settings(os.path.join(cache, "claude"), vault=vault)


def run_eval(cache: str, k: int) -> dict:
    settings = settings_for(HELP_VAULT, cache)
    store.update(settings)
    started = time.perf_counter()
    stats = vectors.embed_vault(settings)
    print(f"Help vault embeddings: {stats.summary()} ({time.perf_counter() - started:.1f}s)")
    golden = []
    for path in GOLDEN:
        golden += [dict(item, set=os.path.basename(path)) for item in evaluation.load_golden(path)]
    report = {}
    for mode in MODES:
        results = []
        for item in golden:
            result = search(item["query"], settings, source="index", limit=k, mode=mode)
            ranked = [h.path for h in result.hits]
            results.append({**item, "ranked": ranked,
                            "metrics": evaluation.query_metrics(ranked, item["relevant_paths"], item["partial_paths"])})
        report[mode] = {"all": evaluation.summarise(results),
                        "sets": {name: evaluation.summarise([r for r in results if r["set"] == name])
                                 for name in sorted({r["set"] for r in results})},
                        "queries": results}
    print_quality(report)
    return report


def print_quality(report: dict) -> None:
    metrics = ("ndcg@5", "ndcg@10", "mrr", "hit@1", "hit@5", "recall@10")
    for scope in ("overall", "categories"):
        rows = {}
        for mode, data in report.items():
            summary = data["all"]
            if scope == "overall":
                rows.setdefault(("all", "overall"), {})[mode] = summary["overall"]
                for name, sub in data["sets"].items():
                    rows.setdefault((name, "overall"), {})[mode] = sub["overall"]
            else:
                for name, figures in summary["categories"].items():
                    rows.setdefault(("", name), {})[mode] = figures
        title = "overall" if scope == "overall" else "per category (both sets)"
        print(f"\n{title}: nDCG@5 by mode (and " + ", ".join(metrics[1:]) + " for hybrid)")
        print(f"{'':<30}{'n':>4}" + "".join(f"{m:>10}" for m in MODES) + "   hybrid-fulltext" +
              "".join(f"{m:>11}" for m in metrics[1:]))
        for (group, name), by_mode in rows.items():
            label = f"{group} {name}".strip() if scope == "overall" else name
            n = by_mode["hybrid"]["queries"]
            gain = by_mode["hybrid"]["ndcg@5"] - by_mode["fulltext"]["ndcg@5"]
            print(f"{label:<30}{n:>4}" + "".join(f"{by_mode[m]['ndcg@5']:>10.3f}" for m in MODES) +
                  f"   {gain:>+15.3f}" + "".join(f"{by_mode['hybrid'][m]:>11.3f}" for m in metrics[1:]))


# -- speed ------------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class SampleEmbedder:
    """The real model on the first `sample` notes; the other notes get copies of those vectors
    (so the store has the size and shape of a fully embedded vault without hours of CPU)."""

    def __init__(self):
        self.pool = []
        self.real = True

    def model_id(self) -> str:
        return semantic.model_id()

    def embed_passages(self, texts):
        import numpy as np

        if self.real:
            out = semantic.embed_passages(texts)
            self.pool.extend(out)
            return out
        return np.stack([self.pool[i % len(self.pool)] for i in range(len(texts))])


def fill_store(settings, sample: int) -> dict:
    embedder = SampleEmbedder()
    started = time.perf_counter()
    real = vectors.embed_vault(settings, embedder=embedder, limit=sample, progress=False)
    seconds = time.perf_counter() - started
    embedder.real = False
    started = time.perf_counter()
    copied = vectors.embed_vault(settings, embedder=embedder, progress=False)
    return {"sample_notes": real.embedded, "sample_texts": real.chunks_embedded, "sample_seconds": seconds,
            "copied_notes": copied.embedded, "copy_seconds": time.perf_counter() - started}


QUERY_SCRIPT = """
import sys
sys.path.insert(0, {repo!r})
from obsidian_memory import settings as s
from obsidian_memory.search import search
r = search({query!r}, s.Settings({config!r}, vault={vault!r}), source="index", limit=5, mode={mode!r})
hwm = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(len(r.hits), hwm[0] if hwm else 0)
"""


def whole_process(settings, mode: str, query: str, runs: int) -> tuple[float, float]:
    """Median seconds and peak RSS (MB) of a fresh process answering one query in `mode`
    (what search_vault.py --mode does after parsing its flags). Peak RSS is the child's VmHWM
    (ru_maxrss would report the parent's, inherited through fork)."""
    code = QUERY_SCRIPT.format(repo=REPO, config=settings.config_dir, vault=settings.vault, query=query, mode=mode)
    times, rss = [], 0.0
    for _ in range(runs):
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=dict(os.environ))
        times.append(time.perf_counter() - started)
        rss = max(rss, int(out.stdout.split()[1]) / 1024)
    return statistics.median(times), rss


def bench_size(count: int, sample: int, workdir: str, runs: int) -> dict:
    from index_speed import generate_vault

    vault = os.path.join(workdir, f"vault-{count}")
    cache = os.path.join(workdir, f"cache-{count}")
    generate_vault(vault, count)
    settings = settings_for(vault, cache)
    started = time.perf_counter()
    store.update(settings, progress=False)
    index_seconds = time.perf_counter() - started
    fill = fill_store(settings, sample)
    figures = {"notes": count, "index_build_s": index_seconds, **fill}
    figures["notes_per_s"] = fill["sample_notes"] / fill["sample_seconds"]
    figures["texts_per_s"] = fill["sample_texts"] / fill["sample_seconds"]
    figures["texts_per_note"] = fill["sample_texts"] / max(1, fill["sample_notes"])
    figures["full_embed_h_extrapolated"] = count / figures["notes_per_s"] / 3600
    figures["index_mb"] = os.path.getsize(store.index_path(settings)) / 1048576
    figures["store_mb"] = vectors.coverage(settings)["size_bytes"] / 1048576
    conn = sqlite3.connect(vectors.store_path(settings))
    figures["vectors"] = conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    figures["chunk_rows"] = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    conn.close()
    queries = ["how do I plan the next project meeting", "notes about sleep and health", "python code review",
               "reading list for the summer", "what did we decide last week"]
    for mode in SPEED_MODES:
        search(queries[0], settings, source="index", limit=5, mode=mode)      # warm: model and matrix loaded
        times = []
        for q in queries * 4:
            t = time.perf_counter()
            search(q, settings, source="index", limit=5, mode=mode)
            times.append(time.perf_counter() - t)
        figures[f"{mode}_p50_ms"] = percentile(times, 0.5) * 1000
        figures[f"{mode}_p95_ms"] = percentile(times, 0.95) * 1000
        figures[f"{mode}_process_s"], figures[f"{mode}_rss_mb"] = whole_process(settings, mode, queries[1], runs)
    started = time.perf_counter()
    vectors._cache.clear()
    vectors.load_matrix(settings, semantic.model_id())
    figures["matrix_load_ms"] = (time.perf_counter() - started) * 1000
    return figures


def print_speed(rows: list[dict]) -> None:
    print("\nembedding (real model on a sample, extrapolated):")
    for r in rows:
        print(f"  {r['notes']:>6} notes: {r['sample_notes']} notes / {r['sample_texts']} texts in "
              f"{r['sample_seconds']:.1f}s = {r['notes_per_s']:.2f} notes/s ({r['texts_per_s']:.1f} texts/s, "
              f"{r['texts_per_note']:.1f} texts per ~5 KB note); the whole vault would take "
              f"~{r['full_embed_h_extrapolated']:.2f} h; the other {r['copied_notes']} notes got copied vectors "
              f"in {r['copy_seconds']:.1f}s")
    print("\nsizes:")
    for r in rows:
        print(f"  {r['notes']:>6} notes: index {r['index_mb']:.1f} MB (built in {r['index_build_s']:.1f}s), "
              f"vector store {r['store_mb']:.1f} MB ({r['vectors']} vectors, {r['chunk_rows']} chunk rows, "
              f"float16), vectors loaded in {r['matrix_load_ms']:.0f} ms")
    print("\nquery latency: in-process p50 / p95 (model and vectors loaded), whole process median, peak RSS")
    print(f"  {'notes':>6}" + "".join(f"{m:>30}" for m in SPEED_MODES))
    for r in rows:
        print(f"  {r['notes']:>6}" + "".join(
            f"{r[m + '_p50_ms']:>8.1f}/{r[m + '_p95_ms']:<6.1f}ms {r[m + '_process_s']:.2f}s {r[m + '_rss_mb']:>4.0f}MB"
            for m in SPEED_MODES))
    bare = min(_bare_python() for _ in range(3))
    print(f"  (a bare `python -c pass` takes {bare:.3f}s here)")


def _bare_python() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", action="store_true", help="quality on the judged sets (default when nothing is chosen)")
    parser.add_argument("--speed", action="store_true", help="speed, memory and sizes on synthetic vaults")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--sample", type=int, default=60, help="notes embedded for real per synthetic vault")
    parser.add_argument("--runs", type=int, default=3, help="whole-process runs per mode (median)")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "obsidian-memory-semantic-bench"),
                        help="where the Help vault's index and embeddings are kept between runs")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    ok, why = semantic.available()
    if not ok:
        print(f"semantic search unavailable here: {why}")
        return 1
    out = {}
    if args.eval or not args.speed:
        if not os.path.isdir(HELP_VAULT):
            print(f"the Help vault is not at {HELP_VAULT}: quality skipped")
        else:
            report = run_eval(args.cache, args.k)
            out["quality"] = {m: {"all": d["all"], "sets": d["sets"]} for m, d in report.items()}
    if args.speed:
        workdir = tempfile.mkdtemp(prefix="semantic-bench-")
        try:
            rows = [bench_size(int(n), args.sample, workdir, args.runs) for n in args.sizes.split(",")]
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        print_speed(rows)
        out["speed"] = rows
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
