#!/usr/bin/env python3
"""Speed of the local index on synthetic vaults (1k, 10k, 20k notes of ~5 KB).

For each size, in one run: the full build, the freshness check with nothing changed, the
in-process query latency (p50/p95, with the index fresh and not re-checked, and with the
freshness check a search does first), an incremental update after touching a few notes, and
the whole-process time of `search_vault.py --source index` against `--source scan` as a ratio.

    .venv/bin/python benchmarks/index_speed.py [--sizes 1000,10000,20000] [--runs 3]
    .venv/bin/python benchmarks/index_speed.py --vault ../shared/eval/obsidian-help-en [--baseline DIR]

The build figures include the link graph: `links` stored, `link_s` the time spent resolving
them (the parse of the links is in the build time). The index file's size is broken down by
table and index (SQLite's `dbstat`), for the old package beside the new with `--baseline`.
`--vault` times only full builds of an existing vault. `--baseline DIR` (a checkout or copy holding an older `obsidian_memory` package
and `scripts/`, e.g. `git worktree add /tmp/old <commit>`) measures that package too, in turn
and in its own process, and prints new/old per column (with `--vault`: of the full build).

The whole search processes run as install.py sets them up (the base Python with -S, the
launchers in bin/, the venv): the new package's index and scan, and with `--baseline` the old
package's too (on its own index of the same vault), all four taking turns in one loop, so that
the wall and CPU ratios printed for them (index over scan, new over old) come from one run.

Targets at 20k notes: query p50 <= 20 ms, freshness <= 100 ms, whole process index >= 10x
faster than scan (issue 20), index file <= 1.2x the vault, full build <= 30 s. The machine is
shared: compare ratios from one run; the whole processes take turns and their CPU time is
printed beside the wall time (steadier under load).
"""
from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `--package DIR` (used by --baseline) measures the obsidian_memory package under DIR instead
PACKAGE = sys.argv[sys.argv.index("--package") + 1] if "--package" in sys.argv else REPO
sys.path.insert(0, PACKAGE)

from obsidian_memory.core import settings as settings_module  # noqa: E402
from obsidian_memory.search.base import Query  # noqa: E402

try:        # the package measured: a vault index object
    from obsidian_memory.search.engines import fulltext  # noqa: E402
    from obsidian_memory.search import store  # noqa: E402

    def update_index(settings, **options):
        return store.update(settings, **options)

    def open_index(settings):
        """The index as it is, and the fulltext ranking of a query on it."""
        index = store.VaultIndex.open(settings)
        return index, lambda query: fulltext.search(index, query), index.conn

    def search_fresh(settings, query):
        with store.VaultIndex.open_fresh(settings) as index:
            return fulltext.search(index, query)
except ImportError:     # an older package (--baseline): modules instead of the object
    from obsidian_memory.search import index as old_index, index_query as old_query  # noqa: E402

    def update_index(settings, **options):
        return old_index.update(settings, **options)

    def open_index(settings):
        conn = old_index.open_index(settings)
        return conn, lambda query: old_query.search(conn, query), conn

    def search_fresh(settings, query):
        return old_index.search(settings, query)

SEARCH_CLI = os.path.join(PACKAGE, "scripts", "search_vault.py")
COMMON = ("the of and to in is that for it as with on be this are by from or at an you your note notes "
          "vault link file folder plugin setting open create search sync tag page text view edit").split()
FOLDERS = ["Projects", "Projects/Alpha", "Projects/Beta", "Areas/Health", "Areas/Work", "Resources/Reading",
           "Resources/Code", "Journal/2024", "Journal/2025", "Archive", "Inbox", "People"]


