#!/usr/bin/env python3
"""Finding one session among near-duplicates: Hit@1 and Hit@5 of `search_vault`, one query each.

usage: python benchmarks/session_families.py [--baseline REF] [--modes fulltext,hybrid] [--show]

The sessions: ten families of four near-duplicates (the same surface problem in other
repositories, hosts, versions, causes and fixes), made with the real Claude Code client offline
and archived by our installed hooks (benchmarks/session_families/make_sessions.py; made once into
the cache folder, ~10 minutes). They sit beside the Obsidian Help vault (../shared/eval, 171 notes;
left out, and said so, when ../shared is absent) in one vault, as a user's sessions sit beside
their notes. The queries: benchmarks/session_families/queries.json, 80 "find the session where we
fixed X" written from one-line descriptions before the sessions existed (README there), split
once into dev and test; each is searched alone, from the folder it was asked from (its own
repository, the home folder or another repository), over the whole vault, as the skill runs it.

Two versions of the code rank the same vault in one run: the checkout (`new`) and REF (`old`,
default main, exported with `git archive` into the cache folder), each in its own process with
its own index and vector store (`obsidian_memory.py embed` once per version). Printed per mode
(index = fulltext, hybrid) and half: Hit@1, Hit@5, MRR@5 of old and new; then by where the query
was asked from and by how many content words it shares with its session's note (at most one,
or more). Tune on dev; look at test once.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "benchmarks" / "session_families"
HELP_VAULT = REPO.parent / "shared" / "eval" / "obsidian-help-en"
DEPTH = 5
MODES = ("fulltext", "hybrid")
LABEL = {"fulltext": "index", "hybrid": "hybrid", "semantic": "semantic"}


# -- the worker: one version of the code, in its own process ----------------------------------------

def worker(code: str, vault: str, cache: str, mode: str, jobs_file: str) -> int:
    """Prints one JSON line per query: its id and the ranked paths. Runs `search_vault.py`'s main
    (the skill's command, without a process per query) with `code` first on sys.path, in the
    folder each query was asked from."""
    import contextlib
    import io

    sys.path.insert(0, code)
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = cache
    from obsidian_memory.search.cli import main as search_vault

    for job in json.loads(Path(jobs_file).read_text(encoding="utf-8")):
        os.chdir(job["cwd"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = search_vault(["--vault", vault, "--source", "index", "--mode", mode, "-n", str(DEPTH), "--json",
                                   job["query"]])
        if status != 0:
            raise SystemExit(f"search_vault.py failed for {job['id']}")
        paths = [hit["path"] for hit in json.loads(out.getvalue())["results"]]
        print(json.dumps({"id": job["id"], "paths": paths}), flush=True)
    return 0


def run_worker(code: Path, vault: Path, cache: Path, mode: str, jobs: list[dict]) -> dict[str, list[str]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
        json.dump(jobs, handle)
    try:
        done = subprocess.run([sys.executable, __file__, "--worker", str(code), str(vault), str(cache), mode,
                               handle.name], capture_output=True, text=True, env=_env(cache))
    finally:
        os.unlink(handle.name)
    if done.returncode != 0:
        raise SystemExit(f"the {code} worker failed ({mode}):\n{done.stderr[-3000:]}")
    return {row["id"]: row["paths"] for row in map(json.loads, done.stdout.splitlines())}


def _env(cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OBSIDIAN", "OMNISEARCH", "CLAUDE"))}
    return {**env, "OBSIDIAN_MEMORY_CACHE_DIR": str(cache), "OMNISEARCH_PORT": "9"}


def embed(code: Path, vault: Path, cache: Path, seeds: list[Path]) -> None:
    """The vault embedded by `code` into its own cache; a cache without a vector store starts
    from a copy of the largest of the seeds' stores made before the chunking was versioned
    (vectors are stored by their text's hash: a newer chunking embeds only the chunks whose text
    differs, as when a user upgrades)."""
    import sqlite3

    def unmarked(store: Path) -> bool:      # chunked as before CHUNKING existed: right for old code, upgraded by new
        with sqlite3.connect(store) as conn:
            return conn.execute("SELECT 1 FROM meta WHERE key = 'chunking'").fetchone() is None

    stores = sorted((store for seed in seeds for store in seed.glob("vectors-*.sqlite") if unmarked(store)),
                    key=lambda p: p.stat().st_size)
    if stores and not list(cache.glob("vectors-*.sqlite")):
        cache.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(stores[-1]) as source, sqlite3.connect(cache / stores[-1].name) as copy:
            source.backup(copy)
    # vectors.embed_vault in a process of its own, at normal priority (`embed` lowers its own,
    # which on a machine shared with other work makes it crawl); the quality is the same
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from obsidian_memory.core import settings;"
              " from obsidian_memory.search.store import vectors;"
              " print(vectors.embed_vault(settings.load(vault=sys.argv[2]), progress=False).summary())")
    done = subprocess.run([sys.executable, "-c", script, str(code), str(vault)], capture_output=True, text=True,
                          env=_env(cache))
    if done.returncode != 0:
        raise SystemExit(f"embed with {code} failed: {done.stderr[-2000:]}")


# -- the machine, the vault, the old code ----------------------------------------------------------

def search_vault(machine: Path) -> Path:
    """The vault searched: the machine's (its session notes and views) and the Help vault's notes,
    made once beside the machine (so that the indexes and vector stores in the cache stay valid)."""
    vault = machine / "search-vault"
    if (vault / ".complete").exists():
        return vault
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(machine / "vault", vault)
    if HELP_VAULT.is_dir():
        for entry in HELP_VAULT.iterdir():
            target = vault / entry.name
            if entry.is_dir():
                shutil.copytree(entry, target, dirs_exist_ok=True)
            else:
                shutil.copyfile(entry, target)
    (vault / ".complete").write_text("", encoding="utf-8")
    return vault


def exported(ref: str, into: Path) -> Path:
    """`ref` of this repository exported with `git archive` into `into/<sha>` (once)."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", ref], capture_output=True, text=True,
                         check=True).stdout.strip()
    folder = into / f"code-{sha}"
    if not (folder / "obsidian_memory").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


