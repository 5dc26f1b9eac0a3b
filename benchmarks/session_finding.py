#!/usr/bin/env python3
"""Finding a past session with a plain vault search (issue 15): does the search put the right
session note first when someone asks for "the session where we fixed X"?

usage: python benchmarks/session_finding.py [--show] [--keep DIR]

Two machines are built in one temporary folder from the prompt-recall judged set
(benchmarks/recall_set: 53 sessions in seven repositories and the home folder, 150 everyday
sessions around them, archived by the real `import`). They differ only in the session template:
  - before: the note as it was before issue 15 (tests/fixtures/templates/session-before-issue-15.md.j2
    as the user's template override: prompts, summaries, files, tools; no answers, outcome,
    commits, commands or errors);
  - now: the packaged template.
The queries are the judged set's 62 revisits (written by another engineer for issue 17, before
any of this: "stripe webhook signature verification is failing again after the release", a pasted
error line, ...), each relevant to one or two sessions. Each is searched as one query by
`scripts/search_vault.py --source index --mode fulltext --folder <sessions folder>` (the local
engine as it runs when Obsidian does not), and the rank of the first relevant session note is
read. Printed per half (dev, test, all): Hit@1 and Hit@5 of both machines and now/before.
The note size per session is printed too (mean, p95, max, of the judged sessions and of all).

Issue 15's target (measured by the project on a held-out set of real sessions): the right session
first for >= 90 % of the queries.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "benchmarks" / "recall_set"
sys.path[:0] = [str(SET)]

import recall_world as world_module  # noqa: E402

SEARCH = REPO / "scripts" / "search_vault.py"
OLD_TEMPLATE = REPO / "tests" / "fixtures" / "templates" / "session-before-issue-15.md.j2"
SESSIONS_FOLDER = "Meta/claude-sessions"
DEPTH = 5


def load_queries() -> list[dict]:
    prompts = json.loads((SET / "prompts.json").read_text(encoding="utf-8"))["prompts"]
    return [p for p in prompts if p["kind"] == "revisit"]


def build(root: Path, template: Path | None):
    world = world_module.build(root, import_sessions=False)
    if template is not None:
        folder = world.config_dir / "obsidian-memory" / "templates"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, folder / "session.md.j2")
    done = world.run("import")
    if done.returncode != 0:
        raise RuntimeError(f"import failed: {done.stdout.decode()} {done.stderr.decode()}")
    return world


def ranks(world, queries: list[dict]) -> dict[str, int | None]:
    """query id -> the 1-based rank of its first relevant session note in the top DEPTH, or None."""
    key_of = {spec.session_id[:8]: spec.key for spec in world.specs}
    out = {}
    for query in queries:
        done = subprocess.run([sys.executable, str(SEARCH), "--vault", str(world.vault), "--source", "index",
                               "--mode", "fulltext", "--folder", SESSIONS_FOLDER, "-n", str(DEPTH), "--json",
                               query["prompt"]], capture_output=True, env=world.env, cwd=str(world.root))
        if done.returncode != 0:
            raise RuntimeError(f"search failed for {query['id']}: {done.stderr.decode()}")
        hits = json.loads(done.stdout)["results"]
        found = [key_of.get(Path(hit["path"]).stem.rsplit("_", 1)[-1]) for hit in hits]
        query.setdefault("found", {})[world.root.name] = found
        out[query["id"]] = next((i + 1 for i, key in enumerate(found) if key in query["relevant"]), None)
    return out


def hit_at(part: list[dict], rank: dict, depth: int) -> float:
    return sum(1 for q in part if rank[q["id"]] is not None and rank[q["id"]] <= depth) / len(part)


def note_sizes(world, keys: set[str] | None) -> list[int]:
    wanted = {spec.session_id[:8] for spec in world.specs if keys is None or spec.key in keys}
    return [path.stat().st_size for path in (world.vault / SESSIONS_FOLDER).rglob("*.md")
            if path.stem.rsplit("_", 1)[-1] in wanted]


def print_sizes(name: str, sizes: list[int]) -> None:
    ordered = sorted(sizes)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(f"  {name:<22} {len(sizes):>4} notes  mean {statistics.mean(sizes) / 1000:6.1f} KB  "
          f"p95 {p95 / 1000:6.1f} KB  max {ordered[-1] / 1000:6.1f} KB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print each query's top results")
    parser.add_argument("--keep", metavar="DIR", help="build the machines in DIR and keep them")
    args = parser.parse_args()
    queries = load_queries()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="session-finding-"))
    try:
        before = build(root / "before", OLD_TEMPLATE)
        now = build(root / "now", None)
        rank_before, rank_now = ranks(before, queries), ranks(now, queries)
        print(f"{len(queries)} 'find the session where we ...' queries (the recall set's revisits), "
              f"{len(now.specs)} sessions; local index, fulltext, sessions folder only\n")
        print(f"{'half':<5} {'queries':>7}   {'Hit@1 before':>12} {'Hit@1 now':>9} {'now/before':>10}   "
              f"{'Hit@5 before':>12} {'Hit@5 now':>9} {'now/before':>10}")
        for half in ("dev", "test", "all"):
            part = [q for q in queries if half == "all" or q["split"] == half]
            h1b, h1n = hit_at(part, rank_before, 1), hit_at(part, rank_now, 1)
            h5b, h5n = hit_at(part, rank_before, DEPTH), hit_at(part, rank_now, DEPTH)
            print(f"{half:<5} {len(part):>7}   {h1b:>12.1%} {h1n:>9.1%} {h1n / h1b if h1b else float('inf'):>9.2f}x   "
                  f"{h5b:>12.1%} {h5n:>9.1%} {h5n / h5b if h5b else float('inf'):>9.2f}x")
        print("target: the right session first for >= 90 % of the queries\n")
        judged = {spec.key for spec in now.specs if not spec.key.startswith("filler")}
        print("note size per session:")
        for name, world in (("before", before), ("now", now)):
            print_sizes(f"{name}, judged sessions", note_sizes(world, judged))
            print_sizes(f"{name}, all sessions", note_sizes(world, None))
        if args.show:
            for q in queries:
                print(f"\n[{q['split']}] {q['id']} {q['prompt']!r}  relevant {q['relevant']}")
                print(f"    before (rank {rank_before[q['id']]}): {q['found']['before']}")
                print(f"    now    (rank {rank_now[q['id']]}): {q['found']['now']}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