class Words:
    """A Zipf-like vocabulary of pronounceable made-up words plus common English ones."""

    def __init__(self, rng: random.Random, size: int = 40_000):
        syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["qu", "th", "sh", "ch"]
        seen, vocab = set(), []
        while len(vocab) < size:
            word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
            if word not in seen:
                seen.add(word)
                vocab.append(word)
        self.vocab = vocab
        self.cum_weights = list(itertools.accumulate(1.0 / (rank + 10) for rank in range(size)))
        self.rng = rng

    def sample(self, n: int) -> list[str]:
        picks = self.rng.choices(self.vocab, cum_weights=self.cum_weights, k=n)
        return [self.rng.choice(COMMON) if self.rng.random() < 0.35 else w for w in picks]

    def sentence(self, n: int) -> str:
        text = " ".join(self.sample(n))
        return text[0].upper() + text[1:] + "."


def generate_vault(root: str, count: int, seed: int = 7) -> list[str]:
    """`count` notes of ~5 KB: frontmatter, headings, paragraphs, lists, links, tags, code."""
    rng = random.Random(seed)
    words = Words(rng)
    titles = [" ".join(words.rng.sample(words.vocab[:8000], rng.randint(1, 3))).title() + f" {i}"
              for i in range(count)]
    for i, title in enumerate(titles):
        folder = FOLDERS[i % len(FOLDERS)]
        os.makedirs(os.path.join(root, folder), exist_ok=True)
        tags = rng.sample(["project", "idea", "meeting", "reading", "health/sleep", "code/python", "todo"], 2)
        parts = ["---", f"aliases: [{words.sample(1)[0]} {i}]", f"tags: [{', '.join(tags)}]",
                 f"status: {rng.choice(['draft', 'done', 'active'])}", f"created: 2025-0{1 + i % 9}-1{i % 9}",
                 "---", ""]
        size = 0
        while size < 4800:
            parts.append(f"## {words.sentence(rng.randint(2, 5))[:-1]}")
            for _ in range(rng.randint(1, 3)):
                text = words.sentence(rng.randint(30, 70))
                if rng.random() < 0.5:
                    text += f" See [[{rng.choice(titles)}]] and [[{rng.choice(titles)}|that note]]."
                if rng.random() < 0.3:
                    text += f" #{rng.choice(tags)}"
                parts.append(text)
                size += len(text)
            if rng.random() < 0.3:
                parts += ["- " + words.sentence(8) for _ in range(3)]
            if rng.random() < 0.15:
                parts += ["```python", f"def {words.sample(1)[0]}(x):", "    return x * 2", "```"]
            parts.append("")
        with open(os.path.join(root, folder, f"{title}.md"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(parts))
    return words.vocab


def queries_for(vocab: list[str], rng: random.Random) -> list[str]:
    mid = vocab[200:4000]
    out = []
    for _ in range(10):
        out.append(rng.choice(mid))                                   # one word
        out.append(" ".join(rng.sample(mid, 2)))                      # two words
        out.append(" ".join(rng.sample(mid, 3)) + " note")            # three words and a common one
        word = rng.choice(mid)
        pos = rng.randrange(1, len(word) - 1)
        out.append(word[:pos] + word[pos + 1:])                       # a typo (deletion)
        out.append(rng.choice(mid)[:4])                               # a prefix being typed
    out += ['"' + " ".join(rng.sample(mid, 2)) + '"', "how do I sync my notes", "project (alpha) -beta: *"]
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def installed_search(package_root: str, home: str) -> list[str]:
    """`search_vault.py` as install.py sets it up, for the package under `package_root`: the base
    Python without `site` (-S), the launchers copied to bin/, beside a venv holding the package
    (here a .pth naming its folder). The prefix of a command; the search's arguments follow."""
    ours = os.path.join(home, "obsidian-memory")
    bin_dir = os.path.join(ours, "bin")
    os.makedirs(bin_dir)
    for name in ("search_vault.py", "_launcher.py"):
        shutil.copy2(os.path.join(package_root, "scripts", name), bin_dir)
    base = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    venv = os.path.join(ours, "venv")
    subprocess.run([base, "-m", "venv", "--without-pip", venv], check=True)
    (site,) = [os.path.join(d, "site-packages") for d in glob.glob(os.path.join(venv, "lib", "python*"))] or \
        [os.path.join(venv, "Lib", "site-packages")]
    with open(os.path.join(site, "obsidian_memory.pth"), "w", encoding="utf-8") as handle:
        handle.write(os.path.abspath(package_root) + "\n")
        handle.write("".join(path + "\n" for path in dependency_folders()))
    return [base, "-S", os.path.join(bin_dir, "search_vault.py")]


def dependency_folders() -> list[str]:
    """Where this Python finds the dependencies a search may import that pip puts in an install's
    venv (sqlean.py: the index's SQLite where Python's own is older than 3.43), so that the
    processes use the SQLite an install does (without it, an index built here would be rebuilt)."""
    import importlib.util

    found = importlib.util.find_spec("sqlean")
    return [os.path.dirname(os.path.dirname(found.origin))] if found and found.origin else []


def run_once(command: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and any it waited for)."""
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    error = child.stderr.read()
    child.stderr.close()
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}): {error.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


LOAD = "load average"         # whole_processes: the machine's 1-minute load average before and after them


def whole_processes(commands: dict, runs: int) -> dict:
    """{name: (median wall seconds, median CPU seconds)} of whole search processes, given as
    {name: (command, env)}, and {LOAD: (the load average before, after)}. They take turns, so that load on the shared machine hits them alike;
    CPU time (user + system) is the steadier figure when other work shares the cores. Byte code is
    written and used, as in an install (pip compiles it): one run of each first, not counted."""
    times: dict = {name: [] for name in commands}
    load_before = os.getloadavg()[0]
    for run in range(runs + 1):
        for name, (command, env) in commands.items():
            measured = run_once(command, {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"})
            if run:
                times[name].append(measured)
    medians = {name: (statistics.median(w for w, _ in found), statistics.median(c for _, c in found))
               for name, found in times.items()}
    return {**medians, LOAD: (load_before, os.getloadavg()[0])}


def process_commands(package_root: str, workdir: str, vault: str, cache: str, query: str, label: str) -> dict:
    """{"<label> index": ..., "<label> scan": ...}: `search_vault.py --source index|scan` of the package
    under `package_root`, as installed (its index in `cache`)."""
    home = tempfile.mkdtemp(prefix=f"home-{label}-", dir=workdir)
    prefix = installed_search(package_root, home)
    env = dict(os.environ, OBSIDIAN_MEMORY_CACHE_DIR=cache, OMNISEARCH_PORT="9", CLAUDE_CONFIG_DIR=home)
    env.pop("PYTHONPATH", None)
    return {f"{label} {source}": ([*prefix, "--source", source, "--vault", vault, "-n", "5", query], env)
            for source in ("index", "scan")}


def bench(count: int, runs: int, workdir: str, baseline: str | None = None) -> dict:
    vault = os.path.join(workdir, f"vault-{count}")
    cache = os.path.join(workdir, f"cache-{count}")
    started = time.perf_counter()
    vocab = generate_vault(vault, count)
    generated = time.perf_counter() - started
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = cache
    settings = settings_module.load(vault=vault)
    started = time.perf_counter()
    build = update_index(settings, progress=False)
    build_seconds = time.perf_counter() - started
    links = _link_counts(settings)
    fresh_times = []
    for _ in range(7):
        started = time.perf_counter()
        stats = update_index(settings)
        fresh_times.append(time.perf_counter() - started)
        assert stats.changed == 0, stats
    rng = random.Random(count)
    queries = queries_for(vocab, rng)
    index, rank, _ = open_index(settings)
    latencies = []
    for _ in range(3):
        for text in queries:
            started = time.perf_counter()
            rank(Query(text, limit=10))
            latencies.append(time.perf_counter() - started)
    index.close()
    with_check = []
    for text in queries[:20]:
        started = time.perf_counter()
        search_fresh(settings, Query(text, limit=10))
        with_check.append(time.perf_counter() - started)
    touched = sorted(os.path.join(d, f) for d, _, fs in os.walk(vault) for f in fs)[:5]
    for path in touched:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("\nAn appended line.\n")
    started = time.perf_counter()
    incremental = update_index(settings)
    incremental_seconds = time.perf_counter() - started
    query = " ".join(vocab[500:502])
    commands = process_commands(PACKAGE, workdir, vault, cache, query, "new")
    if baseline:
        old_cache = os.path.join(workdir, f"cache-{count}-baseline")
        build_times(baseline, vault, 1, old_cache)           # the old package's own index of the same vault
        commands.update(process_commands(baseline, workdir, vault, old_cache, query, "old"))
    processes = whole_processes(commands, runs)
    (proc_index, cpu_index), (proc_scan, cpu_scan) = processes["new index"], processes["new scan"]
    size = sum(os.path.getsize(os.path.join(cache, f)) for f in os.listdir(cache))
    vault_bytes = _tree_size(vault)
    breakdown = size_breakdown(cache)
    return {"notes": count, "generated_s": generated, "vault_mb": vault_bytes / 1e6,
            "build_s": build_seconds, "built": build.added, "link_s": build.link_seconds,
            "links": links[0], "unresolved": links[1], "index_mb": size / 1e6, "index_vs_vault": size / vault_bytes,
            "fresh_ms": statistics.median(fresh_times) * 1000,
            "query_p50_ms": percentile(latencies, 0.5) * 1000, "query_p95_ms": percentile(latencies, 0.95) * 1000,
            "search_with_check_p50_ms": percentile(with_check, 0.5) * 1000,
            "incremental_5_ms": incremental_seconds * 1000, "incremental_updated": incremental.updated,
            "process_index_s": proc_index, "process_scan_s": proc_scan, "ratio": proc_scan / proc_index,
            "cpu_index_s": cpu_index, "cpu_scan_s": cpu_scan, "cpu_ratio": cpu_scan / cpu_index,
            "processes": processes, "breakdown": breakdown}


def _link_counts(settings) -> tuple[int, int]:
    index, _, conn = open_index(settings)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(links)")}
        target = "target_id" if "target_id" in columns else "target_path"     # (an older package: paths)
        return conn.execute(f"SELECT count(*), count(*) - count({target}) FROM links").fetchone()
    finally:
        index.close()


def size_breakdown(cache: str) -> dict[str, float]:
    """{table or index: MB} of the index file in `cache`, the largest first (SQLite's dbstat)."""
    found = {}
    for name in sorted(os.listdir(cache)):
        if name.startswith("index-") and name.endswith(".sqlite"):
            conn = sqlite3.connect(f"file:{os.path.join(cache, name)}?mode=ro", uri=True)
            try:
                rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
            except sqlite3.OperationalError:      # a SQLite built without dbstat
                rows = []
            finally:
                conn.close()
            found.update((table, size / 1e6) for table, size in rows)
    return found


BUILD_SCRIPT = r"""
import os, sys, tempfile, shutil, time, statistics
sys.path.insert(0, sys.argv[1])
from obsidian_memory.core import settings as settings_module
try:
    from obsidian_memory.search.store import update
except ImportError:         # an older package
    from obsidian_memory.search.index import update
times = []
for _ in range(int(sys.argv[3])):
    cache = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp(prefix="om-build-")
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = cache
    started = time.perf_counter()
    stats = update(settings_module.load(vault=sys.argv[2]), progress=False)
    times.append(time.perf_counter() - started)
    if len(sys.argv) <= 4:
        shutil.rmtree(cache, ignore_errors=True)
print(stats.added, statistics.median(times))
"""


def build_times(package_root: str, vault: str, runs: int, keep_in: str | None = None) -> tuple[int, float]:
    """(notes, median full-build seconds) with the `obsidian_memory` package under `package_root`,
    in a fresh process so that two versions never share imported modules (`keep_in`: the cache
    folder to build in and keep)."""
    out = subprocess.run([sys.executable, "-c", BUILD_SCRIPT, package_root, vault, str(runs), *([keep_in] if keep_in else [])],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), float(out[1])


def bench_vault(vault: str, runs: int, baseline: str | None) -> None:
    rounds = []
    for _ in range(max(1, runs)):       # alternated, so that load on the shared machine hits both alike
        new = build_times(REPO, vault, 1)
        old = build_times(baseline, vault, 1) if baseline else None
        rounds.append((new, old))
    notes = rounds[0][0][0]
    new_s = statistics.median(r[0][1] for r in rounds)
    line = f"{vault}: {notes} notes, full build {new_s:.3f} s (median of {len(rounds)})"
    if baseline:
        old_s = statistics.median(r[1][1] for r in rounds)
        line += f"; baseline {old_s:.3f} s; new/old {new_s / old_s:.2f}"
    print(line, flush=True)


def _tree_size(root: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,20000")
    parser.add_argument("--runs", type=int, default=3, help="whole-process runs per source (median)")
    parser.add_argument("--keep", action="store_true", help="keep the generated vaults and indexes")
    parser.add_argument("--vault", action="append", default=[], help="time full builds of this vault instead")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="also measure the obsidian_memory package under DIR, and print new/old")
    parser.add_argument("--package", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.vault:
        for vault in args.vault:
            bench_vault(os.path.abspath(vault), args.runs, os.path.abspath(args.baseline) if args.baseline else None)
        return 0
    workdir = tempfile.mkdtemp(prefix="om-index-bench-")
    rows, old_rows = [], []
    try:
        for count in (int(s) for s in args.sizes.split(",")):
            row = bench(count, args.runs, workdir, os.path.abspath(args.baseline) if args.baseline else None)
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
                continue
            print(f"{count} notes: " + ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                               for k, v in row.items() if k not in ("notes", "processes", "breakdown")), flush=True)
            print_processes(row)
            if args.baseline:
                old_rows.append(baseline_row(args.baseline, count, args.runs))
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        return 0
    print()
    if old_rows:
        print_tables(rows, "new")
        print()
        print_tables(old_rows, f"baseline {args.baseline}")
        print()
        print_ratios(rows, old_rows)
        print()
        print_breakdowns(rows, old_rows)
        return 0
    print_tables(rows)
    print()
    print_breakdowns(rows, [])
    return 0


def baseline_row(baseline: str, count: int, runs: int) -> dict:
    """One size measured with the package under `baseline`, in a process of its own."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--package", baseline, "--json",
                          "--sizes", str(count), "--runs", str(runs)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


RATIO_COLUMNS = ("build_s", "index_mb", "index_vs_vault", "fresh_ms", "query_p50_ms", "query_p95_ms", "search_with_check_p50_ms",
                 "incremental_5_ms", "process_index_s", "process_scan_s", "ratio", "cpu_index_s", "cpu_ratio")


def print_ratios(rows: list[dict], old_rows: list[dict]) -> None:
    print("new/old " + " ".join(f"{c:>10}" for c in RATIO_COLUMNS))
    for new, old in zip(rows, old_rows):
        print(f"{new['notes']:>7} " + " ".join(f"{new[c] / old[c]:>10.2f}" if old[c] else f"{'-':>10}"
                                            for c in RATIO_COLUMNS))


def print_processes(row: dict) -> None:
    """The whole search processes of one size, measured in turns in one run: each one's median
    wall and CPU time, the scanner over the index (wall and CPU), and with a baseline the new
    package's index process over the old one's."""
    found = dict(row["processes"])
    before, after = found.pop(LOAD, (None, None))
    load = f", load average {before:.2f} before, {after:.2f} after" if before is not None else ""
    print(f"  whole processes at {row['notes']} notes, as installed ({len(found)} taking turns{load}):")
    for label in ("new", "old"):
        if f"{label} index" not in found:
            continue
        (index_wall, index_cpu), (scan_wall, scan_cpu) = found[f"{label} index"], found[f"{label} scan"]
        print(f"    {label}: index {index_wall * 1000:.0f} ms wall {index_cpu * 1000:.0f} ms CPU, scan "
              f"{scan_wall * 1000:.0f} ms wall {scan_cpu * 1000:.0f} ms CPU: index {scan_wall / index_wall:.1f}x "
              f"faster in wall time, {scan_cpu / index_cpu:.1f}x in CPU", flush=True)
    if "old index" in found:
        (new_wall, new_cpu), (old_wall, old_cpu) = found["new index"], found["old index"]
        print(f"    index process new/old: {new_wall / old_wall:.2f} wall, {new_cpu / old_cpu:.2f} CPU", flush=True)


def print_breakdowns(rows: list[dict], old_rows: list[dict], shown: int = 14) -> None:
    """The index file by table and index, in MB (new, and old beside it when measured)."""
    for number, new in enumerate(rows):
        old = old_rows[number]["breakdown"] if number < len(old_rows) else {}
        names = sorted(set(new["breakdown"]) | set(old), key=lambda n: -max(new["breakdown"].get(n, 0), old.get(n, 0)))
        print(f"index file at {new['notes']} notes, MB by table/index" + (" (new, old)" if old else ""))
        for name in names[:shown]:
            line = f"  {name:<28} {new['breakdown'].get(name, 0):>8.1f}"
            print(line + (f" {old.get(name, 0):>8.1f}" if old else ""))
        rest = names[shown:]
        line = f"  {'(the rest)':<28} {sum(new['breakdown'].get(n, 0) for n in rest):>8.1f}"
        print(line + (f" {sum(old.get(n, 0) for n in rest):>8.1f}" if old else ""))
        total = f"  {'total':<28} {sum(new['breakdown'].values()):>8.1f}"
        print(total + (f" {sum(old.values()):>8.1f}" if old else ""))


def print_tables(rows: list[dict], title: str = "") -> None:
    if title:
        print(title)
    print(f"{'notes':>6} {'links':>7} {'link s':>7} {'unres.':>6}")
    for r in rows:
        print(f"{r['notes']:>6} {r['links']:>7} {r['link_s']:>7.2f} {r['unresolved']:>6}")
    print(f"{'notes':>6} {'vault MB':>8} {'build s':>8} {'index MB':>8} {'/vault':>6} {'fresh ms':>9} {'q p50 ms':>9} "
          f"{'q p95 ms':>9} {'q+check':>8} {'upd 5 ms':>9} {'proc idx s':>10} {'proc scan s':>11} {'ratio':>6} "
          f"{'cpu idx s':>9} {'cpu scan s':>10} {'cpu ratio':>9}")
    for r in rows:
        print(f"{r['notes']:>6} {r['vault_mb']:>8.1f} {r['build_s']:>8.2f} {r['index_mb']:>8.1f} "
              f"{r['index_vs_vault']:>5.2f}x {r['fresh_ms']:>9.1f} "
              f"{r['query_p50_ms']:>9.1f} {r['query_p95_ms']:>9.1f} {r['search_with_check_p50_ms']:>8.1f} "
              f"{r['incremental_5_ms']:>9.1f} {r['process_index_s']:>10.3f} {r['process_scan_s']:>11.3f} "
              f"{r['ratio']:>5.1f}x {r['cpu_index_s']:>9.3f} {r['cpu_scan_s']:>10.3f} {r['cpu_ratio']:>8.1f}x")


if __name__ == "__main__":
    sys.exit(main())