# -- measuring --------------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset("""a an and are as at be but by can do does did for from had has have how i if in into is it its me my
no not of on or our so than that the their them then there these they this to was we were what when where which
who why will with would you your after because got get kept its one two all back off out up over
""".split())


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP and len(w) > 1}


def jobs_for(queries: list[dict], machine: Path) -> list[dict]:
    home = machine / "home"
    return [{"id": q["id"], "query": q["query"], "cwd": str(home / "work" / q["cwd"] if q["cwd"] else home)}
            for q in queries]


def rank_of(paths: list[str], note: str) -> int | None:
    return next((i + 1 for i, path in enumerate(paths) if path == note), None)


def figures(queries: list[dict], ranks: dict[str, int | None]) -> tuple[float, float, float]:
    if not queries:
        return 0.0, 0.0, 0.0
    got = [ranks[q["id"]] for q in queries]
    n = len(got)
    return (sum(1 for r in got if r == 1) / n, sum(1 for r in got if r is not None) / n,
            sum(1 / r for r in got if r is not None) / n)


def print_table(title: str, groups: list[tuple[str, list[dict]]], old: dict, new: dict) -> None:
    print(f"\n{title}")
    print(f"  {'':<24} {'n':>3}   {'Hit@1 old':>9} {'new':>6}   {'Hit@5 old':>9} {'new':>6}   {'MRR old':>7} {'new':>6}")
    for name, part in groups:
        o, n = figures(part, old), figures(part, new)
        print(f"  {name:<24} {len(part):>3}   {o[0]:>9.3f} {n[0]:>6.3f}   {o[1]:>9.3f} {n[1]:>6.3f}   "
              f"{o[2]:>7.3f} {n[2]:>6.3f}")


def print_timing(versions: dict, vault: Path, machine: Path, jobs: list[dict], modes: list[str]) -> None:
    """Wall time of whole `search_vault.py` processes as the skill runs them (in the query's
    folder), old and new alternated query by query: medians and new/old."""
    import statistics
    import time

    print(f"\nwhole search_vault.py processes, {len(jobs)} queries, old and new alternated (median ms)")
    for mode in modes:
        times: dict[str, list[float]] = {name: [] for name in versions}
        for job in jobs:
            for name, code in versions.items():
                cache = machine / f"cache-{code.name if code != REPO else 'checkout'}"
                started = time.perf_counter()
                subprocess.run([sys.executable, str(code / "scripts" / "search_vault.py"), "--vault", str(vault),
                                "--source", "index", "--mode", mode, "-n", str(DEPTH), job["query"]],
                               capture_output=True, cwd=job["cwd"], env=_env(cache), check=True)
                times[name].append((time.perf_counter() - started) * 1000)
        old, new = statistics.median(times["old"]), statistics.median(times["new"])
        print(f"  {LABEL[mode]:<8} old {old:7.1f}  new {new:7.1f}  new/old {new / old:.2f}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        return worker(*argv[1:6])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="the old code: a git ref of this repository (default main)")
    parser.add_argument("--new", default=None, help="the new code: a git ref (default: the checkout as it is)")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--split", default="dev,test", help="halves to print (tune on dev; look at test once)")
    parser.add_argument("--queries", default="queries.json",
                        help="the judged queries, in benchmarks/session_families/ (blind_queries.json: the held-out set "
                             "a writer who saw only descriptions.md wrote after the ranking work)")
    parser.add_argument("--show", action="store_true", help="each query's rank and the top notes (new)")
    parser.add_argument("--timing", type=int, default=0, metavar="N",
                        help="also time N whole search_vault.py processes per version and mode, old and new alternated")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(SET))
    from make_sessions import ensure_machine

    machine = ensure_machine()
    manifest = json.loads((machine / "manifest.json").read_text(encoding="utf-8"))
    vault = search_vault(machine)
    if not HELP_VAULT.is_dir():
        print(f"note: {HELP_VAULT} is absent: the sessions are searched without the Help vault beside them")
    queries = json.loads((SET / args.queries).read_text(encoding="utf-8"))["queries"]
    halves = args.split.split(",")
    queries = [q for q in queries if q["split"] in halves]
    note_of = {key: entry["note"] for key, entry in manifest.items()}
    for q in queries:
        text = (vault / note_of[q["session"]]).read_text(encoding="utf-8")
        q["shared"] = len(content_words(q["query"]) & content_words(text))
    versions = {"old": exported(args.baseline, machine.parent),
                "new": exported(args.new, machine.parent) if args.new else REPO}
    jobs = jobs_for(queries, machine)
    print(f"{len(manifest)} sessions in {len({e['repo'] for e in manifest.values()})} repositories, "
          f"{sum(1 for _ in vault.rglob('*.md'))} notes in the vault; {len(queries)} queries ({args.split}); "
          f"old = {args.baseline} ({versions['old'].name}), new = {args.new or 'the checkout'} ({versions['new'].name})")
    for mode in args.modes.split(","):
        ranks = {}
        for name, code in versions.items():
            cache = machine / f"cache-{code.name if code != REPO else 'checkout'}"
            if mode == "hybrid":
                embed(code, vault, cache, seeds=sorted(machine.glob("cache-*")))
            found = run_worker(code, vault, cache, mode, jobs)
            ranks[name] = {q["id"]: rank_of(found[q["id"]], note_of[q["session"]]) for q in queries}
            if name == "new":
                for q in queries:
                    q["found"] = found[q["id"]]
        key_of = {v: k for k, v in note_of.items()}
        print_table(f"{LABEL[mode]} ({mode}): by half, and by batch within it",
                    [(f"{h} {b}", [q for q in queries if q["split"] == h and b in ("all", q["batch"])])
                     for h in halves for b in ("all", *sorted({q["batch"] for q in queries}))], ranks["old"], ranks["new"])
        for half in halves:
            part = [q for q in queries if q["split"] == half]
            print_table(f"{LABEL[mode]}, {half}: by where it was asked and by words shared with the note",
                        [(f"asked from {p}", [q for q in part if q["asked_from"] == p]) for p in ("own", "home", "other")]
                        + [("shares <= 1 word", [q for q in part if q["shared"] <= 1]),
                           ("shares >= 2 words", [q for q in part if q["shared"] >= 2])],
                        ranks["old"], ranks["new"])
        if args.show:
            for q in queries:
                top = [key_of.get(p, Path(p).stem[:24]) for p in q["found"]]
                print(f"  [{q['split']} {q['batch']:<5}] {q['id']:<7} old {ranks['old'][q['id']]!s:>4} new {ranks['new'][q['id']]!s:>4}"
                      f"  ({q['asked_from']:<5} shares {q['shared']}) {q['query']!r} -> {top}")
    if args.timing:
        print_timing(versions, vault, machine, jobs[:args.timing], args.modes.split(","))
    print("\ntargets: index Hit@5 >= 0.85; hybrid Hit@1 >= 0.80, Hit@5 >= 0.92")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
